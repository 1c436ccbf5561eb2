"""Self-play simulation: bots play N hands; statistics and a digest of every record.

Used by ``hzmj simulate``.  Matches are played one after another (match ``i`` has seed
``derive_seed(seed, i)``) until ``hands`` hands have been played; the last match may be
cut short.  Every bot decision comes from a seeded RNG, so the same arguments give the
same ``digest``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hzmj.bots.base import Bot
from hzmj.bots.registry import show_match
from hzmj.game import Match
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
        mean = sum(self.multipliers) / len(self.multipliers) if self.multipliers else 0.0
        return {
            "hands": self.hands,
            "matches": self.matches,
            "draws": self.draws,
            "wins": self.hands - self.draws,
            "wins_by_name": dict(sorted(self.wins_by_name.items())),
            "mean_multiplier": round(mean, 4),
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


def simulate(
    rules: Rules,
    hands: int,
    seed: int,
    bot_names: Sequence[str],
    make_bot: BotFactory,
    progress: Callable[[int], None] | None = None,
) -> SimulationStats:
    """Play ``hands`` hands with ``bot_names`` (one per seat) and collect statistics."""
    if hands < 1:
        raise ValueError("hands must be at least 1")
    if len(bot_names) != rules.players:
        raise ValueError(f"need {rules.players} bots, got {len(bot_names)}")
    stats = SimulationStats(points=[0] * rules.players)
    digest = hashlib.sha256()
    start = time.perf_counter()
    index = 0
    while stats.hands < hands:
        match_seed = derive_seed(seed, index)
        match = Match(rules, match_seed)
        bots = [make_bot(name, derive_seed(match_seed, s)) for s, name in enumerate(bot_names)]
        play_match(match, bots, max_hands=hands - stats.hands)
        for r in match.results:
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
        digest.update(json.dumps(match.record(), sort_keys=True).encode())
        stats.matches += 1
        index += 1
        if progress:
            progress(stats.hands)
    stats.seconds = time.perf_counter() - start
    stats.digest = digest.hexdigest()
    return stats
