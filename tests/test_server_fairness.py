"""No way to cheat (RULES §13): server seeds with a published commitment, no claim-window
side channel, and seat tokens never in the log (issue 11, items 1–3)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from hzmj.cli import app as cli
from hzmj.record import seed_commitment, verify
from hzmj.server.app import create_app
from hzmj.server.config import ServerConfig
from test_server_support import (
    Client,
    ServerProcess,
    attended,
    is_event,
    post,
    room_with_bots,
)


def wait_for(client: TestClient, room: str, status: str, timeout: float = 240) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        info: dict[str, Any] = client.get(f"/api/rooms/{room}").json()
        if info["status"] == status:
            return info
        time.sleep(0.2)
    raise AssertionError(f"room {room} never became {status}")


@pytest.fixture
def absent_human(tmp_path: Path) -> Iterator[TestClient]:
    """A server where a player's seat under 托管 is played by the bot at once."""
    cfg = ServerConfig(db=str(tmp_path / "fair.db"), bot_delay=0, hand_pause=0, bot_workers=0,
                       claim_pause_scale=0, away_grace=0)
    with TestClient(create_app(cfg)) as c:
        yield c


# ------------------------------------------------------------------ 1. seeds


def test_a_room_with_a_human_is_dealt_from_a_committed_server_seed(
        absent_human: TestClient, tmp_path: Path) -> None:
    c = absent_human
    room = c.post("/api/rooms", json={"rules": {"players": 2}, "seed": 123}).json()["room_id"]
    owner = c.post(f"/api/rooms/{room}/seats", json={"name": "ann"}).json()
    auth = {"Authorization": f"Bearer {owner['token']}"}
    assert c.post(f"/api/rooms/{room}/bots", json={"seat": 1}, headers=auth).status_code == 200
    assert c.get(f"/api/rooms/{room}").json()["commitment"] is None  # not before the start
    with attended(c, room, owner["token"], auto=True):
        assert c.post(f"/api/rooms/{room}/start", headers=auth).status_code == 200
        running = c.get(f"/api/rooms/{room}").json()
        assert len(running["commitment"]) == 64
        assert running["seed"] is None and running["salt"] is None  # hidden while it runs
        over = wait_for(c, room, "over")
    record = c.get(f"/api/matches/{room}/record").json()
    assert record["seed"] != 123  # the client's seed did not deal a human's match
    assert record["commitment"] == running["commitment"] == over["commitment"]
    assert (over["seed"], over["salt"]) == (record["seed"], record["salt"])
    assert seed_commitment(record["seed"], record["salt"]) == record["commitment"]
    assert verify(record) == []
    replay = c.get(f"/api/matches/{room}/replay").json()
    assert (replay["seed"], replay["salt"], replay["commitment"]) == (
        record["seed"], record["salt"], record["commitment"])

    # hzmj replay --verify opens the commitment, and catches a record that does not
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(cli, ["replay", str(path), "--verify"])
    assert result.exit_code == 0, result.stderr
    assert f"fair: SHA-256 of the seed and salt is the commitment {record['commitment']}" \
        in " ".join(result.stdout.split())
    path.write_text(json.dumps({**record, "salt": "0" * 32}))
    result = CliRunner().invoke(cli, ["replay", str(path), "--verify"])
    assert result.exit_code == 1 and "commitment" in result.stderr


def test_a_table_of_bots_keeps_the_seed_it_was_given(absent_human: TestClient) -> None:
    c = absent_human
    room = c.post("/api/rooms", json={"rules": {"players": 2}, "seed": 77}).json()["room_id"]
    owner = c.post(f"/api/rooms/{room}/seats", json={"name": "ann"}).json()
    auth = {"Authorization": f"Bearer {owner['token']}"}
    for seat in (0, 1):  # the owner hands their own seat to a bot too
        c.post(f"/api/rooms/{room}/bots", json={"seat": seat}, headers=auth)
    with attended(c, room, owner["token"]):
        c.post(f"/api/rooms/{room}/start", headers=auth)
        wait_for(c, room, "over")
    record = c.get(f"/api/matches/{room}/record").json()
    assert record["seed"] == 77 and verify(record) == []


# ------------------------------------------------------------------ 2. claim windows


PAUSE_MS = 300


def test_the_outside_of_a_discard_is_the_same_with_or_without_a_claim_window(
        tmp_path: Path) -> None:
    """2 players: a claim window names the other seat's tiles.  A spectator sees every
    discard as the same three things: the discard at step s, nothing else for at least
    ``claim_pause_ms``, then the outcome at step s + 1; a snapshot asked for meanwhile
    comes after the outcome.  The windows are the player's own claim prompts."""
    # a snapshot at each of 30 discards, faster than a client's allowance of them
    server = ServerProcess(tmp_path / "window.db", {"HZMJ_CLAIM_PAUSE_SCALE": "1",
                                                    "HZMJ_SNAPSHOT_BURST": "100"}).start()
    try:
        room, token = room_with_bots(server.base, {"players": 2, "claim_pause_ms": PAUSE_MS},
                                     seed=5)

        async def run() -> tuple[list[tuple[float, dict[str, Any]]], int]:
            seen: list[tuple[float, dict[str, Any]]] = []
            windows = 0
            async with Client(server.ws_base, room, token) as me, \
                    Client(server.ws_base, room) as watcher:
                await me.until(lambda m: m["type"] == "snapshot")
                await watcher.until(lambda m: m["type"] == "snapshot")
                assert post(server.base, f"/api/rooms/{room}/start",
                            token=token).status_code == 200

                async def watch() -> None:
                    while True:
                        msg = await watcher.recv(60)
                        seen.append((time.monotonic(), msg))
                        if is_event("discard")(msg):
                            await watcher.send({"type": "snapshot"})

                watching = asyncio.create_task(watch())
                discards = 0
                while discards < 30:
                    msg = await me.recv(60)
                    if is_event("discard")(msg):
                        discards += 1
                    if msg["type"] == "prompt":
                        if msg["phase"] == "claim":
                            windows += 1
                        await me.send({"type": "action", "state_id": msg["state_id"],
                                       "action": msg["actions"][-1]})
                    if is_event("match_end")(msg):
                        break
                await asyncio.sleep(3 * PAUSE_MS / 1000)
                watching.cancel()
            return seen, windows

        seen, windows = asyncio.run(run())
        assert windows >= 1  # both kinds of discard happened
        discards = [i for i, (_, m) in enumerate(seen) if is_event("discard")(m)]
        assert len(discards) >= 25
        for i in discards[:-1]:
            at, msg = seen[i]
            later = seen[i + 1:]
            after = next((t, m) for t, m in later if m["type"] == "event")
            assert after[1]["state_id"] == msg["state_id"] + 1, (msg, after)
            # measured where the messages arrive: a loaded client may read the discard late
            assert after[0] - at >= 0.5 * PAUSE_MS / 1000, (msg, after)
            snap = next(m for _, m in later if m["type"] == "snapshot")
            assert snap["state_id"] == msg["state_id"] + 1, (msg, snap)
            assert snap["view"]["phase"] != "claim" and snap["view"]["claim"] is None
            assert snap["view"]["to_move"] in ([], [snap["view"]["turn"]])
            between = [m["type"] for t, m in later if t < after[0]]
            assert set(between) <= {"snapshot", "room"}, between
    finally:
        server.stop()


# ------------------------------------------------------------------ 3. tokens and logs


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_no_seat_token_reaches_the_server_log(tmp_path: Path, log_format: str) -> None:
    log = tmp_path / "server.log"
    server = ServerProcess(tmp_path / "log.db", {"HZMJ_LOG_FORMAT": log_format},
                           log_level="info", log=log).start()
    try:
        room, token = room_with_bots(server.base, {"players": 2}, seed=3)

        async def run() -> None:
            async with Client(server.ws_base, room, token) as me:
                first = await me.until(lambda m: m["type"] == "snapshot")
                assert first["seat"] == 0  # the subprotocol carried the token
                post(server.base, f"/api/rooms/{room}/start", token=token)
                await me.play(stop="draw")
            # the old way, a token in the URL, is refused (and kept out of the log)
            url = f"{server.ws_base}/ws/rooms/{room}?token={token}"
            async with connect(url) as ws:
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4400

        asyncio.run(run())
        httpx.get(f"{server.base}/api/rooms/{room}/hints",
                  headers={"authorization": f"Bearer {token}"})
    finally:
        server.stop()
    text = log.read_text()
    assert "WebSocket /ws/rooms/" in text  # the log is written at this level
    assert token not in text and token[:12] not in text
    if log_format == "json":  # every log line an object for a collector (stdout aside)
        lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
        assert all({"time", "level", "logger", "message"} <= set(x) for x in lines)
        loggers = {x["logger"] for x in lines}
        assert {"uvicorn.access", "uvicorn.error", "hzmj.server"} <= loggers, loggers
        assert not [line for line in text.splitlines()
                    if line.startswith(("INFO", "WARNING", "ERROR"))]
