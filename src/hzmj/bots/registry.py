"""Bots by name: ``make_bot(name, seed)`` for the CLI, the arena, the server and tests.

A name is one of :data:`BOT_NAMES`; ``strong`` and ``expert`` also take a time budget
in milliseconds after a colon (``strong:30``, ``expert:250``): for ``strong`` it sets how
wide it searches, for ``expert`` it is a real deadline.  ``expert@N`` is the expert's
deterministic mode: exactly ``N`` sampled worlds per decision, the clock never read (for
tests and arenas).  ``oracle`` sees every tile: measurement only (:mod:`hzmj.bots.oracle`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from hzmj.bots.base import Bot
from hzmj.bots.efficiency import EfficiencyBot
from hzmj.bots.expert import ExpertBot
from hzmj.bots.oracle import OracleBot
from hzmj.bots.random_bot import RandomBot
from hzmj.bots.strong import StrongBot
from hzmj.game import Match

_FACTORIES: Final[dict[str, Callable[[int], Bot]]] = {
    "random": RandomBot,
    "efficiency": EfficiencyBot,
    "strong": StrongBot,
    "expert": ExpertBot,
    "oracle": OracleBot,
}

STRONGEST: Final = "strong"
"""The strongest fair bot as measured (hints use it within their time budget).  The
expert's search did not beat it (``expert@8,strong,efficiency,efficiency``, 3,200
duplicate hands over balanced seatings: expert − strong = −0.54 points a hand, p 0.007),
and the strong bot's 改良 search with claims in its leaf (2026-12-02) added +0.245 a hand
over its earlier self (one-seat arenas, 400 deals, p 0.0009), the 爆头 route in its leaf
+0.176 more (p 0.003): +0.33 a hand over the bot of issue 15's filing and +1.08 over the
efficiency bot (550 deals; docs/bots.md)."""

SEES_ALL: Final = frozenset({"oracle"})
"""Bots that read hidden tiles: never at a table with a human (RULES §13)."""

BOT_NAMES: tuple[str, ...] = tuple(_FACTORIES)
FAIR_BOT_NAMES: Final = tuple(n for n in BOT_NAMES if n not in SEES_ALL)
"""The bots that keep to their seat's view: the ones a table, a learner's env or a
review may seat."""
MAX_BUDGET_MS: Final = 2000  # a bot seat must never stall its table
MAX_SAMPLES: Final = 64  # an expert's worlds per decision (fixed-sample mode)


def make_bot(name: str, seed: int, /, *, fair: bool = False) -> Bot:
    """A new bot called ``name`` with its own ``seed``; ``ValueError`` for an unknown
    name (the message lists the known ones) or a bad budget.  ``fair``: only a bot that
    keeps to its seat's view (:data:`FAIR_BOT_NAMES`); the oracle is refused and never
    named among the choices."""
    base, _, budget = name.partition(":")
    base, at, samples = base.partition("@")
    if base not in _FACTORIES:
        oracle = "" if fair else (f"; for measurement only: {', '.join(sorted(SEES_ALL))}, "
                                  "which sees every tile")
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(FAIR_BOT_NAMES)}"
                         f"{oracle})")
    if fair and base in SEES_ALL:
        raise ValueError(f"{name} sees every tile: it is for measurement only (hzmj arena, "
                         f"hzmj simulate; docs/bots.md); choose one of "
                         f"{', '.join(FAIR_BOT_NAMES)}")
    if at:
        if (base != "expert" or budget or not samples.isascii() or not samples.isdigit()
                or not 1 <= int(samples) <= MAX_SAMPLES):
            raise ValueError(f"bad bot {name!r}: only expert takes a sample count, 1 to "
                             f"{MAX_SAMPLES}, e.g. expert@16")
        return ExpertBot(seed, samples=int(samples))
    if not budget:
        return _FACTORIES[base](seed)
    if (base not in ("strong", "expert") or not budget.isascii() or not budget.isdigit()
            or not 1 <= int(budget) <= MAX_BUDGET_MS):
        raise ValueError(f"bad bot {name!r}: only strong and expert take a budget, 1 to "
                         f"{MAX_BUDGET_MS} ms, e.g. strong:30")
    if base == "expert":
        return ExpertBot(seed, budget_ms=int(budget))
    return StrongBot(seed, budget_ms=int(budget))


def show_match(bots: Iterable[Bot], match: Match) -> None:
    """Show ``match`` to the bots that see every tile (the oracle); the others keep to
    their views.  Only measurement drivers (arena, simulate) call this."""
    for bot in bots:
        see = getattr(bot, "see", None)
        if see is not None:
            see(match)


def sees_all(name: str) -> bool:
    """Whether the bot called ``name`` reads hidden tiles (the oracle)."""
    return name.partition(":")[0].partition("@")[0] in SEES_ALL
