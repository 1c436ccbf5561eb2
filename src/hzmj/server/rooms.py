"""Rooms: seats, the match, clocks and bots, each room run by one actor task.

A :class:`Room` owns its :class:`~hzmj.game.Match`; everything that reads or changes it
(HTTP commands, client messages, clocks, bots) runs as a job on the room's inbox, one at
a time, so no two actions are ever applied concurrently.  An action is checked against
the engine's legal actions, written to the database, applied, and only then are its
events sent — each connection gets ``Event.for_seat(its seat)`` and views from
``Match.view(its seat)``, nothing else.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from hzmj.bots.base import Bot
from hzmj.events import Action, Escape, Event, IllegalActionError, action_from_json
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.server.bots import AUTO_BOT, Thinker, get_bot
from hzmj.server.config import ServerConfig
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
from hzmj.server.storage import Store, StoredRoom, StoredSeat, hash_token

log = logging.getLogger("hzmj.server")
T = TypeVar("T")

SEND_QUEUE_LIMIT = 5000  # messages waiting for a slow client before it is dropped
MOVING = "the room is stopping here (server restart or move); try again"


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
    """One WebSocket client: its seat (``None``: spectator) and its outgoing queue."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.outbox: asyncio.Queue[str | tuple[int, str]] = asyncio.Queue()
        self.closed = False

    def send(self, message: BaseModel | str) -> None:
        if self.closed:
            return
        if self.outbox.qsize() >= SEND_QUEUE_LIMIT:
            self.close(1008, "too slow: too many unread messages")
            return
        self.outbox.put_nowait(message if isinstance(message, str)
                               else message.model_dump_json())

    def error(self, reason: str, code: str | None = None) -> None:
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
    connections: list[Connection] = field(default_factory=list)

    @property
    def taken(self) -> bool:
        return self.name is not None

    def stored(self) -> StoredSeat:
        assert self.name is not None
        return StoredSeat(self.index, self.name, self.token_hash, self.bot, self.left)


@dataclass
class Gate:
    """The pause between two hands (the issue's 准备 gate): the next hand is dealt in the
    engine but its events are held back and no clock runs until every seat is ready or
    ``deadline`` passes."""

    hand_no: int  # the hand about to start
    deadline: float  # monotonic
    held: list[Event]  # hand_start of the next hand, sent when the gate lifts
    first_seq: int
    state_id: int
    ready: set[int] = field(default_factory=set)


@dataclass
class Demand:
    """A seat that must act: since which state, its clock, when a bot would act."""

    state_id: int  # the prompt's state_id
    phase: str
    deadline: float  # monotonic
    bot_due: float


class Room:
    """One table: seats, the match once started, and the actor that runs it."""

    def __init__(self, room_id: str, name: str, rules: Rules, seed: int, store: Store,
                 config: ServerConfig, thinker: Thinker) -> None:
        self.id = room_id
        self.thinker = thinker
        self.name = name
        self.rules = rules
        self.seed = seed
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
        self.bots: dict[int, Bot] = {}
        self._inbox: asyncio.Queue[tuple[Callable[[], Awaitable[Any]],
                                         asyncio.Future[Any] | None]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.on_change: Callable[[Room], None] | None = None  # told when info() changes

    # ------------------------------------------------------------------ the actor

    def start_actor(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"room-{self.id}")

    async def stop_actor(self, grace: float = 5.0) -> None:
        """Stop the actor between two jobs or actions (after ``grace`` seconds: wherever it
        is); commands still queued fail with 503."""
        task = self._task
        if task is None:
            return
        if not task.done():
            async def halt() -> None:
                raise asyncio.CancelledError
            self.post(halt)
            finished, _ = await asyncio.wait({task}, timeout=grace)
            if not finished:
                task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        while not self._inbox.empty():
            _, done = self._inbox.get_nowait()
            if done is not None and not done.done():
                done.set_exception(RoomError(503, MOVING))

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
            wait = self._next_wake()
            try:
                async with asyncio.timeout(wait):
                    job, done = await self._inbox.get()
            except TimeoutError:
                continue
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
            self.demands[seat] = Demand(m.state_id, m.phase, now + seconds *
                                        self.config.time_scale, now + self.config.bot_delay)
            if not self._controlled_by_bot(seat, now):
                self._prompt(seat)
        self._broadcast_clock()

    def _broadcast_clock(self) -> None:
        """Every seat's timer for everyone (presence): the seat in turn, or only the end of
        a claim window, since who may claim is not public (RULES §13)."""
        m = self.match
        if m is None or not self.demands:
            return
        deadline = max(d.deadline for d in self.demands.values())
        seat = m.turn if m.phase == "turn" else None
        text = ClockMsg(seat=seat, phase=m.phase,  # type: ignore[arg-type]
                        deadline_ms=_epoch_ms(deadline)).model_dump_json()
        for _, conns in self.all_connections():
            for conn in conns:
                conn.send(text)

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
        m = self.match
        if m is None or m.over:
            return None
        now = time.monotonic()
        if self.gate is not None:
            if self._all_ready(now):
                return 0.0
            # a player whose away grace ends first counts as ready then (托管)
            times = [self.gate.deadline] + [
                s.away_since + self.config.away_grace for s in self.seats
                if s.away_since is not None and s.away_since + self.config.away_grace > now]
            return max(0.0, min(times) - now)
        if now < self.pause_until:
            return self.pause_until - now
        if self.demands_state != m.state_id:
            return 0.0
        times = []
        for seat, d in self.demands.items():
            if self._controlled_by_bot(seat, now):
                times.append(d.bot_due)
            else:
                times.append(d.deadline)
                away = self.seats[seat].away_since
                if away is not None:
                    times.append(away + self.config.away_grace)
        return max(0.0, min(times) - now) if times else None

    async def _drive(self) -> None:
        """Let one bot or expired clock act if one is due now (one at a time, so that
        the inbox is read between actions even at a table of bots without delay)."""
        m = self.match
        if m is None or m.over:
            return
        now = time.monotonic()
        if self.gate is not None:
            if now >= self.gate.deadline or self._all_ready(now):
                self._lift_gate(now)
            return
        if now < self.pause_until:
            return
        self._refresh_demands(now)
        for seat, demand in self.demands.items():
            if self._controlled_by_bot(seat, now):
                if demand.bot_due <= now:
                    await self._apply(await self._bot_action(seat))
                    return
            elif demand.deadline <= now:
                await self._expire(seat)
                return

    async def _bot_action(self, seat: int) -> Action:
        m = self.match
        assert m is not None
        legal = m.legal_actions(seat)
        bot = self.bots.get(seat)
        if bot is None:
            bot = get_bot(self.seats[seat].bot or AUTO_BOT, self.seed + seat)
        try:
            action, self.bots[seat] = await self.thinker.choose(bot, m.view(seat), legal)
        except Exception:
            log.exception("room %s: bot of seat %d failed; default action", self.id, seat)
            action = legal[-1]
        return action if action in legal else legal[-1]

    async def _expire(self, seat: int) -> None:
        m = self.match
        assert m is not None
        action = m.default_action(seat)
        assert action is not None
        s = self.seats[seat]
        s.expiries += 1
        if s.expiries >= self.config.expiries_to_auto and not s.auto:
            s.auto = True  # 托管 until the player acts again or turns it off
            self._broadcast_room()
        await self._apply(action)

    # ------------------------------------------------------------------ the gate between hands

    def _all_ready(self, now: float) -> bool:
        gate = self.gate
        assert gate is not None
        return all(i in gate.ready or self._controlled_by_bot(i, now)
                   for i in range(len(self.seats)))

    def _open_gate(self, events: list[Event], first_seq: int, state_id: int) -> list[Event]:
        """Hold back the next hand's deal; return the events to send now."""
        start = next(i for i, e in enumerate(events) if e.type == "hand_start")
        assert self.match is not None
        self.gate = Gate(self.match.hand_no, time.monotonic() + self.config.ready_seconds,
                         events[start:], first_seq + start, state_id)
        return events[:start]

    def _lift_gate(self, now: float) -> None:
        gate = self.gate
        assert gate is not None
        self.gate = None
        # the clocks start after the deal has been shown (RULES §8.7 counts from the prompt)
        self.pause_until = now + self.config.hand_pause
        self._broadcast_events(gate.held, gate.first_seq, gate.state_id)
        self._broadcast_room()

    def _set_ready(self, conn: Connection, on: bool) -> None:
        seat = conn.seat
        if seat is None:
            raise Refused("spectator", "spectators have no seat to mark ready")
        if self.match is None:
            self.seats[seat].ready = on
        elif self.gate is None:
            raise Refused("no_gate", "nothing to be ready for: the hand is being played")
        elif on:
            self.gate.ready.add(seat)
        self._broadcast_room()

    def _phrase(self, conn: Connection, msg: PhraseRequest) -> None:
        if conn.seat is None:
            raise Refused("spectator", "only players send quick phrases")
        text = PhraseMsg(seat=conn.seat, phrase=msg.phrase).model_dump_json()
        for _, conns in self.all_connections():
            for c in conns:
                c.send(text)

    # ------------------------------------------------------------------ applying actions

    def _check_legal(self, action: Action) -> None:
        m = self.match
        assert m is not None
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

    async def _apply(self, action: Action) -> None:
        """Persist, apply and broadcast one legal action."""
        m = self.match
        assert m is not None
        self._check_legal(action)
        await self.store.append_action(self.id, len(m.actions), action.to_json())
        first = len(m.log)
        events = m.apply(action)
        if any(e.type == "hand_start" for e in events):
            events = self._open_gate(events, first, m.state_id)
            self.demands, self.demands_state = {}, -1
        self._broadcast_events(events, first, m.state_id)
        if self.gate is not None:
            self._broadcast_room()
        if m.over:
            await self.store.finish(self.id, m.record())
            self._broadcast_room()

    def all_connections(self) -> Iterable[tuple[int | None, list[Connection]]]:
        yield None, self.spectators
        for s in self.seats:
            yield s.index, s.connections

    def _broadcast_events(self, events: list[Event], first_seq: int, state_id: int) -> None:
        for seat, conns in self.all_connections():
            if not conns:
                continue
            texts = [EventMsg(state_id=state_id, seq=first_seq + i,
                              event=e.for_seat(seat)).model_dump_json()
                     for i, e in enumerate(events)]
            for conn in conns:
                for text in texts:
                    conn.send(text)

    def _broadcast_room(self) -> None:
        if self.on_change is not None:
            self.on_change(self)
        text = RoomMsg(room=self.info()).model_dump_json()
        for _, conns in self.all_connections():
            for conn in conns:
                conn.send(text)

    # ------------------------------------------------------------------ room state

    @property
    def status(self) -> str:
        if self.match is None:
            return "open"
        return "over" if self.match.over else "running"

    def info(self) -> RoomInfo:
        now = time.monotonic()
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
            state_id=self.match.state_id if self.match else None,
            hand_no=self.match.hand_no if self.match else None,
            gate=None if gate is None else GateInfo(
                hand_no=gate.hand_no, deadline_ms=_epoch_ms(gate.deadline),
                ready=sorted(i for i in range(len(self.seats))
                             if i in gate.ready or self._controlled_by_bot(i, now))),
            spectators=len(self.spectators))

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

    async def join(self, name: str, seat: int | None) -> tuple[int, str]:
        if self.match is not None:
            raise RoomError(409, "the match has started", "started")
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
        token = secrets.token_urlsafe(32)
        s = self.seats[seat]
        s.name, s.token_hash, s.bot, s.away_since = name, hash_token(token), None, None
        await self.store.save_seat(self.id, s.stored())
        if self.owner is None:
            self.owner = seat
            await self.store.update_room(self.id, owner_seat=seat)
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
        self.bots[seat] = get_bot(bot, self.seed + seat)  # UnknownBotError → 422
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
        self.match = Match(self.rules, self.seed)
        await self.store.update_room(self.id, status="running")
        now = time.monotonic()
        for s in self.seats:
            if s.bot is None and not s.connections:
                s.away_since = now
        self._broadcast_room()
        self._broadcast_events(self.match.log, 0, 0)
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
            await self.store.delete_seat(self.id, seat)
            if self.owner == seat:
                humans = [x.index for x in self.seats if x.taken and x.bot is None]
                self.owner = humans[0] if humans else None
                await self.store.update_room(self.id, owner_seat=self.owner)
            self._broadcast_room()
            return False
        if m.over:
            raise RoomError(409, "the match is over", "over")
        if s.left:
            raise RoomError(409, "you have already left", "left")
        await self._apply(Escape(seat))
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
        return mine, self.match.view(mine)

    async def rename_seat(self, seat: int, name: str) -> None:
        """A taken seat shows a new name (its account was deleted: "deleted player")."""
        s = self.seats[seat]
        if s.taken and s.bot is None:
            s.name = name
            self._broadcast_room()

    # ------------------------------------------------------------------ WebSocket clients

    async def connect(self, conn: Connection) -> None:
        if conn.seat is None:
            self.spectators.append(conn)
        else:
            s = self.seats[conn.seat]
            s.connections.append(conn)
            s.away_since = None
        self._broadcast_room()
        self._send_snapshot(conn)

    async def disconnect(self, conn: Connection) -> None:
        conn.closed = True
        if conn.seat is None:
            if conn in self.spectators:
                self.spectators.remove(conn)
                self._broadcast_room()
            return
        s = self.seats[conn.seat]
        if conn in s.connections:
            s.connections.remove(conn)
        if not s.connections and s.taken:
            s.away_since = time.monotonic()
        self._broadcast_room()

    def _send_snapshot(self, conn: Connection) -> None:
        m = self.match
        conn.send(SnapshotMsg(state_id=m.state_id if m else 0, seat=conn.seat,
                              view=m.view(conn.seat) if m else None,
                              history=_history(m, conn.seat) if m else []))
        seat = conn.seat
        now = time.monotonic()
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
            conn.error(str(exc), getattr(exc, "code", "illegal"))

    def _set_auto(self, conn: Connection, on: bool) -> None:
        if conn.seat is None:
            raise Refused("spectator", "spectators have no seat to hand to a bot")
        s = self.seats[conn.seat]
        s.auto, s.expiries = on, 0
        self._broadcast_room()
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
        if self.gate is not None:
            left = max(0, round(self.gate.deadline - time.monotonic()))
            raise Refused("between_hands", f"hand {self.gate.hand_no} has not started: press "
                          f"ready (继续), or it starts by itself in {left} s")
        if time.monotonic() < self.pause_until:
            raise Refused("dealing", "the next hand is being dealt; your clock starts in a "
                          "moment")
        demand = self.demands.get(seat) if self.demands_state == m.state_id else None
        if msg.state_id != m.state_id and (demand is None or msg.state_id != demand.state_id):
            raise Refused("stale", f"stale state_id {msg.state_id}: the match is at "
                          f"state {m.state_id}")
        data = dict(msg.action)
        if data.setdefault("seat", seat) != seat:
            raise Refused("seat_mismatch", f"seat mismatch: your token plays seat {seat}")
        action = action_from_json(data)
        if isinstance(action, Escape):
            raise Refused("escape_by_http", "to leave, POST /api/rooms/{room_id}/leave")
        self._check_legal(action)
        s = self.seats[seat]
        s.expiries = 0
        if s.auto:
            s.auto = False  # acting again ends 托管
            self._broadcast_room()
        await self._apply(action)
        ack = AckMsg(state_id=m.state_id).model_dump_json()
        for c in s.connections:
            c.send(ack)

    # ------------------------------------------------------------------ recovery

    @classmethod
    def restore(cls, stored: StoredRoom, store: Store, config: ServerConfig,
                thinker: Thinker) -> Room:
        """Rebuild a room from the database, replaying its match's actions."""
        room = cls(stored.id, stored.name, Rules.from_dict(stored.rules), stored.seed, store,
                   config, thinker)
        room.owner = stored.owner_seat
        now = time.monotonic()
        for st in stored.seats:
            room.seats[st.seat] = Seat(st.seat, st.name, st.token_hash, st.bot, st.left,
                                       away_since=now if st.bot is None else None)
        if stored.status != "open":
            match = Match(room.rules, room.seed)
            for raw in stored.actions:
                match.apply(action_from_json(raw))
            room.match = match
        return room


class Lobby:
    """Every live room of this server process."""

    def __init__(self, store: Store, config: ServerConfig) -> None:
        self.store = store
        self.config = config
        self.rooms: dict[str, Room] = {}
        self.thinker = Thinker(config.bot_workers)

    async def restore(self) -> None:
        """Rebuild every unfinished room from the database and start its actor."""
        for stored in await self.store.load_rooms():
            await self.adopt(stored)
        log.info("restored %d rooms", len(self.rooms))

    async def adopt(self, stored: StoredRoom) -> Room | None:
        """Rebuild one stored room by replay and start its actor (None: it does not
        replay, and is left out)."""
        try:
            room = Room.restore(stored, self.store, self.config, self.thinker)
        except ValueError:
            log.exception("room %s does not replay; left out", stored.id)
            return None
        self.rooms[room.id] = room
        room.start_actor()
        if room.match is not None and room.match.over:  # killed before it was marked
            await self.store.finish(room.id, room.match.record())
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
        for _, conns in room.all_connections():
            for conn in conns:
                conn.close(code, reason)
        await room.stop_actor()

    async def create(self, rules: Rules, name: str, seed: int | None) -> Room:
        room_id = secrets.token_urlsafe(6)
        if seed is None:
            seed = secrets.randbits(62)
        await self.store.create_room(room_id, name, rules.to_json(), seed)
        room = Room(room_id, name, rules, seed, self.store, self.config, self.thinker)
        self.rooms[room_id] = room
        room.start_actor()
        return room

    def get(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            raise RoomError(404, f"no room {room_id!r}", "no_room")
        return room

    async def close(self) -> None:
        for room in self.rooms.values():
            for _, conns in room.all_connections():
                for conn in conns:
                    conn.close(1012, "server restarting")
        await asyncio.gather(*(r.stop_actor() for r in self.rooms.values()))
        self.thinker.close()


def _history(match: Match, seat: int | None) -> list[dict[str, Any]]:
    """Every finished hand's ``hand_end`` (as ``seat`` sees it; hands are open at the
    end, RULES §13) with the hand's ``win`` event attached."""
    out: list[dict[str, Any]] = []
    win: dict[str, Any] | None = None
    for e in match.log:
        if e.type == "hand_start":
            win = None
        elif e.type == "win":
            win = e.for_seat(seat)
        elif e.type == "hand_end":
            out.append({**e.for_seat(seat), "win": win})
    return out


def _epoch_ms(deadline: float) -> int:
    """A monotonic deadline as epoch milliseconds, for clients."""
    return int((time.time() + deadline - time.monotonic()) * 1000)
