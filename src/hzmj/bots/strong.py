"""The strong bot: a one-draw expectimax over the seat's own draws, scored by the chance
of winning times the multiplier, on top of the efficiency bot's candidate ranking.

Value of a 13-tile state with ``d`` own draws left (``r``: chance that a go-around
passes without an opponent's self-drawn win; ``p_k``: chance the next draw is ``k``,
from the tiles the seat cannot see, RULES §13):

* **exact ply**: ``Q(h, d) = r × Σ_k p_k × [M(h, k) if k wins; else
  max_y H(h + k − y, d − 1) over the discards y that lower the shanten if k is useful;
  else max(H(h, d − 1), max_y H(h + k − y, d − 1) over the y that keep it)]``, where
  ``M`` counts 爆头 ×2, 七客 ×4, seven pairs ×2/×4 (RULES §9.1).  The last term is
  改良: a draw that does not advance the hand may still be kept for a better shape (a
  lone-tile wait turned into a two-sided one, a hand turned 爆头-ready), up to shanten
  ``IMPROVE_MAX_SHANTEN``;
* **heuristic leaf** ``H``: a chain of ``shanten`` improvements, each draw succeeding
  with the state's useful-tile chance, then a ready hand winning with its real waits
  and multipliers (at shanten 0) or an estimate (above), discounted by ``r`` per draw.
  Before the hand is ready, a go-around also offers the others' discards: the useful
  kinds a pong (any other seat) or a chow (the player before us) could take add
  ``CLAIM_SHARE`` × their chance of being discarded to the current step's chance
  (RULES §6.3; the winning tile itself must be drawn, §8.1).  A hand holding a 财神
  is also valued along the **爆头 route** (``BAOTOU_LEAF``): :func:`baotou_distance`
  exchanges until the hand minus one 财神 is complete, then any draw wins with M=2
  (RULES §7.3, §9.1); the leaf takes the better route.  A 爆头-ready state wins on
  every draw, also on the draws :func:`hzmj.bots.analysis.useful` does not list (it
  lists only kinds near the held tiles).
* **the search plays its draws as the bot would**: a winning draw may be turned down
  for a 爆头-ready hand, as at the root (``BAOTOU_IN_SEARCH``); a 爆头 win that stays
  爆头-ready without one 财神 may throw it for 财飘 and win the next draw at twice the M
  (``PIAO_IN_SEARCH``, RULES §9.1); a non-winning draw that touches the hand may be kept
  for a better shape at the same shanten (改良).

Root decisions: the top discards of the efficiency ranking are re-scored with ``Q``,
less ``FEED_CLAIM`` × :func:`claim_cost` (a discard an opponent chows or pongs is a
free step towards its win, RULES §6.3; each seat's claim weighs what its win would cost
us, the dealer's the most, §10.1);
kongs with one immediate replacement draw (a win on it counts double: 杠开 / 杠暴);
claims by comparing ``Q`` after the claim and the best discard with ``Q`` of passing;
wins and 财飘 as in the efficiency bot.  The search width comes from the time budget
(``budget_ms``, default 100) through fixed counts, never from the clock, so a decision
depends only on the view (and the seed, which breaks no ties here): it is reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from hzmj.bots import analysis as an
from hzmj.bots.base import Candidate, ExplainingBot, top_with
from hzmj.bots.efficiency import (
    OTHER_WIN_PER_DRAW,
    TOP,
    claim_candidates,
    current_win_multiplier,
    hand_state,
    piao_value,
    rank_discards,
    third_tan_takers,
    turn_candidates,
)
from hzmj.bots.seat import SeatInfo, read_seat, remove_tiles
from hzmj.events import Action, Chow, Discard, Kong, Pass, Pong, Win
from hzmj.hand import shanten_counts
from hzmj.scoring import pair_factor, tan_limit
from hzmj.tiles import NUM_KINDS, WHITE, Tile, format_tiles

DEFAULT_BUDGET_MS = 100
LEAVES_PER_MS = 4
"""Leaf evaluations the budget allows per millisecond: a fixed count, not a clock, so a
decision never depends on the machine's speed."""

SEARCH_MAX_SHANTEN = 1
"""Above this shanten the efficiency ranking decides (the search adds little there)."""
CLAIM_SEARCH_MAX_SHANTEN = 1
"""Above this shanten (before the claim) the efficiency ranking decides claims."""
IMPROVE = True
"""The search values 改良: a draw that touches the hand but does not lower the shanten may
be kept for a better shape (off: thrown back, the bot before 2026-12-02)."""
IMPROVE_MAX_SHANTEN = 1
"""Up to this shanten a draw that does not lower it may still be kept for a better shape."""
CLAIM_SHARE = 0.5
"""In the leaf, how much of the chance that the others discard a kind we could claim
(pong: any of them; chow: the player before us) counts as a chance to advance the hand
this go-around, besides our own draw; 0: own draws only (the bot before 2026-12-02)."""
BAOTOU_IN_SEARCH = True
"""The search turns a plain win down for a 爆头-ready hand where the root would (off: the
bot before 2026-12-02)."""
BAOTOU_LEAF = True
"""The leaf of a hand holding a 财神 also values the 爆头 route: the draws needed until the
hand minus one 财神 is complete, then any draw wins with M=2 (off: the ready hand's own
waits only, the bot before the 爆头 route of 2026-12-02)."""
FEED_CLAIM = 0.1
"""Expected cost, in our own win's M, of a discard an opponent claims (a chow or pong is
a free step towards its win, RULES §6.3): :func:`claim_cost` times this is taken off
each discard's value (0: off, the bot before the claim reading of 2026-12-02)."""
CHOW_TAKEN = 0.5
"""Share of the chows a player could make on a discard that it does make (a chow must
lower the efficiency bot's shanten; a pong nearly always does)."""
DEALER_WEIGHT = True
"""The claim cost weighs each seat by what its win costs us (:func:`loss_weights`: the
dealer factor of RULES §10.1); off: every seat alike (the bot before 2026-12-02's
fourth pass)."""
PIAO_IN_SEARCH = True
"""The search plays 财飘 as the root would: a 爆头 win whose hand stays 爆头-ready without
one 财神 may throw that 财神 instead and win the next draw at twice the M (RULES §9.1;
off: the bot before 2026-12-02's 财飘 search)."""
LOSS = 0.35
"""What an opponent's win costs, in units of our own win's M (we pay one share of three)."""
FEED_RISK = 0.02
"""Expected cost of a discard that could feed a third 摊 (RULES §10.4)."""
FEED_THIRD_TAN = False
"""Price a discard that could give a seat its third 摊 from us by the contract it starts
(RULES §10.4, :func:`feed_third_tan_value`): in place of the flat ``FEED_RISK`` on our
turn, and added after our own claim (which charged nothing for it); off: the bot before
2026-12-02's fifth pass, and the setting as kept (measured in a rougher form, see
docs/bots.md)."""
THIRD_TAN_WIN = 0.35
"""Chance that a seat which has taken a third 摊 from us goes on to win the hand."""
DANGER_RISK = 1.0
"""Expected cost, in our own win's M, of a sure discard win against us at the dealer's
level 3 (RULES §8.4: we would pay the whole T at dealer factor 8, §10.5)."""
TAN_RISK = 0.3
"""Expected cost of taking a third 摊 from a player: if that player wins we pay 2T
(反承包, RULES §10.4)."""

WALL_HAZARD = False
"""The chance that the others win before our next draw grows as the hand goes on
(:data:`OTHER_WIN_BY_TURN`, each opponent by the turns it has played); off: the flat
``OTHER_WIN_PER_DRAW`` per opponent draw."""
OTHER_WIN_BY_TURN = (0.0, 0.001, 0.002, 0.005, 0.013, 0.022, 0.033, 0.048, 0.064, 0.076,
                     0.086, 0.096, 0.105, 0.11, 0.11, 0.115, 0.13)
"""Chance that an opponent wins by self-draw on its turn, by the turns it has played
before it (its discards so far; the last entry for any later turn).  Measured over
400 matches of the strong bot against three efficiency bots (default rules; 98,000
opponent draws; ``benchmarks/leaf_calibration.py`` measures the same per go-around)."""
HAZARD_BY_MELDS = False
"""With ``WALL_HAZARD``, each opponent's chance also weighs the sets it has declared
(:data:`MELD_HAZARD`): a seat showing three sets is nearer a win than one showing none."""
MELD_HAZARD = (0.56, 0.89, 1.13, 1.24)
"""An opponent's win chance on a turn relative to :data:`OTHER_WIN_BY_TURN`, by the sets
it has declared (0, 1, 2, 3+), measured with it (turns 3–15)."""

# Chance that one draw improves a hand, by shanten (index) and 财神 held (0, 1, 2+):
# means measured over efficiency-bot self-play (RULES default rules, 12 matches).
TYPICAL_USEFUL = (
    (0.095, 0.154, 0.205),  # shanten 0: the winning draws
    (0.19, 0.25, 0.32),
    (0.30, 0.38, 0.55),
    (0.47, 0.56, 0.56),
    (0.65, 0.69, 0.69),
    (0.79, 0.79, 0.79),
)
TYPICAL_MULTIPLIER = 1.05
"""Mean M of a ready hand reached later (爆头-ready hands are rare)."""


def _suit_neighbours(counts: Sequence[float], k: int) -> tuple[float, float, float, float]:
    """Values (held counts, chances) of the kinds two and one rank below and one and two
    ranks above the suited kind ``k`` in ``counts`` (0 past the end of its suit)."""
    r = k % 9
    a, b, c, d = (counts[k + i] if 0 <= r + i <= 8 else 0 for i in (-2, -1, 1, 2))
    return a, b, c, d


@lru_cache(maxsize=1 << 16)
def _claimable(state: an.State) -> tuple[tuple[int, bool], ...]:
    """The useful kinds of ``state`` a claim could bring, each with whether a pong could
    (a pair held: from any other seat) or only a chow (RULES §6.3: from the player before
    us)."""
    counts = state[0]
    rows: list[tuple[int, bool]] = []
    for k in an.useful(state):
        if k < 0:
            continue
        if counts[k] >= 2:
            rows.append((k, True))
        elif k < 27:
            lo2, lo1, hi1, hi2 = _suit_neighbours(counts, k)
            if (lo2 and lo1) or (lo1 and hi1) or (hi1 and hi2):
                rows.append((k, False))
    return tuple(rows)


def _connected(state: an.State, k: int) -> bool:
    """Whether a drawn natural kind ``k`` touches the hand: it pairs a held tile or sits
    within two ranks of one of its suit.  Only such a draw can make a better shape (an
    unconnected one could only swap one lone-tile wait for another)."""
    counts = state[0]
    if k < 0 or counts[k]:
        return k >= 0
    return k < 27 and any(_suit_neighbours(counts, k))


def _typical(shanten: int, wilds: int) -> float:
    return TYPICAL_USEFUL[min(shanten, len(TYPICAL_USEFUL) - 1)][min(wilds, 2)]


@lru_cache(maxsize=1 << 16)
def baotou_distance(state: an.State) -> int:
    """Tile exchanges a 13-tile ``state`` needs before it is 爆头-ready (RULES §7.3: the
    hand minus one 财神 is complete, 4 sets or 6 pairs); 0 when it is, ``-1`` when it
    holds no 财神.

    Counted as the shanten of the hand minus one 财神 plus a pair of white dragons, a
    kind no state from :func:`hzmj.bots.efficiency.hand_state` holds (a white dragon is
    a 财神 or plays as the 财神 kind, RULES §5.2): that pair is then the hand's pair and
    the rest must be sets (a reading that puts the pair in a set with a 财神 frees
    another pair at the same count), so a complete count is a 爆头-ready hand."""
    counts, wilds, melds = state
    if wilds <= 0:
        return -1
    c = list(counts)
    if c[WHITE]:  # not from hand_state; any other honour kind the hand lacks will do
        absent = next((k for k in range(27, NUM_KINDS) if not c[k]), None)
        if absent is None:
            return -1
        c[absent] = 2
    else:
        c[WHITE] = 2
    return shanten_counts(c, wilds - 1, melds) + 1


def _chain(stages: Sequence[float], w: float, wm: float, rho: Sequence[float],
           d: int) -> float:
    """Value of a hand ``len(stages) - 1`` improvements from ready with ``d`` own draws
    left: ``stages[j]`` is the chance a draw makes the improvement that leaves ``j`` to
    go, ``w`` the ready hand's chance to win on a draw and ``wm`` that chance times its
    M; the draw made with ``i`` draws left is discounted by ``rho[i]`` (the others may
    win first)."""
    f = [0.0] * len(stages)
    for i in range(1, max(d, 0) + 1):
        r = rho[i]
        g = [r * (wm + (1 - w) * f[0])]
        for j in range(1, len(f)):
            g.append(r * (stages[j] * f[j - 1] + (1 - stages[j]) * f[j]))
        f = g
    return f[-1]


class _Search:
    """One decision's search: the draw chances and caches of ``H`` and ``Q``."""

    def __init__(self, info: SeatInfo, leaves: int) -> None:
        self.info = info
        self.leaves = leaves
        self.must = info.rules.must_baotou_with_caishen
        total = info.unseen_total or 1
        self.p: dict[int, float] = {}
        for k in range(NUM_KINDS):
            if info.unseen[k]:
                self.p[an.natural(k, info.caishen)] = info.unseen[k] / total
        self.draws = info.draws_left
        self.others = info.players - 1
        self.r = (1 - OTHER_WIN_PER_DRAW) ** self.others
        # rho[d]: chance the go-around before our draw made with d draws left passes
        # without another seat's win
        self.rho = survival(info) if WALL_HAZARD else [self.r] * (self.draws + 1)
        self._h: dict[tuple[an.State, int], float] = {}
        self._q: dict[tuple[an.State, int], float] = {}

    def leaf(self, state: an.State, d: int) -> float:
        """``H``: heuristic value of a 13-tile state with ``d`` own draws left."""
        key = (state, d)
        hit = self._h.get(key)
        if hit is not None:
            return hit
        self.leaves -= 1
        s = an.shanten(state)
        useful = an.useful(state)
        if self._every_draw_wins(state):
            useful = tuple(self.p)
        q = sum(self.p.get(k, 0.0) for k in useful)
        if s > 0 and CLAIM_SHARE:
            # a go-around also offers the others' discards: a pong from any of them, a
            # chow from the player before us (RULES §6.3)
            c = sum(self.p.get(k, 0.0) * (self.others if pong else 1)
                    for k, pong in _claimable(state))
            q = 1 - (1 - q) * (1 - min(1.0, CLAIM_SHARE * c))
        if s == 0:
            w = q
            # 财飘 on a draw needs one more draw to win: d − 1 left after it
            wm = sum(self.p.get(k, 0.0) * self._piao(state, k, an.win_multiplier(
                state, k, self.must), d - 1) for k in useful)
        else:
            w = _typical(0, state[1])
            wm = w * TYPICAL_MULTIPLIER
        # stage j: j improvements still needed before the hand is ready; the current
        # stage uses the state's own useful draws, later ones the typical chances
        stages = [_typical(j, state[1]) for j in range(max(s, 0) + 1)]
        stages[-1] = q
        value = _chain(stages, w, wm, self.rho, d) if s >= 0 else 0.0
        n = baotou_distance(state) if BAOTOU_LEAF and s >= 0 else -1
        if n > 0:
            # RULES §7.3, §9.1: the 爆头 route, n exchanges until the hand minus one 财神
            # is complete (each as hard as a step of a hand without that 财神), then any
            # draw wins with M=2
            route = [1.0] + [_typical(j, state[1] - 1) for j in range(n)]
            value = max(value, _chain(route, 1.0, 2.0, self.rho, d))
        self._h[key] = value
        return value

    def _piao(self, state: an.State, draw: int, m: int, d: int) -> float:
        """Value of a win with multiplier ``m`` on ``draw``, or of 财飘 instead (RULES
        §9.1): the hand with ``draw`` stays 爆头-ready without one 财神, so throwing it
        wins the next draw (``d`` draws left after this one) at ``2m``; the go-around
        that waits costs ``LOSS`` as a declined win does in the search (the root's
        ``piao_value`` weighs it by its own reach probability)."""
        if not (PIAO_IN_SEARCH and m >= 2 and d > 0
                and state[1] + (draw == an.WILD) >= 2):
            return float(m)
        after = an.remove(an.add(state, draw), an.WILD)
        if not an.baotou_ready(after):
            return float(m)
        r = self.rho[d]
        return max(float(m), r * 2 * m - (1 - r) * LOSS)

    @staticmethod
    def _every_draw_wins(state: an.State) -> bool:
        """A 爆头-ready state wins on any draw (RULES §7.3), though ``an.useful`` lists only
        the draws near its tiles (off with ``BAOTOU_LEAF``: the bot before the 爆头 route
        of 2026-12-02)."""
        return BAOTOU_LEAF and an.baotou_ready(state)

    def after_draw(self, state: an.State, draw: int, d: int, win_factor: int = 1) -> float:
        """Value of the 13-tile ``state`` once ``draw`` is drawn, ``d`` own draws left."""
        s = an.shanten(state)
        every = self._every_draw_wins(state)
        if draw not in an.useful(state) and not every:
            best = self.leaf(state, d)  # throw the drawn tile back ...
            if IMPROVE and s <= IMPROVE_MAX_SHANTEN and _connected(state, draw):
                # ... or keep it for a better shape at the same shanten (改良)
                full = an.add(state, draw)
                for y in _naturals(full):
                    if y != draw:
                        after = an.remove(full, y)
                        if an.shanten(after) == s:
                            best = max(best, self.leaf(after, d))
            return best
        if s == 0:
            m = self._piao(state, draw, win_factor * an.win_multiplier(state, draw, self.must),
                           d)
            if BAOTOU_IN_SEARCH and m <= 1 and d > 0 and (state[1] or draw == an.WILD):
                # as at the root: a plain win may be turned down for a 爆头-ready hand
                full = an.add(state, draw)
                for y in _naturals(full):  # a 财神 is kept
                    after = an.remove(full, y)
                    if an.baotou_ready(after):
                        m = max(m, self.leaf(after, d) - (1 - self.rho[d]) * LOSS)
            return m
        full = an.add(state, draw)
        best = 0.0
        for y in _naturals(full):
            after = an.remove(full, y)
            if an.shanten(after) < s:
                best = max(best, self.leaf(after, d))
        return best

    def exact(self, state: an.State, d: int) -> float:
        """``Q``: one exact draw, then the leaf (the next draw comes after a go-around)."""
        key = (state, d)
        hit = self._q.get(key)
        if hit is not None:
            return hit
        if d <= 0 or an.shanten(state) < 0:
            return 0.0
        total = sum(p * self.after_draw(state, k, d - 1) for k, p in self.p.items())
        value = self.rho[d] * total
        self._q[key] = value
        return value

    def replacement(self, state: an.State) -> float:
        """Value of a kong's 13-tile ``state`` before its replacement draw (RULES §6.4): a
        win on it doubles (杠开 2^t, 杠暴 2^(1+k), RULES §9.1)."""
        return sum(p * self.after_draw(state, k, self.draws, 2) for k, p in self.p.items())


def survival(info: SeatInfo) -> list[float]:
    """``rho[d]`` for ``d`` = 0 … ``info.draws_left``: the chance that the go-around
    before our draw made with ``d`` draws left passes without another seat's self-drawn
    win (RULES §8.1), each opponent winning on its turn with
    :data:`OTHER_WIN_BY_TURN` by the turns it will have played by then (the next
    go-around: its discards so far), times :data:`MELD_HAZARD` by the sets it shows now
    with ``HAZARD_BY_MELDS``.  ``rho[0]`` is 1 (no draw is made)."""
    draws = info.draws_left
    turns = info.turns or (0,) * info.players
    last = len(OTHER_WIN_BY_TURN) - 1
    rho = [1.0] * (draws + 1)
    for d in range(1, draws + 1):
        ahead = draws - d  # go-arounds before this one
        r = 1.0
        for o in range(info.players):
            if o != info.seat:
                h = OTHER_WIN_BY_TURN[min(turns[o] + ahead, last)]
                if HAZARD_BY_MELDS and info.shown:
                    h *= MELD_HAZARD[min(info.shown[o], len(MELD_HAZARD) - 1)]
                r *= 1 - h
        rho[d] = r
    return rho


def claim_chances(info: SeatInfo, t: Tile, pongs: bool = True) -> list[float]:
    """Rough chance (0…1), for each seat, that it claims our discard ``t`` (RULES §6.3):
    a pong by any other seat holding two of it, a chow by the seat after us holding two
    tiles that make a run with it (times :data:`CHOW_TAKEN`); 0 for our own seat.  A copy
    we cannot see is in a given opponent's hand with chance ``its concealed tiles / the
    tiles we cannot see`` (13 less 3 a declared set).  All 0 for a 财神 (never claimed,
    RULES §5.4), and when the live wall holds every tile we cannot see; no chow (nor a
    pong, when pongs count as 摊) by a seat that has taken the most 摊 it may from us
    (RULES §6.5).  ``pongs=False``: chows only."""
    out = [0.0] * info.players
    total = info.unseen_total
    if t == info.caishen or total <= 0 or total <= info.live:
        return out

    def at_limit(o: int) -> bool:
        """Whether seat ``o`` may take no more 摊 from us (RULES §6.5)."""
        cap = tan_limit(info.rules, taker=o, giver=info.seat, dealer=info.dealer,
                        level=info.level)
        return cap is not None and info.tan.get((o, info.seat), 0) >= cap

    def share(o: int) -> float:
        """Chance that one copy we cannot see is in seat ``o``'s concealed tiles."""
        return min(1.0, (13 - 3 * (info.shown[o] if info.shown else 0)) / total)

    u = info.unseen[t]
    if u >= 2 and pongs:
        for o in range(info.players):
            if o != info.seat and not (info.rules.pong_counts_as_tan and at_limit(o)):
                q = share(o)
                out[o] = 1 - (1 - q) ** u - u * q * (1 - q) ** (u - 1)
    nat = an.natural(t, info.caishen)
    nxt = (info.seat + 1) % info.players
    if 0 <= nat < 27 and not at_limit(nxt):
        q = share(nxt)
        base = nat - nat % 9
        # chance the next seat holds each kind of the suit (a white dragon stands in for
        # the 财神 kind, RULES §5.2)
        suit = [1 - (1 - q) ** info.unseen[an.physical(base + j, info.caishen)]
                for j in range(9)]
        lo2, lo1, hi1, hi2 = _suit_neighbours(suit, nat - base)
        run = 1.0
        for a, b in ((lo2, lo1), (lo1, hi1), (hi1, hi2)):
            run *= 1 - a * b
        out[nxt] = 1 - (1 - out[nxt]) * (1 - CHOW_TAKEN * (1 - run))
    return out


def claim_chance(info: SeatInfo, t: Tile) -> float:
    """Rough chance (0…1) that some opponent claims our discard ``t``: one minus the
    chance that none of :func:`claim_chances` happens."""
    return _any_claim(claim_chances(info, t))


def _any_claim(per_seat: Sequence[float]) -> float:
    miss = 1.0
    for c in per_seat:
        miss *= 1 - c
    return 1 - miss


def loss_weights(info: SeatInfo) -> list[float]:
    """What each seat's self-drawn win costs us relative to an even spread (RULES
    §10.1–10.3), per seat; 0 for our own.  A win by seat ``o`` costs us ``f(o, us) × M``
    and ours brings ``Σ_x f(us, x) × M``, ``f`` being the dealer factor ``D = 2^level``
    when the dealer is one of the two, else 1; the weight is
    ``(players − 1) × f(o, us) / Σ_x f(us, x)``.  1 for every seat when we deal (and with
    2 players); when another seat deals, ``(n − 1)·D / (D + n − 2)`` for the dealer and
    ``(n − 1) / (D + n − 2)`` for each other seat (4 players, level 3: 2.4 and 0.3).
    Their mean is always 1.  Self-draw only: the cap (§10.2), discard wins (§8.4) and
    contracts (§10.4; feeding a third 摊 is priced apart: ``FEED_RISK``, or
    :func:`feed_third_tan_value`) are left out."""
    f = [0.0 if o == info.seat else float(pair_factor(info.level, winner=o, payer=info.seat,
                                                        dealer=info.dealer))
         for o in range(info.players)]
    total = sum(f) or 1.0
    return [(info.players - 1) * x / total for x in f]


def feed_third_tan_value(info: SeatInfo, t: Tile, value: float) -> float:
    """What our discard ``t`` is worth through the 摊 contract it may start (RULES §10.4),
    in our win's M; ``value`` is our expected M after it (before any penalty).  For each
    seat ``o`` that holds two 摊 from us and may take a third (RULES §6.5), with ``c`` its
    chance to claim ``t`` as a 摊 (:func:`claim_chances`: a chow by the next seat, a pong
    by any seat when pongs are 摊):

    * 反承包: if we then win, ``o`` pays ``2T`` and nobody else pays, so our win counts
      twice: ``+c × value``;
    * 承包: if ``o`` wins (chance :data:`THIRD_TAN_WIN`), we pay its ``T`` instead of our
      share, ``Σ_x f(o, x)`` over the other payers ``x``, in units of what our own win
      brings, ``Σ_x f(us, x)`` (``f`` the dealer factor of §10.1):
      ``−c × THIRD_TAN_WIN × extra(o)``.

    0 without ``three_tan_contract`` and for a 财神 (never claimed)."""
    if not info.rules.three_tan_contract:
        return 0.0

    def f(a: int, b: int) -> float:
        return float(pair_factor(info.level, winner=a, payer=b, dealer=info.dealer))

    ours = sum(f(info.seat, x) for x in range(info.players) if x != info.seat)
    chances: list[float] | None = None
    total = 0.0
    for taker in third_tan_takers(info):
        if chances is None:
            chances = claim_chances(info, t, pongs=info.rules.pong_counts_as_tan)
        extra = sum(f(taker, x) for x in range(info.players)
                    if x not in (taker, info.seat)) / ours
        total += chances[taker] * (value - THIRD_TAN_WIN * extra)
    return total


def claim_cost(info: SeatInfo, t: Tile) -> float:
    """:func:`claim_chance` of our discard ``t`` (0…1), times the mean of
    :func:`loss_weights` over the seats that may claim it, weighted by their
    :func:`claim_chances` (with ``DEALER_WEIGHT``; feeding a level-3 dealer costs 8
    times what feeding another seat does).  Equal to :func:`claim_chance` when every
    weight is 1 (we deal) and without ``DEALER_WEIGHT``."""
    per_seat = claim_chances(info, t)
    chance = _any_claim(per_seat)
    if not DEALER_WEIGHT or chance <= 0:
        return chance
    weighted = sum(c * w for c, w in zip(per_seat, loss_weights(info), strict=True))
    return chance * weighted / sum(per_seat)


def _third_tan(info: SeatInfo, claim: Action) -> bool:
    """Whether ``claim`` would be this seat's third 摊 from the discarder (RULES §6.5): if
    that player then wins, this seat pays 2T (反承包, RULES §10.4)."""
    if not info.rules.three_tan_contract or info.claim_from is None:
        return False
    if not (isinstance(claim, Chow) or (isinstance(claim, (Pong, Kong))
                                        and info.rules.pong_counts_as_tan)):
        return False
    return info.tan.get((info.seat, info.claim_from), 0) == 2


def _naturals(state: an.State) -> list[int]:
    return [k for k in range(NUM_KINDS) if state[0][k]]  # a 财神 is kept


class StrongBot(ExplainingBot):
    """Expectimax over the seat's own draws (see the module docstring)."""

    name = "strong"

    def __init__(self, seed: int = 0, budget_ms: int = DEFAULT_BUDGET_MS) -> None:
        """``budget_ms`` sets the leaf count (``LEAVES_PER_MS`` per ms), never a clock.
        ``IMPROVE``, ``BAOTOU_IN_SEARCH``, ``CLAIM_SHARE``, ``BAOTOU_LEAF``,
        ``PIAO_IN_SEARCH`` and ``FEED_CLAIM`` (module constants) off / 0 give the strong
        bot as it was before 2026-12-02
        (``benchmarks/strong_variant.py`` plays it for paired measurements)."""
        self.seed = seed
        self.budget_ms = budget_ms
        self.leaves = budget_ms * LEAVES_PER_MS

    def explain(self, view: dict[str, Any], legal: Sequence[Action],
                include: Action | None = None) -> list[Candidate]:
        info = read_seat(view)
        search = _Search(info, self.leaves)
        if view["phase"] == "claim":
            return top_with(self._claim(info, search, legal), TOP, include)
        return top_with(self._turn(info, search, legal), TOP, include)

    def _turn(self, info: SeatInfo, search: _Search,
              legal: Sequence[Action]) -> list[Candidate]:
        """Every value is an expected multiplier M won (RULES §9.1)."""
        seat = info.seat
        kinds = [a.tile for a in legal if isinstance(a, Discard)]
        ranked = rank_discards(info, info.concealed, kinds)
        lowest = ranked[0].shanten
        win_m = current_win_multiplier(info) if Win(seat) in legal else 0
        if lowest > SEARCH_MAX_SHANTEN and not win_m:
            return turn_candidates(info, legal)
        state = hand_state(info)
        # declining a win leaves the others a go-around to win first (we would pay)
        decline = (1 - search.rho[search.draws]) * LOSS if win_m else 0.0
        out: list[Candidate] = []
        for r in ranked:
            if r.shanten > lowest or (out and search.leaves <= 0):
                break
            v = search.exact(an.remove(state, an.natural(r.tile, info.caishen)), search.draws)
            # RULES §10.4: do not hand out a third 摊; §8.4: nor a level-3 discard win;
            # §6.3: nor a claim
            if FEED_THIRD_TAN:
                v += feed_third_tan_value(info, r.tile, v) - decline - DANGER_RISK * r.danger
            else:
                v -= decline + FEED_RISK * r.feeds + DANGER_RISK * r.danger
            if FEED_CLAIM:
                v -= FEED_CLAIM * claim_cost(info, r.tile)
            detail = f"expected M {v:.3f}" + (f"; discard-win danger {r.danger:.2f}"
                                               if r.danger >= 0.05 else "")
            out.append(Candidate(Discard(seat, r.tile), v, detail))
        chain_k = info.chain.count("kong")
        chain_p = info.chain.count("piao")
        for a in legal:
            if isinstance(a, Kong):
                nat = an.natural(a.tile, info.caishen)
                after = an.remove(state, nat) if a.kind == "added" else an.meld_out(state,
                                                                                   [nat] * 4)
                if an.baotou_ready(after):  # the replacement wins for sure: 杠暴 (RULES §9.1)
                    v = float(1 << (2 + chain_k + chain_p))
                    out.append(Candidate(a, v, f"kong: the replacement wins as 杠暴, M={v:g}"))
                else:
                    v = search.replacement(after)
                    out.append(Candidate(a, v, f"kong, then replacement draw: {v:.3f}"))
        piao = piao_value(info)
        if piao is not None and Discard(seat, info.caishen) in legal:
            out = [c for c in out if c.action != Discard(seat, info.caishen)]
            out.append(Candidate(Discard(seat, info.caishen), piao,
                                 f"财飘: expected M {piao:.2f}"))
        if win_m:
            out.append(Candidate(Win(seat), float(win_m), f"win now, M={win_m}"))
        out.sort(key=lambda c: -c.value)
        return out

    def _claim(self, info: SeatInfo, search: _Search,
               legal: Sequence[Action]) -> list[Candidate]:
        state = hand_state(info)
        if any(isinstance(a, Win) for a in legal) or an.shanten(state) > CLAIM_SEARCH_MAX_SHANTEN:
            return claim_candidates(info, [a for a in legal if not _third_tan(info, a)])
        assert info.claim_tile is not None
        t = info.claim_tile
        nat = an.natural(t, info.caishen)
        base = search.exact(state, search.draws)
        out: list[Candidate] = []
        for a in legal:
            if isinstance(a, Kong):
                v = search.replacement(an.meld_out(state, [nat] * 3))
                out.append(Candidate(a, v, f"exposed kong: {v:.3f}"))
            elif isinstance(a, (Pong, Chow)):
                rest = remove_tiles(info.concealed, [t, t] if isinstance(a, Pong) else a.tiles)
                ranked = rank_discards(info, rest, sorted(set(rest)), extra_melds=1)
                after = hand_state(info, rest, 1)
                best, best_t, scored = float("-inf"), rest[0], False
                for r in ranked:
                    # the first discard is always scored, then until the leaves run out
                    if r.shanten > ranked[0].shanten or (scored and search.leaves <= 0):
                        break
                    scored = True
                    y = r.tile
                    v = search.exact(an.remove(after, an.natural(y, info.caishen)),
                                     search.draws)
                    if FEED_THIRD_TAN:
                        v += feed_third_tan_value(info, y, v)
                    v -= DANGER_RISK * r.danger
                    if FEED_CLAIM:
                        v -= FEED_CLAIM * claim_cost(info, y)
                    if v > best:
                        best, best_t = v, y
                label = "pong" if isinstance(a, Pong) else f"chow with {format_tiles(a.tiles)}"
                if _third_tan(info, a):
                    best -= TAN_RISK
                    label += " (third 摊: 反承包 risk)"
                out.append(Candidate(a, best, f"{label}, then discard "
                                              f"{format_tiles([best_t])}: {best:.3f}"))
        pass_action = next(a for a in legal if isinstance(a, Pass))
        out.append(Candidate(pass_action, base, f"pass: {base:.3f}"))
        out.sort(key=lambda c: -c.value)
        return out
