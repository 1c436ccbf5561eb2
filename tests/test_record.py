"""Records (seed + action log) and replay: round trips, tampering and bad input."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from hzmj.events import (
    ACTION_KEYS,
    Chow,
    Discard,
    Escape,
    Kong,
    Pass,
    Pong,
    Win,
    action_from_json,
)
from hzmj.game import Match
from hzmj.record import (
    RECORD_FORMAT,
    RECORD_VERSION,
    RecordError,
    fair_record,
    make_record,
    replay,
    replay_steps,
    verify,
)
from hzmj.rules import Rules
from hzmj.tiles import tile


def played(rules: Rules, seed: int, steps: int | None = None) -> Match:
    m = Match(rules, seed)
    rng = random.Random(seed)
    count = 0
    while not m.over and (steps is None or count < steps):
        legal = m.legal_actions(m.to_move()[0])
        m.apply(legal[rng.randrange(len(legal))])
        count += 1
    return m


def test_record_fields_and_json_round_trip() -> None:
    m = played(Rules(players=3, hands=8), 4)
    record = m.record()
    assert record["format"] == RECORD_FORMAT and record["version"] == RECORD_VERSION
    assert record["seed"] == 4 and record["rules"] == Rules(players=3).to_dict()
    assert record["over"] is True and len(record["hands"]) == m.hand_no == 8
    assert record["points"] == m.points() and sum(record["points"]) == 0
    text = json.dumps(record, ensure_ascii=False)
    assert verify(json.loads(text)) == []
    assert replay(json.loads(text)).record() == record


def test_unfinished_match_with_an_escape_replays() -> None:
    m = Match(Rules(dealer_start_level=3), 8)
    m.apply(Escape(1))
    rng = random.Random(1)
    for _ in range(150):
        legal = m.legal_actions(m.to_move()[0])
        m.apply(legal[rng.randrange(len(legal))])
    again = replay(m.record())
    assert again.record() == m.record() and again.is_auto(1) and not again.over
    assert [again.view(s) for s in range(4)] == [m.view(s) for s in range(4)]


@pytest.mark.parametrize(("key", "value"), [
    ("points", [1, 2, 3, -6]),
    ("events_digest", "0" * 64),
    ("over", False),
])
def test_verify_reports_tampered_fields(key: str, value: object) -> None:
    record = played(Rules(), 2).record()
    record[key] = value
    problems = verify(record)
    assert len(problems) == 1 and problems[0].startswith(key)


@pytest.mark.parametrize(("key", "edit"), [
    ("points", lambda v: [float(p) for p in v]),
    ("points", lambda v: [*v[:-1], v[-1] + 0.0]),
    ("hands", lambda v: [[float(d) for d in h] for h in v]),
    ("over", int),
])
def test_verify_wants_the_exact_json_types(key: str, edit: Any) -> None:
    # 1.0 == 1 and True == 1 in Python: a record whose points were edited to floats (or
    # whose "over" became 1) passed `hzmj replay --verify`; a record's figures are ints
    record = json.loads(json.dumps(played(Rules(), 2).record()))
    stored = record[key]
    record[key] = edit(stored)
    assert record[key] == stored  # what Python's == could not tell apart
    assert verify(record) == [f"{key}: record has {record[key]!r}, replay gives {stored!r}"]


@pytest.mark.parametrize("key", ["points", "hands", "over", "events_digest"])
def test_verify_reports_a_missing_figure(key: str) -> None:
    # a record stripped of its figures verified as identical: an edited action list with
    # its digest and points removed passed `hzmj replay --verify`
    record = played(Rules(), 2).record()
    stored = record.pop(key)
    assert verify(record) == [f"{key}: missing from the record, replay gives {stored!r}"]


def test_replay_rejects_bad_records() -> None:
    record = played(Rules(), 3, steps=40).record()
    with pytest.raises(RecordError):
        replay({**record, "format": "other"})
    with pytest.raises(RecordError):
        replay({**record, "version": 99})
    with pytest.raises(RecordError, match="lacks"):
        replay({k: v for k, v in record.items() if k != "actions"})
    bad = [*record["actions"][:5], {"type": "pong", "seat": 0}, *record["actions"][5:]]
    with pytest.raises(RecordError, match="action 5"):
        replay({**record, "actions": bad})
    with pytest.raises(RecordError):
        replay({**record, "actions": [{"type": "fly", "seat": 0}]})


@pytest.mark.parametrize(("key", "value", "message"), [
    ("actions", 5, "must be a list"),
    ("actions", None, "must be a list"),
    ("actions", "discard", "must be a list"),
    ("actions", [None], "action 0"),
    ("actions", [[1, 2]], "action 0"),
    ("actions", [{"type": "discard", "seat": 0, "tile": {"a": 1}}], "action 0"),
    ("rules", 5, "rules must be an object"),
    ("rules", [1], "rules must be an object"),
    ("rules", None, "rules must be an object"),
    ("rules", {"players": 4.0}, "bad rules or seed"),
    ("seed", float("inf"), "seed must be a whole number"),
    ("seed", [1], "seed must be a whole number"),
    # a JSON integer only: 7.9 was read as 7, "7" and true as seeds (helper-22, 2026-12-03)
    ("seed", 3.9, "seed must be a whole number"),
    ("seed", "3", "seed must be a whole number"),
    ("seed", True, "seed must be a whole number"),
    ("seed", None, "seed must be a whole number"),
    ("version", True, "unsupported record version"),
    ("version", 1.0, "unsupported record version"),
    ("version", "1", "unsupported record version"),
])
def test_replay_turns_any_malformed_field_into_a_record_error(key: str, value: object,
                                                               message: str) -> None:
    """A record from a file or a client is untrusted: every malformed field is a
    RecordError (the CLI's clean error), never a TypeError or OverflowError."""
    record = played(Rules(), 3, steps=10).record()
    with pytest.raises(RecordError, match=message):
        replay({**record, key: value})


@pytest.mark.parametrize(("extra", "key"), [
    ({"comment": "x"}, "'comment'"),
    ({"tiles": ["1m", "2m"]}, "'tiles'"),  # a chow's field on a discard
    ({7: 1}, "7"),
])
def test_an_action_with_an_unknown_key_is_a_record_error_naming_index_and_key(
        extra: dict[Any, Any], key: str) -> None:
    """An action is exactly its JSON form: an unknown key was accepted silently (an
    edited record verified); now the error names the action's index and the key."""
    record = played(Rules(), 3, steps=12).record()
    discard = next(i for i, a in enumerate(record["actions"]) if a["type"] == "discard")
    actions = [dict(a) for a in record["actions"]]
    actions[discard].update(extra)
    with pytest.raises(RecordError) as info:
        verify({**record, "actions": actions})
    assert str(info.value).startswith(f"action {discard} (")
    assert f"is malformed: unknown key {key} in a discard action (its keys: type, seat, " \
           f"tile)" in str(info.value)
    assert "was the seed" not in str(info.value)  # malformed, not a changed deal


def test_every_action_the_engine_writes_has_only_known_keys() -> None:
    """The strict reading keeps every record the engine and a server write (they write
    ``to_json``): each action type's JSON form parses back, and a played match verifies."""
    one = tile("5m")
    forms = [Discard(1, one), Win(1), Kong(1, one, "added"), Pong(1), Chow(1, (one, one)),
             Pass(1), Escape(1)]
    assert sorted(a.type for a in forms) == sorted(ACTION_KEYS)
    for action in forms:
        assert tuple(action.to_json()) == ACTION_KEYS[action.type]
        assert action_from_json(action.to_json()) == action
    m = played(Rules(players=3), 11)
    assert verify(json.loads(json.dumps(m.record()))) == []


def test_an_action_that_does_not_apply_says_why_in_a_short_line() -> None:
    """The engine names the reason (a tile not held), and a huge field is cut."""
    record = played(Rules(), 3, steps=0).record()
    m = Match(Rules(), 3)
    seat = m.to_move()[0]
    absent = next(t for t in ("9s", "8s", "7s", "6s", "5s", "1z", "2z")
                  if m.legal_actions(seat) and t not in {a.to_json().get("tile")
                                                         for a in m.legal_actions(seat)})
    bad = {"type": "discard", "seat": seat, "tile": absent}
    with pytest.raises(RecordError, match=f"seat {seat} holds no {absent} to discard"):
        replay({**record, "actions": [bad]})
    huge = {"type": "discard", "seat": 10 ** 400, "tile": "1m"}
    with pytest.raises(RecordError) as info:
        replay({**record, "actions": [huge]})
    assert len(str(info.value)) < 400


def test_made_by_marks_steps_and_leaves_the_replay_and_commitment_alone() -> None:
    """A server's ``made_by`` (action index -> "bot" | "clock") reaches the replayed
    steps; the record stays version 1, verifies, and opens its commitment; a record
    without the field is as valid (its steps say nothing about who chose)."""
    m = played(Rules(), 5, steps=60)
    record = fair_record(m, "ab" * 16, {12: "bot", 3: "clock", 13: "bot"})
    assert record["made_by"] == {"3": "clock", "12": "bot", "13": "bot"}  # in index order
    assert record["version"] == RECORD_VERSION == 1
    assert verify(json.loads(json.dumps(record))) == []
    _, steps = replay_steps(record)
    assert {i - 1: s.by for i, s in enumerate(steps) if s.by} == {3: "clock", 12: "bot",
                                                                   13: "bot"}
    assert steps[4].to_json()["by"] == "clock" and steps[0].to_json()["by"] is None
    plain = make_record(m)
    assert "made_by" not in plain and verify(plain) == []
    assert all(s.by is None for s in replay_steps(plain)[1])
    assert make_record(m, {})["made_by"] == {}


@pytest.mark.parametrize(("made_by", "message"), [
    ([], "must be an object"),
    ({"60": "bot"}, "not the index"),  # 60 actions: 0..59
    ({"-1": "bot"}, "not the index"),
    ({"03": "bot"}, "not the index"),
    ({"x": "bot"}, "not the index"),
    ({"2": "player"}, "not one of bot, clock"),
    ({"2": None}, "not one of bot, clock"),
])
def test_a_malformed_made_by_is_a_record_error(made_by: object, message: str) -> None:
    record = played(Rules(), 5, steps=60).record()
    with pytest.raises(RecordError, match=message):
        replay({**record, "made_by": made_by})


def test_a_record_whose_seed_was_changed_says_the_deal_may_differ() -> None:
    """A changed seed deals other tiles, so the first discard names a tile not held; the
    error says where to look (the seed, the rules or an earlier action)."""
    record = played(Rules(), 5, steps=12).record()
    for seed in range(6, 60):
        try:
            replay({**record, "seed": seed})
        except RecordError as exc:
            assert "does not apply" in str(exc)
            assert "(was the seed, the rules or an earlier action changed?)" in str(exc)
            return
    raise AssertionError("no other seed in 6..59 failed to replay 12 actions")
