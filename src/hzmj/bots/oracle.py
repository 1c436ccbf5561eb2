"""The oracle: a bot that sees every tile, to measure how far a fair bot could go.

It plays the expert's search in the one true world: each of the efficiency bot's top
``width`` actions is applied to a clone of the real match (every hand, the wall order)
and played out with the fast policy; the best settlement wins.  Because it reads hidden
tiles it breaks RULES §13, so it exists for measurement only: the arena shows it the
match (:meth:`OracleBot.see`), and the table server refuses it in any room.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hzmj.bots.base import Candidate, ExplainingBot
from hzmj.bots.efficiency import EfficiencyBot
from hzmj.bots.expert import rank, search
from hzmj.events import Action
from hzmj.game import Match

WIDTH = 6


class OracleBot(ExplainingBot):
    """Search in the true world (see the module docstring); call :meth:`see` first."""

    name = "oracle"
    sees_all = True

    def __init__(self, seed: int = 0, width: int = WIDTH) -> None:
        self.seed = seed
        self.width = width
        self._prior = EfficiencyBot(seed)
        self._match: Match | None = None

    def see(self, match: Match) -> None:
        """Show the oracle the real match it plays in (read before each decision)."""
        self._match = match

    def explain(self, view: dict[str, Any], legal: Sequence[Action],
                include: Action | None = None) -> list[Candidate]:
        match = self._match
        if match is None:
            raise RuntimeError("the oracle sees every tile and plays only where a driver "
                               "shows it the match (measurement only)")
        prior = self._prior.explain(view, legal)
        listed = [c.action for c in prior]
        prior += [Candidate(a, -1e9, "") for a in legal if a not in listed]
        actions = [c.action for c in prior[:self.width]]
        if include is not None and include not in actions:
            actions.append(include)
        # the true world is one world: the play-out policy is deterministic
        values = search(actions, view["seat"], lambda _: match, lambda i: i < 1)
        return rank(prior, values, "true world", z=None)
