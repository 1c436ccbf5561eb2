"""Faults that need a real server process: a bad stored room, a bursty client, bot
workers that die or hang (issue 11, items 4, 7, 9 and 10)."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from hzmj.bots.registry import make_bot
from hzmj.events import action_from_json
from hzmj.game import Match
from hzmj.rules import Rules
from test_server_support import Client, ServerProcess, post, room_with_bots, seats_held


def health(server: ServerProcess) -> dict[str, Any]:
    data: dict[str, Any] = httpx.get(f"{server.base}/api/health", timeout=10).json()
    return data


def bot_workers(server: ServerProcess, at_least: int = 1) -> list[int]:
    """The server's bot worker processes (not multiprocessing's resource tracker),
    waiting until ``at_least`` of them are up."""
    end = time.monotonic() + 60
    while True:
        found = []
        for pid in server.children():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"spawn_main" in cmd:
                found.append(pid)
        if len(found) >= at_least or time.monotonic() > end:
            return found
        time.sleep(0.1)


# ------------------------------------------------------------------ 4. quarantine


def test_a_stored_room_that_cannot_be_rebuilt_is_quarantined(tmp_path: Path) -> None:
    db = tmp_path / "bad.db"
    server = ServerProcess(db).start()
    good, token = room_with_bots(server.base, {"players": 2}, seed=8)
    server.stop()
    rows = [("float", '{"players": 4.0}', "running"), ("notjson", "{players", "open"),
            ("clock", '{"turn_seconds": 1e400}', "running")]
    with sqlite3.connect(db) as conn:
        for room_id, rules, status in rows:
            conn.execute("INSERT INTO rooms (id, name, rules, seed, salt, seed_fixed, status,"
                         " owner_seat, created_at) VALUES (?, 'x', ?, 1, '', 0, ?, 0, ?)",
                         (room_id, rules, status, time.time()))
        # a running room whose stored action does not replay
        conn.execute("INSERT INTO rooms (id, name, rules, seed, salt, seed_fixed, status,"
                     " owner_seat, created_at) VALUES ('replay', 'x', '{}', 1, '', 0,"
                     " 'running', 0, ?)", (time.time(),))
        conn.execute("INSERT INTO actions (room_id, idx, action, created_at) VALUES"
                     " ('replay', 0, '{\"type\": \"pong\", \"seat\": 3}', 0)")
    server.start()  # one bad row never stops the server
    try:
        h = health(server)
        assert h["quarantined"] == 4 and h["status"] == "degraded" and not h["ok"]
        assert "quarantined" in h["problems"][0]
        for room_id in ("float", "notjson", "clock", "replay"):
            r = httpx.get(f"{server.base}/api/rooms/{room_id}")
            assert r.status_code == 410 and "quarantined" in r.json()["detail"]
        assert post(server.base, f"/api/rooms/{good}/start", token=token).status_code == 200
    finally:
        server.stop()
    with sqlite3.connect(db) as conn:
        statuses = dict(conn.execute("SELECT id, status FROM rooms").fetchall())
    assert [statuses[r] for r in ("float", "notjson", "clock", "replay")] == ["broken"] * 4


# ------------------------------------------------------------------ 7. strikes decay


def test_rate_strikes_are_forgiven_over_time_but_a_flood_is_closed(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "rate.db", {
        "HZMJ_RATE_PER_SECOND": "20", "HZMJ_RATE_BURST": "10", "HZMJ_FLOOD_STRIKES": "15",
        "HZMJ_STRIKE_WINDOW": "1"}).start()
    try:
        room, _ = room_with_bots(server.base, {"players": 2}, seed=2)

        async def bursty() -> None:
            async with Client(server.ws_base, room) as watcher:
                for _ in range(6):  # some 60 refusals in all, never 15 within a second
                    for _ in range(20):
                        await watcher.send({"type": "snapshot"})
                    await asyncio.sleep(1.3)
                # a marker: a spectator asking for 托管 gets its own error, after the rest
                await watcher.send({"type": "auto", "on": True})
                await watcher.until(lambda m: "no seat" in m.get("reason", ""))
                refused = [m for m in watcher.messages if "rate limit" in m.get("reason", "")]
                assert len(refused) >= 30  # more than flood_strikes in all
                await watcher.send({"type": "snapshot"})  # and still served
                assert (await watcher.recv())["type"] == "snapshot"

        async def flood() -> int:
            async with Client(server.ws_base, room) as watcher:
                for _ in range(200):
                    await watcher.send({"type": "snapshot"})
                assert watcher.ws is not None
                # read on (a client that stops reading never sees the close frame behind
                # the queued answers)
                with pytest.raises(ConnectionClosed):
                    while True:
                        await watcher.recv(timeout=10)
                assert watcher.ws.close_code is not None
                return watcher.ws.close_code

        asyncio.run(bursty())
        assert asyncio.run(flood()) == 1008
    finally:
        server.stop()


# ------------------------------------------------------------------ 9, 10. bot workers


def test_a_dead_bot_worker_is_replaced_and_no_bot_move_is_lost(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "workers.db", {
        "HZMJ_BOT_WORKERS": "1", "HZMJ_BOT_DELAY": "0.02"}).start()
    try:
        rules = {"players": 2, "hands": 16}
        room, token = room_with_bots(server.base, rules, seed=31)
        post(server.base, f"/api/rooms/{room}/bots", {"seat": 0, "bot": "efficiency"}, token)
        with seats_held([(room, token)], [server.ws_base]):  # its owner runs it
            assert post(server.base, f"/api/rooms/{room}/start", token=token).status_code == 200
            (worker,) = bot_workers(server)
            while httpx.get(f"{server.base}/api/rooms/{room}").json()["state_id"] < 10:
                time.sleep(0.05)
            os.kill(worker, signal.SIGKILL)
            end = time.monotonic() + 60
            while health(server)["bot_worker_restarts"] < 1 and time.monotonic() < end:
                time.sleep(0.1)
            h = health(server)
            assert h["bot_worker_restarts"] == 1 and h["status"] == "degraded"
            assert "bot worker died" in " ".join(h["problems"])
            assert bot_workers(server) and worker not in bot_workers(server)
            while httpx.get(f"{server.base}/api/rooms/{room}").json()["status"] != "over":
                assert time.monotonic() < end + 240
                time.sleep(0.2)
        record = httpx.get(f"{server.base}/api/matches/{room}/record").json()
    finally:
        server.stop()
    # every move is the bots' own choice, as offline: none fell back to the default
    match = Match(Rules.from_dict(rules), record["seed"])
    bots = [make_bot("efficiency", record["seed"] + seat) for seat in (0, 1)]
    for i, raw in enumerate(record["actions"]):
        seat = match.to_move()[0]
        chosen = bots[seat].choose(match.view(seat), match.legal_actions(seat))
        assert chosen == action_from_json(raw), i
        match.apply(chosen)


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="needs SIGSTOP")
def test_a_room_serves_its_player_while_its_bot_thinks(tmp_path: Path) -> None:
    """Bot workers frozen (SIGSTOP): the bot cannot answer, yet the room still answers
    its player at once.  Workers are one per core by default."""
    server = ServerProcess(tmp_path / "think.db", {"HZMJ_BOT_WORKERS": "-1"}).start()
    try:
        assert health(server)["bot_workers"] == (os.cpu_count() or 1)
        room, token = room_with_bots(server.base, {"players": 2}, seed=6)
        workers = bot_workers(server, os.cpu_count() or 1)
        assert len(workers) == (os.cpu_count() or 1)

        async def run() -> float:
            async with Client(server.ws_base, room, token) as me:
                await me.until(lambda m: m["type"] == "snapshot")
                post(server.base, f"/api/rooms/{room}/start", token=token)
                prompt = await me.until(lambda m: m["type"] == "prompt"
                                        and m["phase"] == "turn", 60)
                for pid in workers:
                    os.kill(pid, signal.SIGSTOP)
                try:
                    await me.send({"type": "action", "state_id": prompt["state_id"],
                                   "action": prompt["actions"][-1]})
                    await asyncio.sleep(0.3)  # the bot is thinking (frozen) by now
                    slowest = 0.0
                    for _ in range(3):
                        sent = time.monotonic()
                        await me.send({"type": "snapshot"})
                        await me.until(lambda m: m["type"] == "snapshot", 10)
                        slowest = max(slowest, time.monotonic() - sent)
                    return slowest
                finally:
                    for pid in workers:
                        os.kill(pid, signal.SIGCONT)

        assert asyncio.run(run()) < 2.0
    finally:
        server.stop()
