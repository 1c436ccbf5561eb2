"""Bots for bot seats and 托管, run off the event loop in supervised worker processes."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from hzmj.bots.base import Bot
from hzmj.bots.registry import STRONGEST, make_bot
from hzmj.events import Action
from hzmj.server.config import tune_gc
from hzmj.shown import counted

log = logging.getLogger("hzmj.server")
T = TypeVar("T")
AUTO_BOT = "efficiency"  # plays for absent players (托管) and escaped seats
HEARTBEAT = 1.0  # seconds between checks that the workers answer
DEGRADED_AFTER_RESTART = 30.0  # health stays degraded this long after a respawn
WORKER_NICENESS = 15  # bot workers run well below the event loop's priority: a player's
# answer never waits for a bot's thinking (at 500 tables nice 5 gave p99 168 ms, 15: 112 ms)

REVIEW_BOT = "expert@4"  # the replay page's AI review: moves valued in points of the hand
# by search (deterministic, a few s a match), the strong bot's choice first
REVIEW_BOTS = (REVIEW_BOT, "strong", "efficiency")
"""The bots a client may ask for a review by: each a fixed, bounded cost per decision (a
client's ``expert:2000`` or ``expert@64`` would hold a bot worker for a minute a match)."""
SEAT_BOTS = ("efficiency", "strong", "random", "expert")
"""The bots a room's owner may seat (``POST /api/rooms/{id}/bots``): the browser's four,
each at its standard cost.  Never a client's budget or sample count: every room's bots
think in the one pool of bot workers, and a table of ``expert:2000`` (about 1.8 s a
decision, 25 times ``expert``'s) took the workers from every other table's bots, 托管
and hints (twelve such rooms from one address: another table's turns 2.7 s apart instead
of 1.1)."""


def hint_bot(budget_ms: int) -> str:
    """The strongest bot that answers within a hint's budget (milliseconds)."""
    return f"{STRONGEST}:{budget_ms}"


class UnknownBotError(ValueError):
    """No bot of that name."""


def bot_seed(deal_seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` of a match dealt from ``deal_seed``: derived from
    it, so a game's every random choice follows from its record's seed, but through
    SHA-256, so no bot's random stream is the deal's own (it was ``seed + seat``: the
    bot at seat 0 drew from the same stream as the dice)."""
    digest = hashlib.sha256(f"hzmj-bot:{deal_seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def get_bot(name: str, seed: int) -> Bot:
    """The registry's bot ``name`` (:func:`hzmj.bots.registry.make_bot`);
    :class:`UnknownBotError` for a name it does not know, or for a bot that sees every
    tile (the oracle, refused by ``make_bot(fair=True)``): every room here has a human in
    it (RULES §13)."""
    try:
        return make_bot(name, seed, fair=True)
    except ValueError as exc:
        raise UnknownBotError(str(exc)) from None


Choice = tuple[Bot, dict[str, Any], list[Action]]
"""One bot decision to make: the bot, its seat's view, the legal actions."""
MAX_BATCH = 32  # decisions sent to a worker in one message at most


def cancelled_by_caller() -> bool:
    """Whether the running task itself is being cancelled (the caller, a room or the
    server stopping), as opposed to a future it awaited being cancelled under it."""
    task = asyncio.current_task()
    return task is None or task.cancelling() > 0


def _choose(bot: Bot, view: dict[str, Any], legal: Sequence[Action]) -> tuple[Action, Bot]:
    return bot.choose(view, legal), bot  # the bot comes back with its RNG advanced


def _choose_many(jobs: list[Choice]) -> list[tuple[Action, Bot] | Exception]:
    """Several rooms' decisions in one worker call; a bot that fails fails its own room
    only (its error comes back in its place, as a picklable ``RuntimeError``)."""
    out: list[tuple[Action, Bot] | Exception] = []
    for bot, view, legal in jobs:
        try:
            out.append(_choose(bot, view, legal))
        except Exception as exc:  # noqa: BLE001 - reported to the room that asked
            out.append(RuntimeError(f"{type(exc).__name__}: {exc}"))
    return out


def _worker_start(parent: int, gc_gen0: int) -> None:
    """Worker start-up: yield the CPU to the server's event loop when cores are short
    (a bot may think a little longer; a player's answer must not wait), collect garbage
    as the server does (:func:`~hzmj.server.config.tune_gc`: a bot's memo tables made
    full collections of a quarter second), and exit as soon as the server is gone, even
    after a SIGKILL."""
    os.nice(WORKER_NICENESS)
    tune_gc(gc_gen0)
    # Ctrl-C in a terminal reaches the whole process group: the server stops its workers
    # itself (close), so a worker ignores it instead of printing a KeyboardInterrupt
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


class Thinker:
    """Runs bots' ``choose``: in a pool of worker processes (``workers`` > 0), so that
    their thinking uses every core and never stalls the event loop, or inline.

    Decisions are batched adaptively: while a worker is free each goes at once; while
    all are busy they wait, and go together in one message when one comes back, so the
    event loop's cost per decision (a submit, a wake-up, a result) falls as the load
    rises (at 500 tables it was a fifth of the loop's time).

    The pool is supervised: a worker that dies breaks the pool (the executor notices at
    once), and the first call or heartbeat that meets the broken pool starts a new one;
    the calls it broke are tried again there, so a bot's move is never lost to the
    default.  :meth:`problems` says when it is degraded (for ``/api/health``).
    """

    def __init__(self, workers: int, gc_gen0: int = 0, kind: str = "bot",
                 long_jobs: bool = False) -> None:
        """``kind`` names the workers in :meth:`problems`.  ``long_jobs``: the jobs may
        run for many seconds (AI reviews): the heartbeat is sent only while no job runs
        (it would queue behind one and report a busy worker as hung), and :meth:`close`
        ends the workers at once instead of waiting for a job to finish."""
        self.workers = workers
        self.gc_gen0 = gc_gen0
        self.kind = kind
        self.long_jobs = long_jobs
        self._running = 0  # jobs of run() in the workers now
        self.restarts = 0
        self._restarted_at: float | None = None
        self._unanswered = False  # the last heartbeat failed
        self._pool = self._spawn() if workers > 0 else None
        self._watch: asyncio.Task[None] | None = None
        self._waiting: list[tuple[Choice, asyncio.Future[tuple[Action, Bot]]]] = []
        self._in_flight = 0  # batches sent and not yet answered
        self._flush_due = False
        self._senders: set[asyncio.Task[None]] = set()
        self._closed = False

    def _spawn(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(self.workers, multiprocessing.get_context("spawn"),
                                   _worker_start, (os.getpid(), self.gc_gen0))
        for _ in range(self.workers):
            pool.submit(os.getpid)  # start the workers now, not at the first bot move
        return pool

    def start(self) -> None:
        """Start the heartbeat (needs a running event loop)."""
        if self._pool is not None and self._watch is None:
            self._watch = asyncio.create_task(self._heartbeat(), name="hzmj-bot-workers")

    def _respawn(self, broken: ProcessPoolExecutor) -> None:
        if self._pool is not broken:
            return  # another call already replaced it
        self.restarts += 1
        self._restarted_at = time.monotonic()
        log.warning("a bot worker process died; starting a new pool (restart %d)",
                    self.restarts)
        broken.shutdown(wait=False, cancel_futures=True)
        self._pool = self._spawn()

    @property
    def waiting(self) -> int:
        """Decisions waiting for a free worker (``/metrics``)."""
        return len(self._waiting)

    async def choose(self, bot: Bot, view: dict[str, Any],
                     legal: Sequence[Action]) -> tuple[Action, Bot]:
        """The bot's choice and the bot itself with its RNG advanced.  ``RuntimeError``
        if the bot failed (or the workers keep dying)."""
        if self._closed:
            raise asyncio.CancelledError  # the server is stopping: no bot moves any more
        if self._pool is None:
            return await asyncio.to_thread(_choose, bot, view, list(legal))
        answer: asyncio.Future[tuple[Action, Bot]] = asyncio.get_running_loop().create_future()
        self._waiting.append(((bot, view, list(legal)), answer))
        self._kick()
        return await answer

    def _kick(self) -> None:
        """Send waiting decisions once this turn of the event loop is over (decisions
        made in the same turn share a message) if a worker is free."""
        if (self._waiting and self._in_flight < self.workers and not self._flush_due
                and not self._closed):
            self._flush_due = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_due = False
        free = self.workers - self._in_flight
        if not self._waiting or free <= 0:
            return
        size = min(MAX_BATCH, -(-len(self._waiting) // free))  # shared over free workers
        batch, self._waiting = self._waiting[:size], self._waiting[size:]
        self._in_flight += 1
        task = asyncio.create_task(self._send(batch), name="hzmj-bot-batch")
        self._senders.add(task)
        task.add_done_callback(self._senders.discard)
        self._kick()

    async def _send(self, batch: list[tuple[Choice, asyncio.Future[tuple[Action, Bot]]]]
                    ) -> None:
        try:
            results = await self.run(_choose_many, [job for job, _ in batch])
        except Exception as exc:  # the workers keep dying: every room plays its default
            for _, answer in batch:
                if not answer.done():
                    answer.set_exception(RuntimeError(str(exc)))
        else:
            for (_, answer), result in zip(batch, results, strict=True):
                if answer.done():
                    continue  # the room stopped waiting (closed, or moved away)
                if isinstance(result, Exception):
                    answer.set_exception(result)
                else:
                    answer.set_result(result)
        finally:
            self._in_flight -= 1
            for _, answer in batch:
                if not answer.done():  # cancelled with the server: nobody is left waiting
                    answer.cancel()
            self._kick()

    async def run(self, job: Callable[..., T], *args: Any) -> T:
        """``job(*args)`` in a worker (a module-level function, picklable arguments), or
        in a thread of this process when there are no workers: hints and reviews search
        as hard as bots do, and must not hold the event loop either."""
        if self._pool is None:
            return await asyncio.to_thread(job, *args)
        loop = asyncio.get_running_loop()
        for _ in range(3):
            pool = self._pool
            self._running += 1
            try:
                return await loop.run_in_executor(pool, job, *args)
            except BrokenProcessPool:
                if self._closed:
                    raise asyncio.CancelledError from None  # ended by close()
                self._respawn(pool)
            except asyncio.CancelledError:
                if self._closed or cancelled_by_caller():
                    raise  # the caller was cancelled, or the server is stopping
                # a job still queued in a pool replaced after a death is cancelled by
                # the pool's shutdown: it was never run, so it runs in the new pool
                self._respawn(pool)
            finally:
                self._running -= 1
        raise RuntimeError(f"the {self.kind} workers keep dying")

    async def _heartbeat(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(HEARTBEAT)
            pool = self._pool
            assert pool is not None
            if self.long_jobs and self._running:
                continue  # a job holds the worker; a death still breaks the pool at once
            try:
                async with asyncio.timeout(10 * HEARTBEAT):
                    await loop.run_in_executor(pool, os.getpid)
                self._unanswered = False
            except BrokenProcessPool:
                self._respawn(pool)
            except TimeoutError:
                self._unanswered = True  # all busy or hung: report, do not kill

    def problems(self) -> list[str]:
        """Why the bots are degraded now (empty: they are fine)."""
        found = []
        if self._unanswered:
            found.append(f"{self.kind} workers do not answer")
        if (self._restarted_at is not None
                and time.monotonic() < self._restarted_at + DEGRADED_AFTER_RESTART):
            found.append(f"a {self.kind} worker died and was replaced "
                         f"({counted(self.restarts, 'restart')})")
        return found

    def close(self) -> None:
        """Stop: decisions still waiting are cancelled (never answered with a default
        move), and the workers end."""
        self._closed = True
        for _, answer in self._waiting:
            answer.cancel()
        self._waiting.clear()
        if self._watch is not None:
            self._watch.cancel()
        for task in list(self._senders):
            task.cancel()
        if self._pool is not None:
            if self.long_jobs:  # a review of minutes is not waited for: its worker ends
                for process in list(getattr(self._pool, "_processes", {}).values()):
                    process.terminate()
            self._pool.shutdown(wait=True, cancel_futures=True)
