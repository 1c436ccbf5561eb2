"""The one bot interface: a bot sees its seat's view and legal actions (RULES §13).

``choose(view, legal)`` returns one of ``legal``; ``explain(view, legal)`` returns the
bot's top candidate actions, best first, each with the value the bot gave it (shown as
hints in the terminal table and the browser).  ``explain(view, legal,
include=action)`` also values and lists ``action`` (reviews, :mod:`hzmj.review`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from hzmj.events import Action


@dataclass(frozen=True, slots=True)
class Candidate:
    """One action a bot considered, its ``value`` (higher is better; the unit is the
    bot's own, see ``detail``) and a short human-readable ``detail``."""

    action: Action
    value: float
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """``{"action": {...}, "value": float (4 places), "detail": str}``."""
        return {"action": self.action.to_json(), "value": round(self.value, 4),
                "detail": self.detail}


def top_with(ranked: Sequence[Candidate], top: int,
             include: Action | None = None) -> list[Candidate]:
    """The first ``top`` of ``ranked``, plus ``include``'s entry when it is further down
    (a review values the move played, :mod:`hzmj.review`)."""
    out = list(ranked[:top])
    if include is not None and all(c.action != include for c in out):
        out += [c for c in ranked if c.action == include][:1]
    return out


class Bot(Protocol):
    """A player that sees only ``view`` (``Match.view(seat)``) and ``legal``
    (``Match.legal_actions(seat)``, never empty)."""

    name: str

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        """One of ``legal``."""
        ...

    def explain(self, view: dict[str, Any], legal: Sequence[Action],
                include: Action | None = None) -> list[Candidate]:
        """Top candidate actions, best first (the first is what :meth:`choose` plays);
        ``include``, if given, is valued and listed too."""
        ...


class ExplainingBot:
    """A bot whose choice is the best of its :meth:`explain` list (efficiency, strong,
    expert, oracle): a lone legal action is played at once, without valuing it."""

    name: str

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        """One of ``legal``: the only one, else ``explain(view, legal)[0]``."""
        if len(legal) == 1:
            return legal[0]
        return self.explain(view, legal)[0].action

    def explain(self, view: dict[str, Any], legal: Sequence[Action],
                include: Action | None = None) -> list[Candidate]:
        """Top candidate actions, best first (see :class:`Bot`)."""
        raise NotImplementedError
