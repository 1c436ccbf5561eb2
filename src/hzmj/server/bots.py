"""Bots for bot seats and 托管, run off the event loop."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from hzmj.bots.base import Bot
from hzmj.bots.registry import STRONGEST, make_bot, sees_all
from hzmj.events import Action

AUTO_BOT = "efficiency"  # plays for absent players (托管) and escaped seats
REVIEW_BOT = f"{STRONGEST}@4"  # the replay page's AI review: deterministic, a few s a match


def hint_bot(budget_ms: int) -> str:
    """The strongest bot that answers within a hint's budget (milliseconds)."""
    return f"{STRONGEST}:{budget_ms}"


class UnknownBotError(ValueError):
    """No bot of that name."""


def get_bot(name: str, seed: int) -> Bot:
    """The registry's bot ``name`` (:func:`hzmj.bots.registry.make_bot`);
    :class:`UnknownBotError` for a name it does not know, or for a bot that sees every
    tile (the oracle): every room here has a human in it (RULES §13)."""
    if sees_all(name):
        raise UnknownBotError(f"{name} sees every tile: it is for measurement only and "
                              "never plays in a room with a human")
    try:
        return make_bot(name, seed)
    except ValueError as exc:
        raise UnknownBotError(str(exc)) from None


def _choose(bot: Bot, view: dict[str, Any], legal: Sequence[Action]) -> tuple[Action, Bot]:
    return bot.choose(view, legal), bot  # the bot comes back with its RNG advanced


def _exit_with_parent(parent: int) -> None:
    """Worker start-up: exit as soon as the server is gone, even after a SIGKILL."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


class Thinker:
    """Runs bots' ``choose``: in worker processes (``workers`` > 0), so that their
    thinking uses other cores and never stalls the event loop, or inline."""

    def __init__(self, workers: int) -> None:
        self._pool = (ProcessPoolExecutor(workers, multiprocessing.get_context("spawn"),
                                          _exit_with_parent, (os.getpid(),))
                      if workers > 0 else None)
        if self._pool is not None:
            self._pool.submit(os.getpid)  # start the workers now, not at the first bot move

    async def choose(self, bot: Bot, view: dict[str, Any],
                     legal: Sequence[Action]) -> tuple[Action, Bot]:
        if self._pool is None:
            return _choose(bot, view, legal)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, _choose, bot, view, list(legal))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
