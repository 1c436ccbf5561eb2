"""The table server on PostgreSQL (``--db postgresql+asyncpg://…``): the migrations at
start-up, rooms, seats and bots, an all-bot match to the end and its record, and a kill -9
and restart in the middle of a match.

Runs only when ``HZMJ_TEST_POSTGRES_URL`` names a throwaway database (its hzmj tables are
dropped first); ``.ci/postgres.sh`` starts a local one and prints such a URL."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import text

from hzmj.events import action_from_json
from hzmj.game import Match
from hzmj.record import verify
from hzmj.rules import Rules
from hzmj.server.config import database_url
from hzmj.server.storage import MIGRATIONS, make_engine
from test_server_play import record_of
from test_server_support import (
    Client,
    ServerProcess,
    check_against_record,
    check_no_leak,
    is_event,
    post,
    room_with_bots,
    seats_held,
)

PG_URL = os.environ.get("HZMJ_TEST_POSTGRES_URL", "")

pytestmark = pytest.mark.skipif(
    not PG_URL, reason="HZMJ_TEST_POSTGRES_URL is not set (a throwaway PostgreSQL database, "
                       "e.g. the URL printed by .ci/postgres.sh)")


def query(sql: str, **params: Any) -> list[tuple[Any, ...]]:
    """Run one statement on the test database (committed); its rows, if any."""
    async def run() -> list[tuple[Any, ...]]:
        engine = make_engine(database_url(PG_URL))
        try:
            async with engine.begin() as conn:
                result = await conn.execute(text(sql), params)
                return [tuple(r) for r in result.all()] if result.returns_rows else []
        finally:
            await engine.dispose()
    return asyncio.run(run())


def room_state(server: ServerProcess, room: str) -> dict[str, Any]:
    info: dict[str, Any] = httpx.get(f"{server.base}/api/rooms/{room}", timeout=10).json()
    return info


def all_bot_room(server: ServerProcess, seed: int, players: int = 4) -> tuple[str, str]:
    """A room with bots on every seat (the owner hands over seat 0 too), not started."""
    room, token = room_with_bots(server.base, {"players": players}, seed=seed, bot="random")
    r = post(server.base, f"/api/rooms/{room}/bots", {"seat": 0, "bot": "random"}, token)
    assert r.status_code == 200, r.text
    return room, token


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    query("DROP TABLE IF EXISTS match_players, ratings, sessions, accounts, actions, seats, "
          "rooms, alembic_version CASCADE")
    # ServerProcess passes --db str(db) to the server: a URL works as well as a path
    proc = ServerProcess(PG_URL).start()  # type: ignore[arg-type]
    yield proc
    proc.stop()


def test_migrations_run_at_start_up(server: ServerProcess) -> None:
    head = ScriptDirectory(str(MIGRATIONS)).get_current_head()
    assert query("SELECT version_num FROM alembic_version") == [(head,)]
    tables = {name for (name,) in query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}
    assert {"rooms", "seats", "actions"} <= tables


def test_all_bot_match_plays_to_the_end_and_keeps_its_record(server: ServerProcess) -> None:
    room, token = all_bot_room(server, seed=2**63 - 1)  # the largest seed a BIGINT holds
    info = room_state(server, room)
    assert info["status"] == "open" and [s["bot"] for s in info["seats"]] == ["random"] * 4

    async def watch() -> Client:
        async with Client(server.ws_base, room) as watcher:
            await watcher.until(lambda m: m["type"] == "snapshot")
            assert post(server.base, f"/api/rooms/{room}/start", token=token).status_code == 200
            await watcher.until(is_event("match_end"), timeout=120)
            return watcher

    with seats_held([(room, token)], [server.ws_base]):  # its owner runs it
        watcher = asyncio.run(watch())
    record = record_of(server, room)
    assert record["over"] and record["seed"] == 2**63 - 1 and verify(record) == []
    check_no_leak(watcher.messages, None)
    assert check_against_record(watcher.messages, None, record) > 300
    assert room_state(server, room)["status"] == "over"
    [(status, stored)] = query("SELECT status, record FROM rooms WHERE id = :id", id=room)
    assert status == "over" and stored is not None
    [(count, last)] = query("SELECT count(*), max(idx) FROM actions WHERE room_id = :id", id=room)
    assert count == last + 1 == len(record["actions"])


def test_what_postgresql_cannot_store_is_refused(server: ServerProcess) -> None:
    assert post(server.base, "/api/rooms", {"name": "a\x00b"}).status_code == 422
    assert post(server.base, "/api/rooms", {"seed": 2**63}).status_code == 422
    room = post(server.base, "/api/rooms", {"name": "日本語 ok"}).json()["room_id"]
    assert post(server.base, f"/api/rooms/{room}/seats", {"name": "x\x00"}).status_code == 422
    assert post(server.base, f"/api/rooms/{room}/seats", {"name": "张三"}).status_code == 200
    assert room_state(server, room)["name"] == "日本語 ok"


def test_kill_and_restart_mid_match_recovers(server: ServerProcess) -> None:
    finished, token = all_bot_room(server, seed=40, players=2)
    deadline = time.monotonic() + 60
    with seats_held([(finished, token)], [server.ws_base]):  # its owner runs it
        assert post(server.base, f"/api/rooms/{finished}/start", token=token).status_code == 200
        while room_state(server, finished)["status"] != "over":
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finished_record = record_of(server, finished)
    room, token = all_bot_room(server, seed=41)
    # its owner's socket, reconnecting after the kill: the restored room comes back paused
    with seats_held([(room, token)], [server.ws_base]):
        assert post(server.base, f"/api/rooms/{room}/start", token=token).status_code == 200
        while (seen := room_state(server, room)["state_id"]) < 20:  # of some 300
            assert time.monotonic() < deadline
        server.kill()
        # an action is applied only once it is committed: what is stored reaches the
        # public step (state_id) the room had shown
        stored = Match(Rules(), 41)
        for (raw,) in query("SELECT action FROM actions WHERE room_id = :id ORDER BY idx",
                            id=room):
            stored.apply(action_from_json(json.loads(raw)))
        assert stored.step >= seen
        server.start()  # the same port and database: rooms are rebuilt from their actions
        info = room_state(server, room)
        assert info["status"] == "running" and info["state_id"] >= seen
        # a finished room is not rebuilt: its record is read back from the database
        assert room_state(server, finished)["status"] == "over"
        assert record_of(server, finished) == finished_record
        deadline = time.monotonic() + 120
        while room_state(server, room)["status"] != "over":
            assert time.monotonic() < deadline
            time.sleep(0.1)
    record = record_of(server, room)
    assert record["over"] and record["seed"] == 41 and verify(record) == []
    assert len(record["actions"]) > seen


def test_a_table_nobody_is_at_is_dissolved_and_its_status_stored(server: ServerProcess) -> None:
    """``dissolved`` is nine characters: migration 0010 widened ``rooms.status`` (a
    VARCHAR(8) on PostgreSQL refused it).  A table of bots started with nobody connected
    never moves and is dissolved after ``unattended_limit``."""
    assert query("SELECT character_maximum_length FROM information_schema.columns WHERE "
                 "table_name = 'rooms' AND column_name = 'status'") == [(16,)]
    server.stop()  # the same server, with a short limit
    before = dict(server.env)
    server.env.update({"HZMJ_UNATTENDED_LIMIT": "1", "HZMJ_SWEEP_EVERY": "0.2"})
    server.start()
    try:
        room, token = all_bot_room(server, seed=42, players=2)
        assert post(server.base, f"/api/rooms/{room}/start", token=token).status_code == 200
        deadline = time.monotonic() + 30
        while room_state(server, room)["status"] != "dissolved":
            assert time.monotonic() < deadline, "the room was not dissolved"
            time.sleep(0.1)
        assert query("SELECT status FROM rooms WHERE id = :id", id=room) == [("dissolved",)]
        record = record_of(server, room)
        assert record["over"] is False and record["actions"] == [] and verify(record) == []
    finally:
        server.stop()
        server.env = before
        server.start()
