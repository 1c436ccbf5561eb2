"""The oracle: a bot that sees every tile, to measure how far a fair bot could go.

It reads the real match (every hand and the wall order) and **plans its own draws**: the
tiles it will draw are the live wall's every ``n``-th tile from its next turn on, as long
as nobody claims.  The *plan* of an action is how many wall tiles (drawn by anyone) pass
before the tiles it keeps plus the tiles it draws hold a complete hand (exact shanten −1,
:func:`hzmj.bots.analysis.plan_length`); :func:`plan_rank` orders the legal actions by it:

* a **discard**: the shortest plan (ties: lowest shanten, then the least connected tile);
* a **claim** (chow, pong) against passing: the claim moves it in the turn order (it
  discards now and draws after everybody else), passing keeps the draws it would have
  had; the earlier complete hand wins, passing on a tie;
* a **win** first; a **kong** when the fast play-out policy would make it.

The planner alone ignores what the others do (their claims shift the draws, they win
first, they win on our discards), so the oracle then **plays each of its best
``width`` actions out in the real match** (a ``Match.clone()``; itself by the planner,
the others by the fast policy of :mod:`hzmj.bots.rollout`, re-planned at every turn) and
keeps the action with the best settlement of the hand.  That prices everything the
rules pay (爆头, 财飘, 杠开, 摊/承包, level-3 discard wins) on the real tiles.  The strong
bot's choice is always among the candidates.

Because it reads hidden tiles it breaks RULES §13, so it exists for measurement only: the
arena shows it the match (:meth:`OracleBot.see`), and the table server refuses it in any
room.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hzmj.bots import analysis as an
from hzmj.bots.base import Candidate, ExplainingBot
from hzmj.bots.rollout import after_claim, isolation, play_out, policy, seat_state
from hzmj.bots.strong import StrongBot
from hzmj.events import Action, Chow, Discard, Kong, Pass, Pong, Win
from hzmj.game import Match
from hzmj.tiles import Tile

WIDTH = 3
"""Actions of the plan order played out in the real match (besides the strong bot's)."""
NEVER = an.NEVER
"""The plan of a hand the live wall cannot complete."""


def live_wall(match: Match) -> list[Tile]:
    """The live wall in draw order (RULES §4.6): the next draws from the head."""
    return list(match.wall[match.head:match.head + match.live_count])


def own_draws(live: Sequence[Tile], offset: int, players: int) -> list[Tile]:
    """The tiles a seat draws if nobody claims: ``live[offset]``, then every
    ``players``-th tile."""
    return list(live[offset::players])


def discard_plans(state: an.State, tiles: Sequence[Tile], draws: Sequence[Tile],
                  caishen: Tile) -> dict[Tile, float]:
    """Plan length after throwing each of ``tiles`` from a 14-tile ``state``."""
    return {t: an.plan_length(an.remove(state, an.natural(t, caishen)), draws, caishen)
            for t in set(tiles)}


def plan_rank(match: Match, seat: int, legal: Sequence[Action]) -> list[tuple[Action, float]]:
    """``legal`` in plan order, each with its plan: the wall tiles drawn (by anyone)
    before ``seat`` holds a complete hand (0 for a win, :data:`NEVER` when the live
    wall cannot complete it)."""
    cs, n = match.caishen, match.n
    live = live_wall(match)
    state = seat_state(match, seat)
    fast = policy(match, seat, legal) if len(legal) > 1 else legal[0]
    rows: list[tuple[float, int, int, Action]] = []
    if match.phase == "claim":
        offset = (seat - match.claim_from - 1) % n  # passing keeps these draws
        passing = an.plan_length(state, own_draws(live, offset, n), cs)
        pass_when = offset + 1 + (passing - 1) * n
        for i, a in enumerate(legal):
            if isinstance(a, Win):
                rows.append((0, 0, i, a))
            elif isinstance(a, (Pong, Chow)):
                after, rest = after_claim(match, state, a)
                j = min(discard_plans(after, rest, own_draws(live, n - 1, n), cs).values())
                rows.append((n + (j - 1) * n, 2, i, a))
            elif isinstance(a, Pass):
                rows.append((pass_when, 1, i, a))
            else:  # an exposed kong: as good as passing when the fast policy makes it
                rows.append((pass_when if a == fast else NEVER, 0, i, a))
    else:
        tiles = [a.tile for a in legal if isinstance(a, Discard)]
        plans = discard_plans(state, tiles, own_draws(live, n - 1, n), cs)
        for i, a in enumerate(legal):
            if isinstance(a, Win):
                rows.append((0, 0, i, a))
            elif isinstance(a, Discard):
                nat = an.natural(a.tile, cs)
                rows.append((plans[a.tile] * n,
                             an.shanten(an.remove(state, nat)) * 100 + isolation(state, nat),
                             i, a))
            elif isinstance(a, Kong) and a == fast:
                rows.append((0.5, 0, i, a))
            else:
                rows.append((NEVER, 10**6, i, a))
    rows.sort(key=lambda r: r[:3])
    return [(a, when) for when, _, _, a in rows]


def plan_policy(match: Match, seat: int, legal: Sequence[Action]) -> Action:
    """The planner's action (the first of :func:`plan_rank`): the oracle's own moves in
    its play-outs."""
    if len(legal) == 1:
        return legal[0]
    return plan_rank(match, seat, legal)[0][0]


class OracleBot(ExplainingBot):
    """Plans its draws from the real wall and plays its best plans out in the real match
    (see the module docstring); call :meth:`see` first.  Deterministic: it reads only the
    match."""

    name = "oracle"
    sees_all = True

    def __init__(self, seed: int = 0, width: int = WIDTH) -> None:
        if width <= 0:
            raise ValueError("width must be positive")
        self.seed = seed
        self.width = width
        self._prior = StrongBot(seed)
        self._match: Match | None = None

    def see(self, match: Match) -> None:
        """Show the oracle the real match it plays in (read before each decision)."""
        self._match = match

    def explain(self, view: dict[str, Any], legal: Sequence[Action],
                include: Action | None = None) -> list[Candidate]:
        """Candidates best first, valued in points of this hand on the real tiles."""
        match = self._match
        if match is None:
            raise RuntimeError("the oracle sees every tile and plays only where a driver "
                               "shows it the match (measurement only)")
        seat = view["seat"]
        ranked = plan_rank(match, seat, legal)
        actions = [a for a, _ in ranked[:self.width]]
        for extra in (self._prior.explain(view, legal)[0].action, include):
            if extra is not None and extra not in actions:
                actions.append(extra)
        done = len(match.results)
        value: dict[Action, int] = {}
        for a in actions:
            world = match.clone()
            world.apply(a)
            value[a] = play_out(world, seat, done, plan_policy)
        order = {a: i for i, (a, _) in enumerate(ranked)}
        when = dict(ranked)
        best = sorted(value, key=lambda a: (-value[a], order[a]))
        out = [Candidate(a, value[a], f"{value[a]:+d} points on the real tiles; "
                         + _plan(when[a])) for a in best]
        return out + [Candidate(a, -1e9, _plan(w)) for a, w in ranked if a not in value]


def _plan(when: float) -> str:
    if when == NEVER:
        return "the live wall does not complete it"
    return f"complete after {when:.0f} more wall tiles"
