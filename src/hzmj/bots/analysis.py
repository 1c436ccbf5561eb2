"""Fast, cached hand analysis for bots, on ``(counts, wilds, melds)`` states.

A *state* is the concealed part of a hand as :func:`hzmj.hand.split_wilds` gives it
(natural counts by the kind they play as, and the number of 财神) plus the number of
declared sets.  None of it depends on which kind the 财神 is, so one cache serves every
hand.  The hot path of a bot decision is shanten per distinct discard, then the useful
draws (有效牌) of the few best discards only; both are memoised here.

Draws are named by natural kind, or :data:`WILD` for a drawn 财神.  :func:`physical`
maps such a name back to the physical tile kind whose unseen copies are counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from hzmj.hand import (
    is_baotou_ready,
    is_seven_pairs_win,
    shanten_counts,
    shanten_draws,
    shanten_swaps,
)
from hzmj.tiles import NUM_KINDS, WHITE, Hand, Meld, MeldKind, Tile

WILD: Final = -1
"""A drawn 财神, in lists of draws."""
NEVER: Final = math.inf
"""The plan length of a hand its draws cannot complete."""

State = tuple[tuple[int, ...], int, int]
"""``(counts, wilds, melds)``: a concealed part and the number of declared sets."""

_CACHE_LIMIT: Final = 200_000
_shanten: dict[State, int] = {}
_useful: dict[State, tuple[int, ...]] = {}
_baotou: dict[State, bool] = {}

# is_baotou_ready only reads how many melds a hand has (RULES §7.3: the rest must be
# complete sets), so any valid meld stands in for the real ones here.
_ANY_MELD: Final = Meld(MeldKind.PONG, (0, 0, 0))


def _remember(cache: dict[State, object], key: State, value: object) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value


def state_of(counts: Sequence[int], wilds: int, melds: int) -> State:
    """The hashable state ``(34 natural counts, 财神 held, declared sets)``."""
    return (tuple(counts), wilds, melds)


def physical(draw: int, caishen: Tile) -> Tile:
    """The physical kind of a draw name: the 财神 for :data:`WILD`, the white dragon for
    the 财神 kind's natural value (RULES §5.2), else the kind itself."""
    if draw == WILD:
        return caishen
    if draw == caishen and caishen != WHITE:
        return WHITE
    return draw


def natural(t: Tile, caishen: Tile) -> int:
    """Draw name of a physical tile (inverse of :func:`physical`)."""
    if t == caishen:
        return WILD
    if t == WHITE and caishen != WHITE:
        return caishen
    return t


def add(state: State, draw: int) -> State:
    """``state`` plus one tile of draw name ``draw`` (a natural kind, or :data:`WILD`)."""
    counts, wilds, melds = state
    if draw == WILD:
        return (counts, wilds + 1, melds)
    c = list(counts)
    c[draw] += 1
    return (tuple(c), wilds, melds)


def remove(state: State, draw: int) -> State:
    """``state`` minus one tile (``ValueError`` if it is not there)."""
    counts, wilds, melds = state
    if draw == WILD:
        if wilds <= 0:
            raise ValueError("no 财神 to remove")
        return (counts, wilds - 1, melds)
    if counts[draw] <= 0:
        raise ValueError(f"no tile of kind {draw} to remove")
    c = list(counts)
    c[draw] -= 1
    return (tuple(c), wilds, melds)


def meld_out(state: State, draws: Sequence[int]) -> State:
    """``state`` after moving ``draws`` (naturals) into one new declared set."""
    counts, wilds, melds = state
    c = list(counts)
    for d in draws:
        c[d] -= 1
    return (tuple(c), wilds, melds + 1)


def shanten(state: State) -> int:
    """Exact shanten of ``state`` (:func:`hzmj.hand.shanten_counts`), memoised."""
    hit = _shanten.get(state)
    if hit is None:
        hit = shanten_counts(state[0], state[1], state[2])
        _remember(_shanten, state, hit)  # type: ignore[arg-type]
    return hit


def _near(counts: Sequence[int], melds: int) -> list[int]:
    """Natural kinds whose draw could lower the shanten: suited kinds within two ranks of
    a held tile of their suit, held honours; every kind when seven pairs still lack
    distinct kinds."""
    if melds == 0 and len(counts) - counts.count(0) < 7:
        return [k for k in range(NUM_KINDS) if k != WHITE]
    out: list[int] = []
    for base in (0, 9, 18):
        near = 0
        for r in range(9):
            if counts[base + r]:
                near |= 0b11111 << r  # ranks r-2..r+2, shifted by 2
        out.extend(base + r for r in range(9) if near >> (r + 2) & 1)
    out.extend(k for k in range(27, NUM_KINDS) if counts[k])
    return out


def useful(state: State) -> tuple[int, ...]:
    """Draws that lower the shanten of a 13-tile state (with shanten 0: the winning
    draws), as natural kinds and :data:`WILD`."""
    hit = _useful.get(state)
    if hit is not None:
        return hit
    counts, wilds, melds = state
    kinds = _draw_kinds(state)
    return _keep_useful(state, kinds, shanten_draws(counts, wilds, melds, kinds))


def _draw_kinds(state: State) -> list[int]:
    """The natural draws :func:`useful` tries on a 13-tile state."""
    counts, _, melds = state
    return [k for k in _near(counts, melds) if counts[k] < 4]


def _keep_useful(state: State, kinds: Sequence[int], after: Sequence[int]) -> tuple[int, ...]:
    """Cache and return the useful draws of ``state``: the ``kinds`` whose shanten
    ``after`` the draw is lower, then a drawn 财神 if it lowers it too."""
    base = shanten(state)
    out = [k for k, n in zip(kinds, after, strict=True) if n < base]
    if shanten(add(state, WILD)) < base:
        out.append(WILD)
    result = tuple(out)
    _remember(_useful, state, result)  # type: ignore[arg-type]
    return result


def useful_after(state: State, discards: Sequence[int]) -> list[tuple[int, ...]]:
    """``[useful(remove(state, d)) for d in discards]`` for a 14-tile ``state``, the
    uncached ones computed together (:func:`hzmj.hand.shanten_swaps`: a discard and a
    draw in different halves of the hand share their work).  ``discards``: natural
    kinds held, or :data:`WILD`; ``ValueError`` for a tile that is not there."""
    counts, wilds, melds = state
    afters = [remove(state, d) for d in discards]
    todo = [(d, after, _draw_kinds(after)) for d, after in zip(discards, afters, strict=True)
            if d != WILD and after not in _useful]
    if todo:
        rows = shanten_swaps(counts, wilds, melds, [(d, kinds) for d, _, kinds in todo])
        for (_, after, kinds), row in zip(todo, rows, strict=True):
            _keep_useful(after, kinds, row)
    return [useful(after) for after in afters]


def baotou_ready(state: State) -> bool:
    """RULES §7.3: a 13-tile state that wins on any draw by 爆头."""
    hit = _baotou.get(state)
    if hit is None:
        counts, wilds, melds = state
        concealed = tuple(k for k in range(NUM_KINDS) for _ in range(counts[k]))
        # the wild tiles' kind never matters to the test: use the white dragon as 财神
        hit = wilds > 0 and is_baotou_ready(Hand(concealed + (WHITE,) * wilds,
                                                 (_ANY_MELD,) * melds), WHITE)
        _remember(_baotou, state, hit)  # type: ignore[arg-type]
    return hit


def win_multiplier(state: State, draw: int, must_baotou: bool = False) -> int:
    """Estimated multiplier M (RULES §9.1) of winning the 13-tile ``state`` on ``draw``
    with an empty chain; 0 when RULES §7.5 (有财必拷响) forbids that win.

    爆头 M=2, 七客 M=4; otherwise seven pairs M=2 (4 with no 财神), standard M=1.
    Natural quads (豪华) and chains are left out.
    """
    counts, wilds, melds = state
    if baotou_ready(state):
        rest_pairs = melds == 0 and sum(1 for x in counts if x % 2) <= wilds - 1
        return 4 if rest_pairs else 2
    holds = wilds > 0 or draw == WILD
    if must_baotou and holds:
        return 0
    full = add(state, draw)
    if melds == 0 and is_seven_pairs_win(full[0], full[1]):
        return 2 if holds else 4
    return 1


def plan_length(state: State, draws: Sequence[Tile], caishen: Tile) -> float:
    """How many of ``draws`` (physical tiles, in order) a 13-tile ``state`` needs before
    its tiles hold a complete hand, every draw kept (the others thrown on the way);
    :data:`NEVER` if all of them do not suffice."""
    counts, wilds, melds = list(state[0]), state[1], state[2]
    first = shanten(state) + 1  # no fewer draws can complete it
    for j, t in enumerate(draws, 1):
        k = natural(t, caishen)
        if k == WILD:
            wilds += 1
        else:
            counts[k] += 1
        # growing hands are seen once: computed, not cached
        if j >= first and shanten_counts(counts, wilds, melds) < 0:
            return j
    return NEVER
