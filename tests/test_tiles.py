"""Tiles and the compact hand notation (RULES §1)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hzmj.tiles import (
    NUM_KINDS,
    WHITE,
    Hand,
    Meld,
    MeldKind,
    TileParseError,
    counts_of,
    format_hand,
    format_tiles,
    full_set,
    parse_hand,
    parse_tiles,
    tile,
    tile_glyph,
    tile_name,
    tile_name_en,
    tile_name_zh,
    tiles_of,
)

# a multiset of kinds with at most four copies each (RULES §1.1)
tile_lists = st.lists(st.integers(0, NUM_KINDS - 1), max_size=18).filter(
    lambda ts: max(counts_of(ts)) <= 4)


@given(tile_lists)
@settings(max_examples=200, deadline=None)
def test_rules_1_2_format_then_parse_round_trips(tiles: list[int]) -> None:
    text = format_tiles(tiles)
    assert parse_tiles(text) == sorted(tiles)
    assert format_tiles(parse_tiles(text)) == text


@given(tile_lists)
@settings(max_examples=200, deadline=None)
def test_rules_1_2_unsorted_format_keeps_order(tiles: list[int]) -> None:
    assert parse_tiles(format_tiles(tiles, sort=False)) == tiles


@given(tile_lists)
@settings(max_examples=100, deadline=None)
def test_counts_of_and_tiles_of_are_inverse(tiles: list[int]) -> None:
    assert tiles_of(counts_of(tiles)) == sorted(tiles)


@pytest.mark.parametrize(("text", "kinds"), [
    ("123m456p789s1122z", [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 27, 28, 28]),
    ("1m9m1p9p1s9s", [0, 8, 9, 17, 18, 26]),
    ("1234567z", [27, 28, 29, 30, 31, 32, 33]),
    ("ESWNPFC", [27, 28, 29, 30, 31, 32, 33]),
    ("东南西北白发中", [27, 28, 29, 30, 31, 32, 33]),
    ("東發", [27, 32]),  # the traditional forms
    ("11m E 白", [0, 0, 27, 31]),
    ("5zP白", [31, 31, 31]),
    ("", []),
])
def test_rules_1_2_parse_accepts(text: str, kinds: list[int]) -> None:
    assert parse_tiles(text) == kinds


@pytest.mark.parametrize(("text", "position"), [
    ("12x", 2),            # unknown character
    ("1m2q", 3),           # unknown suit letter
    ("10m", 1),            # rank 0
    ("11m8z", 3),          # 8z is not a tile
    ("9z", 0),
    ("11111m", 4),         # fifth copy
    ("1m 1m 1m 1m 1m", 12),
    ("EEEE東", 4),         # traditional 東 is not accepted
    ("EEEEE", 4),          # fifth copy by letter
    ("12", 0),             # ranks without a suit letter
    ("12E", 0),
    ("m", 0),              # suit letter without ranks
])
def test_rules_1_2_parse_tiles_errors_name_the_position(text: str, position: int) -> None:
    with pytest.raises(TileParseError) as info:
        parse_tiles(text)
    assert info.value.position == position
    assert info.value.text == text
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(("text", "position"), [
    ("123m[456p", 4),      # unclosed bracket
    ("123m(1111s", 4),
    ("123m]", 4),          # unmatched closer
    ("[124m]", 0),         # not a chow
    ("[12m]", 0),          # too short
    ("[1z2z3z]", 0),       # honours make no chow
    ("(111s)", 0),         # a concealed kong has four tiles
    ("{1112s}", 0),
    ("[]", 0),             # empty meld
    ("[1x3m]", 2),         # unknown character inside a meld
    ("1m[1111m]", 6),      # fifth copy counted over the whole hand
    ("[1111m]1m", 7),
    ("11m0p", 3),
])
def test_rules_1_2_parse_hand_errors_name_the_position(text: str, position: int) -> None:
    with pytest.raises(TileParseError) as info:
        parse_hand(text)
    assert info.value.position == position


@pytest.mark.parametrize(("text", "kind", "tiles"), [
    ("[123m]", MeldKind.CHOW, (0, 1, 2)),
    ("[312m]", MeldKind.CHOW, (0, 1, 2)),
    ("[999s]", MeldKind.PONG, (26, 26, 26)),
    ("[PPP]", MeldKind.PONG, (31, 31, 31)),
    ("[9999s]", MeldKind.EXPOSED_KONG, (26, 26, 26, 26)),
    ("(9999s)", MeldKind.CONCEALED_KONG, (26, 26, 26, 26)),
    ("{9999s}", MeldKind.ADDED_KONG, (26, 26, 26, 26)),
])
def test_rules_1_2_meld_notation(text: str, kind: MeldKind, tiles: tuple[int, ...]) -> None:
    hand = parse_hand("11z" + text)
    assert hand.concealed == (27, 27)
    assert [(m.kind, m.tiles) for m in hand.melds] == [(kind, tiles)]
    assert hand.melds[0].is_kong == (len(tiles) == 4)
    assert hand.melds[0].is_concealed == (kind is MeldKind.CONCEALED_KONG)


@pytest.mark.parametrize(("text", "canonical", "size"), [
    ("123m456m789p2z[9999s]", "123456m789p2z[9999s]", 13),
    ("[123m][999s]1122z", "1122z[123m][999s]", 10),
    ("11z(9999s){1111p}[PPP]", "11z(9999s){1111p}[555z]", 11),
    ("[123m]", "[123m]", 3),
])
def test_rules_1_2_hand_round_trip(text: str, canonical: str, size: int) -> None:
    hand = parse_hand(text)
    assert format_hand(hand) == canonical
    assert parse_hand(canonical) == hand
    assert hand.size == size


melds = st.one_of(
    st.builds(lambda s, r: Meld(MeldKind.CHOW, (s * 9 + r, s * 9 + r + 1, s * 9 + r + 2)),
              st.integers(0, 2), st.integers(0, 6)),
    st.builds(lambda k: Meld(MeldKind.PONG, (k,) * 3), st.integers(0, 33)),
    st.builds(lambda kind, k: Meld(kind, (k,) * 4),
              st.sampled_from([MeldKind.EXPOSED_KONG, MeldKind.CONCEALED_KONG,
                               MeldKind.ADDED_KONG]),
              st.integers(0, 33)),
)


@given(tile_lists, st.lists(melds, max_size=4))
@settings(max_examples=200, deadline=None)
def test_rules_1_2_hand_with_melds_round_trips(tiles: list[int], ms: list[Meld]) -> None:
    hand = Hand(tuple(sorted(tiles)), tuple(ms))
    if max(counts_of(hand.all_tiles())) > 4:
        with pytest.raises(TileParseError):
            parse_hand(format_hand(hand))
    else:
        assert parse_hand(format_hand(hand)) == hand


@pytest.mark.parametrize(("name", "kind"), [
    ("1m", 0), ("9m", 8), ("1p", 9), ("5s", 22), ("1z", 27), ("E", 27), ("白", WHITE),
    ("P", WHITE), ("7z", 33), ("C", 33),
])
def test_tile_parses_one(name: str, kind: int) -> None:
    assert tile(name) == kind


@pytest.mark.parametrize("name", ["", "11m", "EE"])
def test_tile_rejects_other_than_one(name: str) -> None:
    with pytest.raises(TileParseError):
        tile(name)


@pytest.mark.parametrize("name", [None, 34, -1, 1.0])
def test_tile_of_what_is_no_name_is_a_type_error_saying_so(name: object) -> None:
    # tile(34) said "object of type 'int' has no len()" (the compiled engine: TypeError)
    with pytest.raises(TypeError, match="string such as '5m'|str"):
        tile(name)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", [None, 123, b"123m"])
def test_parse_hand_of_what_is_no_string_is_a_type_error(text: object) -> None:
    with pytest.raises(TypeError, match="string such as '123m456p'|str"):
        parse_hand(text)  # type: ignore[arg-type]


@pytest.mark.parametrize("caishen", [99, -1, "5m", float("nan")])
def test_parse_hand_refuses_a_caishen_that_is_no_kind(caishen: object) -> None:
    # RULES §5.3: no meld may hold the 财神; 99 or "5m" was taken and no meld checked
    # (the compiled engine refuses a non-int as TypeError)
    with pytest.raises((ValueError, TypeError)) as caught:
        parse_hand("123m[555m]", caishen)  # type: ignore[arg-type]
    assert caught.type is TypeError or "not a tile kind" in str(caught.value)
    with pytest.raises(TileParseError, match="财神"):  # a real kind is checked
        parse_hand("123m[555m]", tile("5m"))


@pytest.mark.parametrize(("kind", "name", "zh", "en", "glyph"), [
    (0, "1m", "一万", "1 Character", "\U0001F007"),
    (4, "5m", "五万", "5 Characters", "\U0001F00B"),
    (8, "9m", "九万", "9 Characters", "\U0001F00F"),
    (9, "1p", "一筒", "1 Dot", "\U0001F019"),
    (17, "9p", "九筒", "9 Dots", "\U0001F021"),
    (18, "1s", "一条", "1 Bamboo", "\U0001F010"),
    (26, "9s", "九条", "9 Bamboo", "\U0001F018"),
    (27, "1z", "东", "East Wind", "\U0001F000"),
    (30, "4z", "北", "North Wind", "\U0001F003"),
    (31, "5z", "白", "White Dragon", "\U0001F006"),
    (32, "6z", "发", "Green Dragon", "\U0001F005"),
    (33, "7z", "中", "Red Dragon", "\U0001F004"),
])
def test_rules_1_1_names_and_glyphs(kind: int, name: str, zh: str, en: str, glyph: str) -> None:
    assert (tile_name(kind), tile_name_zh(kind), tile_name_en(kind), tile_glyph(kind)) == (
        name, zh, en, glyph)


@pytest.mark.parametrize("bad", [-1, 34, 100])
def test_names_reject_non_kinds(bad: int) -> None:
    for f in (tile_name, tile_name_zh, tile_name_en, tile_glyph):
        with pytest.raises(ValueError):
            f(bad)


@pytest.mark.parametrize(("drop_bamboo", "size"), [(False, 136), (True, 100)])
def test_rules_1_1_full_set(drop_bamboo: bool, size: int) -> None:
    tiles = full_set(drop_bamboo)
    assert len(tiles) == size
    assert set(counts_of(tiles)) == ({0, 4} if drop_bamboo else {4})
    assert sum(18 <= t <= 26 for t in tiles) == (0 if drop_bamboo else 36)


@pytest.mark.parametrize(("tiles", "kind"), [
    ((0, 1, 3), MeldKind.CHOW),      # not a run
    ((7, 8, 9), MeldKind.CHOW),      # crosses suits
    ((2, 1, 0), MeldKind.CHOW),      # unsorted
    ((0, 0, 1), MeldKind.PONG),
    ((0, 0, 0), MeldKind.EXPOSED_KONG),
])
def test_rules_6_invalid_meld_objects(tiles: tuple[int, ...], kind: MeldKind) -> None:
    with pytest.raises(ValueError):
        Meld(kind, tiles)


@pytest.mark.parametrize(("text", "position", "shown"), [
    ("1m" * 2000 + "x", 4000, "…'1m1m1m1m1m1m1m1m1m1m1m1mx' (4001 characters)"),
    ("x" + "1m" * 2000, 0, "'x1m1m1m1m1m1m1m1m1m1m1m1m'… (4001 characters)"),
    ("12x", 2, "'12x'"),
])
def test_rules_1_2_a_long_hand_string_s_error_shows_the_part_around_the_position(
        text: str, position: int, shown: str) -> None:
    with pytest.raises(TileParseError) as info:
        parse_tiles(text)
    assert info.value.position == position and info.value.text == text
    assert str(info.value) == f"unknown character 'x' at position {position} in {shown}"


def test_rules_1_2_a_long_meld_s_error_is_cut() -> None:
    with pytest.raises(TileParseError) as info:
        parse_hand("[" + "1m" * 3000 + "]")
    assert info.value.position == 0 and len(str(info.value)) < 200
    assert str(info.value).startswith("not a valid meld: 1111") and "(6002 characters)" in str(
        info.value)
