"""Bot lookup for bot seats and 托管: the bot registry when it exists, else the random bot."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, Protocol

from hzmj.bots.random_bot import RandomBot
from hzmj.events import Action

AUTO_BOT = "efficiency"  # plays for absent players (托管) and escaped seats
FALLBACK_NAMES = ("efficiency", "random")


class Bot(Protocol):
    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action: ...


class UnknownBotError(ValueError):
    """No bot of that name."""


def get_bot(name: str, seed: int) -> Bot:
    """The bot ``name`` from ``hzmj.bots.registry.make_bot`` if that module exists; else
    a :class:`RandomBot` standing in for any of :data:`FALLBACK_NAMES`."""
    try:
        registry = importlib.import_module("hzmj.bots.registry")
    except ImportError:
        registry = None
    if registry is not None and hasattr(registry, "make_bot"):
        try:
            bot: Bot = registry.make_bot(name, seed)
        except (KeyError, ValueError) as exc:
            raise UnknownBotError(str(exc)) from None
        return bot
    if name not in FALLBACK_NAMES:
        raise UnknownBotError(f"unknown bot {name!r} (known: {', '.join(FALLBACK_NAMES)})")
    return RandomBot(seed)
