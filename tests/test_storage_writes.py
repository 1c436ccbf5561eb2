"""SQLite under write load (issue 11, kind 11): write transactions that hold SQLite's
lock across event-loop hops must queue in the process, never fail with "database is
locked" when the loop is slow."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from hzmj.server import storage
from hzmj.server.config import database_url
from hzmj.server.storage import open_store, writing


def _short_busy_timeout(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=50")  # stands for a loop too slow for 10 s
    cursor.close()


def test_slow_write_transactions_queue_instead_of_failing(tmp_path: Path) -> None:
    async def run() -> list[int]:
        store = await open_store(database_url(str(tmp_path / "w.db")))
        event.listen(store.engine.sync_engine, "connect", _short_busy_timeout)
        await store.engine.dispose()  # new connections get the short timeout
        try:
            async def write(i: int) -> None:
                async with writing(store.engine) as conn:
                    await conn.execute(text(
                        "INSERT INTO rooms (id, name, rules, seed, status, created_at) "
                        "VALUES (:id, 'n', '{}', 1, 'open', 0)"), {"id": f"r{i}"})
                    await asyncio.sleep(0.2)  # the loop is busy elsewhere: the lock is held

            await store.create_room("c", "n", "{}", 1)  # a room's actions follow it
            # eight writers, each holding the lock 4× longer than SQLite would wait; the
            # action writer (a thread of its own on a file) waits its turn at SQLite's lock
            await asyncio.gather(*(write(i) for i in range(8)),
                                 store.append_action("c", 0, {"type": "discard"}))
            async with store.engine.connect() as conn:
                rooms = (await conn.execute(text("SELECT count(*) FROM rooms"))).scalar_one()
                actions = (await conn.execute(text("SELECT count(*) FROM actions"))).scalar_one()
            return [rooms, actions]
        finally:
            await store.close()

    assert asyncio.run(run()) == [9, 1]


def test_sqlite_action_log_is_checkpointed_into_the_file(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """On an SQLite file the action writer commits on the event loop with automatic
    checkpoints off; the checkpoint thread must copy the write-ahead log back into the
    database file, and empty the log once it is past ``WAL_RESET_BYTES``, or the log
    would grow for as long as the server runs (issue 11)."""
    monkeypatch.setattr(storage, "CHECKPOINT_SECONDS", 0.05)
    monkeypatch.setattr(storage, "WAL_RESET_BYTES", 64 * 1024)
    db, wal = tmp_path / "c.db", tmp_path / "c.db-wal"
    # each checkpoint's mode and the log's size when it ran: a CI machine under load may
    # run the resetting checkpoint before the test could look at the grown log
    seen: list[tuple[str, int]] = []
    checkpoint = storage._checkpoint

    def recording(engine: Any, mode: str) -> None:
        seen.append((mode, wal.stat().st_size if wal.exists() else 0))
        checkpoint(engine, mode)

    monkeypatch.setattr(storage, "_checkpoint", recording)

    async def run() -> tuple[int, int, int]:
        store = await open_store(database_url(str(db)))
        try:
            await store.create_room("c", "n", "{}", 1)
            before = db.stat().st_size
            await asyncio.gather(*(store.append_action("c", i, {"type": "discard",
                                                                 "pad": "x" * 200})
                                   for i in range(2000)))
            for _ in range(100):  # a checkpoint every 0.05 s: give it a few
                await asyncio.sleep(0.05)
                if db.stat().st_size > before + 2000 * 200 and wal.stat().st_size == 0:
                    break
            return before, db.stat().st_size, wal.stat().st_size
        finally:
            await store.close()

    before, after, emptied = asyncio.run(run())
    assert after > before + 2000 * 200, (before, after)
    # the log had grown past its limit, and the checkpoint under the write lock emptied it
    grown = max((size for mode, size in seen if mode == "TRUNCATE"), default=0)
    assert grown > 64 * 1024 and emptied == 0, (seen[-5:], emptied)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*), max(idx) FROM actions").fetchone() == (2000, 1999)
