"""Rooms: seats, the match, clocks and bots, each room run by one actor task.

A :class:`Room` owns its :class:`~hzmj.game.Match`; everything that reads or changes it
(HTTP commands, client messages, clocks, bots) runs as a job on the room's inbox, one at
a time, so no two actions are ever applied concurrently.  An action is checked against
the engine's legal actions, written to the database, applied, and only then are its
events sent — each connection gets ``Event.for_seat(its seat)`` and views from
``Match.view(its seat)``, nothing else.

What others see of a discard never depends on whether a claim window opened (RULES §13):
the room shows ``Match.step`` as ``state_id``, and holds the discard's outcome (the next
draw, or the claim) until the room's ``claim_pause_ms`` has passed *and* the window is
closed; meanwhile snapshots wait, and the next seat is neither prompted nor allowed to
act.  A bot thinks in a task of its own, so the room keeps serving its humans meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy.exc import SQLAlchemyError

from hzmj.bots.base import Bot
from hzmj.events import Action, Escape, Event, IllegalActionError, action_from_json
from hzmj.game import Match
from hzmj.record import fair_record, seed_commitment
from hzmj.rules import Rules
from hzmj.server import metrics
from hzmj.server.account_protocol import names_alike
from hzmj.server.bots import (
    AUTO_BOT,
    SEAT_BOTS,
    Thinker,
    bot_seed,
    cancelled_by_caller,
    get_bot,
)
from hzmj.server.config import ServerConfig
from hzmj.server.guard import NETWORK_SHARE, Bucket, BucketsByKey, network_key
from hzmj.server.protocol import (
    AckMsg,
    ActionRequest,
    AnyClientMessage,
    AutoRequest,
    ClockMsg,
    ErrorMsg,
    EventMsg,
    GateInfo,
    PhraseMsg,
    PhraseRequest,
    PromptMsg,
    ReadyRequest,
    RoomInfo,
    RoomMsg,
    SeatInfo,
    SnapshotMsg,
    SnapshotRequest,
)
from hzmj.server.storage import (
    StaleOwnerError,
    Store,
    StoredRoom,
    StoredSeat,
    hash_token,
)
from hzmj.shown import counted, shown

log = logging.getLogger("hzmj.server")
T = TypeVar("T")

SEND_QUEUE_LIMIT = 5000  # messages waiting for a slow client before it is dropped
SEND_QUEUE_CHARS = 1 << 20  # or characters of them (a whole match's snapshot is ~20 KB)
STORAGE_RETRY_SECONDS = 1.0  # after a write the database refused, bots and clocks wait
SNAPSHOT_HANDS = 64  # finished hands a snapshot's history holds, the newest (~600 bytes, 0.3 ms)
MAX_REMOVED = 64  # removal bans a room keeps (each is one address or IPv6 /64)
MOVING = "the room is stopping here (server restart or move); try again"
# the owner who handed their own seat to a bot keeps the token to run the room, never
# to play, escape for or 托管 the bot's seat (a chosen deal and a bot's name)
BOT_SEAT = "a bot plays this seat; its owner may watch, not act for it"


def dissolved_reason(seconds: float) -> str:
    """What a room dissolved after ``seconds`` with nobody at the table answers (a
    WebSocket close reason: at most 123 bytes)."""
    return (f"this room was dissolved after {_duration(seconds)} with nobody at the "
            "table; its replay stays available")


class RoomError(Exception):
    """A command a room refuses; ``status`` is the HTTP status to answer with, ``code`` a
    stable key the browser translates (docs/protocol.md)."""

    def __init__(self, status: int, message: str, code: str = "refused") -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class Refused(IllegalActionError):
    """A client message the room refuses, with a stable ``code`` for translation."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Connection:
    """One WebSocket client: its seat (``None``: spectator) and its outgoing queue, which
    the socket's sender empties with :meth:`get`."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.snapshot_due = False  # asked while a discard's outcome was held
        self.outbox: asyncio.Queue[str | tuple[int, str]] = asyncio.Queue()
        self.queued = 0  # characters of the messages in the outbox
        self.closed = False

    def send(self, message: BaseModel | str) -> None:
        if self.closed:
            return
        text = message if isinstance(message, str) else message.model_dump_json()
        # by count and by size: a client that reads nothing while it asks for snapshots
        # (17 KB each late in a match) held 5,000 of them, 85 MB, per socket
        if (self.outbox.qsize() >= SEND_QUEUE_LIMIT
                or self.queued + len(text) > SEND_QUEUE_CHARS):
            self.close(1008, "too slow: too many unread messages")
            return
        self.queued += len(text)
        self.outbox.put_nowait(text)

    async def get(self) -> str | tuple[int, str]:
        """The next message to send (a ``(code, reason)`` pair: close), waiting for one."""
        return self._taken(await self.outbox.get())

    def get_nowait(self) -> str | tuple[int, str]:
        """The next message if one is queued; :class:`asyncio.QueueEmpty` if none."""
        return self._taken(self.outbox.get_nowait())

    def _taken(self, item: str | tuple[int, str]) -> str | tuple[int, str]:
        if isinstance(item, str):
            self.queued -= len(item)
        return item

    def error(self, reason: str, code: str | None = None) -> None:
        metrics.refused(code)
        self.send(ErrorMsg(reason=reason, code=code))

    def close(self, code: int, reason: str) -> None:
        """Ask the sender to close the socket after what is queued."""
        if not self.closed:
            self.closed = True
            self.outbox.put_nowait((code, reason))


@dataclass
class Seat:
    index: int
    name: str | None = None
    token_hash: str | None = None
    bot: str | None = None  # a bot seat (set by the owner)
    left: bool = False  # escaped (RULES §8.5): a bot plays it
    auto: bool = False  # 托管: asked for, or after consecutive clock expiries
    expiries: int = 0
    away_since: float | None = None  # monotonic time; None while a client is connected
    ready: bool = False  # marked ready in the waiting room
    address: str | None = None  # the client address that took it (kept while open)
    connections: list[Connection] = field(default_factory=list)
    phrases: Bucket | None = None  # its quick phrases' allowance, from the first one
    switches: Bucket | None = None  # its 托管 and ready switches' allowance, likewise

    @property
    def taken(self) -> bool:
        return self.name is not None

    def stored(self) -> StoredSeat:
        assert self.name is not None
        return StoredSeat(self.index, self.name, self.token_hash, self.bot, self.left,
                          self.address, self.auto)


@dataclass
class Gate:
    """The pause between two hands (the issue's 准备 gate): the next hand is dealt in the
    engine but its events are held back and no clock runs until every seat is ready or
    ``deadline`` passes."""

    hand_no: int  # the hand about to start
    deadline: float  # monotonic
    seq: int  # the log index of its hand_start: events from there wait for the gate
    ready: set[int] = field(default_factory=set)


@dataclass
class Demand:
    """A seat that must act: since which state, its clock, when a bot would act."""

    state_id: int  # the prompt's state_id
    phase: str
    deadline: float  # monotonic
    bot_due: float


class Room:
    """One table: seats, the match once started, and the actor that runs it.

    ``seed`` deals the match and ``salt`` hides it: ``seed_commitment(seed, salt)`` is
    public from the start, both are revealed when the match is over.  A seed the client
    chose (``seed_fixed``) is kept only if every seat is a bot at the start (or the
    server allows fixed seeds, for tests); otherwise the start draws a new one.
    """

    def __init__(self, room_id: str, name: str, rules: Rules, seed: int, store: Store,
                 config: ServerConfig, thinker: Thinker, salt: str = "",
                 seed_fixed: bool = False, creator: str | None = None,
                 private: bool = False) -> None:
        self.id = room_id
        self.private = private  # not listed in the lobby: who has the link joins or watches
        # the creating client's address key (rooms_per_address): kept in the database while
        # the room is open, so a restored or moved room still counts; None for a running
        # room restored (no address is kept once play starts)
        self.creator = creator
        self.thinker = thinker
        self.name = name
        self.rules = rules
        self.seed = seed
        self.salt = salt
        self.seed_fixed = seed_fixed
        self.store = store
        self.config = config
        self.seats = [Seat(i) for i in range(rules.players)]
        self.owner: int | None = None
        self.match: Match | None = None
        self.spectators: list[Connection] = []
        self.demands: dict[int, Demand] = {}
        self.demands_state = -1  # the state_id self.demands were computed for
        self.pause_until = 0.0
        self.gate: Gate | None = None
        self.gate_lifted = -1  # the log index of the hand_start whose gate has lifted
        self.bots: dict[int, Bot] = {}
        self.thinking: dict[int, asyncio.Task[None]] = {}
        # the record's made_by: action index -> "bot" | "clock", the actions of a person's
        # seat its player did not choose (stored with each action, so a restart keeps it)
        self.made_by: dict[int, str] = {}
        self.published = 0  # events of the match log sent so far
        self.hold_step: int | None = None  # the held discard's step (see the module doc)
        self.hold_until = 0.0
        self.room_due: float | None = None  # when a coalesced room message is sent
        self.active_at = time.monotonic()  # the last join, seat change or connection
        self.removed: set[str] = set()  # addresses of players the owner removed
        # the current hand's start (a hand-only copy, and how many actions came before it),
        # to rebuild the finished hand's views for the gate: the engine deals the next
        # hand at once, and a snapshot between hands must not show it
        self.hand_origin: tuple[Match, int] | None = None
        self.gate_views: dict[int | None, dict[str, Any]] | None = None
        self.over_at: float | None = None  # when the match's end was published
        # since when no seat token has a connection to the running match (monotonic):
        # nothing advances meanwhile (see _pause); None while someone holds the table
        self.paused_at: float | None = None
        self.dissolved = False  # stopped for good, paused for unattended_limit (dissolve)
        # a rated match paused for unattended_limit: 托管 plays it to its end instead of
        # a dissolution (leaving must not undo a loss), and it pauses no more
        self.left_to_bots = False
        self.shown_hand = 0  # the hand_no of the last published hand_start
        self.storage_retry_at = 0.0  # bots and clocks wait until then (a failed write)
        self._inbox: asyncio.Queue[tuple[Callable[[], Awaitable[Any]],
                                         asyncio.Future[Any] | None]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.on_change: Callable[[Room], None] | None = None  # told when info() changes
        self._record_text: str | None = None  # finished_record_text, once made

    # ------------------------------------------------------------------ the actor

    def start_actor(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"room-{self.id}")

    async def stop_actor(self, grace: float = 5.0) -> None:
        """Stop the actor between two jobs or actions (after ``grace`` seconds: wherever it
        is), and the bots thinking for it; commands still queued fail with 503."""
        await self._stop_thinking()
        task = self._task
        if task is None:
            return
        if not task.done():
            async def halt() -> None:
                raise asyncio.CancelledError
            self.post(halt)
            await asyncio.wait({task}, timeout=grace)
            await cancel_and_wait([task])
        await self._stop_thinking()  # bots the actor started while it finished its job
        while not self._inbox.empty():
            _, done = self._inbox.get_nowait()
            if done is not None and not done.done():
                done.set_exception(RoomError(503, MOVING))

    async def _stop_thinking(self) -> None:
        thoughts = list(self.thinking.values())
        for thought in thoughts:
            thought.cancel()
        await asyncio.gather(*thoughts, return_exceptions=True)
        self.thinking.clear()

    def close_connections(self, code: int, reason: str) -> None:
        for _, conns in self.all_connections():
            for conn in conns:
                conn.close(code, reason)

    async def call(self, job: Callable[[], Awaitable[T]]) -> T:
        """Run ``job`` inside the actor and return its result."""
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._inbox.put_nowait((job, done))
        return await done

    def post(self, job: Callable[[], Awaitable[Any]]) -> None:
        """Queue ``job`` for the actor without waiting."""
        self._inbox.put_nowait((job, None))

    async def _run(self) -> None:
        while True:
            try:
                await self._drive()
            except Exception:  # a bug must not kill the table: log it and back off
                log.exception("room %s: driving the match failed", self.id)
                self.pause_until = time.monotonic() + 1.0
            if self.room_due is not None and time.monotonic() >= self.room_due:
                self._broadcast_room()
            if self._inbox.empty():
                try:
                    async with asyncio.timeout(self._next_wake()):
                        job, done = await self._inbox.get()
                except TimeoutError:
                    continue
            else:  # a busy room: no timer to arm and cancel
                job, done = self._inbox.get_nowait()
            try:
                result = await job()
            except asyncio.CancelledError:
                if done is not None and not done.done():
                    done.set_exception(RoomError(503, MOVING))
                raise
            except Exception as exc:
                if done is None:
                    log.exception("room %s: job failed", self.id)
                elif not done.done():
                    done.set_exception(exc)
                continue
            if done is not None and not done.done():
                done.set_result(result)

    # ------------------------------------------------------------------ clocks and bots

    def _controlled_by_bot(self, seat: int, now: float) -> bool:
        s = self.seats[seat]
        assert self.match is not None
        if s.bot is not None or s.left or s.auto or self.match.is_auto(seat):
            return True
        return s.away_since is not None and now >= s.away_since + self.config.away_grace

    def _refresh_demands(self, now: float) -> None:
        """After a state change: who must act now, with fresh clocks for new turns; a
        seat still answering the same claim window keeps its clock and prompt."""
        m = self.match
        assert m is not None
        if self.demands_state == m.state_id:
            return
        self.demands_state = m.state_id
        old, self.demands = self.demands, {}
        for seat in m.to_move():
            kept = old.get(seat)
            if kept is not None and kept.phase == "claim" == m.phase:
                self.demands[seat] = kept
                continue
            seconds = m.rules.turn_seconds if m.phase == "turn" else m.rules.claim_seconds
            # a bot's answer to a claim is never seen (the outcome is held), so no pause
            pause = self.config.bot_delay if m.phase == "turn" else 0.0
            self.demands[seat] = Demand(m.step, m.phase, now + seconds *
                                        self.config.time_scale, now + pause)
            if not self._controlled_by_bot(seat, now):
                self._prompt(seat)
        self._broadcast_clock()

    def _broadcast_clock(self) -> None:
        """The timer of the seat in turn, for everyone (presence)."""
        text = self._clock_text()
        if text is None:
            return
        for _, conns in self.all_connections():
            for conn in conns:
                conn.send(text)

    def _clock_text(self) -> str | None:
        """The turn's clock message, if a turn's clock runs.  A claim window's clock is
        never sent: its very sending would show that a window opened, which depends on
        other seats' concealed tiles (RULES §13); claimers see it in their prompt."""
        m = self.match
        if m is None or m.phase != "turn" or not self.demands:
            return None
        deadline = max(d.deadline for d in self.demands.values())
        return ClockMsg(seat=m.turn, phase=m.phase,  # type: ignore[arg-type]
                        deadline_ms=_epoch_ms(deadline)).model_dump_json()

    def _prompt(self, seat: int) -> None:
        demand = self.demands.get(seat)
        if demand is None or self.match is None or not self.seats[seat].connections:
            return
        msg = PromptMsg(state_id=demand.state_id, phase=demand.phase,  # type: ignore[arg-type]
                        actions=[a.to_json() for a in self.match.legal_actions(seat)],
                        deadline_ms=_epoch_ms(demand.deadline)).model_dump_json()
        for conn in self.seats[seat].connections:
            conn.send(msg)

    def _next_wake(self) -> float | None:
        now = time.monotonic()
        wake = self._next_match_wake(now)
        if self.room_due is not None:
            due = max(0.0, self.room_due - now)
            wake = due if wake is None else min(wake, due)
        return wake

    def _next_match_wake(self, now: float) -> float | None:
        m = self.match
        if m is None:
            return None
        times = []
        if self.hold_step is not None:
            if m.phase != "claim":  # decided: shown when the pause is over
                return max(0.0, self.hold_until - now)
            if now < self.hold_until:
                times.append(self.hold_until)  # then waiting snapshots are sent
        if m.over:
            return None
        if self.paused_at is not None:  # only a held discard's pause runs on
            return max(0.0, min(times) - now) if times else None
        if self.gate is not None:
            if self._all_ready(now):
                return 0.0
            # a player whose away grace ends first counts as ready then (托管)
            times = [self.gate.deadline] + [
                s.away_since + self.config.away_grace for s in self.seats
                if s.away_since is not None and s.away_since + self.config.away_grace > now]
            return max(0.0, min(times) - now)
        if now < max(self.pause_until, self.storage_retry_at):
            times.append(max(self.pause_until, self.storage_retry_at))
        elif self.demands_state != m.state_id:
            return 0.0
        else:
            for seat, d in self.demands.items():
                if self._controlled_by_bot(seat, now):
                    if seat not in self.thinking:
                        times.append(d.bot_due)
                else:
                    times.append(d.deadline)
                    away = self.seats[seat].away_since
                    if away is not None:
                        times.append(away + self.config.away_grace)
        return max(0.0, min(times) - now) if times else None

    async def _drive(self) -> None:
        """Publish what is due; start the bots that are due thinking; let one expired
        clock act (one at a time, so that the inbox is read between actions)."""
        m = self.match
        if m is None:
            return
        self._publish()
        if m.over or self.paused_at is not None:
            return  # nobody at the table: no bot, clock or gate acts (see _pause)
        if self.hold_step is not None and m.phase != "claim":
            return  # the next seat is not asked before the discard's outcome is shown
        now = time.monotonic()
        if self.gate is not None:
            if now >= self.gate.deadline or self._all_ready(now):
                self._lift_gate(now)
            return
        if now < self.pause_until or now < self.storage_retry_at:
            return
        self._refresh_demands(now)
        for seat, demand in self.demands.items():
            if self._controlled_by_bot(seat, now):
                if seat not in self.thinking:
                    self._think(seat, demand.bot_due)
            elif demand.deadline <= now:
                await self._expire(seat)
                return

    def _think(self, seat: int, due: float) -> None:
        """Let the seat's bot choose in a task of its own, starting now; its answer comes
        back as a job at ``due`` (the bots' pause) or once it is ready if later, applied
        if the seat still faces the same decision (same public step).  Thinking during
        the pause, not after it, keeps the bots' pace when the workers are busy."""
        m = self.match
        assert m is not None
        step, view, legal = m.step, m.view(seat), m.legal_actions(seat)
        bot = self.bots.get(seat) or get_bot(self.seats[seat].bot or AUTO_BOT,
                                             bot_seed(self.seed, seat))

        async def think() -> None:
            try:
                asked = time.monotonic()
                action, advanced = await self.thinker.choose(bot, view, legal)
                metrics.BOT_SECONDS.labels(bot.name).observe(time.monotonic() - asked)
            except asyncio.CancelledError:
                if cancelled_by_caller():
                    raise  # the room is stopping
                # the answer was dropped under us (the server's workers stopping): let
                # the next turn of the room ask again rather than wait on it for ever
                self.post(lambda: self._forget_thought(seat))
                return
            except Exception:
                log.exception("room %s: bot of seat %d failed; default action", self.id, seat)
                action, advanced = legal[-1], bot
            pause = due - time.monotonic()
            if pause > 0:
                await asyncio.sleep(pause)
            self.post(lambda: self._bot_answer(seat, step, action, advanced))

        self.thinking[seat] = asyncio.create_task(think(), name=f"bot-{self.id}-{seat}")

    async def _forget_thought(self, seat: int) -> None:
        """The seat's bot is no longer thinking: its answer will never come."""
        self.thinking.pop(seat, None)

    async def _bot_answer(self, seat: int, step: int, action: Action, bot: Bot) -> None:
        self.thinking.pop(seat, None)
        m = self.match
        if m is None or m.over or m.step != step or seat not in m.to_move():
            return  # overtaken: the decision it answers is gone
        if not self._controlled_by_bot(seat, time.monotonic()):
            return  # the player took the seat back meanwhile
        legal = m.legal_actions(seat)
        if await self._apply_unless_unstored(action if action in legal else legal[-1], "bot"):
            self.bots[seat] = bot  # else the bot asks again (same RNG) after the pause

    async def _expire(self, seat: int) -> None:
        m = self.match
        assert m is not None
        action = m.default_action(seat)
        assert action is not None
        if not await self._apply_unless_unstored(action, "clock"):
            return  # not applied, so not an expiry: tried again after the pause
        s = self.seats[seat]
        s.expiries += 1  # counted once the default move is really made
        log.info("room %s: seat %d's %s clock expired (%d in a row); default %s",
                 self.id, seat, m.phase, s.expiries, action.type)
        if s.expiries >= self.config.expiries_to_auto and not s.auto:
            s.auto = True  # 托管 until the player acts again or turns it off
            self._broadcast_room()
            self._store_auto(seat)

    def _store_auto(self, seat: int) -> None:
        """Store the seat's 托管 after this job (the actor's jobs run in order, so the last
        change is the one stored); a database that cannot take it now only costs the
        player their 托管 after a restart."""
        async def job() -> None:
            try:
                await self.store.set_seat_auto(self.id, seat, self.seats[seat].auto)
            except Exception as exc:
                log.warning("room %s: seat %d's 托管 not stored: %s", self.id, seat, exc)
        self.post(job)

    # ------------------------------------------------------------------ nobody at the table

    def _pause(self, now: float) -> None:
        """Pause the running match if no seat token has a connection (spectators do not
        count; an owner who handed their seat to a bot does): from now no bot, clock or
        gate acts until a seat connects (:meth:`_resume`), and a room paused for
        ``unattended_limit`` is dissolved (:meth:`dissolve`).  At once, with no grace:
        with nobody seated there is no player the pause keeps waiting, and the one who
        comes back finds the table as they left it (their clock not run down, no 托管
        taken for them).  What is already under way still lands: a bot's answer on its
        way, a discard's outcome once its pause is over (as a long claim window would
        show it, RULES §13)."""
        m = self.match
        if (self.paused_at is not None or m is None or m.over or self.left_to_bots
                or self.seated_connections):
            return
        self.paused_at = now
        log.info("room %s: nobody at the table; the match is paused (dissolved after %s)",
                 self.id, _duration(self.config.unattended_limit))
        self._room_changed()

    def _resume(self, now: float) -> None:
        """A seat connected to a paused match: everything that was counting down moves on
        by the time it stood still (the clocks and the bots' pace of :class:`Demand`,
        the gate's countdown, the deal's pause, a storage back-off, the away grace of
        seats still disconnected), so play goes on where it stopped; the turn's new clock
        goes to every connection already here.  A held discard's pause is not moved: it
        ran on meanwhile (:meth:`_next_match_wake`), and one over is not held again."""
        if self.paused_at is None:
            return
        paused, self.paused_at = now - self.paused_at, None
        for demand in self.demands.values():
            demand.deadline += paused
            demand.bot_due += paused
        if self.gate is not None:
            self.gate.deadline += paused
        self.pause_until += paused
        self.storage_retry_at += paused
        for s in self.seats:
            if s.away_since is not None:
                s.away_since += paused
        log.info("room %s: resumed after %.0f s", self.id, paused)
        m = self.match
        if m is not None and self.gate is None and self.demands_state == m.state_id:
            self._broadcast_clock()
        self._room_changed()

    async def dissolve(self, now: float) -> bool:
        """Stop for good a match paused for ``unattended_limit`` at ``now`` (monotonic):
        its record so far is stored with status ``dissolved`` (no winner, no rating,
        docs/rules-decisions.md) and every later action, connection or bot answer is
        refused.  False, with nothing done, when it is no longer due (a seat connected
        meanwhile, or the match ended); False too for a match rated for an account
        (``Store.rated``): it resumes, and 托管 plays every absent seat to its end, as it
        did before the pause existed (a player losing a rated match cannot void it by
        walking away).  The caller lets the room go when True.  Raises what the store
        raises (:class:`StaleOwnerError`: another node owns the room now)."""
        m = self.match
        if (self.paused_at is None or m is None or m.over or self.dissolved
                or now < self.paused_at + self.config.unattended_limit):
            return False
        if self.store.rated is not None and await self.store.rated(self.id):
            log.info("room %s: rated and unattended for %s: 托管 plays it to its end",
                     self.id, _duration(now - self.paused_at))
            self.left_to_bots = True
            self._resume(now)
            return False
        await self._stop_thinking()  # an answer that lands now has nothing to play
        await self.store.finish(self.id, self.record(), status="dissolved")
        self.dissolved = True
        log.info("room %s: dissolved after %s with nobody at the table (%d actions)",
                 self.id, _duration(now - self.paused_at), len(m.actions))
        self._broadcast_room()
        return True

    # ------------------------------------------------------------------ the gate between hands

    def _all_ready(self, now: float) -> bool:
        gate = self.gate
        assert gate is not None
        return all(i in gate.ready or self._controlled_by_bot(i, now)
                   for i in range(len(self.seats)))

    def _open_gate(self, seq: int, now: float) -> None:
        """The next hand's ``hand_start`` (log index ``seq``) is reached: hold it and
        everything after it back, and start no clock, until the gate lifts."""
        m = self.match
        assert m is not None
        self.gate = Gate(int(m.log[seq].data["hand_no"]), now + self.config.ready_seconds, seq)
        self.gate_views, ended = self._finished_hand_views()
        self._mark_hand_origin(ended)
        self.demands, self.demands_state = {}, -1
        self._broadcast_room()

    def _mark_hand_origin(self, actions: int | None = None) -> None:
        """The current hand starts after ``actions`` actions (None: now)."""
        m = self.match
        assert m is not None
        if actions is None or actions == len(m.actions):
            self.hand_origin = (m.clone(hand_only=True), len(m.actions))
            return
        again = Match(self.rules, self.seed, log=False)  # rare: replay to the deal
        for action in m.actions[:actions]:
            again.apply(action)
        self.hand_origin = (again.clone(hand_only=True), actions)

    def _finished_hand_views(self) -> tuple[dict[int | None, dict[str, Any]] | None,
                                            int | None]:
        """Every seat's view (and the spectators') of the hand that just ended, as it
        ended, replayed from the hand's start in a hand-only copy, which deals nothing
        after it (RULES §13: the next hand is not shown before the gate lifts); and the
        number of actions up to that end (None: unknown)."""
        m, origin = self.match, self.hand_origin
        if m is None or origin is None:
            return None, None
        start, done = origin[0].clone(hand_only=True), origin[1]
        try:
            for action in m.actions[done:]:
                if start.over:
                    break
                start.apply(action)
                done += 1
        except IllegalActionError:
            log.exception("room %s: the finished hand could not be replayed", self.id)
            return None, None
        if not start.over:
            return None, None
        views: dict[int | None, dict[str, Any]] = {}
        for seat in (None, *range(len(self.seats))):
            view = start.view(seat)
            view["over"] = False  # the hand is over, the match goes on
            views[seat] = view
        return views, done

    def _lift_gate(self, now: float) -> None:
        gate = self.gate
        assert gate is not None
        self.gate = None
        self.gate_views = None
        self.gate_lifted = gate.seq
        # the clocks start after the deal has been shown (RULES §8.7 counts from the prompt)
        self.pause_until = now + self.config.hand_pause
        self._publish()
        self._broadcast_room()

    def _set_ready(self, conn: Connection, on: bool) -> None:
        seat = conn.seat
        if seat is None:
            raise Refused("spectator", "spectators have no seat to mark ready")
        self._take_switch(seat)
        if self.match is None:
            self.seats[seat].ready = on
        elif self.gate is None:
            raise Refused("no_gate", "nothing to be ready for: the hand is being played")
        elif on:
            self.gate.ready.add(seat)
        self._broadcast_room()

    def _take_switch(self, seat: int) -> None:
        """One of the seat's 托管 and ready switches (all its connections share them):
        each is a room message to every socket, 托管 also a database write, and the
        message rate alone let one address's sockets switch 600 times a second."""
        s = self.seats[seat]
        if s.switches is None:
            s.switches = Bucket(self.config.switches_per_minute / 60, self.config.switch_burst)
        if not s.switches.take():
            raise Refused("rate_limited", "too many 托管 and ready switches: at most "
                          f"{self.config.switches_per_minute:g} a minute")

    def _not_bot_seat(self, seat: int) -> None:
        """Refuse (``bot_seat``) a message from the token of a seat a bot plays: its owner
        runs the room and watches, and never acts, switches 托管 or speaks for the bot."""
        if self.seats[seat].bot is not None:
            raise Refused("bot_seat", BOT_SEAT)

    def _phrase(self, conn: Connection, msg: PhraseRequest) -> None:
        if conn.seat is None:
            raise Refused("spectator", "only players send quick phrases")
        self._not_bot_seat(conn.seat)  # a phrase would read as the bot's
        s = self.seats[conn.seat]
        if s.phrases is None:
            s.phrases = Bucket(self.config.phrases_per_minute / 60, self.config.phrase_burst)
        if not s.phrases.take():  # per seat: its sockets share one allowance
            raise Refused("rate_limited", "too many quick phrases: at most "
                          f"{self.config.phrases_per_minute:g} a minute")
        text = PhraseMsg(seat=conn.seat, phrase=msg.phrase).model_dump_json()
        for _, conns in self.all_connections():
            for c in conns:
                c.send(text)

    # ------------------------------------------------------------------ applying actions

    def _check_legal(self, action: Action) -> None:
        m = self.match
        assert m is not None
        if self.dissolved:
            raise Refused("dissolved", dissolved_reason(self.config.unattended_limit))
        if m.over:
            raise Refused("over", "the match is over")
        if isinstance(action, Escape):
            if m.is_auto(action.seat):
                raise Refused("left", f"seat {action.seat} has already left")
            return
        if action.seat not in m.to_move():
            raise Refused("not_your_turn", "it is not your turn to act")
        if action not in m.legal_actions(action.seat):
            raise Refused("not_legal", f"{action.type} is not one of your legal actions now")

    async def _apply(self, action: Action, by: str | None = None) -> None:
        """Persist, apply and publish one legal action; ``by``: who chose it when not the
        seat itself, the bot (``"bot"``: 托管, away, left) or the clock (``"clock"``, RULES
        §8.7), kept in the record's ``made_by`` for a person's seat (a bot's seat plays
        its own moves).  ``Refused("storage")`` when the database cannot take it now:
        nothing is applied, and bots and clocks of this room wait
        ``STORAGE_RETRY_SECONDS`` before they try again."""
        m = self.match
        assert m is not None
        self._check_legal(action)
        if self.seats[action.seat].bot is not None:
            by = None
        who = ("bot" if self.seats[action.seat].bot is not None
               else "auto" if by == "bot" else by or "player")
        try:
            await self.store.append_action(self.id, len(m.actions), action.to_json(), by)
        except SQLAlchemyError as exc:
            self.storage_retry_at = time.monotonic() + STORAGE_RETRY_SECONDS
            log.warning("room %s: action %d (%s of seat %d) not stored, not applied: %s",
                        self.id, len(m.actions), action.type, action.seat,
                        getattr(exc, "orig", exc))
            raise Refused("storage", "the server could not store your action just now "
                          "(its database is busy); nothing changed: try again") from None
        if by is not None:
            self.made_by[len(m.actions)] = by
        hands = len(m.results)
        m.apply(action)
        metrics.MOVES.labels(who).inc()
        metrics.HANDS.inc(len(m.results) - hands)
        if m.over:
            metrics.MATCHES.inc()
            await self.store.finish(self.id, self.record())
        self._publish()

    async def _apply_unless_unstored(self, action: Action, by: str) -> bool:
        """:meth:`_apply` for the room's own moves (bots, clocks): False when the
        database could not take it (nothing applied; tried again after the pause)."""
        try:
            await self._apply(action, by)
        except Refused as exc:
            if exc.code == "storage":
                return False
            raise
        return True

    def record(self) -> dict[str, Any]:
        """The match's record with its fairness commitment, seed and salt, and which moves
        the bot or the clock made for a player (``made_by``)."""
        assert self.match is not None
        return fair_record(self.match, self.salt, self.made_by)

    def finished_record_text(self) -> str:
        """The finished match's :meth:`record` as JSON text, made once (its digest reads
        the whole log: thousands of hands in a points match)."""
        assert self.match is not None and self.match.over
        if self._record_text is None:
            self._record_text = json.dumps(self.record())
        return self._record_text

    @property
    def shown_step(self) -> int:
        """The step the room shows: a held discard's, else the match's."""
        if self.match is None:
            return 0
        return self.hold_step if self.hold_step is not None else self.match.step

    def _publish(self) -> None:
        """Send the match log's unsent events.  A discard is sent at once; its outcome
        (whatever follows it) is held until ``claim_pause_ms`` has passed and the claim
        window, if one opened, has closed: the same outside for every discard (RULES
        §13).  Snapshots asked for meanwhile are sent once it is shown."""
        m = self.match
        assert m is not None
        now = time.monotonic()
        while True:
            if self.hold_step is not None:
                if now < self.hold_until or m.step <= self.hold_step:
                    break
                self.hold_step = None
            start, stop = self.published, len(m.log)
            if start == stop:
                break
            gate_at: int | None = None
            for i in range(start, stop):
                kind = m.log[i].type
                if kind == "hand_start" and i != self.gate_lifted:
                    stop = gate_at = i  # the next hand waits for the gate between hands
                    break
                if kind == "discard":
                    stop = i + 1
                    self.hold_step = m.event_steps[i]
                    self.hold_until = now + (m.rules.claim_pause_ms / 1000
                                             * self.config.claim_pause_scale)
                    break
            if stop > start:
                self.published = stop
                self._broadcast_events(start, stop)
            if gate_at is not None:
                if self.gate is None:  # after the hand's end has been sent
                    self._open_gate(gate_at, now)
                break
        if not self._held(now):
            for _, conns in self.all_connections():
                for conn in conns:
                    if conn.snapshot_due:
                        self._send_snapshot(conn)

    def _held(self, now: float) -> bool:
        """Whether the table's picture is frozen on a discard: during the pause, and
        after it while the outcome waits to be shown.  A window still open after the
        pause is no secret any more (its length shows it), so views are given then."""
        m = self.match
        return (m is not None and self.hold_step is not None
                and (now < self.hold_until or m.phase != "claim"))

    def all_connections(self) -> Iterable[tuple[int | None, list[Connection]]]:
        yield None, self.spectators
        for s in self.seats:
            yield s.index, s.connections

    def _broadcast_events(self, start: int, stop: int) -> None:
        m = self.match
        assert m is not None
        events = m.log[start:stop]
        for seat, conns in self.all_connections():
            if not conns:
                continue
            texts = [EventMsg(state_id=m.event_steps[start + i], seq=start + i,
                              event=e.for_seat(seat)).model_dump_json()
                     for i, e in enumerate(events)]
            for conn in conns:
                for text in texts:
                    conn.send(text)
        kinds = {e.type for e in events}
        if "hand_start" in kinds:
            self.pause_until = time.monotonic() + self.config.hand_pause
            self.shown_hand = max(int(e.data["hand_no"]) for e in events
                                  if e.type == "hand_start")
        if "match_end" in kinds:
            self.over_at = time.monotonic()
            self._broadcast_room()

    def _broadcast_room(self) -> None:
        self.room_due = None
        if self.on_change is not None:
            self.on_change(self)
        text = RoomMsg(room=self.info()).model_dump_json()
        for _, conns in self.all_connections():
            for conn in conns:
                conn.send(text)

    def _room_changed(self) -> None:
        """Send the room message soon, once for every change until then (a crowd of
        connections costs one message per socket, not one per pair)."""
        if self.room_due is None:
            self.room_due = time.monotonic() + self.config.room_info_delay

    # ------------------------------------------------------------------ room state

    @property
    def status(self) -> str:
        if self.match is None:
            return "open"
        if self.dissolved:
            return "dissolved"
        return "over" if self.over_at is not None else "running"

    @property
    def spectator_limit(self) -> int:
        """Spectator connections allowed: what the seats' own share leaves of
        ``sockets_per_room``."""
        return max(0, self.config.sockets_per_room
                   - len(self.seats) * self.config.sockets_per_token)

    @property
    def seated_connections(self) -> int:
        return sum(len(s.connections) for s in self.seats)

    @property
    def has_players(self) -> bool:
        """Whether a person holds a seat's token: a player, or an owner who handed their
        own seat to a bot and runs the room with it (any other bot seat is nobody's)."""
        return any(s.taken and s.token_hash is not None for s in self.seats)

    def info(self) -> RoomInfo:
        now = time.monotonic()
        over = self.status == "over"
        gate = self.gate
        return RoomInfo(
            room_id=self.id, name=self.name, status=self.status,  # type: ignore[arg-type]
            rules=self.rules.to_dict(),
            seats=[SeatInfo(seat=s.index, name=s.name, bot=s.bot,
                            connected=bool(s.connections),
                            auto=self.match is not None and not self.match.over
                            and self._controlled_by_bot(s.index, now) and s.bot is None,
                            left=s.left, owner=s.index == self.owner,
                            ready=s.bot is not None or (s.ready if gate is None
                                                        else s.index in gate.ready))
                   for s in self.seats],
            free_seats=[s.index for s in self.seats if not s.taken],
            state_id=self.shown_step if self.match else None,
            # the hand shown, or the one the gate waits for (never one not yet announced)
            hand_no=(self.shown_hand if gate is None else gate.hand_no) if self.match else None,
            commitment=seed_commitment(self.seed, self.salt) if self.match else None,
            seed=self.seed if over else None, salt=self.salt if over else None,
            gate=None if gate is None else GateInfo(
                hand_no=gate.hand_no, deadline_ms=_epoch_ms(gate.deadline),
                ready=sorted(i for i in range(len(self.seats))
                             if i in gate.ready or self._controlled_by_bot(i, now))),
            spectators=len(self.spectators), private=self.private,
            dissolve_ms=_epoch_ms(self.paused_at + self.config.unattended_limit)
            if self.paused_at is not None and self.status == "running" else None,
            dissolved_after=round(self.config.unattended_limit) if self.dissolved else None)

    def seat_of_token(self, token: str) -> int | None:
        digest = hash_token(token)
        found = None
        for s in self.seats:
            if s.token_hash is not None and hmac.compare_digest(s.token_hash, digest):
                found = s.index
        return found

    def _owner_seat(self, token: str | None) -> int:
        seat = self.seat_of_token(token) if token else None
        if seat is None:
            raise RoomError(401, "a valid seat token is needed (Authorization: Bearer TOKEN)",
                            "token_needed")
        if seat != self.owner:
            raise RoomError(403, "only the room's owner (the first seat taken) may do this",
                            "owner_only")
        return seat

    # ------------------------------------------------------------------ HTTP commands
    # (each runs inside the actor through Room.call)

    async def join(self, name: str, seat: int | None, address: str | None = None,
                   display_name: bool = False) -> tuple[int, str]:
        """Take ``seat`` (None: the first free one) under ``name``; ``(seat, token)``.
        ``address``: the client's, refused once the owner has removed a player who
        joined from it (a squatter who rejoins at once, seat after seat).
        ``display_name``: ``name`` is a signed-in player's display name, which they cannot
        change here (a look-alike seated first is refused with ``display_name_taken``)."""
        if self.match is not None:
            raise RoomError(409, "the match has started", "started")
        if address is not None and address in self.removed:
            raise RoomError(403, "the room's owner removed a player from your address; "
                            "ask them to invite you again in another room", "removed")
        free = [s.index for s in self.seats if not s.taken]
        if seat is None:
            if not free:
                raise RoomError(409, "the room is full", "full")
            seat = free[0]
        elif not 0 <= seat < len(self.seats):
            raise RoomError(422, f"no seat {seat} at a {len(self.seats)}-player table",
                            "no_seat")
        elif seat not in free:
            raise RoomError(409, f"seat {seat} is taken", "seat_taken")
        alike = next((s.name for s in self.seats if s.name and names_alike(name, s.name)), None)
        if alike is not None:  # the table would show two players under one name
            if display_name:  # "choose another name" is no way out: the server chose it
                raise RoomError(409, f"{shown(alike)} already sits at this table under a name "
                                f"that looks like your display name {shown(name)}; the room's "
                                "owner can free that seat, or sign out to sit under another "
                                "name", "display_name_taken")
            raise RoomError(409, f"{shown(alike)} already sits at this table under a name that "
                            "looks the same; choose another name", "name_taken")
        token = secrets.token_urlsafe(32)
        s = self.seats[seat]
        s.name, s.token_hash, s.bot, s.away_since = name, hash_token(token), None, None
        s.address = address
        saved = False
        try:
            await self.store.save_seat(self.id, s.stored())
            saved = True
            if self.owner is None:
                await self.store.update_room(self.id, owner_seat=seat)
        except Exception:
            # the client is told nothing changed (503 storage) and gets no token: the seat
            # must stay free, or it is held by nobody until the owner removes it
            self.seats[seat] = Seat(seat)
            if saved:
                with contextlib.suppress(Exception):
                    await self.store.delete_seat(self.id, seat)
            raise
        self.active_at = time.monotonic()
        if self.owner is None:
            self.owner = seat
        self._broadcast_room()
        return seat, token

    async def add_bot(self, token: str | None, seat: int, bot: str) -> None:
        self._owner_seat(token)
        if self.match is not None:
            raise RoomError(409, "the match has started", "started")
        if not 0 <= seat < len(self.seats):
            raise RoomError(422, f"no seat {seat} at a {len(self.seats)}-player table",
                            "no_seat")
        s = self.seats[seat]
        if s.taken and s.bot is None and seat != self.owner:
            raise RoomError(409, f"seat {seat} is taken by a player", "seat_taken")
        made = get_bot(bot, bot_seed(self.seed, seat))  # UnknownBotError → 422 (the oracle)
        if bot not in SEAT_BOTS:  # a budget or sample count: the shared workers' time
            raise RoomError(422, f"a seat's bot must be one of {', '.join(SEAT_BOTS)} (no "
                                 "budget or sample count)", "bad_bot")
        self.bots[seat] = made
        # the owner may hand their own seat to a bot and keep their token to run the room
        s.name, s.bot = f"{bot} bot", bot
        if seat != self.owner:
            s.token_hash = None
        await self.store.save_seat(self.id, s.stored())
        self._broadcast_room()

    async def remove_seat(self, token: str | None, seat: int) -> None:
        """The owner frees a bot's or another player's seat before the start."""
        owner = self._owner_seat(token)
        if self.match is not None:
            raise RoomError(409, "the match has started", "started")
        if not 0 <= seat < len(self.seats):
            raise RoomError(422, f"no seat {seat} at a {len(self.seats)}-player table",
                            "no_seat")
        if seat == owner:
            raise RoomError(409, "the owner leaves with POST /leave, not by removing "
                            "their own seat", "own_seat")
        s = self.seats[seat]
        if not s.taken:
            raise RoomError(409, f"seat {seat} is already free", "seat_free")
        for conn in s.connections:
            conn.close(4403, "the owner removed you from this seat")
        if (s.address is not None and s.address != self.seats[owner].address
                and s.address not in self.removed and len(self.removed) < MAX_REMOVED):
            self.removed.add(s.address)  # not the owner's own network (friends at home)
            await self.store.update_room(self.id, removed=json.dumps(sorted(self.removed)))
        self.seats[seat] = Seat(seat)
        self.bots.pop(seat, None)
        await self.store.delete_seat(self.id, seat)
        self._broadcast_room()

    async def start(self, token: str | None) -> int:
        self._owner_seat(token)
        if self.match is not None:
            raise RoomError(409, "the match has already started", "started")
        missing = [s.index for s in self.seats if not s.taken]
        if missing:
            raise RoomError(409, f"every seat must be filled first (free: {missing})",
                            "seats_free")
        humans = any(s.bot is None for s in self.seats)
        if not self.seed_fixed or (humans and not self.config.allow_fixed_seed):
            self.seed = secrets.randbits(62)  # no client decides a deal a human plays
            self.seed_fixed = False
        self.match = Match(self.rules, self.seed)
        # seeded from the deal that is played, recorded; only the seats that are bots now
        # (a seat its owner gave a bot and then left, taken by a player since, has none)
        self.bots = {s.index: get_bot(s.bot, bot_seed(self.seed, s.index))
                     for s in self.seats if s.bot is not None}
        self._mark_hand_origin()
        self.published = len(self.match.log)
        # seed_fixed stays true only for a deal the client chose: no rating counts it
        # nobody joins a started room: its addresses and bans are not kept any longer
        # (one transaction with the start: no crash between them keeps them)
        await self.store.forget_addresses(self.id, status="running", seed=self.seed,
                                          seed_fixed=self.seed_fixed)
        self.removed.clear()
        for s in self.seats:
            s.address = None
        now = time.monotonic()
        for s in self.seats:
            if s.bot is None and not s.connections:
                s.away_since = now
        self.shown_hand = self.match.hand_no
        self._broadcast_room()
        self._broadcast_events(0, self.published)
        self.pause_until = 0.0  # the first hand starts at once
        self._pause(now)  # started with nobody connected: no table runs for nobody
        for _, conns in self.all_connections():
            for conn in conns:
                self._send_snapshot(conn)
        return self.match.state_id

    async def leave(self, token: str | None) -> bool:
        """Free the seat before the start; escape (RULES §8.5) during the match."""
        seat = self.seat_of_token(token) if token else None
        if seat is None:
            raise RoomError(401, "a valid seat token is needed (Authorization: Bearer TOKEN)",
                            "token_needed")
        s = self.seats[seat]
        m = self.match
        if m is None:
            for conn in s.connections:
                conn.close(1000, "you left the room")
            self.seats[seat] = Seat(seat)
            self.bots.pop(seat, None)  # the owner's own seat may have been a bot's
            await self.store.delete_seat(self.id, seat)
            if self.owner == seat:
                humans = [x.index for x in self.seats if x.taken and x.bot is None]
                self.owner = humans[0] if humans else None
                await self.store.update_room(self.id, owner_seat=self.owner)
            self._broadcast_room()
            return False
        if m.over:
            raise RoomError(409, "the match is over", "over")
        if s.bot is not None:
            raise RoomError(409, BOT_SEAT, "bot_seat")
        if s.left:
            raise RoomError(409, "you have already left", "left")
        self._not_held()
        try:
            await self._apply(Escape(seat))
        except Refused as exc:
            raise RoomError(503 if exc.code == "storage" else 409, str(exc), exc.code) from None
        s.left = True
        await self.store.save_seat(self.id, s.stored())
        self._broadcast_room()
        return True

    async def seat_view(self, token: str | None,
                        seat: int | None = None) -> tuple[int, dict[str, Any]]:
        """The token's seat and its view now (for hints); only a seat's own (RULES §13)."""
        mine = self.seat_of_token(token) if token else None
        if mine is None:
            raise RoomError(401, "a valid seat token is needed (Authorization: Bearer TOKEN)",
                            "token_needed")
        if seat is not None and seat != mine:
            raise RoomError(403, "hints are only for your own seat", "own_seat_only")
        if self.match is None or self.match.over:
            raise RoomError(409, "the match is not running", "not_running")
        if self.gate is not None:  # the next hand is dealt but not shown yet
            raise RoomError(409, f"hand {self.gate.hand_no} has not started", "between_hands")
        self._not_held()
        return mine, self.match.view(mine)

    def _not_held(self) -> None:
        """A seat's view or an escape must wait while the table is frozen on a discard."""
        if self.match is not None:
            self._publish()
        if self._held(time.monotonic()):
            raise RoomError(425, "a discard is being settled; try again in a moment",
                            "settling")

    async def rename_seat(self, seat: int, name: str) -> None:
        """A taken seat shows a new name (its account was deleted: "deleted player")."""
        s = self.seats[seat]
        if s.taken and s.bot is None:
            s.name = name
            self._broadcast_room()

    # ------------------------------------------------------------------ WebSocket clients

    async def connect(self, conn: Connection) -> tuple[int, str] | None:
        """Add a connection; the WebSocket close code and reason if it is refused (4429:
        socket caps; 4404: the room was dissolved).  Every seat keeps
        ``sockets_per_token`` of the room's ``sockets_per_room`` for itself, so
        spectators, who need no token, can never lock the players out.  A seat's
        connection resumes a paused match (:meth:`_resume`), a spectator's does not."""
        if self.dissolved:
            return 4404, dissolved_reason(self.config.unattended_limit)
        if conn.seat is None:
            limit = self.spectator_limit
            if len(self.spectators) >= limit:
                return 4429, f"too many spectators in this room (limit {limit})"
            self.spectators.append(conn)
        else:
            s = self.seats[conn.seat]
            if len(s.connections) >= self.config.sockets_per_token:
                return 4429, (f"too many connections with this token "
                              f"(limit {self.config.sockets_per_token})")
            self.active_at = time.monotonic()  # spectators keep no open room alive
            self._resume(self.active_at)  # before its snapshot: it shows the new clocks
            s.connections.append(conn)
            s.away_since = None
        self._room_changed()  # coalesced: a crowd of spectators costs one message each
        conn.send(RoomMsg(room=self.info()))
        self._send_snapshot(conn)
        return None

    async def disconnect(self, conn: Connection) -> None:
        conn.closed = True
        if conn.seat is None:
            if conn in self.spectators:
                self.spectators.remove(conn)
                self._room_changed()
            return
        s = self.seats[conn.seat]
        if conn in s.connections:
            s.connections.remove(conn)
        self.active_at = now = time.monotonic()  # idle from now: a long wait is no idleness
        if not s.connections and s.taken:
            s.away_since = now
            self._pause(now)
            if self.paused_at is None:
                log.info("room %s: seat %d has no connection left; a bot plays it after "
                         "%.0f s", self.id, conn.seat, self.config.away_grace)
        self._room_changed()

    def _send_snapshot(self, conn: Connection) -> None:
        if self._held(time.monotonic()):
            conn.snapshot_due = True  # the outcome of a discard is not shown yet
            return
        conn.snapshot_due = False
        m = self.match
        held = self.gate_views if self.gate is not None else None
        conn.send(SnapshotMsg(state_id=m.step if m else 0, seat=conn.seat,
                              view=(held[conn.seat] if held is not None else m.view(conn.seat))
                              if m else None,
                              history=_history(m.log, self.published, conn.seat)
                              if m else [],
                              hand_events=_hand_events(m.log, self.published, conn.seat)
                              if m else []))
        self._send_prompt(conn)
        # the turn's clock too: a reload showed whose turn it was with no seconds left
        # (none while paused: no clock runs; the room message says until when)
        fresh = (m is not None and self.gate is None and self.demands_state == m.state_id
                 and self.paused_at is None)
        clock = self._clock_text() if fresh else None
        if clock is not None:
            conn.send(clock)

    def _send_prompt(self, conn: Connection) -> None:
        """The seat's open decision, if it has one the player may answer now: after a
        snapshot, and after a refused action (the client dropped its prompt when it
        sent the action; without a fresh one the player could only wait for the clock)."""
        m, seat, now = self.match, conn.seat, time.monotonic()
        if (m is not None and seat is not None and seat in self.demands and self.gate is None
                and self.demands_state == m.state_id and now >= self.pause_until
                and not self._controlled_by_bot(seat, now)):
            demand = self.demands[seat]
            conn.send(PromptMsg(state_id=demand.state_id, phase=demand.phase,  # type: ignore[arg-type]
                                actions=[a.to_json() for a in m.legal_actions(seat)],
                                deadline_ms=_epoch_ms(demand.deadline)))

    async def on_message(self, conn: Connection, msg: AnyClientMessage) -> None:
        if conn.closed:
            return
        try:
            if isinstance(msg, SnapshotRequest):
                self._send_snapshot(conn)
            elif isinstance(msg, AutoRequest):
                self._set_auto(conn, msg.on)
            elif isinstance(msg, ReadyRequest):
                self._set_ready(conn, msg.on)
            elif isinstance(msg, PhraseRequest):
                self._phrase(conn, msg)
            else:
                await self._client_action(conn, msg)
        except IllegalActionError as exc:
            log.debug("room %s: seat %s refused (%s): %s", self.id, conn.seat,
                      getattr(exc, "code", "illegal"), exc)
            conn.error(str(exc), getattr(exc, "code", "illegal"))
            if isinstance(msg, ActionRequest):
                self._send_prompt(conn)

    def _set_auto(self, conn: Connection, on: bool) -> None:
        if conn.seat is None:
            raise Refused("spectator", "spectators have no seat to hand to a bot")
        self._not_bot_seat(conn.seat)
        self._take_switch(conn.seat)
        s = self.seats[conn.seat]
        s.auto, s.expiries = on, 0
        self._broadcast_room()
        self._store_auto(conn.seat)
        if not on and self.match is not None and self.demands_state == self.match.state_id:
            self._prompt(conn.seat)

    async def _client_action(self, conn: Connection, msg: ActionRequest) -> None:
        seat = conn.seat
        m = self.match
        if seat is None:
            raise Refused("spectator", "spectators cannot act")
        if m is None:
            raise Refused("not_started", "the match has not started")
        if m.over:
            raise Refused("over", "the match is over")
        if self.seats[seat].left or m.is_auto(seat):
            raise Refused("left", "you have left this match; a bot plays your seat")
        self._not_bot_seat(seat)
        if self.gate is not None:
            left = max(0, round(self.gate.deadline - time.monotonic()))
            raise Refused("between_hands", f"hand {self.gate.hand_no} has not started: press "
                          f"ready (继续), or it starts by itself in {left} s")
        if time.monotonic() < self.pause_until:
            raise Refused("dealing", "the next hand is being dealt; your clock starts in a "
                          "moment")
        if msg.state_id != self.shown_step:
            raise Refused("stale", f"stale state_id {msg.state_id}: the match is at "
                          f"state {self.shown_step}")
        data = dict(msg.action)
        if data.setdefault("seat", seat) != seat:
            raise Refused("seat_mismatch", f"seat mismatch: your token plays seat {seat}")
        action = action_from_json(data)
        if isinstance(action, Escape):
            raise Refused("escape_by_http", "to leave, POST /api/rooms/{room_id}/leave")
        if self.hold_step is not None and m.phase != "claim":
            raise Refused("not_your_turn", "it is not your turn to act")  # as in any window
        self._check_legal(action)
        s = self.seats[seat]
        s.expiries = 0
        if s.auto:
            s.auto = False  # acting again ends 托管
            self._broadcast_room()
            self._store_auto(seat)
        await self._apply(action)
        ack = AckMsg(state_id=self.shown_step).model_dump_json()
        for c in s.connections:
            c.send(ack)

    # ------------------------------------------------------------------ recovery

    @classmethod
    def restore(cls, stored: StoredRoom, store: Store, config: ServerConfig,
                thinker: Thinker) -> Room:
        """Rebuild a room from the database, replaying its match's actions."""
        room = cls(stored.id, stored.name, Rules.from_dict(stored.rules), stored.seed, store,
                   config, thinker, stored.salt, stored.seed_fixed, stored.creator,
                   stored.private)
        room.owner = stored.owner_seat
        now = time.monotonic()
        for st in stored.seats:
            room.seats[st.seat] = Seat(st.seat, st.name, st.token_hash, st.bot, st.left,
                                       auto=st.auto,
                                       away_since=now if st.bot is None else None,
                                       address=st.address)
        if stored.status == "open":
            room.removed = {a for a in stored.removed if isinstance(a, str)}
        else:
            match = Match(room.rules, room.seed)
            room.match = match
            room.made_by = dict(stored.made_by)
            room._mark_hand_origin()
            finished = None  # the hand origin of a hand the last action ended
            for raw in stored.actions:
                hand = match.hand_no
                match.apply(action_from_json(raw))
                finished = None
                if match.hand_no != hand and not match.over:
                    finished = room.hand_origin
                    room._mark_hand_origin()
            room.published = len(match.log)
            room.shown_hand = match.hand_no
            room.paused_at = None if match.over else now  # nobody is connected yet
            if match.over:
                room.over_at = now
            elif finished is not None:
                # stopped between two hands: the gate opens again (no one has acted in
                # the next hand, which stays hidden until every seat is ready)
                room.hand_origin = finished
                starts = [i for i, e in enumerate(match.log) if e.type == "hand_start"]
                seq = starts[-1]
                room.published = seq
                room.shown_hand = int(match.log[starts[-2]].data["hand_no"])
                room._open_gate(seq, now)
        return room


RECANCEL_EVERY = 0.5  # seconds a cancelled task may take before it is cancelled again


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` and wait until each is done, cancelling again every
    :data:`RECANCEL_EVERY` seconds one that is not: on Python 3.11 ``asyncio.wait_for``
    (which redis-py's and the database driver's reads run in) swallows a cancellation
    that comes with its result, and a loop cancelled so runs on for ever (a node that
    never stopped on SIGTERM)."""
    tasks = list(tasks)
    pending = {t for t in tasks if not t.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=RECANCEL_EVERY)
    await asyncio.gather(*tasks, return_exceptions=True)  # their exceptions retrieved


class Lobby:
    """Every live room of this server process, and their lifetimes: finished rooms
    leave memory after ``finished_grace`` (their record stays in the database), open
    rooms nobody uses expire after ``open_idle``, running matches nobody is connected to
    pause and are dissolved after ``unattended_limit``, and at most ``max_rooms`` live."""

    def __init__(self, store: Store, config: ServerConfig) -> None:
        self.store = store
        self.config = config
        self.rooms: dict[str, Room] = {}
        self.thinker = Thinker(config.workers, config.gc_gen0)
        self._reviewer: Thinker | None = None
        self.quarantined: list[str] = []
        self._creating: list[str | None] = []  # creators of rooms being written
        self._sweeper: asyncio.Task[None] | None = None
        self.connects = BucketsByKey(config.connects_per_second, config.connect_burst)

    async def restore(self) -> None:
        """Rebuild every unfinished room from the database and start its actor (see
        :meth:`adopt`: a room that cannot be rebuilt never stops the server)."""
        for stored in await self.store.load_rooms():
            await self.adopt(stored)
        log.info("restored %s (%d quarantined)", counted(len(self.rooms), "room"),
                 len(self.quarantined))
        self.start_services()

    @property
    def reviewer(self) -> Thinker:
        """Where AI reviews are made (a search over a whole match, seconds long): a pool
        of ``review_workers`` processes of its own, started at the first review, so that
        no review delays a live table's bot; the tables' :attr:`thinker` when
        ``review_workers`` is 0 or the bots run inline."""
        if not self.config.review_pool:
            return self.thinker
        if self._reviewer is None:
            self._reviewer = Thinker(self.config.review_workers, self.config.gc_gen0,
                                     kind="review", long_jobs=True)
            self._reviewer.start()
        return self._reviewer

    def problems(self) -> list[str]:
        """What makes this server degraded (``/api/health``): its worker pools', the
        quarantined rooms, the live-room cap."""
        problems = self.thinker.problems()
        if self._reviewer is not None:
            problems += self._reviewer.problems()
        if self.quarantined:
            problems.append(f"{len(self.quarantined)} stored rooms could not be rebuilt "
                            "(quarantined)")
        if len(self.rooms) >= self.config.max_rooms:
            problems.append("the live-room cap is reached; new rooms are refused")
        return problems

    def start_services(self) -> None:
        """Start the bot workers' supervisor and the room sweeper."""
        self.thinker.start()
        self._sweeper = asyncio.create_task(self._sweep(), name="hzmj-room-sweeper")

    async def adopt(self, stored: StoredRoom) -> Room | None:
        """Rebuild one stored room by replay and start its actor.  None when it is not
        live: an open room idle for longer than ``open_idle`` expires (marked
        ``expired``); a room that cannot be rebuilt is quarantined (marked ``broken``,
        logged, counted in health).  Neither stops the server.  A running room comes
        back paused (nobody is connected yet): dissolved ``unattended_limit`` from now
        unless a seat connects."""
        if stored.status not in ("open", "running"):
            return None  # over, expired, dissolved or quarantined: nothing to run
        if stored.status == "open" and stored.created_at + self.config.open_idle < time.time():
            await self.store.forget_addresses(stored.id, status="expired")
            return None
        try:
            room = Room.restore(stored, self.store, self.config, self.thinker)
        except Exception:
            log.exception("room %s cannot be rebuilt; quarantined", stored.id)
            await self.store.forget_addresses(stored.id, status="broken")
            self.quarantined.append(stored.id)
            return None
        self.rooms[room.id] = room
        room.start_actor()
        if room.match is not None and room.match.over:  # killed before it was marked
            await self.store.finish(room.id, room.record())
        return room

    async def infos(self) -> list[RoomInfo]:
        """Every room this lobby can list (here: the ones in this process)."""
        return [r.info() for r in self.rooms.values()]

    async def drop(self, room_id: str, code: int, reason: str) -> None:
        """Stop running a room here (it moves to another node): close its connections
        with ``code``, stop its actor and forget it; its stored state is untouched."""
        room = self.rooms.pop(room_id, None)
        if room is None:
            return
        room.close_connections(code, reason)
        await room.stop_actor()

    async def create(self, rules: Rules, name: str, seed: int | None,
                     creator: str | None = None, private: bool = False) -> Room:
        """A new open room (``private``: not listed in the lobby); :class:`RoomError` 503
        when ``max_rooms`` rooms are live, 429 when ``creator`` (a client's
        :func:`~hzmj.server.guard.address_key`) has ``rooms_per_address`` live rooms
        already (of the whole cluster in one; its IPv6 /48,
        :data:`~hzmj.server.guard.NETWORK_SHARE` times as many)."""
        if len(self.rooms) >= self.config.max_rooms:
            raise RoomError(503, f"the server is full ({self.config.max_rooms} live rooms); "
                                 "try again later", "full_server")
        if creator is not None:
            self._check_rooms_of(creator)
        room_id = secrets.token_urlsafe(6)
        salt = secrets.token_hex(16)
        fixed = seed is not None
        if seed is None:
            seed = secrets.randbits(62)
        self._creating.append(creator)  # counted while the database writes it
        try:
            await self.store.create_room(room_id, name, rules.to_json(), seed, salt, fixed,
                                         creator, private)
        finally:
            self._creating.remove(creator)
        room = Room(room_id, name, rules, seed, self.store, self.config, self.thinker, salt,
                    fixed, creator, private)
        self.rooms[room_id] = room
        room.start_actor()
        return room

    def _check_rooms_of(self, creator: str) -> None:
        """One address cannot hold the server's room cap (nor its CPU, with rooms of bots):
        its live rooms here, open or playing, count until their match ends or they
        expire (a cluster also counts every node's, :class:`~hzmj.server.cluster.
        ClusterLobby`).

        Raises :class:`RoomError` 429 ``too_many_rooms``."""
        limit = self.config.rooms_per_address
        network = network_key(creator)
        mine = shared = 0
        live = [r.creator for r in self.rooms.values() if r.over_at is None]
        for other in [*live, *self._creating]:
            if other is None:
                continue
            mine += other == creator
            shared += network is not None and network_key(other) == network
        if mine >= limit or shared >= limit * NETWORK_SHARE:
            raise self.too_many_rooms()

    async def take_connect(self, address: str) -> bool:
        """Whether ``address`` (a client's :func:`~hzmj.server.guard.address_key`) may
        open one more WebSocket now: ``connects_per_second``, bursts of
        ``connect_burst`` (an IPv6 /64 within its /48's share); one is taken if so."""
        return self.connects.take(address)

    def too_many_rooms(self) -> RoomError:
        """The refusal of a create past ``rooms_per_address``."""
        # a room left empty still counts until it expires (or, playing, is dissolved):
        # say when that is, or the player who left one is refused again and again
        # without knowing why
        closes = max(self.config.empty_lifetime, self.config.unattended_limit)
        return RoomError(429, f"too many rooms: at most {self.config.rooms_per_address} "
                              "live rooms from one address; finish or leave one first (a "
                              f"room where nobody sits closes {_duration(closes)} after "
                              "its last use)", "too_many_rooms")

    def get(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            raise RoomError(404, f"no room {shown(room_id)}", "no_room")
        return room

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.config.sweep_every)
            try:
                await self.sweep()
            except Exception:
                log.exception("sweeping rooms failed")

    async def sweep(self) -> None:
        """Evict finished rooms after their grace, expire idle open rooms and dissolve
        matches paused for ``unattended_limit`` (their stored state stays: records,
        replays).  A room is let go through :meth:`forget`, which in a cluster also frees
        its lease."""
        now = time.monotonic()
        for room in list(self.rooms.values()):
            if room.over_at is not None and now >= room.over_at + self.config.finished_grace:
                reason = "the match is over; its replay stays available"
            elif (room.paused_at is not None and room.over_at is None
                  and now >= room.paused_at + self.config.unattended_limit):
                try:  # in the actor: a seat that connects first keeps the match going
                    if not await room.call(functools.partial(room.dissolve, now)):
                        continue
                except (StaleOwnerError, RoomError):
                    continue  # another node owns it now, or it is moving there
                except SQLAlchemyError as exc:
                    log.warning("room %s: not dissolved (the database refused): %s",
                                room.id, getattr(exc, "orig", exc))
                    continue  # the next sweep tries again
                reason = dissolved_reason(self.config.unattended_limit)
            elif (room.match is None and room.seated_connections == 0
                  and now >= room.active_at + (self.config.open_idle if room.has_players
                                               else self.config.empty_lifetime)):
                # watchers alone keep no open room: a spectator socket per room held the
                # server's room cap
                try:
                    await self.store.forget_addresses(room.id, status="expired")
                except StaleOwnerError:
                    continue  # another node owns it now and drops it here
                reason = "the room expired"
            else:
                continue
            if self.rooms.get(room.id) is not room:
                continue  # given up meanwhile (moved to another node)
            del self.rooms[room.id]
            room.close_connections(1001, reason)
            await room.stop_actor()
            await self.forget(room.id)

    async def forget(self, room_id: str) -> None:
        """A room left this server for good (evicted, expired or dissolved); nothing to
        do alone."""

    async def close(self) -> None:
        if self._sweeper is not None:
            await cancel_and_wait([self._sweeper])
        for room in self.rooms.values():
            room.close_connections(1012, "server restarting")
        await asyncio.gather(*(r.stop_actor() for r in self.rooms.values()))
        self.thinker.close()
        if self._reviewer is not None:
            self._reviewer.close()


def _history(log: Sequence[Event], published: int,
             seat: int | None) -> list[dict[str, Any]]:
    """The last :data:`SNAPSHOT_HANDS` finished hands' ``hand_end`` in
    ``log[:published]`` (the events published so far), as ``seat`` sees it (hands are
    open at the end, RULES §13), with its ``win`` attached, oldest first.  Read from the
    end: a points match has no last hand (RULES §12.2), and a table that never wins had
    3,000 hands, a 1.6 MB snapshot (over the send queue's 1 MiB: every socket closed at
    once) that took 0.4 s of the event loop to build."""
    start = 0
    ends = 0
    for i in range(published - 1, -1, -1):
        kind = log[i].type
        if kind == "hand_end":
            ends += 1
        elif kind == "hand_start" and ends >= SNAPSHOT_HANDS:
            start = i
            break
    out: list[dict[str, Any]] = []
    win: dict[str, Any] | None = None
    for e in log[start:published]:
        if e.type == "hand_start":
            win = None
        elif e.type == "win":
            win = e.for_seat(seat)
        elif e.type == "hand_end":
            out.append({**e.for_seat(seat), "win": win})
    return out[-SNAPSHOT_HANDS:]


def _hand_events(log: Sequence[Event], published: int,
                 seat: int | None) -> list[dict[str, Any]]:
    """The shown hand's events (of ``log[:published]``, from its last ``hand_start``) as
    ``seat`` saw them in its event messages: a reloaded page's log (RULES §13: the same
    redaction, so nothing the seat was not shown)."""
    start = next((i for i in range(published - 1, -1, -1) if log[i].type == "hand_start"), 0)
    return [e.for_seat(seat) for e in log[start:published]]


def _duration(seconds: float) -> str:
    """``600`` → ``"10 minutes"``, ``90`` → ``"90 seconds"``, ``0.4`` → ``"1 second"``."""
    if seconds >= 120:
        return f"{round(seconds / 60)} minutes"
    n = max(1, round(seconds))
    return f"{n} second{'s' if n != 1 else ''}"


def _epoch_ms(deadline: float) -> int:
    """A monotonic deadline as epoch milliseconds, for clients."""
    return int((time.time() + deadline - time.monotonic()) * 1000)
