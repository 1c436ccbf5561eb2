"""Persistence: rooms, seats (tokens hashed) and every applied action (SQLAlchemy 2 async).

The schema is created and upgraded by the Alembic migrations in ``migrations/``, applied
at start-up (:func:`open_store`).  Actions are appended through one group-commit writer
so that a hundred busy tables cost one transaction per batch, not one per action; a room
awaits its write before the action is applied and its events are sent.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
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
    delete,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

MIGRATIONS = Path(__file__).with_name("migrations")
log = logging.getLogger("hzmj.server")
FinishHook = Callable[[str, dict[str, Any]], Awaitable[None]]


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
    status: Mapped[str] = mapped_column(String(8), index=True)  # open | running | over
    owner_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    record: Mapped[str | None] = mapped_column(Text, nullable=True)  # once over


class SeatRow(Base):
    __tablename__ = "seats"

    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    bot: Mapped[str | None] = mapped_column(String(32), nullable=True)
    left: Mapped[bool] = mapped_column(Boolean, default=False)


class ActionRow(Base):
    __tablename__ = "actions"

    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    action: Mapped[str] = mapped_column(Text)  # Action.to_json()
    created_at: Mapped[float] = mapped_column(Float)


@dataclass
class StoredSeat:
    seat: int
    name: str
    token_hash: str | None
    bot: str | None
    left: bool


@dataclass
class StoredRoom:
    """A room as loaded at start-up, with everything needed to rebuild it."""

    id: str
    name: str
    rules: dict[str, Any]
    seed: int
    status: str
    owner_seat: int | None
    seats: list[StoredSeat] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    record: dict[str, Any] | None = None


_Pending = tuple[dict[str, Any], "asyncio.Future[None]"]


class Store:
    """The database behind the server."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._queue: asyncio.Queue[_Pending] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        # called with (room id, record) once a match is over and stored (history, ratings)
        self.finish_hooks: list[FinishHook] = []

    async def start(self) -> None:
        await migrate(self.engine)
        self._writer = asyncio.create_task(self._write_actions(), name="hzmj-action-writer")

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)
        await self.engine.dispose()

    # -- rooms and seats -------------------------------------------------------------

    async def create_room(self, room_id: str, name: str, rules: str, seed: int) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(insert(RoomRow).values(
                id=room_id, name=name, rules=rules, seed=seed, status="open", owner_seat=None,
                created_at=time.time()))

    async def update_room(self, room_id: str, **values: Any) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(update(RoomRow).where(RoomRow.id == room_id).values(**values))

    async def save_seat(self, room_id: str, seat: StoredSeat) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(delete(SeatRow).where(SeatRow.room_id == room_id,
                                                     SeatRow.seat == seat.seat))
            await conn.execute(insert(SeatRow).values(
                room_id=room_id, seat=seat.seat, name=seat.name, token_hash=seat.token_hash,
                bot=seat.bot, left=seat.left))

    async def delete_seat(self, room_id: str, seat: int) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(delete(SeatRow).where(SeatRow.room_id == room_id,
                                                     SeatRow.seat == seat))

    async def finish(self, room_id: str, record: dict[str, Any]) -> None:
        await self.update_room(room_id, status="over", record=json.dumps(record))
        for hook in self.finish_hooks:
            try:
                await hook(room_id, record)
            except Exception:  # the match is stored; only its statistics are missing
                log.exception("room %s: after-match hook failed", room_id)

    # -- actions ---------------------------------------------------------------------

    async def append_action(self, room_id: str, idx: int, action: dict[str, Any]) -> None:
        """Durably append action ``idx`` of a room (returns once committed)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        row = {"room_id": room_id, "idx": idx, "action": json.dumps(action),
               "created_at": time.time()}
        await self._queue.put((row, done))
        await done

    async def _write_actions(self) -> None:
        # one connection kept open: a batch costs one INSERT and one COMMIT, nothing more
        async with self.engine.connect() as conn:
            while True:
                batch = [await self._queue.get()]
                while not self._queue.empty() and len(batch) < 1000:
                    batch.append(self._queue.get_nowait())
                try:
                    await conn.execute(insert(ActionRow), [row for row, _ in batch])
                    await conn.commit()
                except Exception as exc:  # every waiting room must hear of it
                    await conn.rollback()
                    for _, done in batch:
                        if not done.done():
                            done.set_exception(exc)
                    continue
                for _, done in batch:
                    if not done.done():
                        done.set_result(None)

    # -- loading ---------------------------------------------------------------------

    async def load_rooms(self, statuses: tuple[str, ...] = ("open", "running"),
                         room_id: str | None = None) -> list[StoredRoom]:
        """Rooms in ``statuses`` (or the one ``room_id``) with their seats and actions."""
        async with self.engine.connect() as conn:
            query = select(RoomRow)
            query = (query.where(RoomRow.id == room_id) if room_id is not None
                     else query.where(RoomRow.status.in_(statuses)))
            rooms = {r.id: StoredRoom(r.id, r.name, json.loads(r.rules), r.seed, r.status,
                                      r.owner_seat,
                                      record=json.loads(r.record) if r.record else None)
                     for r in (await conn.execute(query.order_by(RoomRow.created_at))).all()}
            if not rooms:
                return []
            ids = list(rooms)
            seats = await conn.execute(select(SeatRow).where(SeatRow.room_id.in_(ids))
                                       .order_by(SeatRow.seat))
            for s in seats.all():
                rooms[s.room_id].seats.append(
                    StoredSeat(s.seat, s.name, s.token_hash, s.bot, s.left))
            running = [i for i in ids if rooms[i].status == "running"]
            if running:
                actions = await conn.execute(select(ActionRow).where(
                    ActionRow.room_id.in_(running)).order_by(ActionRow.room_id, ActionRow.idx))
                for a in actions.all():
                    rooms[a.room_id].actions.append(json.loads(a.action))
        return list(rooms.values())


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


async def migrate(engine: AsyncEngine) -> None:
    """Upgrade the database to the newest Alembic revision."""
    async with engine.begin() as conn:
        await conn.run_sync(_upgrade)


def _upgrade(connection: Connection) -> None:
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, "head")
