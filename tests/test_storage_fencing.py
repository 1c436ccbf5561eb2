"""The fencing epoch (docs/scaling.md): once a node takes a room, the node that had it
before can write nothing more for it — no action, seat or room change — however late it
wakes up.  On SQLite always; on PostgreSQL too when ``HZMJ_TEST_POSTGRES_URL`` is set."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from sqlalchemy import text

from hzmj.server.config import database_url
from hzmj.server.storage import StaleOwnerError, StoredSeat, open_store

PG_URL = os.environ.get("HZMJ_TEST_POSTGRES_URL", "")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_stale_owner_writes_nothing(tmp_path: Path, backend: str) -> None:
    if backend == "postgresql" and not PG_URL:
        pytest.skip("HZMJ_TEST_POSTGRES_URL is not set")
    url = database_url(str(tmp_path / "fence.db")) if backend == "sqlite" \
        else database_url(PG_URL)

    async def run() -> None:
        old, new = await open_store(url), await open_store(url)
        lost: list[str] = []
        old.on_stale = lost.append
        try:
            room = f"fence-{os.getpid()}-{backend}"
            async with old.engine.begin() as conn:
                await conn.execute(text("DELETE FROM rooms WHERE id = :id"), {"id": room})
            await old.create_room(room, "t", "{}", 1)
            assert await old.take_room(room) == 1
            await old.append_action(room, 0, {"type": "discard"})
            await old.save_seat(room, StoredSeat(0, "a", None, None, False))
            assert await new.take_room(room) == 2  # another node takes the room
            # the old owner's next action, seat and room writes are all refused ...
            with pytest.raises(StaleOwnerError):
                await old.append_action(room, 1, {"type": "stale"})
            with pytest.raises(StaleOwnerError):
                await old.save_seat(room, StoredSeat(1, "b", None, None, False))
            with pytest.raises(StaleOwnerError):
                await old.update_room(room, status="running")
            assert lost == [room]  # told once, so that it drops the room
            # ... while the new owner goes on from what is stored
            await new.append_action(room, 1, {"type": "fresh"})
            with pytest.raises(Exception):  # noqa: B017 - (room, idx) is unique anyway
                await new.append_action(room, 1, {"type": "twice"})
            stored = (await new.load_rooms(room_id=room))[0]
            assert [s.name for s in stored.seats] == ["a"]
            assert stored.status == "open"
            await new.update_room(room, status="running")
            stored = (await new.load_rooms(room_id=room))[0]
            assert stored.actions == [{"type": "discard"}, {"type": "fresh"}]
            await new.update_room(room, status="over")
            assert await old.take_room(room) is None  # a finished room is not taken
            assert (await new.load_rooms(room_id=room))[0].status == "over"
            # a node that gives a room up writes nothing more for it either
            new.unfence(room)
            with pytest.raises(StaleOwnerError):
                await new.append_action(room, 2, {"type": "after release"})
        finally:
            await old.close()
            await new.close()

    asyncio.run(run())


def test_a_single_server_is_not_fenced(tmp_path: Path) -> None:
    """Without take_room (one process on its own) nothing is checked or refused."""
    async def run() -> None:
        store = await open_store(database_url(str(tmp_path / "one.db")))
        try:
            await store.create_room("r", "t", "{}", 1)
            await store.append_action("r", 0, {"type": "discard"})
            await store.update_room("r", status="running")
            assert store.fences == {}
            assert (await store.load_rooms(room_id="r"))[0].actions == [{"type": "discard"}]
        finally:
            await store.close()

    asyncio.run(run())
