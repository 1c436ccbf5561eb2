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
tiles of that group that can be kept in partial sets, and the fewest wildcards needed to
turn *all* of its tiles into complete sets (±pair).  Entries are computed on first use
(a few microseconds each; about ten thousand keys cover ordinary play), so importing the
module costs nothing and every later lookup is one dict access.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from hzmj.tiles import NUM_KINDS, WHITE, Hand, Tile, tile_name

_BIG: Final = 99
_NEG: Final = -99

Shape = Literal["standard", "seven_pairs"]


# --------------------------------------------------------------------------------------
# wild splitting


def split_wilds(tiles: Iterable[Tile], caishen: Tile) -> tuple[list[int], int]:
    """Return ``(counts, wilds)`` for a concealed tile list (RULES §5.1–5.2).

    ``counts`` has 34 entries; white dragons count as the 财神 kind when
    ``caishen != WHITE``; 财神 tiles are not in ``counts`` but in ``wilds``.
    """
    counts = [0] * NUM_KINDS
    wilds = 0
    for t in tiles:
        if t == caishen:
            wilds += 1
        elif t == WHITE:
            counts[caishen] += 1
        else:
            counts[t] += 1
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

# vector index: s * 2 + p  (s sets 0..4, p pair 0/1)
_Vec = tuple[int, ...]
_ZERO: Final[_Vec] = (0,) * 10
_kept_memo: dict[tuple[tuple[int, ...], bool], _Vec] = {}


def _kept(c: tuple[int, ...], honors: bool) -> _Vec:
    """Most tiles of ``c`` kept in ``s`` partial sets plus an optional partial pair."""
    memo_key = (c, honors)
    hit = _kept_memo.get(memo_key)
    if hit is not None:
        return hit
    n = len(c)
    i = 0
    while i < n and c[i] == 0:
        i += 1
    if i == n:
        _kept_memo[memo_key] = _ZERO
        return _ZERO
    best = list(_kept(_minus(c, (i,)), honors))  # leave one tile i out
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
        sub = _kept(_minus(c, group), honors)
        k = len(group)
        if is_pair:
            for s in range(5):
                v = sub[s * 2] + k
                if v > best[s * 2 + 1]:
                    best[s * 2 + 1] = v
        else:
            for s in range(1, 5):
                for p in (0, 1):
                    v = sub[(s - 1) * 2 + p] + k
                    if v > best[s * 2 + p]:
                        best[s * 2 + p] = v
    # an empty set / pair keeps nothing: make the vector monotone in s and p
    for s in range(5):
        if s:
            for p in (0, 1):
                if best[(s - 1) * 2 + p] > best[s * 2 + p]:
                    best[s * 2 + p] = best[(s - 1) * 2 + p]
        if best[s * 2] > best[s * 2 + 1]:
            best[s * 2 + 1] = best[s * 2]
    out = tuple(best)
    _kept_memo[memo_key] = out
    return out


def _minus(c: tuple[int, ...], group: tuple[int, ...]) -> tuple[int, ...]:
    lst = list(c)
    for j in group:
        lst[j] -= 1
    return tuple(lst)


# entry: kept vector (10) + wilds needed to complete all tiles without / with the pair
_Entry = tuple[int, ...]
_table: dict[tuple[int, ...], _Entry] = {}
_honor_table: dict[tuple[int, ...], _Entry] = {}


def _make_entry(c: tuple[int, ...], honors: bool) -> _Entry:
    kept = _kept(c, honors)
    n = sum(c)
    need = [_BIG, _BIG]
    for p in (0, 1):
        for s in range(5):
            if kept[s * 2 + p] == n and 3 * s + 2 * p >= n:
                need[p] = 3 * s + 2 * p - n
                break
    return kept + (need[0], need[1])


def _suit_entry(c: tuple[int, ...]) -> _Entry:
    e = _table.get(c)
    if e is None:
        e = _table[c] = _make_entry(c, False)
    return e


def _honor_entry(c: tuple[int, ...]) -> _Entry:
    # honours are independent kinds: the sorted counts decide everything
    key = tuple(sorted((x for x in c if x), reverse=True))
    e = _honor_table.get(key)
    if e is None:
        e = _honor_table[key] = _make_entry(key, True)
    return e


def _entries(counts: Sequence[int]) -> tuple[_Entry, _Entry, _Entry, _Entry]:
    return (
        _suit_entry(tuple(counts[0:9])),
        _suit_entry(tuple(counts[9:18])),
        _suit_entry(tuple(counts[18:27])),
        _honor_entry(tuple(counts[27:34])),
    )


def _wilds_to_complete(entries: Sequence[_Entry]) -> int:
    """Fewest wildcards that complete every natural tile into sets plus one pair."""
    total = 0
    for e in entries:
        total += e[10]
    best = total + 2  # the pair made of two wildcards
    for e in entries:
        v = total - e[10] + e[11]
        if v < best:
            best = v
    return best


def _wilds_for_sets(entries: Sequence[_Entry]) -> int:
    """Fewest wildcards that complete every natural tile into sets (no pair)."""
    return entries[0][10] + entries[1][10] + entries[2][10] + entries[3][10]


def _odd_kinds(counts: Sequence[int]) -> int:
    return sum(1 for x in counts if x & 1)


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
    return is_standard_win(counts, wilds) or is_seven_pairs_win(counts, wilds)


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
    standard shape and, with no melds, seven pairs.
    """
    return min(_standard_shanten(counts, wilds, melds),
               _seven_pairs_shanten(counts, wilds) if melds == 0 else _BIG)


def _standard_shanten(counts: Sequence[int], wilds: int, melds: int) -> int:
    sets = 4 - melds
    entries = _entries(counts)
    # max-plus combination of the four kept vectors, capped at `sets` sets
    acc0 = [0] * (sets + 1)
    acc1 = [0] * (sets + 1)
    first = True
    for e in entries:
        if e[0] == e[1] == e[8] == e[9] == 0 and not first:
            continue
        if first:
            acc0 = [e[s * 2] for s in range(sets + 1)]
            acc1 = [e[s * 2 + 1] for s in range(sets + 1)]
            first = False
            continue
        n0 = [_NEG] * (sets + 1)
        n1 = [_NEG] * (sets + 1)
        for a in range(sets + 1):
            a0 = acc0[a]
            a1 = acc1[a]
            for b in range(sets + 1 - a):
                b0 = e[b * 2]
                b1 = e[b * 2 + 1]
                s = a + b
                if a0 + b0 > n0[s]:
                    n0[s] = a0 + b0
                v = a1 + b0 if a1 + b0 > a0 + b1 else a0 + b1
                if v > n1[s]:
                    n1[s] = v
        acc0, acc1 = n0, n1
    kept = acc1[sets]
    return 3 * sets + 2 - wilds - kept - 1


def _seven_pairs_shanten(counts: Sequence[int], wilds: int) -> int:
    pairs = 0
    singles = 0
    for x in counts:
        if x:
            pairs += x >> 1
            singles += x & 1
    pairs = min(pairs, 7)
    kept = 2 * pairs + min(singles, 7 - pairs)
    return 14 - wilds - kept - 1


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
    own = [0] * NUM_KINDS
    all_tiles = hand.all_tiles() if isinstance(hand, Hand) else list(hand)
    for t in all_tiles:
        own[t] += 1
    result = []
    for k in _winning_draws(counts, wilds, melds, caishen, own):
        seen = own[k] + (visible[k] if visible is not None else 0)
        result.append(Wait(k, max(0, 4 - seen)))
    return result


def _winning_draws(
    counts: list[int], wilds: int, melds: int, caishen: Tile, own: Sequence[int]
) -> list[Tile]:
    # the 13-tile part must already be one tile from complete: cheap rejection
    if shanten_counts(counts, wilds, melds) != 0:
        return []
    if _baotou_rest(counts, wilds - 1, melds):
        return [k for k in range(NUM_KINDS) if own[k] < 4]
    seven = melds == 0
    entries = list(_entries(counts))
    out = []
    for k in range(NUM_KINDS):
        if own[k] >= 4:
            continue
        if k == caishen:
            out.append(k)  # a drawn 财神 fills the one missing tile
            continue
        nat = caishen if k == WHITE else k
        if counts[nat] >= 4:
            continue
        g = nat // 9
        counts[nat] += 1
        changed = list(entries)
        changed[g] = (_honor_entry(tuple(counts[27:34])) if g == 3
                      else _suit_entry(tuple(counts[g * 9:g * 9 + 9])))
        win = _wilds_to_complete(changed) <= wilds or (
            seven and _odd_kinds(counts) <= wilds and sum(counts) + wilds == 14)
        counts[nat] -= 1
        if win:
            out.append(k)
    return out


@dataclass(frozen=True, slots=True)
class DiscardOption:
    """A 14-tile hand's discard choice: the shanten after it and the useful tiles
    (有效牌: draws that lower the shanten) with copies left unseen."""

    discard: Tile
    shanten: int
    useful: tuple[Wait, ...]

    @property
    def useful_count(self) -> int:
        return sum(w.left for w in self.useful)


def discard_options(
    hand: Hand | Sequence[Tile],
    caishen: Tile = WHITE,
    visible: Sequence[int] | None = None,
) -> list[DiscardOption]:
    """For each distinct discardable kind of a 14-tile hand: shanten after discarding it
    and its useful tiles (RULES §7; ``visible`` as in :func:`waits`).  Sorted best first
    (lowest shanten, then most useful tiles left, then tile order)."""
    concealed, melds = _concealed_and_melds(hand)
    _check_size(len(concealed) + 3 * melds, 14)
    counts, wilds = split_wilds(concealed, caishen)
    own = [0] * NUM_KINDS
    all_tiles = hand.all_tiles() if isinstance(hand, Hand) else list(hand)
    for t in all_tiles:
        own[t] += 1
    options = []
    for d in sorted(set(concealed)):
        if d == caishen:
            c2, w2 = counts, wilds - 1
        else:
            c2 = list(counts)
            c2[plays_as(d, caishen) or 0] -= 1
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
            if better:
                seen = own[k] + (visible[k] if visible is not None else 0)
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
        return " | ".join(g.notation() for g in self.groups)


def readings(hand: Hand, win_tile: Tile, caishen: Tile = WHITE) -> list[Reading]:
    """Every distinct winning reading of ``hand`` (13 tiles) plus ``win_tile``.

    Empty when the 14 tiles do not win.  Readings differ in their groups (including which
    kind each 财神 stands for); each is marked 爆头 or not (RULES §7.3).  ``ValueError``
    unless ``hand`` has 13 tiles.
    """
    _check_size(hand.size, 13)
    concealed = list(hand.concealed) + [win_tile]
    counts, wilds = split_wilds(concealed, caishen)
    win_is_wild = win_tile == caishen
    win_nat = plays_as(win_tile, caishen)
    meld_groups = tuple(Group("meld", m.tiles, (False,) * len(m.tiles)) for m in hand.melds)
    found: dict[tuple[object, ...], Reading] = {}
    if _wilds_to_complete(_entries(counts)) <= wilds:
        for groups in _standard_decompositions(counts, wilds, caishen):
            pair = next(g for g in groups if g.kind == "pair")
            bt = _is_baotou_pair(pair, win_is_wild, win_nat)
            r = Reading("standard", bt, tuple(sorted(groups, key=_group_key)) + meld_groups)
            found.setdefault(("standard", bt, r.groups), r)
    if not hand.melds and is_seven_pairs_win(counts, wilds):
        for groups in _pair_decompositions(counts, wilds, caishen):
            bt = any(_is_baotou_pair(g, win_is_wild, win_nat) for g in groups)
            r = Reading("seven_pairs", bt, tuple(sorted(groups, key=_group_key)))
            found.setdefault(("seven_pairs", bt, r.groups), r)
    return list(found.values())


def _is_baotou_pair(pair: Group, win_is_wild: bool, win_nat: Tile | None) -> bool:
    if win_is_wild:
        return pair.wild == (True, True)
    return sum(pair.wild) == 1 and pair.tiles[0] == win_nat


def _group_key(g: Group) -> tuple[int, tuple[int, ...], tuple[bool, ...]]:
    order = {"pair": 0, "chow": 1, "pong": 1, "meld": 2}
    return (order[g.kind], g.tiles, g.wild)


_LIMIT: Final = 512  # readings are for explanation; enough to cover any real hand


def _standard_decompositions(counts: list[int], wilds: int, caishen: Tile) -> list[list[Group]]:
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

    rec(list(counts), wilds, False, [])
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
