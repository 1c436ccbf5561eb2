"""Persistence: rooms, seats (tokens hashed) and every applied action (SQLAlchemy 2 async).

The schema is created and upgraded by the Alembic migrations in ``migrations/``, applied
at start-up (:func:`open_store`).  Actions are appended through one group-commit writer
so that a hundred busy tables cost one transaction per batch, not one per action; a room
awaits its write before the action is applied and its events are sent.  On an SQLite file
that writer commits on the event loop itself and a thread checkpoints the write-ahead log
(:meth:`Store._write_actions` says why).

Fencing (many nodes, ``docs/scaling.md``): a node that takes a room bumps its ``epoch``
(:meth:`Store.take_room`) and from then on every write it makes for the room checks, in
the same transaction and under a row lock, that the epoch is still its own; a stale owner
that wakes up after another node took the room gets :class:`StaleOwnerError` and writes
nothing.  A single server never takes rooms, so it pays nothing for this.

SQLite has one writer at a time.  Every write transaction of the server goes through
:func:`writing`, which on SQLite lets one in at a time per process (an ``asyncio.Lock``):
the others wait their turn on the event loop, for as long as it takes.  Left to SQLite's
own lock, a transaction holds it across event-loop hops; at a few hundred busy tables on
two cores the loop is slow enough that writers queued at the lock ran past its busy
timeout and failed with "database is locked" (issue 11).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    create_engine,
    delete,
    event,
    false,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.pool import NullPool, StaticPool

from hzmj.shown import clip

MIGRATIONS = Path(__file__).with_name("migrations")
RELEASED = -1  # the fence of a room this process gave up or lost: no epoch matches it
log = logging.getLogger("hzmj.server")
FinishHook = Callable[[str, dict[str, Any]], Awaitable[None]]


_WRITE_LOCKS: weakref.WeakKeyDictionary[AsyncEngine, asyncio.Lock] = \
    weakref.WeakKeyDictionary()


def write_lock(engine: AsyncEngine) -> asyncio.Lock | None:
    """The lock that lets one write transaction at a time reach a SQLite database (None
    for PostgreSQL, which runs writers side by side)."""
    if engine.dialect.name != "sqlite":
        return None
    lock = _WRITE_LOCKS.get(engine)
    if lock is None:
        lock = _WRITE_LOCKS[engine] = asyncio.Lock()
    return lock


@asynccontextmanager
async def writing(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """``engine.begin()`` for a transaction that writes; on SQLite, one at a time (the
    module doc says why)."""
    lock = write_lock(engine)
    if lock is None:
        async with engine.begin() as conn:
            yield conn
        return
    async with lock, engine.begin() as conn:
        yield conn


def hash_token(token: str) -> str:
    """Tokens are stored as their SHA-256 only."""
    return hashlib.sha256(token.encode()).hexdigest()


class Base(DeclarativeBase):
    pass


class RoomRow(Base):
    __tablename__ = "rooms"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    rules: Mapped[str] = mapped_column(Text)  # Rules.to_json()
    seed: Mapped[int] = mapped_column(BigInteger)
    salt: Mapped[str] = mapped_column(String(64), default="")  # hides the seed until the end
    seed_fixed: Mapped[bool] = mapped_column(Boolean, default=False)  # chosen by the client
    # open | running | over | expired (idle, never started) | broken (quarantined) |
    # dissolved (stopped for good with nobody at the table; 0010 widened the column)
    status: Mapped[str] = mapped_column(String(16), index=True)
    owner_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    record: Mapped[str | None] = mapped_column(Text, nullable=True)  # once over or dissolved
    epoch: Mapped[int] = mapped_column(BigInteger, default=0)  # fencing token (0003)
    # addresses the owner removed players from, a JSON list, while open (0005)
    removed: Mapped[str | None] = mapped_column(Text, nullable=True)
    # the creating client's address key (rooms_per_address), while open (0008)
    creator: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # not listed in the lobby (0009)
    private: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class SeatRow(Base):
    __tablename__ = "seats"

    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    bot: Mapped[str | None] = mapped_column(String(32), nullable=True)
    left: Mapped[bool] = mapped_column(Boolean, default=False)
    address: Mapped[str | None] = mapped_column(String(64), nullable=True)  # while open (0005)
    auto: Mapped[bool] = mapped_column(Boolean, default=False)  # 托管 (0007)


class ActionRow(Base):
    __tablename__ = "actions"

    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    action: Mapped[str] = mapped_column(Text)  # Action.to_json()
    created_at: Mapped[float] = mapped_column(Float)
    # "bot" | "clock": chosen for the seat's player (the record's made_by, 0006)
    made_by: Mapped[str | None] = mapped_column(String(8), nullable=True)


@dataclass
class StoredSeat:
    seat: int
    name: str
    token_hash: str | None
    bot: str | None
    left: bool
    address: str | None = None  # the client's rate-limit key, kept while the room is open
    auto: bool = False  # under 托管


@dataclass
class StoredRoom:
    """A room as loaded at start-up, with everything needed to rebuild it."""

    id: str
    name: str
    rules: dict[str, Any]
    seed: int
    status: str
    owner_seat: int | None
    salt: str = ""
    seed_fixed: bool = False
    created_at: float = 0.0  # epoch seconds
    seats: list[StoredSeat] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    made_by: dict[int, str] = field(default_factory=dict)  # action index -> "bot" | "clock"
    # the finished (or dissolved) match's record as stored (JSON text), read only when asked for
    # (:attr:`record`): a points match of thousands of hands has a 10 MB record, and a
    # room's page parsed it for its commitment (0.5 s of the event loop a request)
    record_text: str | None = None
    removed: list[str] = field(default_factory=list)  # addresses banned while open
    creator: str | None = None  # the creating client's address key, while open
    private: bool = False  # not listed in the lobby

    @property
    def record(self) -> dict[str, Any] | None:
        """The finished match's record (parsed now, from :attr:`record_text`)."""
        return _json(self.record_text) if self.record_text else None


class StaleOwnerError(RuntimeError):
    """Another node has taken the room since this process did: the write was refused."""

    def __init__(self, room_id: str) -> None:
        super().__init__(f"room {room_id} is owned by another node now")
        self.room_id = room_id


_Pending = tuple[dict[str, Any], "asyncio.Future[None]"]
MAX_BATCH = 1000  # action rows written in one transaction at most
BUSY_SECONDS = 10.0  # how long a batch is retried while another process holds SQLite's lock
CHECKPOINT_SECONDS = 1.0  # between copies of the WAL into an SQLite file
WAL_RESET_BYTES = 16 * 1024 * 1024  # a log this large is checkpointed under the write lock


class Store:
    """The database behind the server."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._queue: asyncio.Queue[_Pending] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self._inline: Engine | None = None  # the action writer's own SQLite connection
        self.fences: dict[str, int] = {}  # room id -> the epoch this process took it at
        self.on_stale: Callable[[str], None] | None = None  # told of each room lost
        # called with (room id, record) once a match is over or dissolved and stored
        # (history, ratings; the record's "over" tells which)
        self.finish_hooks: list[FinishHook] = []
        # whether a room's match is rated for an account (then never dissolved, RULES
        # §8.5's spirit: leaving does not undo a loss); None: no accounts, nothing is
        self.rated: Callable[[str], Awaitable[bool]] | None = None

    async def start(self) -> None:
        await migrate(self.engine)
        url = self.engine.url
        if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
            self._inline = create_engine(url.set(drivername="sqlite"), poolclass=StaticPool)
            event.listen(self._inline, "connect", _sqlite_pragmas)
            event.listen(self._inline, "connect", _inline_pragmas)
            self._checkpointer = asyncio.create_task(self._checkpoints(),
                                                     name="hzmj-wal-checkpoints")
        self._writer = asyncio.create_task(self._write_actions(), name="hzmj-action-writer")

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)
        if self._checkpointer is not None:
            self._checkpointer.cancel()
            await asyncio.gather(self._checkpointer, return_exceptions=True)
        if self._inline is not None:
            self._inline.dispose()
        await self.engine.dispose()

    # -- rooms and seats -------------------------------------------------------------

    async def create_room(self, room_id: str, name: str, rules: str, seed: int,
                          salt: str = "", seed_fixed: bool = False,
                          creator: str | None = None, private: bool = False) -> None:
        async with writing(self.engine) as conn:
            await conn.execute(insert(RoomRow).values(
                id=room_id, name=name, rules=rules, seed=seed, salt=salt, seed_fixed=seed_fixed,
                status="open", owner_seat=None, created_at=time.time(), creator=creator,
                private=private))

    async def update_room(self, room_id: str, **values: Any) -> None:
        async with writing(self.engine) as conn:
            await self._check_fence(conn, room_id, exclusive=True)
            await conn.execute(update(RoomRow).where(RoomRow.id == room_id).values(**values))

    async def forget_addresses(self, room_id: str, **values: Any) -> None:
        """Drop the room's seat addresses, removal bans and creator, with the room's other
        ``values`` in the same transaction (its new status: the match started, or the
        room expired or was quarantined; nobody joins any more, so no address is kept
        longer than the open room needs it)."""
        async with writing(self.engine) as conn:
            await self._check_fence(conn, room_id, exclusive=True)
            await conn.execute(update(RoomRow).where(RoomRow.id == room_id)
                               .values(removed=None, creator=None, **values))
            await conn.execute(update(SeatRow).where(SeatRow.room_id == room_id)
                               .values(address=None))

    async def save_seat(self, room_id: str, seat: StoredSeat) -> None:
        async with writing(self.engine) as conn:
            await self._check_fence(conn, room_id)
            await conn.execute(delete(SeatRow).where(SeatRow.room_id == room_id,
                                                     SeatRow.seat == seat.seat))
            await conn.execute(insert(SeatRow).values(
                room_id=room_id, seat=seat.seat, name=seat.name, token_hash=seat.token_hash,
                bot=seat.bot, left=seat.left, address=seat.address, auto=seat.auto))

    async def set_seat_auto(self, room_id: str, seat: int, auto: bool) -> None:
        """Store whether ``seat`` is under 托管 (a restart keeps it)."""
        async with writing(self.engine) as conn:
            await self._check_fence(conn, room_id)
            await conn.execute(update(SeatRow).where(SeatRow.room_id == room_id,
                                                     SeatRow.seat == seat).values(auto=auto))

    async def delete_seat(self, room_id: str, seat: int) -> None:
        async with writing(self.engine) as conn:
            await self._check_fence(conn, room_id)
            await conn.execute(delete(SeatRow).where(SeatRow.room_id == room_id,
                                                     SeatRow.seat == seat))

    async def finish(self, room_id: str, record: dict[str, Any], status: str = "over") -> None:
        """Store the match's ``record`` with its room's final ``status``: ``"over"``, or
        ``"dissolved"`` (a record so far, ``"over": false``), then run the
        :attr:`finish_hooks`; :class:`StaleOwnerError` if another node owns the room."""
        await self.update_room(room_id, status=status, record=json.dumps(record))
        for hook in self.finish_hooks:
            try:
                await hook(room_id, record)
            except Exception:  # the match is stored; only its statistics are missing
                log.exception("room %s: after-match hook failed", room_id)

    # -- fencing (many nodes) ---------------------------------------------------------

    async def take_room(self, room_id: str) -> int | None:
        """Bump an unfinished room's epoch and fence this process's later writes with it
        (the caller holds the room's lease).  Returns the new epoch; None if there is no
        such room or it is over (nothing to take)."""
        async with writing(self.engine) as conn:
            row = (await conn.execute(update(RoomRow)
                                      .where(RoomRow.id == room_id, RoomRow.status != "over")
                                      .values(epoch=RoomRow.epoch + 1)
                                      .returning(RoomRow.epoch))).first()
        if row is None:
            return None
        self.fences[room_id] = int(row[0])
        return int(row[0])

    def unfence(self, room_id: str) -> None:
        """This process gave the room up: refuse any write for it still queued or late."""
        if room_id in self.fences:
            self.fences[room_id] = RELEASED

    def _fences_of(self, room_ids: Iterable[str]) -> dict[str, int]:
        """The epochs this process holds for those of ``room_ids`` it has fenced."""
        return {r: self.fences[r] for r in sorted(set(room_ids)) if r in self.fences}

    def _lost(self, stale: set[str]) -> None:
        """Rooms whose epoch moved on: tell the owner once, and refuse their writes."""
        for room_id in stale:
            if self.fences[room_id] != RELEASED and self.on_stale is not None:
                self.on_stale(room_id)
            self.fences[room_id] = RELEASED

    async def _stale(self, conn: AsyncConnection, room_ids: Iterable[str],
                     exclusive: bool = False) -> set[str]:
        """Of ``room_ids``, those fenced here whose epoch moved on; the rows stay locked
        (shared, or for update when ``exclusive``) until ``conn`` commits, so no takeover
        can slip in between this check and the write."""
        fences = self._fences_of(room_ids)
        stale = await conn.run_sync(_stale_in, fences, exclusive) if fences else set()
        self._lost(stale)
        return stale

    async def _check_fence(self, conn: AsyncConnection, room_id: str,
                           exclusive: bool = False) -> None:
        if await self._stale(conn, (room_id,), exclusive):
            raise StaleOwnerError(room_id)

    # -- actions ---------------------------------------------------------------------

    async def append_action(self, room_id: str, idx: int, action: dict[str, Any],
                            made_by: str | None = None) -> None:
        """Durably append action ``idx`` of a room, with who chose it when not the seat's
        player (``made_by``, the record's); returns once committed;
        :class:`StaleOwnerError` if another node has taken the room since."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        row = {"room_id": room_id, "idx": idx, "action": json.dumps(action),
               "created_at": time.time(), "made_by": made_by}
        await self._queue.put((row, done))
        await done

    def _settle(self, batch: list[tuple[str, asyncio.Future[None]]],
                outcome: set[str] | BaseException) -> None:
        """A batch of action writes is over: ``outcome`` is the set of rooms whose rows
        were refused as stale, or the error that failed the whole batch."""
        if isinstance(outcome, BaseException):
            for _, done in batch:
                if not done.done():
                    done.set_exception(outcome)
            return
        self._lost(outcome)
        for room_id, done in batch:
            if done.done():
                continue  # the room stopped waiting (closed, or moved away)
            if room_id in outcome:
                done.set_exception(StaleOwnerError(room_id))
            else:
                done.set_result(None)

    async def _write_actions(self) -> None:
        """The group-commit writer: every action queued meanwhile goes in one transaction.

        On an SQLite file the transaction runs right here on the event loop, on a
        connection of its own: in WAL mode with ``synchronous=NORMAL`` a commit appends
        to the log in the OS's page cache and waits for no disk (0.3–1 ms for a batch
        of 15 rows on a 2-core machine), and the log is copied back into the file by :meth:`_checkpoints` on a
        thread.  Through the async driver every step of a batch (fence check, insert,
        commit) was a hop to the driver's thread and back, and on a thread of its own
        the writer waited for the GIL at every step: at 500 busy tables on two cores an
        action waited 15–18 ms for its write at the median and 75 ms at the 99th
        percentile, while every room in the batch waited (issue 11).  The other
        writers of this process hold the same lock (:func:`writing`), so the loop never
        waits on SQLite's lock for them; another process holding it makes the batch
        wait asynchronously (:meth:`_write_inline`), never on the loop.

        Elsewhere (PostgreSQL, an in-memory SQLite) the batch runs on one async
        connection kept open."""
        lock = write_lock(self.engine)
        async with contextlib.AsyncExitStack() as stack:
            conn = None if self._inline is not None else \
                await stack.enter_async_context(self.engine.connect())
            while True:
                batch = [await self._queue.get()]
                while not self._queue.empty() and len(batch) < MAX_BATCH:
                    batch.append(self._queue.get_nowait())
                rows = [row for row, _ in batch]
                fences = self._fences_of(row["room_id"] for row in rows)
                outcome: set[str] | BaseException
                try:
                    async with lock or contextlib.nullcontext():
                        if conn is None:
                            outcome = await self._write_inline(rows, fences)
                        else:
                            try:
                                outcome = await conn.run_sync(_write_batch, rows, fences)
                                await conn.commit()
                            except BaseException:
                                await conn.rollback()
                                raise
                except Exception as exc:  # every waiting room must hear of it
                    outcome = exc
                self._settle([(row["room_id"], done) for row, done in batch], outcome)

    async def _write_inline(self, rows: list[dict[str, Any]],
                            fences: dict[str, int]) -> set[str]:
        """One batch on the SQLite file, on the loop.  SQLite's lock held by another
        process (a shell, a backup tool) is never waited for on the loop: the attempt
        fails at once and is tried again after an asynchronous pause, for up to
        ``BUSY_SECONDS`` (then the error goes to every room in the batch)."""
        assert self._inline is not None
        give_up = time.monotonic() + BUSY_SECONDS
        pause = 0.01
        while True:
            try:
                return _write_in_transaction(self._inline, rows, fences)
            except OperationalError as exc:
                if not _busy(exc) or time.monotonic() + pause > give_up:
                    raise
            await asyncio.sleep(pause)
            pause = min(0.2, pause * 2)

    async def _checkpoints(self) -> None:
        """Every ``CHECKPOINT_SECONDS``, copy the SQLite write-ahead log back into the
        database file on a thread (the fsyncs happen there, not on the event loop).

        A passive checkpoint runs beside the writer and the log starts over only when a
        write comes just after one that copied every frame, which steady writes rarely
        allow (an attack on the server saw the log at 54 MB after 75 s of 20 tables).  So
        once it is over ``WAL_RESET_BYTES`` the checkpoint takes the write lock (actions
        wait a moment, the loop does not) and truncates the log to nothing."""
        assert self._inline is not None
        lock = write_lock(self.engine)
        wal = Path(f"{self._inline.url.database}-wal")
        # a connection of its own, opened on the thread each time
        checkpoints = create_engine(self._inline.url, poolclass=NullPool)
        event.listen(checkpoints, "connect", _sqlite_pragmas)
        while True:
            await asyncio.sleep(CHECKPOINT_SECONDS)
            try:
                if wal.exists() and wal.stat().st_size > WAL_RESET_BYTES:
                    async with lock or contextlib.nullcontext():
                        await asyncio.to_thread(_checkpoint, checkpoints, "TRUNCATE")
                else:
                    await asyncio.to_thread(_checkpoint, checkpoints, "PASSIVE")
            except Exception:  # a busy or failing disk: try again next time
                log.exception("WAL checkpoint failed")

    # -- loading ---------------------------------------------------------------------

    async def unfinished_rooms(self) -> dict[str, str | None]:
        """Every open or running room, with its creator's address key (kept while the
        room is open, None once it runs)."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(RoomRow.id, RoomRow.creator).where(
                RoomRow.status.in_(("open", "running"))))
            return {room: creator for room, creator in rows.all()}


    async def room_status(self, room_id: str) -> str | None:
        """A stored room's status (None: no such room), without its seats or actions."""
        async with self.engine.connect() as conn:
            return (await conn.execute(select(RoomRow.status).where(
                RoomRow.id == room_id))).scalar_one_or_none()

    async def load_rooms(self, statuses: tuple[str, ...] = ("open", "running"),
                         room_id: str | None = None) -> list[StoredRoom]:
        """Rooms in ``statuses`` (or the one ``room_id``) with their seats and actions."""
        async with self.engine.connect() as conn:
            query = select(RoomRow)
            query = (query.where(RoomRow.id == room_id) if room_id is not None
                     else query.where(RoomRow.status.in_(statuses)))
            rooms = {r.id: StoredRoom(r.id, r.name, _json(r.rules), r.seed, r.status,
                                      r.owner_seat, r.salt, r.seed_fixed, r.created_at,
                                      record_text=r.record or None,
                                      removed=(_json(r.removed) or []) if r.removed else [],
                                      creator=r.creator, private=bool(r.private))
                     for r in (await conn.execute(query.order_by(RoomRow.created_at))).all()}
            if not rooms:
                return []
            ids = list(rooms)
            seats = await conn.execute(select(SeatRow).where(SeatRow.room_id.in_(ids))
                                       .order_by(SeatRow.seat))
            for s in seats.all():
                rooms[s.room_id].seats.append(
                    StoredSeat(s.seat, s.name, s.token_hash, s.bot, s.left, s.address,
                               s.auto))
            running = [i for i in ids if rooms[i].status == "running"]
            if running:
                actions = await conn.execute(select(ActionRow).where(
                    ActionRow.room_id.in_(running)).order_by(ActionRow.room_id, ActionRow.idx))
                for a in actions.all():
                    rooms[a.room_id].actions.append(_json(a.action))
                    if a.made_by is not None:
                        rooms[a.room_id].made_by[a.idx] = a.made_by
        return list(rooms.values())


def _stale_in(conn: Connection, fences: dict[str, int], exclusive: bool = False) -> set[str]:
    """Of the rooms in ``fences`` (room id -> the epoch this process holds), those whose
    stored epoch is another; their rows stay locked (shared, or for update when
    ``exclusive``) until ``conn`` commits."""
    query = (select(RoomRow.id, RoomRow.epoch).where(RoomRow.id.in_(sorted(fences)))
             .with_for_update(read=not exclusive, key_share=exclusive))
    current = {row[0]: row[1] for row in conn.execute(query).all()}
    return {r for r, epoch in fences.items() if current.get(r) != epoch}


def _write_batch(conn: Connection, rows: list[dict[str, Any]],
                 fences: dict[str, int]) -> set[str]:
    """Insert a batch of action rows, except those of rooms another node has taken since
    (checked under the rooms' row locks); returns those rooms.  The caller commits."""
    stale = _stale_in(conn, fences) if fences else set()
    rows = [row for row in rows if row["room_id"] not in stale]
    if rows:
        conn.execute(insert(ActionRow), rows)
    return stale


def _write_in_transaction(engine: Engine, rows: list[dict[str, Any]],
                          fences: dict[str, int]) -> set[str]:
    with engine.begin() as conn:
        return _write_batch(conn, rows, fences)


def _checkpoint(engine: Engine, mode: str) -> None:
    """Copy the write-ahead log back into the database file: ``PASSIVE`` never blocks a
    writer or a reader and does what it can; ``TRUNCATE`` (the caller holds the write
    lock) copies everything and empties the log file."""
    with engine.connect() as conn:
        conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})")


def _busy(exc: OperationalError) -> bool:
    """SQLite's lock is held by another connection (SQLITE_BUSY / SQLITE_LOCKED)."""
    name = getattr(exc.orig, "sqlite_errorname", "")
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(exc.orig)


def _inline_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints run on a thread instead
    cursor.execute("PRAGMA busy_timeout=0")  # never wait on the loop: retried async
    cursor.close()


def _json(text: str) -> Any:
    """A stored JSON column; a broken one becomes ``None`` (the room is then quarantined
    when it is rebuilt, instead of stopping the whole load)."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL + NORMAL: a commit survives a killed process (only an OS crash could lose it)
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def make_engine(url: str) -> AsyncEngine:
    # pre-ping: a database server that restarted leaves dead connections in the pool
    engine = create_async_engine(url, pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


async def open_store(url: str) -> Store:
    """Connect, apply the migrations and start the action writer."""
    store = Store(make_engine(url))
    await store.start()
    return store


async def check_database(url: str) -> str | None:
    """Why the database at ``url`` cannot be used, or ``None``: it is opened and upgraded
    to the newest revision (what the server's start does), so a directory, a file that is
    not a database, an unknown driver or an unreachable server is reported before the
    server starts.  The reason is the error's first line."""
    try:
        engine = make_engine(url)
    except Exception as exc:  # an unknown driver, a URL SQLAlchemy cannot read
        return _first_line(exc)
    try:
        await migrate(engine)
    except Exception as exc:
        await engine.dispose()
        # aiosqlite's thread still posts the failed connection's close to this loop: let
        # it land before asyncio.run closes the loop (else "Event loop is closed" is logged)
        await asyncio.sleep(0.2)
        return _first_line(exc)
    await engine.dispose()
    return None


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return clip(lines[0] if lines else type(exc).__name__, 200)


async def migrate(engine: AsyncEngine) -> None:
    """Upgrade the database to the newest Alembic revision.

    On SQLite the foreign keys are off while the migrations run: SQLite alters a table
    by rebuilding it (Alembic's batch mode copies it, drops the old one and renames the
    copy), and with foreign keys on, dropping the old ``rooms`` table deleted every row
    that refers to it (``ON DELETE CASCADE``: each room's seats, actions and match
    links).  The pragma does nothing inside a transaction, so it is set before the
    migrations' transaction; the keys are checked after it (``RuntimeError`` if a row
    refers to nothing) and switched on again."""
    if engine.dialect.name == "sqlite":
        async with engine.connect() as conn:
            await conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
            await conn.commit()
            try:
                await conn.run_sync(_upgrade)
                await conn.commit()
                broken = (await conn.exec_driver_sql("PRAGMA foreign_key_check")).fetchall()
                await conn.commit()
            finally:
                await conn.exec_driver_sql("PRAGMA foreign_keys=ON")
                await conn.commit()
        if broken:
            raise RuntimeError(f"the upgraded database has {len(broken)} rows that refer "
                               f"to nothing (first: {broken[0]!r})")
        return
    async with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # nodes starting together migrate one by one
            await conn.execute(text("SELECT pg_advisory_xact_lock(7342801)"))
        await conn.run_sync(_upgrade)


def _upgrade(connection: Connection) -> None:
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, "head")
