"""Hand analysis with the 财神 wildcard (RULES §5, §7): the worked examples of RULES §15,
hand-picked waits and shanten, and property tests against brute-force references."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import cache
from itertools import combinations_with_replacement

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hzmj.hand import (
    Wait,
    discard_options,
    holds_caishen,
    is_baotou_ready,
    is_seven_pairs_win,
    is_standard_win,
    is_win,
    is_win_counts,
    natural_quads,
    plays_as,
    readings,
    shanten,
    shanten_counts,
    split_wilds,
    waits,
)
from hzmj.tiles import NUM_KINDS, WHITE, Hand, Meld, MeldKind, counts_of, parse_hand, tile

FIVE_M = tile("5m")

# --------------------------------------------------------------------------------------
# brute-force references, independent of the table method in hzmj.hand


@cache
def plain_sets(c: tuple[int, ...], sets: int, pair: bool) -> bool:
    """Whether the natural counts ``c`` are exactly ``sets`` chows/pongs (+ one pair)."""
    i = next((k for k in range(NUM_KINDS) if c[k]), -1)
    if i < 0:
        return sets == 0 and not pair
    lst = list(c)
    if pair and c[i] >= 2:
        lst[i] -= 2
        if plain_sets(tuple(lst), sets, False):
            return True
        lst[i] += 2
    if sets and c[i] >= 3:
        lst[i] -= 3
        if plain_sets(tuple(lst), sets - 1, pair):
            return True
        lst[i] += 3
    if sets and i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        for j in (i, i + 1, i + 2):
            lst[j] -= 1
        if plain_sets(tuple(lst), sets - 1, pair):
            return True
    return False


def plain_win(c: Sequence[int], melds: int) -> bool:
    """Standard shape or (no melds) seven pairs, quads being two pairs, no wildcards."""
    if plain_sets(tuple(c), 4 - melds, True):
        return True
    return melds == 0 and sum(c) == 14 and all(x % 2 == 0 for x in c)


def substitution_win(counts: Sequence[int], wilds: int, melds: int) -> bool:
    """Brute force (RULES §5.1): try every kind for every 财神, then a plain check.

    A 财神 either shares a group with a natural tile, so it stands for a kind at most two
    ranks from that tile, or sits in a group of 财神 only, whose kind does not matter (the
    plain check allows fifth copies); so those kinds plus one more are enough to try.
    """
    near = {k for k in range(NUM_KINDS) for n in range(NUM_KINDS)
            if counts[n] and (k == n or (k < 27 and n < 27 and k // 9 == n // 9
                                         and abs(k - n) <= 2))}
    for subs in combinations_with_replacement(sorted(near | {33}), wilds):
        c = list(counts)
        for k in subs:
            c[k] += 1
        if plain_win(c, melds):
            return True
    return False


@cache
def wild_sets(c: tuple[int, ...], wilds: int, sets: int, pair: bool) -> bool:
    """Whether ``c`` plus ``wilds`` 财神 are exactly ``sets`` sets (+ one pair): a direct
    recursive search placing each 财神 in a group with the lowest natural tile left."""
    i = next((k for k in range(NUM_KINDS) if c[k]), -1)
    if i < 0:
        return wilds == 3 * sets + 2 * pair
    tries: list[tuple[list[int], int, bool]] = []  # (naturals used, 财神 used, is pair)
    if pair:
        tries += [([i, i], 0, True), ([i], 1, True)]
    if sets:
        tries += [([i, i, i], 0, False), ([i, i], 1, False), ([i], 2, False)]
        if i < 27:
            base = i - i % 9
            for start in range(max(base, i - 2), min(i, base + 6) + 1):
                others = [k for k in range(start, start + 3) if k != i]
                for use in ((), (0,), (1,), (0, 1)):  # which of the others are natural
                    nat = [others[u] for u in use]
                    if all(k > i for k in nat):
                        tries.append(([i] + nat, 2 - len(nat), False))
    for used, w, is_pair in tries:
        if w > wilds:
            continue
        lst = list(c)
        for k in used:
            lst[k] -= 1
        if min(lst) < 0:
            continue
        if wild_sets(tuple(lst), wilds - w, sets - (not is_pair), pair and not is_pair):
            return True
    return False


def ref_win(counts: Sequence[int], wilds: int, melds: int) -> bool:
    if wild_sets(tuple(counts), wilds, 4 - melds, True):
        return True
    return melds == 0 and ref_pairs(counts, wilds, 7)


def ref_pairs(counts: Sequence[int], wilds: int, pairs: int) -> bool:
    """Exactly ``pairs`` pairs: each odd count takes a 财神, the rest pair up."""
    odd = sum(x % 2 for x in counts)
    return sum(counts) + wilds == 2 * pairs and odd <= wilds


def ref_baotou(counts: Sequence[int], wilds: int, melds: int) -> bool:
    """RULES §7.3 for 14 concealed tiles given without the winning tile (13 + melds):
    without one 财神 the rest is complete sets, or six pairs."""
    if wilds < 1:
        return False
    if wild_sets(tuple(counts), wilds - 1, 4 - melds, False):
        return True
    return melds == 0 and ref_pairs(counts, wilds - 1, 6)


@cache
def _most_kept(c: tuple[int, ...], slots: int, pair: bool) -> int:
    """Most tiles kept in ``slots`` partial sets and (if ``pair``) a partial pair."""
    i = next((k for k in range(NUM_KINDS) if c[k]), -1)
    if i < 0:
        return 0
    lst = list(c)
    lst[i] -= 1
    best = _most_kept(tuple(lst), slots, pair)  # tile i goes
    lst[i] += 1
    blocks: list[tuple[list[int], bool]] = [([i], True), ([i], False)]
    if c[i] >= 2:
        blocks += [([i, i], True), ([i, i], False)]
    if c[i] >= 3:
        blocks.append(([i, i, i], False))
    if i < 27:
        for up in ([i + 1], [i + 2], [i + 1, i + 2]):
            if up[-1] // 9 == i // 9 and all(c[k] for k in up):
                blocks.append(([i] + up, False))
    for used, is_pair in blocks:
        if (is_pair and not pair) or (not is_pair and not slots):
            continue
        for k in used:
            lst[k] -= 1
        kept = _most_kept(tuple(lst), slots - (not is_pair), pair and not is_pair)
        best = max(best, kept + len(used))
        for k in used:
            lst[k] += 1
    return best


def ref_shanten(counts: Sequence[int], wilds: int, melds: int) -> int:
    """Shanten by a plain partial-set search over the whole hand: the tiles still missing
    from the best target, minus the 财神, minus one."""
    sets = 4 - melds
    best = 3 * sets + 2 - wilds - _most_kept(tuple(counts), sets, True) - 1
    if melds == 0:
        kept_by_slots = [0] + [-99] * 7  # most tiles kept in j pairs
        for x in counts:
            if x:
                kept_by_slots = [max([kept_by_slots[j]]
                                     + [kept_by_slots[j - u] + min(x, 2 * u)
                                        for u in (1, 2) if j >= u])
                                 for j in range(8)]
        best = min(best, 14 - wilds - max(kept_by_slots) - 1)
    return best


def natural_counts(hand: Hand, caishen: int) -> tuple[list[int], int]:
    """``(counts by the kind played, 财神 count)`` computed here, not by split_wilds."""
    counts = [0] * NUM_KINDS
    wilds = 0
    for t in hand.concealed:
        if t == caishen:
            wilds += 1
        else:
            counts[caishen if t == WHITE else t] += 1
    return counts, wilds


def with_tile(hand: Hand, t: int) -> Hand:
    return Hand(hand.concealed + (t,), hand.melds)


def drawable(hand: Hand) -> list[int]:
    own = counts_of(hand.all_tiles())
    return [k for k in range(NUM_KINDS) if own[k] < 4]


# --------------------------------------------------------------------------------------
# hypothesis strategies

CAISHEN = st.sampled_from([WHITE, WHITE, FIVE_M]) | st.integers(0, NUM_KINDS - 1)


def _set_of(draw: st.DrawFn, kinds: list[int]) -> list[int]:
    k = draw(st.sampled_from(kinds))
    if k < 27 and k % 9 <= 6 and draw(st.booleans()):
        return [k, k + 1, k + 2]
    return [k, k, k]


@st.composite
def deals(draw: st.DrawFn, size: int = 14, max_melds: int = 2) -> tuple[Hand, int]:
    """A hand of ``size`` tiles (kongs as 3) with 0–3 财神 and 0–``max_melds`` melds.

    Most are built from a winning shape, then perturbed; some are random tiles.  Kinds
    are drawn as played, so in 翻财神 mode the 财神 kind's natural copies are white
    dragons (RULES §5.2).
    """
    caishen = draw(CAISHEN)
    played = [k for k in range(NUM_KINDS) if k != WHITE]
    n_melds = draw(st.integers(0, max_melds))
    meld_kinds = [k for k in played if k != caishen]
    melds = []
    for _ in range(n_melds):
        ts = _set_of(draw, [k for k in meld_kinds if k < 25 or k >= 27])
        if ts[0] == ts[1] and draw(st.booleans()):
            melds.append(Meld(MeldKind.CONCEALED_KONG, tuple(ts + ts[:1])))
        else:
            melds.append(Meld(MeldKind.PONG if ts[0] == ts[1] else MeldKind.CHOW, tuple(ts)))
    n = 14 - 3 * n_melds
    shape = draw(st.sampled_from(["standard", "standard", "seven", "baotou", "random"]))
    if shape == "random" or (shape == "seven" and n_melds):
        kinds = draw(st.lists(st.sampled_from(played), min_size=n, max_size=n))
    elif shape == "seven":
        kinds = [k for k in draw(st.lists(st.sampled_from(played), min_size=7, max_size=7))
                 for _ in range(2)]
    else:
        kinds = [draw(st.sampled_from(played))] * 2
        for _ in range(4 - n_melds):
            kinds += _set_of(draw, played)
    order = draw(st.permutations(range(n)))
    kinds = [kinds[i] for i in order]
    if shape != "random":
        for i in range(draw(st.integers(0, 2))):  # perturb a few tiles
            kinds[i] = draw(st.sampled_from(played))
    tiles = [WHITE if k == caishen else k for k in kinds]
    wilds = draw(st.integers(1 if shape == "baotou" else 0, 3))
    if shape == "baotou":  # a pair tile becomes a 财神 and its partner is the last tile
        first = kinds.index(kinds[-1]) if kinds.count(kinds[-1]) >= 2 else 0
        tiles[first] = caishen
    for i in range(len(tiles) - 1 - wilds, len(tiles) - 1):
        if tiles[i] != caishen or shape != "baotou":
            tiles[i] = caishen
    del tiles[size - 3 * n_melds:]
    hand = Hand(tuple(tiles), tuple(melds))
    assume(max(counts_of(hand.all_tiles())) <= 4)
    assume(hand.concealed.count(caishen) <= (4 if caishen == WHITE else 3))
    return hand, caishen


FAST = settings(max_examples=200, deadline=None)


# --------------------------------------------------------------------------------------
# the worked examples of RULES §15 (multipliers belong to the scoring tests)

# (example, hand, winning tile, 财神, shapes, 爆头 reading, holds a 财神)
EXAMPLES = [
    ("E1", "111m234m567m789p1z", "1z", WHITE, {"standard"}, False, False),
    ("E2", "123456789m111pP", "1z", WHITE, {"standard"}, True, True),
    ("E3", "45mP111m222p333s1z", "1z", WHITE, {"standard"}, False, True),
    ("E4", "123456789m11pPP", "P", WHITE, {"standard"}, True, True),
    ("E5", "11m22m33p44s55s11z2z", "P", WHITE, {"seven_pairs"}, False, True),
    ("E6", "11m22m33p44s55s11zP", "2z", WHITE, {"seven_pairs"}, True, True),
    ("E7", "11m22m33p44s55s11z2z", "2z", WHITE, {"seven_pairs"}, False, False),
    ("E8", "1111m22m33p44s55s1z", "1z", WHITE, {"seven_pairs"}, False, False),
    ("E10", "123m456m789p2z[9999s]", "2z", WHITE, {"standard"}, False, False),
    ("E11", "123m456m789pP[9999s]", "1z", WHITE, {"standard"}, True, True),
    ("E13", "4mP6m111p222s333s1z", "1z", FIVE_M, {"standard"}, False, False),
    ("E14", "4m5m6m111p222s333s1z", "1z", FIVE_M, {"standard"}, False, True),
    ("E15", "11m22m33p44s55s11z2z", "3z", WHITE, set(), False, False),
]


@pytest.mark.parametrize(("example", "text", "win", "caishen", "shapes", "baotou", "holds"),
                         EXAMPLES)
def test_rules_15_worked_examples(example: str, text: str, win: str, caishen: int,
                                  shapes: set[str], baotou: bool, holds: bool) -> None:
    hand = parse_hand(text)
    w = tile(win)
    rs = readings(hand, w, caishen)
    assert {r.shape for r in rs} == shapes
    assert any(r.baotou for r in rs) == baotou
    assert is_win(with_tile(hand, w), caishen) == bool(shapes)
    assert holds_caishen(hand, w, caishen) == holds
    assert is_baotou_ready(hand, caishen) == baotou


# RULES §7.5 有财必拷响: a hand holding a 财神 wins only with a 爆头 reading
@pytest.mark.parametrize(("text", "win", "caishen", "wins"), [
    ("45mP111m222p333s1z", "1z", WHITE, False),     # E3
    ("4mP6m111p222s333s1z", "1z", FIVE_M, True),    # E13: P is a plain 5m
    ("4m5m6m111p222s333s1z", "1z", FIVE_M, False),  # E14
    ("123456789m111pP", "1z", WHITE, True),         # E2
    ("11m22m33p44s55s11z2z", "2z", WHITE, True),    # E7: no 财神 at all
    ("11m22m33p44s55s11z2z", "P", WHITE, False),    # E5
])
def test_rules_7_5_must_baotou_with_caishen(text: str, win: str, caishen: int,
                                            wins: bool) -> None:
    hand = parse_hand(text)
    rs = readings(hand, tile(win), caishen)
    held = holds_caishen(hand, tile(win), caishen)
    assert bool(rs) and (not held or any(r.baotou for r in rs)) == wins


def test_rules_9_2_natural_quads_e8() -> None:
    assert natural_quads(parse_hand("1111m22m33p44s55s1z"), tile("1z")) == 1
    # a white dragon standing in for the 财神 kind is natural (RULES §5.2)
    assert natural_quads(parse_hand("5zPP11m22p33s44s55s"), tile("5z"), FIVE_M) == 1
    assert natural_quads(parse_hand("5m5m5m11m22p33s44s55s"), tile("5m"), FIVE_M) == 0


def test_rules_7_3_baotou_readings_of_e2() -> None:
    rs = readings(parse_hand("123456789m111pP"), tile("1z"))
    assert [(r.shape, r.baotou, r.notation()) for r in rs] == [
        ("standard", True, "1z *1z | 1m 2m 3m | 4m 5m 6m | 7m 8m 9m | 1p 1p 1p")]


def test_rules_7_3_baotou_reading_of_e4_is_a_pair_of_caishen() -> None:
    rs = readings(parse_hand("123456789m11pPP"), tile("P"))
    bt = [r for r in rs if r.baotou]
    assert [g.notation() for g in bt[0].groups if g.kind == "pair"] == ["*5z *5z"]


def test_rules_7_3_baotou_reading_found_among_hundreds() -> None:
    # four 财神 and a long run have over 500 readings; the 爆头 one must not be cut off
    hand = parse_hand("2234456678mPPP")
    assert is_baotou_ready(hand)
    assert any(r.baotou for r in readings(hand, WHITE))


def test_rules_7_1_meld_groups_are_kept_in_readings() -> None:
    rs = readings(parse_hand("123m456m789p2z[9999s]"), tile("2z"))
    assert [r.notation() for r in rs] == [
        "2z 2z | 1m 2m 3m | 4m 5m 6m | 7p 8p 9p | 9s 9s 9s 9s"]


@pytest.mark.parametrize(("text", "caishen", "expected"), [
    ("1112345678999m", WHITE, "123456789m5z"),          # nine gates; P is a 财神
    ("123m456m789m123p5s", WHITE, "5s5z"),
    ("123m456m789m123p5s", tile("1z"), "5s1z"),         # P plays as 1z: no use
    ("123m456m789m123pP", tile("5s"), "5s5z"),          # P is a 5s; 5s is a 财神
    ("11m22m33p44s55s11z2z", WHITE, "2z5z"),            # seven pairs
    ("1111m234p567p789s", WHITE, "5z"),                 # no fifth 1m to draw
    ("1111m234p567p789s", tile("9s"), "6s9s5z"),        # 9s is a 财神, P a 9s
    ("123m456m789m5s[999p]", WHITE, "5s5z"),
    ("1357m2468p1357s9s", WHITE, ""),
    ("13m55p[123s][456s][789s]", WHITE, "2m5z"),
])
def test_rules_7_waits(text: str, caishen: int, expected: str) -> None:
    got = [w.tile for w in waits(parse_hand(text), caishen)]
    assert got == sorted(parse_hand(expected).concealed)


@pytest.mark.parametrize(("text", "caishen"), [
    ("123m456m789m123pP", WHITE),
    ("111z123m456m789pP", WHITE),       # even the fourth 1z
    ("111z123m456m789p5m", FIVE_M),
    ("11m22m33p44s55s11zP", WHITE),     # 七客-ready
])
def test_rules_7_3_baotou_ready_waits_on_everything(text: str, caishen: int) -> None:
    hand = parse_hand(text)
    assert is_baotou_ready(hand, caishen)
    assert [w.tile for w in waits(hand, caishen)] == list(range(NUM_KINDS))


def test_rules_7_waits_left_counts_visible_tiles() -> None:
    visible = [0] * NUM_KINDS
    visible[tile("5s")] = 2
    visible[tile("2z")] = 9
    ws = waits(parse_hand("11m22m33p44s55s11z2z"), WHITE, visible)
    assert [(w.tile, w.left) for w in ws] == [(tile("2z"), 0), (WHITE, 4)]
    assert ws[0].to_dict() == {"tile": "2z", "left": 0}
    ws = waits(parse_hand("123m456m789m123p5s"), WHITE, visible)
    assert [(w.tile, w.left) for w in ws] == [(tile("5s"), 1), (WHITE, 4)]


@pytest.mark.parametrize(("text", "caishen", "expected"), [
    ("111m234m567m789p1z1z", WHITE, -1),
    ("123m456m789m123p5s", WHITE, 0),
    ("123m456m789m12p5s9s", WHITE, 1),
    ("123m456m789m12pP9s", WHITE, 0),
    ("11m22m33p44s55s1z2z3z", WHITE, 1),    # seven pairs, three singles
    ("11m22m33p44s55s11zP", WHITE, 0),
    ("1357m2468p1357s9s", WHITE, 4),
    ("159m159p159s1234z", WHITE, 6),
    ("159m159p159s123zP", WHITE, 5),
    ("PPPP159m159p159s1z", WHITE, 2),
    ("13m55p[123s][456s][789s]", WHITE, 0),
    ("19m19p[123s][456s][789s]", WHITE, 2),
])
def test_shanten_examples(text: str, caishen: int, expected: int) -> None:
    hand = parse_hand(text)
    assert shanten(hand, caishen) == expected
    assert ref_shanten(*natural_counts(hand, caishen), len(hand.melds)) == expected


@pytest.mark.parametrize(("call", "text"), [
    (is_win, "123456789m123p5s"),
    (shanten, "123456789m123p"),
    (waits, "123456789m123p55s"),
    (is_baotou_ready, "123456789m123p55s"),
    (discard_options, "123456789m123p5s"),
    (lambda h: readings(h, 0), "123456789m123p55s"),
])
def test_wrong_sizes_raise(call: Callable[[Hand], object], text: str) -> None:
    with pytest.raises(ValueError):
        call(parse_hand(text))


def test_rules_5_2_split_wilds_and_plays_as() -> None:
    counts, wilds = split_wilds(parse_hand("5m5mP1z").concealed, FIVE_M)
    assert wilds == 2
    assert {k: x for k, x in enumerate(counts) if x} == {FIVE_M: 1, tile("1z"): 1}
    counts, wilds = split_wilds(parse_hand("5m5mP1z").concealed, WHITE)
    assert (wilds, counts[FIVE_M], counts[WHITE]) == (1, 2, 0)
    assert plays_as(FIVE_M, FIVE_M) is None
    assert plays_as(WHITE, FIVE_M) == FIVE_M
    assert plays_as(WHITE, WHITE) is None
    assert plays_as(tile("1z"), FIVE_M) == tile("1z")


def test_rules_5_1_caishen_may_be_a_fifth_copy() -> None:
    # four 1m in sight does not stop a 财神 from being a fifth 1m
    assert is_win(parse_hand("1111m234p567p789sP"))
    # the concealed part left after four melds is just the pair
    assert is_win_counts(counts_of(parse_hand("11m").concealed))
    assert not is_win_counts(counts_of(parse_hand("12m").concealed))
    assert is_standard_win([0] * NUM_KINDS, 2)  # two 财神 alone are a pair


def test_rules_7_2_seven_pairs_counts_quads_twice() -> None:
    counts = counts_of(parse_hand("1111m22m33p44s55s11z").concealed)
    assert is_seven_pairs_win(counts) and not is_standard_win(counts)


def test_discard_options_order_and_useful_tiles() -> None:
    opts = discard_options(parse_hand("123m456m789m123p59s"))
    assert [(o.discard, o.shanten) for o in opts[:2]] == [(tile("5s"), 0), (tile("9s"), 0)]
    assert [w.tile for w in opts[0].useful] == [tile("9s"), WHITE]
    assert opts[0].useful_count == 3 + 4


def test_discard_options_count_the_discarded_copy_as_seen() -> None:
    # the discard lies on the pile: drawing it again finds 3 copies at most, not 4
    opts = {o.discard: o for o in discard_options(parse_hand("123456789m111p1z1z"))}
    assert opts[tile("1m")].useful == (Wait(tile("1m"), 3), Wait(tile("4m"), 3),
                                       Wait(tile("7m"), 3), Wait(WHITE, 4))
    assert opts[tile("1m")].useful_count == 13
    # four 1m held (two pairs, RULES §7.2): after discarding one, none can be drawn
    opts = {o.discard: o for o in discard_options(parse_hand("1111m22m33p44s55s6z7z"))}
    assert opts[tile("1m")].useful[0] == Wait(tile("1m"), 0)  # was 1


# --------------------------------------------------------------------------------------
# properties against the references


@given(deals(14))
@FAST
def test_rules_7_win_equals_brute_force(deal: tuple[Hand, int]) -> None:
    hand, caishen = deal
    counts, wilds = natural_counts(hand, caishen)
    melds = len(hand.melds)
    expected = substitution_win(counts, wilds, melds)
    assert ref_win(counts, wilds, melds) == expected
    assert is_win(hand, caishen) == expected
    assert (is_standard_win(counts, wilds) or (melds == 0 and is_seven_pairs_win(counts, wilds))
            ) == expected
    assert (shanten(hand, caishen) == -1) == expected


@given(deals(13) | deals(14))
@FAST
def test_shanten_equals_reference(deal: tuple[Hand, int]) -> None:
    hand, caishen = deal
    counts, wilds = natural_counts(hand, caishen)
    assert shanten(hand, caishen) == ref_shanten(counts, wilds, len(hand.melds))
    assert split_wilds(hand.concealed, caishen) == (counts, wilds)


@given(deals(13))
@FAST
def test_rules_7_waits_equal_brute_force(deal: tuple[Hand, int]) -> None:
    hand, caishen = deal
    melds = len(hand.melds)
    expected = [k for k in drawable(hand)
                if ref_win(*natural_counts(with_tile(hand, k), caishen), melds)]
    assert [w.tile for w in waits(hand, caishen)] == expected
    # shanten 0 exactly when some tile (even a fifth copy, as a 财神) completes the hand
    counts, wilds = natural_counts(hand, caishen)
    ready = ref_win(counts, wilds + 1, melds)
    assert (shanten(hand, caishen) == 0) == ready
    if wilds < 4:  # a 财神 can still be drawn
        assert bool(expected) == ready


@given(deals(14, max_melds=1))
@settings(max_examples=60, deadline=None)
def test_shanten_zero_means_one_exchange_from_winning(deal: tuple[Hand, int]) -> None:
    hand, caishen = deal
    counts, wilds = natural_counts(hand, caishen)
    melds = len(hand.melds)
    won = ref_win(counts, wilds, melds)
    one_away = False
    for d in set(hand.concealed):
        rest = list(hand.concealed)
        rest.remove(d)
        c, w = natural_counts(Hand(tuple(rest), hand.melds), caishen)
        one_away = one_away or ref_win(c, w + 1, melds)
    assert (shanten(hand, caishen) == 0) == (one_away and not won)


@given(deals(13))
@settings(max_examples=150, deadline=None)
def test_rules_7_3_baotou_ready_means_every_draw_wins_by_baotou(deal: tuple[Hand, int]) -> None:
    hand, caishen = deal
    expected = all(any(r.baotou for r in readings(hand, k, caishen)) for k in drawable(hand))
    assert is_baotou_ready(hand, caishen) == expected
    assert ref_baotou(*natural_counts(hand, caishen), len(hand.melds)) == expected


@given(deals(14))
@FAST
def test_rules_7_3_readings_agree_with_win_and_baotou(deal: tuple[Hand, int]) -> None:
    hand, caishen = deal
    win_tile = hand.concealed[-1]
    before = Hand(hand.concealed[:-1], hand.melds)
    rs = readings(before, win_tile, caishen)
    assert bool(rs) == is_win(hand, caishen)
    # RULES §7.3: the hand minus the winning tile minus one 财神 is sets or six pairs
    # (a winning 财神 makes the pair two 财神, so the same check holds)
    assert any(r.baotou for r in rs) == ref_baotou(*natural_counts(before, caishen),
                                                   len(hand.melds))
    for r in rs:  # every reading uses exactly the hand's tiles
        natural = sorted(t for g in r.groups if g.kind != "meld"
                         for t, w in zip(g.tiles, g.wild, strict=True) if not w)
        full, n_wild = natural_counts(hand, caishen)
        assert natural == [k for k in range(NUM_KINDS) for _ in range(full[k])]
        assert sum(sum(g.wild) for g in r.groups) == n_wild
        assert [g.tiles for g in r.groups if g.kind == "meld"] == [m.tiles for m in hand.melds]


@given(deals(14, max_melds=1))
@settings(max_examples=60, deadline=None)
def test_discard_options_match_shanten(deal: tuple[Hand, int]) -> None:
    hand, caishen = deal
    opts = discard_options(hand, caishen)
    assert sorted(o.discard for o in opts) == sorted(set(hand.concealed))
    for o in opts:
        rest = list(hand.concealed)
        rest.remove(o.discard)
        after = Hand(tuple(rest), hand.melds)
        assert o.shanten == shanten(after, caishen)
        useful = [k for k in drawable(after) if shanten(with_tile(after, k), caishen) < o.shanten]
        assert [w.tile for w in o.useful] == useful


def test_random_dealt_hands_agree_with_reference() -> None:
    rng = random.Random(7)
    wall = [k for k in range(NUM_KINDS) for _ in range(4)]
    for _ in range(200):
        rng.shuffle(wall)
        caishen = rng.choice([WHITE, rng.randrange(NUM_KINDS)])
        counts, wilds = split_wilds(wall[:13], caishen)
        assert shanten_counts(counts, wilds) == ref_shanten(counts, wilds, 0)
