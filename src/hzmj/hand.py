"""Hand analysis with the 财神 wildcard (RULES §5, §7, §9): win test, readings, waits,
shanten (向听) and useful tiles (有效牌).

Conventions
-----------
* ``caishen`` is the 财神 *kind* of the hand (``WHITE`` = 5z in 白板财神 mode, or the
  flipped kind in 翻财神 mode).  Every physical tile of that kind is a wildcard.  When the
  财神 is not the white dragon, every white dragon *is* a tile of the 财神 kind (RULES §5.2).
* :func:`split_wilds` turns a tile list into ``(counts, wilds)``: ``counts`` is a
  34-entry list of *natural* tiles by the kind they play as (white dragons moved to the
  财神 kind), ``wilds`` the number of 财神 tiles.  The fast functions work on that form.
* A 财神 may stand for any tile, even a fifth copy (RULES §5.1, §14.10), so the analysis
  never limits how many copies a wildcard may add.

Method
------
Each suit (and the honours, which have no sequences) is keyed by its count vector.  For a
key, a memoised table entry holds, for ``s`` sets (0–4) and with/without a pair, the most
tiles of that group that can be kept in partial sets (for shanten), and the fewest
wildcards needed to turn *all* of its tiles into complete sets, without and with the pair
(for the win test); plus its pair and odd-kind counts (seven pairs) and, once the waits
ask, bit masks of the tiles whose addition completes it.  A hand is four lookups and a
little arithmetic: the win test adds the wildcards needed, shanten takes a max-plus
product of the kept vectors, the waits OR the masks.  Entries are computed on first use
(a few microseconds each; some tens of thousands of keys cover ordinary play), so
importing the module costs nothing and every later lookup is one dict access.  The
engine's win test (:func:`is_win_keys`) reads the same entries' win inputs, packed in one
int, from flat lists indexed by the integer group keys it keeps (:func:`group_keys`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from hzmj.tiles import NUM_KINDS, WHITE, Hand, Tile, counts_of, tile_name

_BIG: Final = 99

Shape = Literal["standard", "seven_pairs"]


# --------------------------------------------------------------------------------------
# wild splitting


def split_wilds(tiles: Iterable[Tile], caishen: Tile) -> tuple[list[int], int]:
    """Return ``(counts, wilds)`` for a concealed tile list (RULES §5.1–5.2).

    ``counts`` has 34 entries; white dragons count as the 财神 kind when
    ``caishen != WHITE``; 财神 tiles are not in ``counts`` but in ``wilds``.
    """
    counts = [0] * NUM_KINDS
    for t in tiles:
        counts[t] += 1
    wilds = counts[caishen]
    counts[caishen] = 0
    if caishen != WHITE:  # the white dragons play as the 财神 kind
        counts[caishen] = counts[WHITE]
        counts[WHITE] = 0
    return counts, wilds


def plays_as(t: Tile, caishen: Tile) -> Tile | None:
    """The kind a physical tile plays as: ``None`` for a 财神, the 财神 kind for a white
    dragon standing in (RULES §5.2), else itself."""
    if t == caishen:
        return None
    if t == WHITE:
        return caishen
    return t


# --------------------------------------------------------------------------------------
# per-group tables

# kept vectors are indexed by s = 0..4 (at most s partial sets)
_Vec = tuple[int, ...]
_ZERO: Final[_Vec] = (0,) * 5
_kept_memo: dict[tuple[tuple[int, ...], bool], tuple[_Vec, _Vec]] = {}


def _kept(c: tuple[int, ...], honors: bool) -> tuple[_Vec, _Vec]:
    """Most tiles of ``c`` kept in at most ``s`` partial sets, without and with a partial
    pair (a partial set is 1–3 tiles of one pong or chow; a partial pair 1–2 tiles)."""
    memo_key = (c, honors)
    hit = _kept_memo.get(memo_key)
    if hit is not None:
        return hit
    n = len(c)
    i = 0
    while i < n and c[i] == 0:
        i += 1
    if i == n:
        _kept_memo[memo_key] = (_ZERO, _ZERO)
        return _ZERO, _ZERO
    left0, left1 = _kept(_minus(c, (i,)), honors)  # leave one tile i out
    best0, best1 = list(left0), list(left1)
    options: list[tuple[tuple[int, ...], bool]] = [((i,), False), ((i,), True)]
    if c[i] >= 2:
        options += [((i, i), False), ((i, i), True)]
    if c[i] >= 3:
        options.append(((i, i, i), False))
    if not honors:
        if i + 1 < n and c[i + 1]:
            options.append(((i, i + 1), False))
            if i + 2 < n and c[i + 2]:
                options.append(((i, i + 1, i + 2), False))
        if i + 2 < n and c[i + 2]:
            options.append(((i, i + 2), False))
    for group, is_pair in options:
        sub0, sub1 = _kept(_minus(c, group), honors)
        k = len(group)
        if is_pair:
            for s in range(5):
                best1[s] = max(best1[s], sub0[s] + k)
        else:
            for s in range(1, 5):
                best0[s] = max(best0[s], sub0[s - 1] + k)
                best1[s] = max(best1[s], sub1[s - 1] + k)
    # an empty set or pair keeps nothing: make both vectors monotone in s and p
    for s in range(5):
        if s:
            best0[s] = max(best0[s], best0[s - 1])
            best1[s] = max(best1[s], best1[s - 1])
        best1[s] = max(best1[s], best0[s])
    out = (tuple(best0), tuple(best1))
    _kept_memo[memo_key] = out
    return out


def _minus(c: tuple[int, ...], group: tuple[int, ...]) -> tuple[int, ...]:
    lst = list(c)
    for j in group:
        lst[j] -= 1
    return tuple(lst)


class _Entry:
    """Table entry of one group (a suit's 9 counts, or the honours' sorted counts).

    ``k0`` / ``k1``: the kept vectors of :func:`_kept` without / with the pair;
    ``need0``: fewest wildcards that turn *all* tiles into complete sets (``_BIG`` if
    impossible); ``dpair``: how many more (possibly fewer) wildcards it needs when this
    group also holds the pair; ``pairs`` / ``odd``: pairs (a quad is two) and kinds with
    an odd count, for seven pairs; ``draws``: see :func:`_draw_masks`.
    """

    __slots__ = ("k0", "k1", "need0", "dpair", "pairs", "odd", "draws")

    def __init__(self, c: tuple[int, ...], honors: bool) -> None:
        self.k0, self.k1 = _kept(c, honors)
        n = sum(c)
        self.need0 = _need(self.k0, n, 0)
        self.dpair = _need(self.k1, n, 2) - self.need0
        self.pairs = sum(x >> 1 for x in c)
        self.odd = sum(x & 1 for x in c)
        self.draws: tuple[tuple[int, ...], tuple[int, ...]] | None = None


def _need(kept: _Vec, n: int, pair: int) -> int:
    for s in range(5):
        if kept[s] == n and 3 * s + pair >= n:
            return 3 * s + pair - n
    return _BIG


# plain dicts, filled by _fill on a miss: subscripting an exact dict is the fastest lookup
_suits: Final[dict[tuple[int, ...], _Entry]] = {}  # keyed by a suit's 9 counts
_honors: Final[dict[tuple[int, ...], _Entry]] = {}  # keyed by the 7 honour counts
_honor_canon: dict[tuple[int, ...], _Entry] = {}  # keyed by the sorted nonzero counts


def _suit_entry(key: tuple[int, ...]) -> _Entry:
    e = _suits.get(key)
    if e is None:
        e = _suits[key] = _Entry(key, False)
    return e


def _honor_entry(key: tuple[int, ...]) -> _Entry:
    e = _honors.get(key)
    if e is None:
        # honours are independent kinds: keys with the same sorted counts share an entry
        canon = tuple(sorted((x for x in key if x), reverse=True))
        e = _honor_canon.get(canon)
        if e is None:
            e = _honor_canon[canon] = _Entry(canon, True)
        _honors[key] = e
    return e


def _fill(t: tuple[int, ...]) -> None:
    """Make sure the four entries of the 34 counts ``t`` exist."""
    for lo in (0, 9, 18):
        _suit_entry(t[lo:lo + 9])
    _honor_entry(t[27:34])


_EMPTY: Final = _suit_entry((0,) * 9)
_NO_HONORS: Final = _honor_entry((0,) * 7)


def _entries(counts: Sequence[int]) -> tuple[_Entry, _Entry, _Entry, _Entry]:
    t = tuple(counts)
    try:
        return _suits[t[0:9]], _suits[t[9:18]], _suits[t[18:27]], _honors[t[27:34]]
    except KeyError:
        _fill(t)
        return _suits[t[0:9]], _suits[t[9:18]], _suits[t[18:27]], _honors[t[27:34]]


def _wilds_to_complete(entries: Sequence[_Entry]) -> int:
    """Fewest wildcards that complete every natural tile into sets plus one pair (the
    pair in one group, or made of two wildcards)."""
    m, p, s, h = entries
    return (m.need0 + p.need0 + s.need0 + h.need0
            + min(2, m.dpair, p.dpair, s.dpair, h.dpair))


def _wilds_for_sets(entries: Sequence[_Entry]) -> int:
    """Fewest wildcards that complete every natural tile into sets (no pair)."""
    m, p, s, h = entries
    return m.need0 + p.need0 + s.need0 + h.need0


def _odd_kinds(counts: Sequence[int]) -> int:
    # natural counts never exceed 4 (RULES §1.1; stand-ins are the 4 white dragons)
    return counts.count(1) + counts.count(3)


_MAX_NEED: Final = 14  # no finite need exceeds a hand's 14 tiles


def _draw_masks(e: _Entry, c: tuple[int, ...],
                honors: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For the waits: ``(by_need0, by_need1)``, where ``by_need0[t]`` is the bit mask of
    the tiles whose addition leaves the group needing at most ``t`` wildcards for sets
    only, and ``by_need1[t]`` the same with the pair.  Bits are ranks for a suit and, for
    the honours (whose entry is shared by all kinds), the count the kind already holds.
    Filled on first use."""
    if e.draws is None:
        after: list[tuple[int, int]] = []  # (need0, need1) after adding, per bit
        if honors:
            held = sorted((x for x in c if x), reverse=True)
            for x in range(5):
                if x == 4 or (x and x not in held) or (not x and len(held) == 7):
                    after.append((_BIG, _BIG))  # no such kind to add to
                    continue
                more = held + [1] if x == 0 else list(held)
                if x:
                    more[more.index(x)] += 1
                f = _honor_entry(tuple(more + [0] * (7 - len(more))))
                after.append((f.need0, f.need0 + f.dpair))
        else:
            for r in range(9):
                if c[r] >= 4:
                    after.append((_BIG, _BIG))  # no fifth natural tile
                    continue
                f = _suit_entry(c[:r] + (c[r] + 1,) + c[r + 1:])
                after.append((f.need0, f.need0 + f.dpair))
        by0 = tuple(sum(1 << b for b, (n0, _) in enumerate(after) if n0 <= t)
                    for t in range(_MAX_NEED + 1))
        by1 = tuple(sum(1 << b for b, (_, n1) in enumerate(after) if n1 <= t)
                    for t in range(_MAX_NEED + 1))
        e.draws = (by0, by1)
    return e.draws


# --------------------------------------------------------------------------------------
# integer group keys (the engine keeps them up to date as tiles move)

KEY_BASE: Final = 5  # a natural count (0–4) per kind, base-5 digits of its group's key
_SUIT_KEYS: Final = KEY_BASE ** 9  # suit keys are 0 .. 5**9 - 1
_HONOR_KEYS: Final = KEY_BASE ** 7
# The win test's inputs of every group key, packed in one int: bits 0–8 ``odd``, bits
# 9–17 ``need0``, bits 18– ``2 - min(dpair, 2)`` (see _Entry); _UNSET until computed.
# The fields are small (≤ 9, ≤ 99, ≤ 101), so the sum of four entries adds them field by
# field, and the largest of four entries has the largest top field.  Flat lists indexed
# by the key: in the compiled build a lookup is a native list read, no hashing and no
# boxing (1.95M slots for the suits: 15.6 MB).
_UNSET: Final = 1 << 40
_suit_win: Final[list[int]] = [_UNSET] * _SUIT_KEYS
_honor_win: Final[list[int]] = [_UNSET] * _HONOR_KEYS
_win_values: dict[int, int] = {}  # one int object per distinct packed value


def group_keys(counts: Sequence[int]) -> list[int]:
    """The four integer keys (characters, dots, bamboo, honours) of 34 natural counts
    (each 0–4): kind ``k`` adds ``count * KEY_BASE ** (k % 9)`` (honours: ``** (k - 27)``)
    to its group."""
    keys = [0, 0, 0, 0]
    for k in range(NUM_KINDS):
        if counts[k]:
            keys[k // 9 if k < 27 else 3] += counts[k] * KEY_BASE ** (k % 9 if k < 27 else k - 27)
    return keys


def key_units(caishen: Tile) -> tuple[tuple[int, int] | None, ...]:
    """Per physical kind, ``(group, unit)`` to add to its group's key when that tile
    joins a concealed hand, or ``None`` for a 财神 (a wildcard, RULES §5.1); a white
    dragon counts as the 财神 kind (RULES §5.2)."""
    hit = _units_memo.get(caishen)
    if hit is None:
        units: list[tuple[int, int] | None] = []
        for t in range(NUM_KINDS):
            k = plays_as(t, caishen)
            units.append(None if k is None else
                         (k // 9, KEY_BASE ** (k % 9)) if k < 27 else
                         (3, KEY_BASE ** (k - 27)))
        hit = _units_memo[caishen] = tuple(units)
    return hit


_units_memo: dict[Tile, tuple[tuple[int, int] | None, ...]] = {}


def _digits(key: int, n: int) -> tuple[int, ...]:
    """The ``n`` counts of a group key."""
    return tuple(key // KEY_BASE ** i % KEY_BASE for i in range(n))


def _win_value(e: _Entry) -> int:
    """The packed win inputs of a group (see ``_suit_win``)."""
    v = e.odd | e.need0 << 9 | (2 - min(e.dpair, 2)) << 18
    return _win_values.setdefault(v, v)


def _fill_win(keys: list[int]) -> None:
    """Compute the packed win inputs of the four keys that are still missing."""
    for k in keys[:3]:
        if _suit_win[k] == _UNSET:
            _suit_win[k] = _win_value(_suit_entry(_digits(k, 9)))
    if _honor_win[keys[3]] == _UNSET:
        _honor_win[keys[3]] = _win_value(_honor_entry(_digits(keys[3], 7)))


def is_win_keys(keys: list[int], wilds: int, seven_pairs: bool) -> bool:
    """The win test (RULES §7.1–7.2) of a concealed part given by its :func:`group_keys`
    (a list of four) and ``wilds``; ``seven_pairs`` allows that shape (14 concealed tiles,
    no melds).  Equals :func:`is_win_counts` / :func:`is_standard_win` on the same tiles.
    Keys hold counts 0–4 (RULES §1.1: a fifth natural tile cannot exist)."""
    # the engine's hot path: four list reads, then integer operations on the packed
    # fields of _win_value (literals, not names: no global look-ups in pure Python)
    k0, k1, k2, k3 = keys
    m = _suit_win[k0]
    p = _suit_win[k1]
    s = _suit_win[k2]
    h = _honor_win[k3]
    # the pair goes where it costs least (largest 2 - min(dpair, 2)), or two wildcards
    top = m
    if p > top:
        top = p
    if s > top:
        top = s
    if h > top:
        top = h
    if top >= _UNSET:
        _fill_win(keys)
        return is_win_keys(keys, wilds, seven_pairs)
    total = m + p + s + h
    if (total >> 9 & 511) + 2 - (top >> 18) <= wilds:
        return True
    return seven_pairs and (total & 511) <= wilds


# --------------------------------------------------------------------------------------
# win tests on (counts, wilds)


def is_standard_win(counts: Sequence[int], wilds: int = 0) -> bool:
    """Standard shape (4 sets + 1 pair, RULES §7.1) of the concealed part.

    ``counts``: 34 natural counts of the concealed tiles (after :func:`split_wilds`), whose
    total plus ``wilds`` is ``3n + 2``; exposed melds are not passed (they are fixed sets).
    """
    return _wilds_to_complete(_entries(counts)) <= wilds


def is_seven_pairs_win(counts: Sequence[int], wilds: int = 0) -> bool:
    """Seven pairs (RULES §7.2): 14 concealed tiles, quads count as two pairs."""
    return sum(counts) + wilds == 14 and _odd_kinds(counts) <= wilds


def is_win_counts(counts: Sequence[int], wilds: int = 0) -> bool:
    """Either winning shape for a concealed part given as ``(counts, wilds)``."""
    # the hot path of the engine and the bots: written out rather than composed
    t = tuple(counts)
    try:
        m, p, s, h = _suits[t[0:9]], _suits[t[9:18]], _suits[t[18:27]], _honors[t[27:34]]
    except KeyError:
        m, p, s, h = _entries(t)
    if (m.need0 + p.need0 + s.need0 + h.need0
            + min(2, m.dpair, p.dpair, s.dpair, h.dpair)) <= wilds:
        return True
    return m.odd + p.odd + s.odd + h.odd <= wilds and sum(counts) + wilds == 14


def _complete_sets_only(counts: Sequence[int], wilds: int) -> bool:
    return _wilds_for_sets(_entries(counts)) <= wilds


def _six_pairs(counts: Sequence[int], wilds: int) -> bool:
    return sum(counts) + wilds == 12 and _odd_kinds(counts) <= wilds


# --------------------------------------------------------------------------------------
# shanten


def shanten_counts(counts: Sequence[int], wilds: int = 0, melds: int = 0) -> int:
    """Exact shanten (向听) of a concealed part with ``wilds`` wildcards and ``melds``
    declared sets: −1 = complete, 0 = ready (听牌), n = n tile exchanges from ready.

    Works for 13- and 14-tile hands (counting kongs as 3); takes the better of the
    standard shape and, with no melds, seven pairs.  Like every shanten count it assumes
    a needed tile can still be drawn (a fifth copy only ever comes as a 财神).
    """
    t = tuple(counts)
    try:
        m, p, s, h = _suits[t[0:9]], _suits[t[9:18]], _suits[t[18:27]], _honors[t[27:34]]
    except KeyError:
        m, p, s, h = _entries(t)
    a0, a1 = _combine(m.k0, m.k1, p) if p is not _EMPTY else (m.k0, m.k1)
    b0, b1 = _combine(s.k0, s.k1, h) if h is not _NO_HONORS else (s.k0, s.k1)
    return _shanten_of(a0, a1, b0, b1, m.pairs + p.pairs + s.pairs + h.pairs,
                       m.odd + p.odd + s.odd + h.odd, wilds, melds)


def shanten_draws(counts: Sequence[int], wilds: int, melds: int,
                  kinds: Sequence[int]) -> list[int]:
    """``[shanten_counts(counts plus one tile of kind k, wilds, melds) for k in kinds]``,
    computed together: a draw changes one group, so the other half of the hand is
    combined once (the efficiency bot's useful-tile count, and its search).

    ``counts``: 34 natural counts; ``kinds``: natural kinds (0–33) each below 4 copies
    in ``counts`` (``ValueError`` otherwise, as a fifth copy is no tile)."""
    t = tuple(counts)
    try:
        m, p, s, h = _suits[t[0:9]], _suits[t[9:18]], _suits[t[18:27]], _honors[t[27:34]]
    except KeyError:
        m, p, s, h = _entries(t)
    a0, a1 = _combine(m.k0, m.k1, p) if p is not _EMPTY else (m.k0, m.k1)
    b0, b1 = _combine(s.k0, s.k1, h) if h is not _NO_HONORS else (s.k0, s.k1)
    pairs = m.pairs + p.pairs + s.pairs + h.pairs
    odd = m.odd + p.odd + s.odd + h.odd
    groups = (m, p, s, h)
    out: list[int] = []
    for k in kinds:
        if not 0 <= k < NUM_KINDS or t[k] >= 4:
            raise ValueError(f"no fifth copy of kind {k} can be drawn")
        g = k // 9 if k < 27 else 3
        base = 9 * g
        if g < 3:
            key = t[base:k] + (t[k] + 1,) + t[k + 1:base + 9]
            new = _suits.get(key) or _suit_entry(key)
        else:
            key = t[27:k] + (t[k] + 1,) + t[k + 1:34]
            new = _honors.get(key) or _honor_entry(key)
        old = groups[g]
        if g == 0:
            x0, x1 = _combine(new.k0, new.k1, p) if p is not _EMPTY else (new.k0, new.k1)
            y0, y1 = b0, b1
        elif g == 1:
            x0, x1 = _combine(m.k0, m.k1, new)
            y0, y1 = b0, b1
        elif g == 2:
            x0, x1 = a0, a1
            y0, y1 = _combine(new.k0, new.k1, h) if h is not _NO_HONORS else (new.k0, new.k1)
        else:
            x0, x1 = a0, a1
            y0, y1 = _combine(s.k0, s.k1, new)
        out.append(_shanten_of(x0, x1, y0, y1, pairs - old.pairs + new.pairs,
                               odd - old.odd + new.odd, wilds, melds))
    return out


def _half(x: _Entry, y: _Entry) -> tuple[_Vec, _Vec]:
    """Kept vectors of a half of the hand: group ``x`` (characters or bamboo) combined
    with its partner ``y`` (dots or honours)."""
    if y is _EMPTY or y is _NO_HONORS:
        return x.k0, x.k1
    return _combine(x.k0, x.k1, y)


def _half_with(groups: Sequence[_Entry], g: int, e: _Entry) -> tuple[_Vec, _Vec]:
    """Kept vectors of the half of the hand that holds group ``g``, with entry ``e`` in
    the place of that group."""
    return _half(e, groups[g + 1]) if g % 2 == 0 else _half(groups[g - 1], e)


def _group_entry(t: tuple[int, ...], g: int, changes: Sequence[tuple[int, int]]) -> _Entry:
    """Entry of group ``g`` (0–2 suits, 3 honours) of counts ``t`` after adding each
    ``(kind, delta)`` of ``changes`` that lies in the group."""
    base, size = (9 * g, 9) if g < 3 else (27, 7)
    key = list(t[base:base + size])
    for kind, delta in changes:
        key[kind - base] += delta
    k = tuple(key)
    if g < 3:
        return _suits.get(k) or _suit_entry(k)
    return _honors.get(k) or _honor_entry(k)


def shanten_swaps(counts: Sequence[int], wilds: int, melds: int,
                  swaps: Sequence[tuple[int, Sequence[int]]]) -> list[list[int]]:
    """For each ``(d, kinds)`` of ``swaps``: ``[shanten_counts(counts less one d plus one
    k, wilds, melds) for k in kinds]``, computed together (the efficiency bot's useful
    draws after each discard of a 14-tile hand).  A discard and a draw in different
    halves of the hand (characters+dots, bamboo+honours) cost no combining at all: each
    half is combined once per discard and once per draw.

    ``counts``: 34 natural counts; ``d``: a held natural kind; ``kinds``: natural kinds
    (0–33) below 4 copies once ``d`` is gone.  ``ValueError`` otherwise."""
    t = tuple(counts)
    try:
        groups = (_suits[t[0:9]], _suits[t[9:18]], _suits[t[18:27]], _honors[t[27:34]])
    except KeyError:
        groups = _entries(t)
    halves = (_half(groups[0], groups[1]), _half(groups[2], groups[3]))
    pairs = sum(g.pairs for g in groups)
    odd = sum(g.odd for g in groups)
    plus: dict[int, tuple[_Entry, tuple[_Vec, _Vec]]] = {}  # draw → its group, its half
    out: list[list[int]] = []
    for d, kinds in swaps:
        if not 0 <= d < NUM_KINDS or t[d] < 1:
            raise ValueError(f"no tile of kind {d} to discard")
        gd = d // 9 if d < 27 else 3
        old_d = groups[gd]
        less = _group_entry(t, gd, ((d, -1),))
        half_d = _half_with(groups, gd, less)
        row: list[int] = []
        for k in kinds:
            if not 0 <= k < NUM_KINDS or t[k] - (k == d) >= 4:
                raise ValueError(f"no fifth copy of kind {k} can be drawn")
            gk = k // 9 if k < 27 else 3
            if gk == gd:
                new = _group_entry(t, gd, ((d, -1), (k, 1)))
                moved = _half_with(groups, gd, new)
                a, b = (moved, halves[1]) if gd < 2 else (halves[0], moved)
                pr = pairs - old_d.pairs + new.pairs
                od = odd - old_d.odd + new.odd
            else:
                hit = plus.get(k)
                if hit is None:
                    more = _group_entry(t, gk, ((k, 1),))
                    hit = plus[k] = (more, _half_with(groups, gk, more))
                more = hit[0]
                pr = pairs - old_d.pairs + less.pairs - groups[gk].pairs + more.pairs
                od = odd - old_d.odd + less.odd - groups[gk].odd + more.odd
                if gk // 2 != gd // 2:  # different halves: both already combined
                    a, b = (half_d, hit[1]) if gd < 2 else (hit[1], half_d)
                else:  # the other group of the same half
                    lo, hi = (less, more) if gd < gk else (more, less)
                    moved = _half(lo, hi)
                    a, b = (moved, halves[1]) if gd < 2 else (halves[0], moved)
            row.append(_shanten_of(a[0], a[1], b[0], b[1], pr, od, wilds, melds))
        out.append(row)
    return out


def _shanten_of(a0: _Vec, a1: _Vec, b0: _Vec, b1: _Vec, pairs: int, singles: int,
                wilds: int, melds: int) -> int:
    """Shanten from the kept vectors of the two halves (characters+dots, bamboo+honours)
    and the seven-pairs counts of the whole concealed part."""
    sets = 4 - melds
    if sets == 4:
        kept = max(a1[0] + b0[4], a1[1] + b0[3], a1[2] + b0[2], a1[3] + b0[1], a1[4],
                   b1[4], a0[1] + b1[3], a0[2] + b1[2], a0[3] + b1[1], a0[4] + b1[0])
    else:
        kept = a1[0] + b0[sets]
        for i in range(sets + 1):
            v = a1[i] + b0[sets - i]
            if v > kept:
                kept = v
            v = a0[i] + b1[sets - i]
            if v > kept:
                kept = v
    standard = 3 * sets + 1 - wilds - kept
    if melds:
        return standard
    # seven pairs (RULES §7.2): pairs, then singles that a draw or a 财神 would pair
    if pairs > 7:
        pairs = 7
    if singles > 7 - pairs:
        singles = 7 - pairs
    seven = 13 - wilds - 2 * pairs - singles
    return seven if seven < standard else standard


def _combine(a0: _Vec, a1: _Vec, b: _Entry) -> tuple[_Vec, _Vec]:
    """Max-plus product of two groups' kept vectors: the sets are shared out between
    them, and at most one of them holds the pair.  Unrolled: this is the hot loop."""
    _, x1, x2, x3, x4 = a0
    y0, y1, y2, y3, y4 = a1
    _, u1, u2, u3, u4 = b.k0
    v0, v1, v2, v3, v4 = b.k1
    return (
        (0, max(x1, u1), max(x2, x1 + u1, u2), max(x3, x2 + u1, x1 + u2, u3),
         max(x4, x3 + u1, x2 + u2, x1 + u3, u4)),
        (max(y0, v0),
         max(y1, y0 + u1, x1 + v0, v1),
         max(y2, y1 + u1, y0 + u2, x2 + v0, x1 + v1, v2),
         max(y3, y2 + u1, y1 + u2, y0 + u3, x3 + v0, x2 + v1, x1 + v2, v3),
         max(y4, y3 + u1, y2 + u2, y1 + u3, y0 + u4, x4 + v0, x3 + v1, x2 + v2, x1 + v3, v4)),
    )


# --------------------------------------------------------------------------------------
# public analysis on tile lists


def _concealed_and_melds(hand: Hand | Sequence[Tile]) -> tuple[Sequence[Tile], int]:
    if isinstance(hand, Hand):
        return hand.concealed, len(hand.melds)
    return hand, 0


def is_win(hand: Hand | Sequence[Tile], caishen: Tile = WHITE) -> bool:
    """Whether a 14-tile hand (kongs counted as 3) wins in either shape (RULES §7).

    Raises ``ValueError`` when the hand does not have 14 tiles.
    """
    concealed, melds = _concealed_and_melds(hand)
    _check_size(len(concealed) + 3 * melds, 14)
    counts, wilds = split_wilds(concealed, caishen)
    if melds:
        return is_standard_win(counts, wilds)
    return is_win_counts(counts, wilds)


def shanten(hand: Hand | Sequence[Tile], caishen: Tile = WHITE) -> int:
    """Shanten of a 13- or 14-tile hand (−1 = complete).  ``ValueError`` on other sizes."""
    concealed, melds = _concealed_and_melds(hand)
    size = len(concealed) + 3 * melds
    if size not in (13, 14):
        raise ValueError(f"a hand has 13 or 14 tiles (kongs counted as 3), got {size}")
    counts, wilds = split_wilds(concealed, caishen)
    return shanten_counts(counts, wilds, melds)


def _check_size(size: int, expected: int) -> None:
    if size != expected:
        raise ValueError(f"expected {expected} tiles (kongs counted as 3), got {size}")


def is_baotou_ready(hand: Hand | Sequence[Tile], caishen: Tile = WHITE) -> bool:
    """A 13-tile hand that wins on *any* tile by 爆头 (RULES §7.3): without one 财神 the
    rest is complete (sets, or six pairs with no melds)."""
    concealed, melds = _concealed_and_melds(hand)
    _check_size(len(concealed) + 3 * melds, 13)
    counts, wilds = split_wilds(concealed, caishen)
    return _baotou_rest(counts, wilds - 1, melds)


def _baotou_rest(counts: Sequence[int], wilds: int, melds: int) -> bool:
    """Rest of the hand once the 爆头 pair is removed: complete sets, or six pairs."""
    if wilds < 0:
        return False
    return _complete_sets_only(counts, wilds) or (melds == 0 and _six_pairs(counts, wilds))


@dataclass(frozen=True, slots=True)
class Wait:
    """One waiting tile: ``tile`` (kind) and ``left``, copies not visible to the player."""

    tile: Tile
    left: int

    def to_dict(self) -> dict[str, object]:
        """``{"tile": "5m", "left": 3}``: the tile's name and its copies unseen."""
        return {"tile": tile_name(self.tile), "left": self.left}


def waits(
    hand: Hand | Sequence[Tile],
    caishen: Tile = WHITE,
    visible: Sequence[int] | None = None,
) -> list[Wait]:
    """Tile kinds whose draw completes a 13-tile hand, in tile order (RULES §7).

    ``visible`` is an optional 34-entry count of tiles the player can see elsewhere
    (discards, melds, the 财神 indicator); ``left`` = 4 − in hand (concealed and melds)
    − visible, never below 0.  A kind of which the hand already holds all 4 cannot be
    drawn and is never listed.  ``ValueError`` unless the hand has 13 tiles.
    """
    concealed, melds = _concealed_and_melds(hand)
    _check_size(len(concealed) + 3 * melds, 13)
    counts, wilds = split_wilds(concealed, caishen)
    own = counts_of(hand.all_tiles() if isinstance(hand, Hand) else hand)
    result = []
    for k in _winning_draws(counts, wilds, melds, caishen, own):
        seen = own[k] + (visible[k] if visible is not None else 0)
        result.append(Wait(k, max(0, 4 - seen)))
    return result


def waits_after_discard(hand: Hand, discard: Tile, caishen: Tile = WHITE,
                        visible: Sequence[int] | None = None) -> list[Wait]:
    """:func:`waits` of the 13 tiles a 14-tile ``hand`` keeps after discarding one
    ``discard``, the discarded copy counted as seen (it lies on the pile).  ``ValueError``
    unless the hand has 14 tiles and holds ``discard`` concealed."""
    concealed = list(hand.concealed)
    concealed.remove(discard)
    seen = list(visible) if visible is not None else [0] * NUM_KINDS
    seen[discard] += 1
    return waits(Hand(tuple(concealed), hand.melds), caishen, seen)


def _winning_draws(
    counts: Sequence[int], wilds: int, melds: int, caishen: Tile, own: Sequence[int]
) -> list[Tile]:
    """Kinds whose draw completes the 13-tile part ``(counts, wilds)``, in tile order; a
    kind of which ``own`` (the player's physical tiles) holds four cannot be drawn."""
    m, p, s, h = _entries(counts)
    total = m.need0 + p.need0 + s.need0 + h.need0
    dm, dp, ds, dh = m.dpair, p.dpair, s.dpair, h.dpair
    # a drawn natural tile wins when its group, with it, and the other three groups
    # need at most `wilds`, the pair lying in its group, in another, or in two 财神
    wins = 0  # bit mask by the natural kind drawn
    for base, e, others in ((0, m, min(2, dp, ds, dh)), (9, p, min(2, dm, ds, dh)),
                            (18, s, min(2, dm, dp, dh))):
        wins |= _group_wins(e, tuple(counts[base:base + 9]), False,
                            wilds - total + e.need0, others) << base
    held = _group_wins(h, tuple(counts[27:34]), True, wilds - total + h.need0,
                       min(2, dm, dp, ds))  # by the count the kind already holds
    for k in range(27, NUM_KINDS):
        if held >> counts[k] & 1:
            wins |= 1 << k
    wild_wins = total + min(2, dm, dp, ds, dh) <= wilds + 1  # a 财神 fills any gap
    if melds == 0:  # seven pairs: a drawn tile pairs a single, or a 财神 pairs one
        odd = m.odd + p.odd + s.odd + h.odd
        wild_wins = wild_wins or odd <= wilds + 1
        if odd + 1 <= wilds:
            wins = (1 << NUM_KINDS) - 1
        elif odd - 1 <= wilds:
            wins |= sum(1 << k for k in range(NUM_KINDS) if counts[k] & 1)
    # the 财神 kind is drawn as a wildcard; a white dragon plays as it (RULES §5.2)
    white_wins = caishen != WHITE and wins >> caishen & 1
    wins &= ~(1 << caishen | 1 << WHITE)
    if wild_wins:
        wins |= 1 << caishen
    if white_wins:
        wins |= 1 << WHITE
    out = []
    while wins:
        low = wins & -wins
        k = low.bit_length() - 1
        if own[k] < 4:
            out.append(k)
        wins ^= low
    return out


def _group_wins(e: _Entry, c: tuple[int, ...], honors: bool, budget: int, others: int) -> int:
    """Mask (as in :func:`_draw_masks`) of the tiles whose addition to group ``c`` lets
    it use at most ``budget`` wildcards, given ``others``: the fewest extra wildcards the
    pair costs outside this group (negative when another group gains by holding it)."""
    by0, by1 = _draw_masks(e, c, honors)
    mask = 0
    if budget - others >= 0:
        mask |= by0[min(budget - others, _MAX_NEED)]
    if budget >= 0:
        mask |= by1[min(budget, _MAX_NEED)]
    return mask


@dataclass(frozen=True, slots=True)
class DiscardOption:
    """A 14-tile hand's discard choice: the shanten after it and the useful tiles
    (有效牌: draws that lower the shanten) with copies left unseen."""

    discard: Tile
    shanten: int
    useful: tuple[Wait, ...]

    @property
    def useful_count(self) -> int:
        """Unseen copies of every useful kind together (有效牌 count, in tiles)."""
        return sum(w.left for w in self.useful)


def discard_options(
    hand: Hand | Sequence[Tile],
    caishen: Tile = WHITE,
    visible: Sequence[int] | None = None,
) -> list[DiscardOption]:
    """For each distinct discardable kind of a 14-tile hand: shanten after discarding it
    and its useful tiles (RULES §7; ``visible`` as in :func:`waits`, ``left`` counting the
    discarded copy as seen).  Sorted best first (lowest shanten, then most useful tiles
    left, then tile order)."""
    concealed, melds = _concealed_and_melds(hand)
    _check_size(len(concealed) + 3 * melds, 14)
    counts, wilds = split_wilds(concealed, caishen)
    own = counts_of(hand.all_tiles() if isinstance(hand, Hand) else hand)
    options = []
    for d in sorted(set(concealed)):
        if d == caishen:
            c2, w2 = counts, wilds - 1
        else:
            c2 = list(counts)
            c2[caishen if d == WHITE else d] -= 1
            w2 = wilds
        own[d] -= 1
        base = shanten_counts(c2, w2, melds)
        useful = []
        for k in range(NUM_KINDS):
            if own[k] + 1 > 4:
                continue
            if k == caishen:
                better = shanten_counts(c2, w2 + 1, melds) < base
            else:
                nat = caishen if k == WHITE else k
                if c2[nat] >= 4:
                    continue
                c3 = list(c2)
                c3[nat] += 1
                better = shanten_counts(c3, w2, melds) < base
            if better:  # the discarded copy lies on the pile: seen, not drawable
                seen = own[k] + (k == d) + (visible[k] if visible is not None else 0)
                useful.append(Wait(k, max(0, 4 - seen)))
        own[d] += 1
        options.append(DiscardOption(d, base, tuple(useful)))
    options.sort(key=lambda o: (o.shanten, -o.useful_count, o.discard))
    return options


# --------------------------------------------------------------------------------------
# readings (for scoring and explanation; not on the hot path)

WILD: Final = -1
"""Marks a 财神 inside a :class:`Group` (``tiles`` then holds the kind it stands for)."""


@dataclass(frozen=True, slots=True)
class Group:
    """One set or pair of a reading.

    ``kind`` is ``"chow"``, ``"pong"``, ``"pair"`` or ``"meld"`` (an exposed meld or kong,
    fixed); ``tiles`` the kinds played (a 财神 counted as the kind it stands for);
    ``wild`` is a tuple of booleans, one per tile, true where a 财神 fills that place.
    A set of three 财神 (RULES §5.1) is a pong with every place wild; its kind is that of
    the 财神 itself.
    """

    kind: Literal["chow", "pong", "pair", "meld"]
    tiles: tuple[Tile, ...]
    wild: tuple[bool, ...]

    def notation(self) -> str:
        """The group's tiles by name, a 财神 standing in starred: ``"1m *2m 3m"``."""
        parts = [("*" if w else "") + tile_name(t) for t, w in zip(self.tiles, self.wild, strict=True)]
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Reading:
    """One way to read a winning 14-tile hand (RULES §7).

    ``shape``: ``"standard"`` or ``"seven_pairs"``; ``baotou``: the pair is the winning
    tile plus a 财神 (two 财神 when the winning tile is one; RULES §7.3);
    ``groups``: the concealed part's sets and pair (or seven pairs), then the melds.
    """

    shape: Shape
    baotou: bool
    groups: tuple[Group, ...]

    def notation(self) -> str:
        """The reading's groups, ``" | "`` between them: ``"1m 2m 3m | … | 5p *5p"``."""
        return " | ".join(g.notation() for g in self.groups)


def readings(hand: Hand, win_tile: Tile, caishen: Tile = WHITE) -> list[Reading]:
    """The winning readings of ``hand`` (13 tiles) plus ``win_tile``.

    Empty when the 14 tiles do not win.  Readings differ in their groups (including which
    kind each 财神 stands for); each is marked 爆头 or not (RULES §7.3).  A hand with many
    财神 can have hundreds of readings, so each search stops after ``_LIMIT``; the 爆头
    readings, which always score highest (RULES §9), are searched first so that one is
    listed whenever it exists.  ``ValueError`` unless ``hand`` has 13 tiles.
    """
    _check_size(hand.size, 13)
    concealed = list(hand.concealed) + [win_tile]
    counts, wilds = split_wilds(concealed, caishen)
    win_is_wild = win_tile == caishen
    win_nat = plays_as(win_tile, caishen)
    seven = not hand.melds
    meld_groups = tuple(Group("meld", m.tiles, (False,) * len(m.tiles)) for m in hand.melds)
    found: dict[tuple[object, ...], Reading] = {}

    def add(shape: Shape, bt: bool, groups: list[Group]) -> None:
        ordered = tuple(sorted(groups, key=_group_key))
        r = Reading(shape, bt, ordered + meld_groups if shape == "standard" else ordered)
        found.setdefault((shape, bt, r.groups), r)

    # 爆头 first: the pair is the winning tile plus a 财神, the rest sets or six pairs
    rest = list(counts)
    if win_nat is None:
        head, rest_wilds = Group("pair", (caishen, caishen), (True, True)), wilds - 2
    else:
        head, rest_wilds = Group("pair", (win_nat, win_nat), (False, True)), wilds - 1
        rest[win_nat] -= 1
    if rest_wilds >= 0 and _complete_sets_only(rest, rest_wilds):
        for groups in _standard_decompositions(rest, rest_wilds, caishen, with_pair=False):
            add("standard", True, groups + [head])
    if rest_wilds >= 0 and seven and _six_pairs(rest, rest_wilds):
        for groups in _pair_decompositions(rest, rest_wilds, caishen):
            add("seven_pairs", True, groups + [head])

    if is_standard_win(counts, wilds):
        for groups in _standard_decompositions(counts, wilds, caishen, with_pair=True):
            pair = next(g for g in groups if g.kind == "pair")
            add("standard", _is_baotou_pair(pair, win_is_wild, win_nat), groups)
    if seven and is_seven_pairs_win(counts, wilds):
        for groups in _pair_decompositions(counts, wilds, caishen):
            add("seven_pairs",
                any(_is_baotou_pair(g, win_is_wild, win_nat) for g in groups), groups)
    return list(found.values())


def _is_baotou_pair(pair: Group, win_is_wild: bool, win_nat: Tile | None) -> bool:
    if win_is_wild:
        return pair.wild == (True, True)
    return sum(pair.wild) == 1 and pair.tiles[0] == win_nat


def _group_key(g: Group) -> tuple[int, tuple[int, ...], tuple[bool, ...]]:
    order = {"pair": 0, "chow": 1, "pong": 1, "meld": 2}
    return (order[g.kind], g.tiles, g.wild)


_LIMIT: Final = 512  # decompositions per search (see :func:`readings`)


def _standard_decompositions(counts: list[int], wilds: int, caishen: Tile,
                             with_pair: bool) -> list[list[Group]]:
    """Ways to split the tiles into sets, plus one pair when ``with_pair``."""
    out: list[list[Group]] = []

    def rec(c: list[int], w: int, pair_used: bool, acc: list[Group]) -> None:
        if len(out) >= _LIMIT:
            return
        i = next((k for k in range(NUM_KINDS) if c[k]), -1)
        if i < 0:
            # only wildcards left: sets of three 财神, and the pair if still missing
            if pair_used:
                if w % 3 == 0:
                    out.append(acc + [Group("pong", (caishen,) * 3, (True,) * 3)] * (w // 3))
            elif w >= 2 and (w - 2) % 3 == 0:
                extra = [Group("pong", (caishen,) * 3, (True,) * 3)] * ((w - 2) // 3)
                out.append(acc + [Group("pair", (caishen,) * 2, (True, True))] + extra)
            return
        # pair containing i
        if not pair_used:
            if c[i] >= 2:
                c[i] -= 2
                rec(c, w, True, acc + [Group("pair", (i, i), (False, False))])
                c[i] += 2
            if w >= 1:
                c[i] -= 1
                rec(c, w - 1, True, acc + [Group("pair", (i, i), (False, True))])
                c[i] += 1
        # pong containing i, with 0–2 wildcards
        for nat in (3, 2, 1):
            need = 3 - nat
            if c[i] >= nat and w >= need:
                c[i] -= nat
                rec(c, w - need, pair_used,
                    acc + [Group("pong", (i,) * 3, (False,) * nat + (True,) * need)])
                c[i] += nat
        # chows containing i; lower places must be wild (i is the lowest natural left)
        if i < 27:
            r = i % 9
            for start in (r - 2, r - 1, r):
                if start < 0 or start + 2 > 8:
                    continue
                places = (i - r + start, i - r + start + 1, i - r + start + 2)
                for wild in _chow_wild_choices(c, places, i):
                    need = sum(wild)
                    if need > w:
                        continue
                    for p, is_w in zip(places, wild, strict=True):
                        c[p] -= int(not is_w)
                    rec(c, w - need, pair_used, acc + [Group("chow", places, wild)])
                    for p, is_w in zip(places, wild, strict=True):
                        c[p] += int(not is_w)

    rec(list(counts), wilds, not with_pair, [])
    return out


def _chow_wild_choices(c: Sequence[int], places: tuple[int, int, int],
                        i: int) -> list[tuple[bool, ...]]:
    """Which places of a chow through ``i`` a 财神 fills: those below ``i`` must (``i`` is
    the lowest natural left); those above may use a held natural tile instead."""
    choices: list[tuple[bool, ...]] = [()]
    for p in places:
        if p < i:
            choices = [ch + (True,) for ch in choices]
        elif p == i:
            choices = [ch + (False,) for ch in choices]
        else:
            nxt = [ch + (True,) for ch in choices]
            if c[p]:
                nxt += [ch + (False,) for ch in choices]
            choices = nxt
    return choices


def _pair_decompositions(counts: list[int], wilds: int, caishen: Tile) -> list[list[Group]]:
    out: list[list[Group]] = []
    kinds = [k for k in range(NUM_KINDS) if counts[k]]

    def rec(idx: int, w: int, acc: list[Group]) -> None:
        if len(out) >= _LIMIT:
            return
        if idx == len(kinds):
            if w % 2 == 0:
                out.append(acc + [Group("pair", (caishen, caishen), (True, True))] * (w // 2))
            return
        k = kinds[idx]
        n = counts[k]
        for j in range(n % 2, min(n, w) + 1, 2):  # j tiles of k paired with a 财神 each
            groups = [Group("pair", (k, k), (False, False))] * ((n - j) // 2)
            groups += [Group("pair", (k, k), (False, True))] * j
            rec(idx + 1, w - j, acc + groups)

    rec(0, wilds, [])
    return out


def natural_quads(hand: Hand, win_tile: Tile, caishen: Tile = WHITE) -> int:
    """``h`` of RULES §9.2: kinds of which the 14 concealed tiles hold four non-财神 tiles
    (white dragons standing in count as natural)."""
    counts, _ = split_wilds(list(hand.concealed) + [win_tile], caishen)
    return sum(1 for x in counts if x == 4)


def holds_caishen(hand: Hand, win_tile: Tile, caishen: Tile = WHITE) -> bool:
    """Whether the 14 tiles include a 财神 tile (RULES §7.4; stand-ins do not count)."""
    return win_tile == caishen or caishen in hand.concealed
