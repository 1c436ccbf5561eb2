"""The random bot: uniform over the legal actions (seeded)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from hzmj.bots.base import Candidate
from hzmj.events import Action


class RandomBot:
    """Picks uniformly among legal actions with its own seeded RNG."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        """Return one of ``legal`` (never empty)."""
        return legal[self.rng.randrange(len(legal))]

    def explain(self, view: dict[str, Any], legal: Sequence[Action],
                include: Action | None = None) -> list[Candidate]:
        """Every legal action with the same value: the chance of playing it."""
        return [Candidate(a, 1 / len(legal), "uniform") for a in legal]
