"""Bots by name: ``make_bot(name, seed)`` for the CLI, the arena, the server and tests.

A name is one of :data:`BOT_NAMES`; ``strong`` also takes its time budget in
milliseconds after a colon (``strong:30``), which sets how wide it searches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from hzmj.bots.base import Bot
from hzmj.bots.efficiency import EfficiencyBot
from hzmj.bots.random_bot import RandomBot
from hzmj.bots.strong import StrongBot

_FACTORIES: Final[dict[str, Callable[[int], Bot]]] = {
    "random": RandomBot,
    "efficiency": EfficiencyBot,
    "strong": StrongBot,
}

BOT_NAMES: tuple[str, ...] = tuple(_FACTORIES)
MAX_BUDGET_MS: Final = 2000  # a bot seat must never stall its table


def make_bot(name: str, seed: int, /) -> Bot:
    """A new bot called ``name`` with its own ``seed``; ``ValueError`` for an unknown
    name (the message lists the known ones) or a bad budget."""
    base, _, budget = name.partition(":")
    if base not in _FACTORIES:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOT_NAMES)})")
    if not budget:
        return _FACTORIES[base](seed)
    if (base != "strong" or not budget.isascii() or not budget.isdigit()
            or not 1 <= int(budget) <= MAX_BUDGET_MS):
        raise ValueError(f"bad bot {name!r}: only strong takes a budget, 1 to "
                         f"{MAX_BUDGET_MS} ms, e.g. strong:30")
    return StrongBot(seed, budget_ms=int(budget))
