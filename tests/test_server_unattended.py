"""A running room nobody is at: it pauses while no seat token has a connection (spectators
do not count), resumes with its clocks moved on when a seat connects, and is dissolved
after ``unattended_limit``: its record so far stays (status ``dissolved``, replayed, never
rated), and the room answers that it was dissolved."""

from __future__ import annotations

import functools
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from hzmj.record import verify
from hzmj.server.app import create_app
from hzmj.server.config import ServerConfig

Make = Callable[..., TestClient]
# the human's clock is 15 s x 0.2 = 3 s, and a disconnected seat goes to its bot after
# 0.1 s: a table that did not pause would make a move every few tens of milliseconds
QUICK = {"bot_delay": 0.05, "hand_pause": 0, "bot_workers": 0, "claim_pause_scale": 0,
         "allow_fixed_seed": True, "away_grace": 0.1, "time_scale": 0.2, "sweep_every": 0.1}


@pytest.fixture
def make(tmp_path: Path) -> Iterator[Make]:
    """``make(**config)``: a running app on one database (a second one: a restart)."""
    clients: list[TestClient] = []

    def build(**overrides: Any) -> TestClient:
        for old in clients:  # one server at a time on the database, as in a restart
            old.__exit__(None, None, None)
        clients.clear()
        cfg = ServerConfig(**{"db": str(tmp_path / "unattended.db"), **QUICK, **overrides})
        client = TestClient(create_app(cfg))
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def mine(token: str) -> list[str]:
    return ["hzmj", f"token.{token}"]


def ann_and_a_bot(c: TestClient, bot: str = "efficiency", seed: int = 4) -> tuple[str, str]:
    """A 2-player room: ann at seat 0 (its owner), a bot at seat 1; (room, ann's token)."""
    room = c.post("/api/rooms", json={"rules": {"players": 2}, "seed": seed}).json()["room_id"]
    token = c.post(f"/api/rooms/{room}/seats", json={"name": "ann"}).json()["token"]
    assert c.post(f"/api/rooms/{room}/bots", json={"seat": 1, "bot": bot},
                  headers=bearer(token)).status_code == 200
    return room, token


def until(ws: Any, kind: str) -> dict[str, Any]:
    while (msg := ws.receive_json())["type"] != kind:
        pass
    return msg


def live(c: TestClient, room: str) -> Any:
    return c.app.state.lobby.rooms[room]  # type: ignore[attr-defined]


def paused(c: TestClient, room: str, within: float = 5.0) -> Any:
    """The room once its actor has seen the last seat go (the socket's close is a job)."""
    end = time.monotonic() + within
    while live(c, room).paused_at is None:
        assert time.monotonic() < end, "the room did not pause"
        time.sleep(0.02)
    return live(c, room)


def play_a_few(ws: Any, prompts: int) -> dict[str, Any]:
    """Answer ``prompts`` prompts with their default, then any claim prompts; the next
    turn's prompt (not answered)."""
    while (p := until(ws, "prompt"))["phase"] != "turn" or prompts > 0:
        prompts -= 1
        ws.send_json({"type": "action", "state_id": p["state_id"], "action": p["actions"][-1]})
    return p


def test_a_table_nobody_is_at_stands_still_and_resumes_with_its_clock_moved_on(
        make: Make) -> None:
    c = make(unattended_limit=30)
    room, token = ann_and_a_bot(c)
    with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=mine(token)) as ws:
        assert c.post(f"/api/rooms/{room}/start", headers=bearer(token)).status_code == 200
        before = play_a_few(ws, 3)
    gone_at = time.time()
    r = paused(c, room)
    actions = len(r.match.actions)
    info = c.get(f"/api/rooms/{room}").json()
    assert info["status"] == "running"
    assert abs(info["dissolve_ms"] - (gone_at + 30) * 1000) < 1000
    time.sleep(1.0)  # ann's bot (after 0.1 s) and the other bot would have played
    assert len(r.match.actions) == actions
    # a spectator neither resumes it nor keeps it from dissolving
    with c.websocket_connect(f"/ws/rooms/{room}") as watcher:
        seen = until(watcher, "room")["room"]
        assert seen["dissolve_ms"] == info["dissolve_ms"] and seen["spectators"] == 1
        assert until(watcher, "snapshot")["state_id"] == before["state_id"]
        time.sleep(0.5)
        assert len(r.match.actions) == actions and r.paused_at is not None
        with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=mine(token)) as ws:
            back_at = time.time()
            assert until(ws, "room")["room"]["dissolve_ms"] is None
            assert until(ws, "snapshot")["state_id"] == before["state_id"]
            prompt = until(ws, "prompt")  # the same decision, its clock moved on
            assert prompt["state_id"] == before["state_id"]
            assert prompt["actions"] == before["actions"]
            moved = prompt["deadline_ms"] - before["deadline_ms"]
            assert abs(moved - (back_at - gone_at) * 1000) < 400, (moved, back_at - gone_at)
            assert prompt["deadline_ms"] > time.time() * 1000 + 1500  # of its 3 s
            # the spectator is told the clock that runs again (a turn's clock)
            clock = until(watcher, "clock")
            assert clock["seat"] == 0 and clock["deadline_ms"] == prompt["deadline_ms"]
            ws.send_json({"type": "action", "state_id": prompt["state_id"],
                          "action": prompt["actions"][-1]})
            until(ws, "prompt")  # the bot played, and it is ann's turn again
            assert len(r.match.actions) >= actions + 2


def test_an_all_bot_room_its_owner_runs_pauses_when_the_owner_s_socket_goes(
        make: Make) -> None:
    c = make(unattended_limit=30)
    room, token = ann_and_a_bot(c, bot="random")
    assert c.post(f"/api/rooms/{room}/bots", json={"seat": 0, "bot": "random"},
                  headers=bearer(token)).status_code == 200  # ann's own seat too
    with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=mine(token)):
        assert c.post(f"/api/rooms/{room}/start", headers=bearer(token)).status_code == 200
        end = time.monotonic() + 20
        while len(live(c, room).match.actions) < 10:
            assert time.monotonic() < end, "the bots did not play"
            time.sleep(0.02)
    r = paused(c, room)
    time.sleep(0.2)  # a bot's answer already on its way lands
    actions = len(r.match.actions)
    time.sleep(0.8)  # 16 bot moves at 0.05 s apiece
    assert len(r.match.actions) == actions and not r.match.over
    with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=mine(token)) as ws:
        until(ws, "snapshot")
        end = time.monotonic() + 20
        while len(r.match.actions) < actions + 5:
            assert time.monotonic() < end, "the bots did not play on"
            time.sleep(0.02)
        assert r.paused_at is None


def test_a_room_started_with_nobody_connected_never_moves(make: Make) -> None:
    """Create, start, walk away: not one move is made, and the room is dissolved."""
    c = make(unattended_limit=1)
    room, token = ann_and_a_bot(c)
    assert c.post(f"/api/rooms/{room}/bots", json={"seat": 0, "bot": "random"},
                  headers=bearer(token)).status_code == 200
    assert c.post(f"/api/rooms/{room}/start", headers=bearer(token)).status_code == 200
    assert c.get(f"/api/rooms/{room}").json()["dissolve_ms"] is not None
    end = time.monotonic() + 10
    while c.get(f"/api/rooms/{room}").json()["status"] != "dissolved":
        assert time.monotonic() < end, "the room was not dissolved"
        time.sleep(0.05)
    assert c.get(f"/api/matches/{room}/record").json()["actions"] == []


def test_a_room_paused_past_the_limit_is_dissolved_and_its_replay_stays(
        make: Make, tmp_path: Path) -> None:
    c = make(unattended_limit=1)
    room, token = ann_and_a_bot(c)
    with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=mine(token)) as ws:
        assert c.post(f"/api/rooms/{room}/start", headers=bearer(token)).status_code == 200
        play_a_few(ws, 4)
    gone_at = time.monotonic()
    end = gone_at + 10
    while (info := c.get(f"/api/rooms/{room}").json())["status"] != "dissolved":
        assert time.monotonic() < end, "the room was not dissolved"
        time.sleep(0.05)
    assert time.monotonic() - gone_at >= 1.0  # not before its limit
    assert c.get("/api/health").json()["rooms"] == 0  # out of memory
    assert info["dissolved_after"] == 1 and info["dissolve_ms"] is None
    with sqlite3.connect(tmp_path / "unattended.db") as db:
        [(status, stored)] = db.execute("SELECT status, (SELECT count(*) FROM actions WHERE "
                                        "room_id = rooms.id) FROM rooms").fetchall()
    assert status == "dissolved"
    record = c.get(f"/api/matches/{room}/record").json()
    assert record["over"] is False and len(record["actions"]) == stored >= 8
    assert verify(record) == []  # the seed and salt open the commitment made at the start
    assert info["seed"] == record["seed"] and info["commitment"] == record["commitment"]
    replay = c.get(f"/api/matches/{room}/replay").json()
    assert len(replay["steps"]) == stored + 1 and replay["hands_replayed"] == 0
    # the room answers that it was dissolved, a seat's socket and a spectator's alike
    said = ("this room was dissolved after 1 second with nobody at the table; its replay "
            "stays available")
    for protocols in (mine(token), ["hzmj"]):
        with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=protocols) as ws, \
                pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert (closed.value.code, closed.value.reason) == (4404, said)
    assert c.post(f"/api/rooms/{room}/leave", headers=bearer(token)).status_code == 404
    # listed among ann's matches (a guest's cookie), dissolved, with no place; rated for
    # no one, counted in no total
    end = time.monotonic() + 5
    while not (matches := c.get("/api/me/matches").json()["matches"]):
        assert time.monotonic() < end, "the dissolved match is not listed"
        time.sleep(0.05)
    [listed] = matches
    assert listed["status"] == "dissolved" and listed["place"] is None
    assert listed["points"] == record["points"][0] and listed["hands"] == 1
    assert listed["rating_before"] is None and listed["rating_after"] is None
    assert c.get("/api/players/bot:efficiency").status_code == 404  # no match counted


def test_a_seat_that_connects_while_the_room_is_dissolved_is_told_so(make: Make) -> None:
    """The sweeper dissolves a room in its actor, then lets it go: a seat whose connect
    comes between the two is refused with the dissolution, never seated at a table that
    plays no more (nor does it bring the match back)."""
    c = make(unattended_limit=30, sweep_every=60)  # no sweep of its own here
    room, token = ann_and_a_bot(c)
    assert c.post(f"/api/rooms/{room}/start", headers=bearer(token)).status_code == 200
    r = paused(c, room)
    assert c.portal.call(r.call, functools.partial(r.dissolve, r.paused_at + 30))
    assert live(c, room).status == "dissolved"  # still in memory, not let go yet
    with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=mine(token)) as ws, \
            pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == 4404 and "dissolved after 30 seconds" in closed.value.reason
    left = c.post(f"/api/rooms/{room}/leave", headers=bearer(token))  # an escape: refused
    assert left.status_code == 409 and left.json()["code"] == "dissolved"
    assert len(r.match.actions) == 0 and r.paused_at is not None


def test_a_restored_running_room_starts_paused_and_is_dissolved_if_nobody_comes(
        make: Make, tmp_path: Path) -> None:
    c = make(unattended_limit=30)
    room, token = ann_and_a_bot(c)
    with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=mine(token)) as ws:
        assert c.post(f"/api/rooms/{room}/start", headers=bearer(token)).status_code == 200
        before = play_a_few(ws, 3)
    c = make(unattended_limit=30)  # the server restarts on the same database
    r = live(c, room)
    assert r.paused_at is not None and c.get(f"/api/rooms/{room}").json()["dissolve_ms"]
    actions = len(r.match.actions)
    time.sleep(1.0)
    assert len(r.match.actions) == actions
    with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=mine(token)) as ws:
        prompt = until(ws, "prompt")  # a fresh clock (docs/rules-decisions.md #16)
        assert prompt["state_id"] == before["state_id"]
        left = prompt["deadline_ms"] - time.time() * 1000
        assert 2500 < left <= 3000, left
    c = make(unattended_limit=0.5)  # restarted again; this time nobody comes
    assert live(c, room).paused_at is not None
    end = time.monotonic() + 10
    while c.get(f"/api/rooms/{room}").json()["status"] != "dissolved":
        assert time.monotonic() < end, "the restored room was not dissolved"
        time.sleep(0.05)
    assert len(c.get(f"/api/matches/{room}/record").json()["actions"]) == actions


def test_a_discard_s_pause_that_ran_out_while_paused_is_not_held_again(make: Make) -> None:
    """A held discard's pause runs on while the table stands still (its outcome may be
    decided already): one that ran out meanwhile is over.  Moved on at the resume, it
    froze the table a second time: the claimer who came back got no snapshot and no
    prompt for what was left of it, while their claim clock ran."""
    c = make(unattended_limit=30, claim_pause_scale=4, time_scale=1)  # a 2 s pause, 3 s claim
    room, token = ann_and_a_bot(c, seed=3)  # ann's third prompt is a claim
    with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=mine(token)) as ws:
        assert c.post(f"/api/rooms/{room}/start", headers=bearer(token)).status_code == 200
        while (claim := until(ws, "prompt"))["phase"] != "claim":
            ws.send_json({"type": "action", "state_id": claim["state_id"],
                          "action": claim["actions"][-1]})
    r = paused(c, room)
    assert r.hold_step is not None and r.match.phase == "claim"
    time.sleep(max(0.0, r.hold_until - time.monotonic()) + 0.3)  # ran out, paused
    with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=mine(token)) as ws:
        back_at = time.monotonic()
        until(ws, "snapshot")
        prompt = until(ws, "prompt")
        assert time.monotonic() - back_at < 0.5
        assert prompt["state_id"] == claim["state_id"] and prompt["phase"] == "claim"
        assert prompt["deadline_ms"] > time.time() * 1000 + 500  # its clock moved on


def test_a_rated_match_nobody_is_at_is_finished_by_bots_not_dissolved(make: Make) -> None:
    """A match that moves an account's rating (RULES §8.5's spirit: leaving does not undo
    a loss) pauses like any other, but at ``unattended_limit`` 托管 plays it on instead of
    a dissolution, and it pauses no more: closing the tab of a lost match voids nothing."""
    c = make(unattended_limit=1)
    r = c.post("/api/auth/register", json={"username": "alice", "password": "correct horse",
                                           "display_name": "Alice"})
    assert r.status_code == 200, r.text
    # no seed: a deal the client chose is rated for nobody, and would be dissolved
    room = c.post("/api/rooms", json={"rules": {"players": 2}}).json()["room_id"]
    signed_in = {"X-CSRF-Token": r.json()["csrf"]}  # the session cookie's
    token = c.post(f"/api/rooms/{room}/seats", json={"name": "Alice"},
                   headers=signed_in).json()["token"]
    assert c.post(f"/api/rooms/{room}/bots", json={"seat": 1, "bot": "efficiency"},
                  headers=bearer(token)).status_code == 200
    with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=mine(token)) as ws:
        assert c.post(f"/api/rooms/{room}/start", headers=bearer(token)).status_code == 200
        play_a_few(ws, 2)
    r = paused(c, room)
    actions = len(r.match.actions)
    end = time.monotonic() + 10
    while not r.left_to_bots:
        assert time.monotonic() < end, "the rated match was not handed to its bots"
        time.sleep(0.05)
    assert r.paused_at is None and r.status == "running"
    while len(r.match.actions) < actions + 10 and not r.match.over:
        assert time.monotonic() < end, "the bots did not play the rated match on"
        time.sleep(0.05)
    assert c.get(f"/api/rooms/{room}").json()["status"] in ("running", "over")
    # a seat that comes and goes again does not pause it: the bots finish it
    with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=mine(token)) as ws:
        until(ws, "snapshot")
    time.sleep(0.3)
    assert r.paused_at is None and not r.dissolved
