"""Room options (RULES §3)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hzmj.rules import Rules, RulesError


def test_rules_3_defaults_match_the_table() -> None:
    assert Rules().to_dict() == {
        "players": 4,
        "drop_bamboo": False,
        "match_mode": "hands",
        "hands": 8,
        "start_points": 50,
        "base_score": 1,
        "caishen_mode": "flip",
        "dealer_start_level": 1,
        "discard_win": False,
        "three_tan_contract": True,
        "pong_counts_as_tan": True,
        "must_baotou_with_caishen": False,
        "cap": None,
        "claim_seconds": 3,
        "turn_seconds": 15,
        "claim_pause_ms": 500,
    }


@pytest.mark.parametrize(("key", "value"), [
    ("players", 2), ("players", 3),
    ("match_mode", "points"),
    ("hands", 16),
    ("start_points", 40), ("start_points", 60),
    ("base_score", 2), ("base_score", 5), ("base_score", 37),
    ("caishen_mode", "white"),
    ("dealer_start_level", 2), ("dealer_start_level", 3),
    ("discard_win", True),
    ("three_tan_contract", False),
    ("pong_counts_as_tan", False),
    ("must_baotou_with_caishen", True),
    ("cap", 64), ("cap", 128), ("cap", 256),
    ("claim_seconds", 10),
    ("turn_seconds", 30),
    ("claim_pause_ms", 0), ("claim_pause_ms", 5000),
    ("base_score", 1000), ("claim_seconds", 60), ("turn_seconds", 600),
])
def test_rules_3_every_listed_value_is_accepted(key: str, value: Any) -> None:
    assert getattr(Rules(**{key: value}), key) == value


@pytest.mark.parametrize(("key", "value"), [
    ("players", 1), ("players", 5), ("players", "4"), ("players", True),
    ("drop_bamboo", 1), ("drop_bamboo", "true"),
    ("match_mode", "rounds"),
    ("hands", 7), ("hands", 0),
    ("start_points", 45),
    ("base_score", 0), ("base_score", -1), ("base_score", 1.5), ("base_score", True),
    ("caishen_mode", "red"),
    ("dealer_start_level", 0), ("dealer_start_level", 4),
    ("discard_win", None),
    ("three_tan_contract", "yes"),
    ("pong_counts_as_tan", 0),
    ("must_baotou_with_caishen", 1),
    ("cap", 100), ("cap", 0), ("cap", 32), ("cap", False),
    ("claim_seconds", 0),
    ("turn_seconds", -5),
    # exact types (RULES §3: integers are integers): floats, bools and strings are refused
    ("players", 4.0), ("hands", 8.0), ("start_points", 50.0), ("dealer_start_level", 1.0),
    ("cap", 64.0), ("claim_seconds", 3.0), ("turn_seconds", "15"), ("match_mode", b"hands"),
    # bounds: no endless clock, no score that overflows a column
    ("claim_seconds", 61), ("turn_seconds", 601), ("turn_seconds", 10**400),
    ("base_score", 1001), ("base_score", 2**63),
    ("claim_pause_ms", -1), ("claim_pause_ms", 5001), ("claim_pause_ms", 0.5),
    ("claim_pause_ms", None),
])
def test_rules_3_bad_value_names_the_key(key: str, value: Any) -> None:
    with pytest.raises(RulesError) as info:
        Rules(**{key: value})
    assert info.value.key == key
    assert str(info.value).startswith(f"{key}: ")
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("players", [3, 4])
def test_rules_3_drop_bamboo_needs_two_players(players: int) -> None:
    with pytest.raises(RulesError) as info:
        Rules(players=players, drop_bamboo=True)
    assert info.value.key == "drop_bamboo"


def test_rules_3_drop_bamboo_with_two_players() -> None:
    assert Rules(players=2, drop_bamboo=True).drop_bamboo is True


def test_rules_3_unknown_key_is_rejected() -> None:
    with pytest.raises(RulesError) as info:
        Rules.from_dict({"players": 2, "flowers": True})
    assert info.value.key == "flowers"


def test_rules_3_is_immutable_and_replace_validates() -> None:
    r = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.players = 2  # type: ignore[misc]
    assert r.replace(players=2).players == 2
    with pytest.raises(RulesError) as info:
        r.replace(hands=7)
    assert info.value.key == "hands"


valid_rules = st.builds(
    Rules,
    players=st.just(2),
    drop_bamboo=st.booleans(),
    match_mode=st.sampled_from(["hands", "points"]),
    hands=st.sampled_from([8, 16]),
    start_points=st.sampled_from([40, 50, 60]),
    base_score=st.integers(1, 1000),
    caishen_mode=st.sampled_from(["flip", "white"]),
    dealer_start_level=st.sampled_from([1, 2, 3]),
    discard_win=st.booleans(),
    three_tan_contract=st.booleans(),
    pong_counts_as_tan=st.booleans(),
    must_baotou_with_caishen=st.booleans(),
    cap=st.sampled_from([None, 64, 128, 256]),
    claim_seconds=st.integers(1, 60),
    turn_seconds=st.integers(1, 120),
    claim_pause_ms=st.integers(0, 5000),
) | st.builds(Rules, players=st.sampled_from([3, 4]), cap=st.sampled_from([None, 64]))


@given(valid_rules)
@settings(max_examples=100, deadline=None)
def test_rules_3_json_round_trip(rules: Rules) -> None:
    text = rules.to_json()
    assert json.loads(text) == rules.to_dict()
    assert Rules.from_json(text) == rules
    assert Rules.from_dict(rules.to_dict()) == rules


def test_rules_3_missing_keys_take_defaults() -> None:
    assert Rules.from_json('{"players": 3}') == Rules(players=3)
    assert Rules.from_json("{}") == Rules()


@pytest.mark.parametrize(("text", "key"), [
    ("{players: 2}", "rules"),
    ("[1, 2]", "rules"),
    ('{"players": 5}', "players"),
    ('{"cap": 100}', "cap"),
    ('{"colour": "red"}', "colour"),
])
def test_rules_3_bad_json(text: str, key: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules.from_json(text)
    assert info.value.key == key


def test_rules_3_from_assignments() -> None:
    r = Rules.from_assignments([
        "cap=none", "must_baotou_with_caishen=true", "players=2", "drop_bamboo=yes",
        "caishen_mode=WHITE", "base_score= 5", "discard_win=off",
    ])
    assert r == Rules(cap=None, must_baotou_with_caishen=True, players=2, drop_bamboo=True,
                      caishen_mode="white", base_score=5, discard_win=False)


@pytest.mark.parametrize(("items", "expected"), [
    (["cap=64"], Rules(cap=64)),
    (["cap=64", "cap=none"], Rules()),
    (["three_tan_contract=0"], Rules(three_tan_contract=False)),
    (["match_mode=points", "start_points=40"], Rules(match_mode="points", start_points=40)),
])
def test_rules_3_from_assignments_values(items: list[str], expected: Rules) -> None:
    assert Rules.from_assignments(items) == expected


def test_rules_3_from_assignments_on_a_base() -> None:
    base = Rules(players=2)
    assert Rules.from_assignments(["drop_bamboo=true"], base) == Rules(players=2,
                                                                        drop_bamboo=True)


@pytest.mark.parametrize(("item", "key"), [
    ("flowers=true", "flowers"),
    ("players", "players"),          # no '='
    ("cap=100", "cap"),
    ("cap=lots", "cap"),
    ("hands=eight", "hands"),
    ("discard_win=maybe", "discard_win"),
    ("caishen_mode=red", "caishen_mode"),
    ("drop_bamboo=true", "drop_bamboo"),   # with the default 4 players
])
def test_rules_3_from_assignments_errors_name_the_key(item: str, key: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules.from_assignments([item])
    assert info.value.key == key


@pytest.mark.parametrize("data", [
    {"x" * 5000: 1},
    {"players": "y" * 5000},
    {"caishen_mode": "z" * 3000},
    {"base_score": 10 ** 4000},
])
def test_rules_3_errors_name_a_long_key_or_value_without_echoing_it(data: dict[str, Any]
                                                                     ) -> None:
    """A client's megabyte key or value is cut in the message and in ``key`` (the server
    sends both back), and the message still says what is wrong."""
    with pytest.raises(RulesError) as info:
        Rules.from_dict(data)
    message, key = str(info.value), info.value.key
    assert len(message) < 400 and len(key) <= 40
    assert key == next(iter(data)) or key.endswith("…") and next(iter(data)).startswith(key[:-1])
    assert ("unknown option" in message) == (key.endswith("…"))
