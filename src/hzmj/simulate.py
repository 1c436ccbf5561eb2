"""Self-play simulation: bots play N hands; statistics and a digest of every record.

Used by ``hzmj simulate``.  Matches are played one after another (match ``i`` has seed
``derive_seed(seed, i)``) until ``hands`` hands have been played; the last match may be
cut short.  Every bot decision comes from a seeded RNG, so the same arguments give the
same ``digest``, except with the ``expert`` bot in deadline mode (``expert``,
``expert:MS``), whose number of worlds depends on the clock (``expert@N`` does not).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from hzmj.bots.base import Bot
from hzmj.bots.registry import show_match
from hzmj.game import HandResult, Match
from hzmj.rules import Rules

BotFactory = Callable[[str, int], Bot]


def derive_seed(seed: int, index: int) -> int:
    """A per-match seed (stable across runs and platforms)."""
    digest = hashlib.sha256(f"hzmj-sim:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass
class SimulationStats:
    """Totals of a simulation; ``points[i]`` is seat i's point sum over all hands."""

    hands: int = 0
    draws: int = 0
    wins_by_name: Counter[str] = field(default_factory=Counter)
    multipliers: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    zero_sum: bool = True
    seconds: float = 0.0
    digest: str = ""
    matches: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``hzmj simulate --json`` (docs/cli.md); ``mean_multiplier`` is that
        of the wins, ``None`` without a win."""
        mean = (round(sum(self.multipliers) / len(self.multipliers), 4) if self.multipliers
                else None)
        return {
            "hands": self.hands,
            "matches": self.matches,
            "draws": self.draws,
            "wins": self.hands - self.draws,
            "wins_by_name": dict(sorted(self.wins_by_name.items())),
            "mean_multiplier": mean,
            "points": self.points,
            "zero_sum": self.zero_sum,
            "hands_per_s": round(self.hands / self.seconds, 2) if self.seconds else 0.0,
            "digest": self.digest,
        }


def play_match(match: Match, bots: Sequence[Bot], max_hands: int | None = None) -> None:
    """Drive ``match`` with one bot per seat until it is over (or ``max_hands`` are done)."""
    show_match(bots, match)
    while not match.over:
        if max_hands is not None and len(match.results) >= max_hands:
            return
        seat = match.to_move()[0]
        legal = match.legal_actions(seat)
        match.apply(bots[seat].choose(match.view(seat), legal))


def _play_one(args: tuple[Rules, int, tuple[str, ...], BotFactory, int | None]
              ) -> tuple[list[HandResult], dict[str, Any]]:
    """One match from its seed (at most ``max_hands`` hands): its results and record."""
    rules, match_seed, names, make_bot, max_hands = args
    match = Match(rules, match_seed)
    bots = [make_bot(name, derive_seed(match_seed, s)) for s, name in enumerate(names)]
    play_match(match, bots, max_hands=max_hands)
    return match.results, match.record()


Played = Iterator[tuple[list[HandResult], dict[str, Any]]]


def _one_by_one(rules: Rules, hands: int, seed: int, names: tuple[str, ...],
                make_bot: BotFactory) -> Played:
    played = index = 0
    while played < hands:
        results, record = _play_one((rules, derive_seed(seed, index), names, make_bot,
                                     hands - played))
        played += len(results)
        index += 1
        yield results, record


def _on_ray(rules: Rules, hands: int, seed: int, names: tuple[str, ...],
            make_bot: BotFactory, address: str) -> Played:
    """Whole matches as Ray tasks, consumed in seed order; a last match that must be cut
    short is replayed here with its hand limit, exactly as :func:`_one_by_one` plays it."""
    from hzmj.cluster import ray_map

    per_match = rules.hands if rules.match_mode == "hands" else 8
    played = index = 0
    while played < hands:
        batch = math.ceil((hands - played) / per_match)
        tasks = [(rules, derive_seed(seed, index + k), names, make_bot, None)
                 for k in range(batch)]
        for results, record in ray_map(_play_one, tasks, address):
            if played + len(results) > hands:
                results, record = _play_one((rules, derive_seed(seed, index), names,
                                             make_bot, hands - played))
            played += len(results)
            index += 1
            yield results, record
            if played >= hands:
                return


def simulate(
    rules: Rules,
    hands: int,
    seed: int,
    bot_names: Sequence[str],
    make_bot: BotFactory,
    progress: Callable[[int], None] | None = None,
    ray: str | None = None,
) -> SimulationStats:
    """Play ``hands`` hands with ``bot_names`` (one per seat) and collect statistics;
    ``ray``: play the matches on that Ray cluster (``"local"``, :mod:`hzmj.cluster`),
    with the same figures and digest.  ``make_bot`` must then be a module-level
    function (the registry's ``make_bot``)."""
    if hands < 1:
        raise ValueError("hands must be at least 1")
    if len(bot_names) != rules.players:
        raise ValueError(f"need {rules.players} bots, got {len(bot_names)}")
    stats = SimulationStats(points=[0] * rules.players)
    digest = hashlib.sha256()
    start = time.perf_counter()
    names = tuple(bot_names)
    played = (_one_by_one(rules, hands, seed, names, make_bot) if ray is None
              else _on_ray(rules, hands, seed, names, make_bot, ray))
    for results, record in played:
        for r in results:
            stats.hands += 1
            if r.winner is None or r.score is None or r.settlement is None:
                stats.draws += 1
                continue
            stats.wins_by_name[r.score.pattern.zh if r.score.pattern else "?"] += 1
            stats.multipliers.append(r.score.multiplier)
            if sum(r.settlement.deltas) != 0:
                stats.zero_sum = False
            for s, d in enumerate(r.settlement.deltas):
                stats.points[s] += d
        digest.update(json.dumps(record, sort_keys=True).encode())
        stats.matches += 1
        if progress:
            progress(stats.hands)
    stats.seconds = time.perf_counter() - start
    stats.digest = digest.hexdigest()
    return stats
