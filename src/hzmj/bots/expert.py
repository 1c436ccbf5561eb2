"""The expert bot: determinized Monte-Carlo search on top of the strong bot.

Per decision, from the seat's view only (RULES §13):

1. the strong bot ranks the legal actions; its top ``width`` are the candidates;
2. a *world* is dealt: the tiles the seat cannot see go at random into the other hands
   and the wall, consistently with the view (:func:`hzmj.determinize.determinize`, a
   ``log=False`` match);
3. in a clone of that world (``Match.clone``) each candidate is played, then every seat plays the fast efficiency
   policy to the end of the hand (:mod:`hzmj.bots.rollout`); the seat's points from the
   hand's settlement are the sample.  Every candidate meets the same worlds (common
   random numbers), so differences between them are measured, not luck;
4. steps 2–3 repeat while the next play-out fits in the deadline (``budget_ms``,
   default 100, at the pace of the longest play-out so far) or, in the
   deterministic mode, a fixed number of worlds (``samples``);
5. the strong bot's choice stands unless another candidate scores more with a paired
   margin of ``Z`` (2) standard errors; a win on offer is always the strong bot's call
   (the worlds deal the opponents random hands, further from a win than their play
   shows, so play-outs over-rate declining a win for a bigger one).

The engine settles each play-out, so everything Hangzhou pays or charges is weighed as
the rules price it: 爆头, 财飘, 杠开, 杠暴 chains and seven pairs (RULES §9), 摊 with 承包,
反承包 and 后半场承包 (§10.4), discard wins at the dealer's level 3 (§8.4, §10.5), and the
财神 lock with 摸打 (§5.5).  Values are expected points of this hand for the seat.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from hzmj.bots import analysis as an
from hzmj.bots.base import Candidate, ExplainingBot
from hzmj.bots.efficiency import hand_state
from hzmj.bots.rollout import play_out
from hzmj.bots.seat import read_seat
from hzmj.bots.strong import StrongBot
from hzmj.determinize import determinize
from hzmj.events import Action, Discard, IllegalActionError, Win
from hzmj.game import Match
from hzmj.shown import counted

DEFAULT_BUDGET_MS = 100
PRIOR_BUDGET_MS = 100
"""Budget of the strong bot that ranks the candidates (a fixed leaf count, not a clock):
the strong bot's own default, so the prior is the strong bot's choice (its 改良 search
needs more leaves than a 10 ms budget gives, which left only the first candidate scored)."""
WIDTH = 4
"""Candidates searched: the strong bot's top ones."""
Z = 2.0
"""Standard errors by which another candidate must beat the strong bot's choice."""
SEARCH_MAX_SHANTEN = 2
"""Above this shanten (and with nothing but discards on offer) the prior decides."""
SAFETY = 0.9
"""The deadline mode starts a play-out only if, at the pace of the longest play-out so
far in this decision, it ends before this share of the budget (a world cut short is
dropped)."""
FIRST_PLAY_OUT_S = 0.008
"""The guess for a play-out's duration before one has been timed."""


def view_seed(seed: int, view: dict[str, Any]) -> int:
    """A seed from the bot's seed and the view (a decision depends on nothing else)."""
    text = json.dumps(view, sort_keys=True, ensure_ascii=False)
    return int.from_bytes(hashlib.sha256(f"{seed}:{text}".encode()).digest()[:8], "big")


def search(actions: Sequence[Action], seat: int, world: Callable[[int], Match],
           more: Callable[[int], bool]) -> dict[Action, list[int]]:
    """Points of ``seat`` per action over worlds ``world(0)``, ``world(1)``, …: each
    action is applied in a clone of world ``i`` (``Match.clone``), then played out.
    ``more(i)`` is asked before every play-out of world ``i``; a world it stops half-way
    is dropped."""
    values: dict[Action, list[int]] = {a: [] for a in actions}
    i = 0
    while more(i):
        dealt = world(i)
        done = len(dealt.results)
        row: list[int] = []
        for a in actions:
            if row and not more(i):
                return values
            w = dealt.clone()
            try:
                w.apply(a)
            except IllegalActionError:  # a world that cannot offer it: skip the world
                break
            row.append(play_out(w, seat, done))
        else:
            for a, v in zip(actions, row, strict=True):
                values[a].append(v)
        i += 1
    return values


def rank(prior: Sequence[Candidate], values: dict[Action, list[int]], label: str,
         z: float | None = Z) -> list[Candidate]:
    """Candidates by sampled value; the prior's first stays first unless another beats
    it by ``z`` paired standard errors (``None``: exact values, the best one wins; ties
    keep the prior's order).  Unsampled candidates keep the prior's order."""
    default = prior[0].action
    base = values.get(default, [])
    n = len(base)

    def mean(a: Action) -> float:
        return statistics.fmean(values[a]) if values.get(a) else -math.inf

    def beats_default(a: Action) -> bool:
        if a == default or not n:
            return False
        diffs = [x - y for x, y in zip(values[a], base, strict=True)]
        gain = statistics.fmean(diffs)
        if z is None:
            return gain > 0
        return n >= 2 and gain > 0 and gain > z * statistics.stdev(diffs) / math.sqrt(n)

    order = sorted((c for c in prior if values.get(c.action)), key=lambda c: -mean(c.action))
    winners = [c for c in order if beats_default(c.action)]
    first = winners[0] if winners else next((c for c in order if c.action == default),
                                            prior[0])
    out = [first] + [c for c in order if c is not first]
    out += [c for c in prior if not values.get(c.action) and c is not first]
    return [Candidate(c.action, mean(c.action) if values.get(c.action) else c.value,
                      f"{mean(c.action):+.2f} points over {counted(len(values[c.action]), label)}; "
                      f"{c.detail}" if values.get(c.action) else c.detail)
            for c in out]


def _worth_searching(view: dict[str, Any], legal: Sequence[Action]) -> bool:
    """Search near a win (shanten ≤ ``SEARCH_MAX_SHANTEN``), on any claim, kong or win on
    offer, and whenever a discard could be won on (the dealer's level 3, RULES §8.4)."""
    if any(not isinstance(a, Discard) for a in legal):
        return True
    info = read_seat(view)
    if info.rules.discard_win and info.level == 3:
        return True
    return an.shanten(hand_state(info)) <= SEARCH_MAX_SHANTEN


class ExpertBot(ExplainingBot):
    """Determinized Monte-Carlo search (see the module docstring).

    ``budget_ms``: the deadline per decision (real time); ``samples``: if given, exactly
    that many worlds per decision and the clock is never read (deterministic: the same
    view gives the same decision)."""

    name = "expert"

    def __init__(self, seed: int = 0, budget_ms: int = DEFAULT_BUDGET_MS,
                 samples: int | None = None, width: int = WIDTH, z: float = Z) -> None:
        if budget_ms <= 0 or (samples is not None and samples <= 0) or width <= 0:
            raise ValueError("budget_ms, samples and width must be positive")
        self.seed = seed
        self.budget_ms = budget_ms
        self.samples = samples
        self.width = width
        self.z = z
        self._prior = StrongBot(seed, budget_ms=PRIOR_BUDGET_MS)
        self.stats: Counter[str] = Counter()
        """Decisions valued (``explained``), searched (``searched``) and where the search
        overrode the strong bot (``override:PHASE:STRONG->EXPERT``), for diagnosis."""

    def explain(self, view: dict[str, Any], legal: Sequence[Action],
                include: Action | None = None) -> list[Candidate]:
        """Candidates best first, valued in expected points of this hand; ``include``
        is searched too even when the prior would not pick it (for reviews)."""
        start = time.perf_counter()
        prior = self._prior.explain(view, legal)
        if include is not None and include not in [c.action for c in prior]:
            prior = [*prior, Candidate(include, prior[-1].value - 1, "the move played")]
        self.stats["explained"] += 1
        # a win on offer is the strong bot's call: play-outs in worlds dealt at random
        # see the opponents further from a win than they are, and so decline real wins
        # for bigger ones too often (measured: docs/bots.md)
        wins = any(isinstance(a, Win) for a in legal)
        if include is None and (wins or not _worth_searching(view, legal)):
            return prior
        actions = [c.action for c in prior[:self.width]]
        if include is not None and include not in actions:
            actions.append(include)
        if len(actions) < 2 and include is None:
            return prior  # nothing to choose; a review still values the lone move in points
        base = view_seed(self.seed, view)
        if self.samples is not None:
            samples = self.samples

            def more(i: int) -> bool:
                return i < samples
        else:
            end = start + self.budget_ms / 1000 * SAFETY
            clock = {"last": time.perf_counter(), "longest": FIRST_PLAY_OUT_S}

            def more(i: int) -> bool:
                # a play-out is started only if the longest one so far still fits
                now = time.perf_counter()
                clock["longest"] = max(clock["longest"], now - clock["last"])
                clock["last"] = now
                return now + clock["longest"] < end

        values = search(actions, view["seat"],
                        lambda i: determinize(view, random.Random(base + i)), more)
        ranked = rank(prior, values, "world", z=math.inf if wins else self.z)
        self.stats["searched"] += 1
        if ranked[0].action != prior[0].action:
            self.stats[f"override:{view['phase']}:{prior[0].action.type}->"
                       f"{ranked[0].action.type}"] += 1
        return ranked
