"""Holes found by an attack on the recent hardening (slow clients, names, addresses,
bot seats, a refused join): each hole's test failed before its fix; the WebSocket game
and the emoji names are what the fixes must keep working."""

from __future__ import annotations

import json
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from hzmj.server.app import create_app
from hzmj.server.config import ServerConfig
from test_server_support import uvicorn_thread

# ------------------------------------------------------------------ slow clients


@pytest.fixture
def port(tmp_path: Path) -> Iterator[int]:
    """A real uvicorn server with a 0.5 s deadline; uvicorn's keep-alive stays at its 5 s."""
    cfg = ServerConfig(db=str(tmp_path / "slow.db"), bot_workers=0, request_seconds=0.5,
                       bot_delay=0, hand_pause=0, claim_pause_scale=0)
    with uvicorn_thread(cfg) as free:
        yield free


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock`` within ``seconds`` (whatever it sends first)."""
    sock.settimeout(0.2)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if sock.recv(65536) == b"":
                return True
        except TimeoutError:
            pass
        except ConnectionResetError:
            return True
    return False


UPGRADE = (b"GET /ws/rooms/x HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n"
           b"Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")


@pytest.mark.parametrize("opening, then", [
    # a WebSocket upgrade that announces a body and never sends it (llhttp reads the
    # body before it hands over: the deadline must wait for the hand-over, not the headers)
    (UPGRADE + b"Content-Length: 1000000\r\n\r\n", b""),
    (UPGRADE + b"Transfer-Encoding: chunked\r\n\r\n", b""),
    # one request, then a blank line the parser skips: uvicorn's keep-alive timer is
    # cancelled by any byte and nothing started the next request's clock (the same for
    # bytes after an upgrade uvicorn does not support)
    (b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n", b"\r\n"),
])
def test_no_request_holds_a_socket_past_the_deadline(port: int, opening: bytes,
                                                     then: bytes) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(opening)
        time.sleep(0.2)
        if then:
            sock.sendall(then)
        assert closed_within(sock, 3.0)  # 0.5 s deadline; uvicorn's keep-alive is 5 s


def test_a_client_that_never_reads_its_responses_is_dropped(port: int) -> None:
    # pipelined requests for a static file: megabytes more than the kernel's buffers
    # take, waiting on a shut window (the socket and the response were held for ever)
    one = len(httpx.get(f"http://127.0.0.1:{port}/static/room.js", timeout=10).content)
    count = 16_000_000 // one
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    with sock:
        sock.connect(("127.0.0.1", port))
        sock.sendall(b"GET /static/room.js HTTP/1.1\r\nHost: x\r\n\r\n" * count)
        time.sleep(4.0)  # not reading: the server stalls, then drops the connection
        got = 0
        sock.settimeout(2.0)
        try:
            while data := sock.recv(1 << 20):
                got += len(data)
        except (ConnectionResetError, TimeoutError):
            pass
    assert got < count * one // 2


def test_a_websocket_game_outlives_the_deadline(port: int) -> None:
    from websockets.sync.client import connect

    room = httpx.post(f"http://127.0.0.1:{port}/api/rooms", json={}, timeout=10).json()
    with connect(f"ws://127.0.0.1:{port}/ws/rooms/{room['room_id']}") as ws:
        assert json.loads(ws.recv(timeout=5))["type"] == "room"
        time.sleep(1.5)  # three deadlines
        ws.send(json.dumps({"type": "snapshot"}))
        assert json.loads(ws.recv(timeout=5))["type"] in ("snapshot", "room")


# ------------------------------------------------------------------ names


@pytest.mark.parametrize("name", [
    "Alice\ufe0f", "Al\ufe00ice", "Alice\U000e0100", "Alice\u17b4", "x\u17b5",
    "deleted player\ufe0f", "\u2764\ufe0f\ufe0f",
])
def test_names_refuse_invisible_selectors(name: str) -> None:
    from hzmj.server.account_protocol import player_name

    with pytest.raises(ValueError, match="invisible"):
        player_name(name)


@pytest.mark.parametrize("name", ["\u2764\ufe0f", "1\ufe0f\u20e3", "\u845b\U000e0100", "周五"])
def test_names_keep_emoji_and_ideographic_variants(name: str) -> None:
    from hzmj.server.account_protocol import player_name

    assert player_name(name) == name


# ------------------------------------------------------------------ addresses kept


def test_a_room_that_expires_keeps_no_address(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from hzmj.server import app as app_module

    monkeypatch.setattr(app_module, "client_address",
                        lambda request: request.headers.get("x-from", "192.0.2.1"))
    cfg = ServerConfig(db=str(tmp_path / "gone.db"), bot_workers=0, open_idle=0.5,
                       sweep_every=0.1)
    with TestClient(create_app(cfg)) as c:
        room = c.post("/api/rooms", json={}).json()["room_id"]
        owner = c.post(f"/api/rooms/{room}/seats", json={"name": "ann"}).json()
        auth = {"Authorization": f"Bearer {owner['token']}"}
        sq = c.post(f"/api/rooms/{room}/seats", json={"name": "sq"},
                    headers={"x-from": "203.0.113.9"}).json()
        assert c.delete(f"/api/rooms/{room}/seats/{sq['seat']}", headers=auth).status_code == 200
        end = time.monotonic() + 10
        while c.get(f"/api/rooms/{room}").json()["status"] != "expired":
            assert time.monotonic() < end
            time.sleep(0.1)
    with sqlite3.connect(tmp_path / "gone.db") as db:
        assert db.execute("SELECT status, removed FROM rooms").fetchall() == [("expired", None)]
        assert db.execute("SELECT address FROM seats").fetchall() == [(None,)]


# ------------------------------------------------------------------ bot seats


def test_a_bot_the_owner_left_does_not_play_the_next_player(tmp_path: Path) -> None:
    cfg = ServerConfig(db=str(tmp_path / "bots.db"), bot_workers=0, bot_delay=0,
                       hand_pause=0, claim_pause_scale=0)
    app = create_app(cfg)
    with TestClient(app) as c:
        room = c.post("/api/rooms", json={"rules": {"players": 2}}).json()["room_id"]
        ann = c.post(f"/api/rooms/{room}/seats", json={"name": "ann"}).json()
        bob = c.post(f"/api/rooms/{room}/seats", json={"name": "bob"}).json()
        ann_auth = {"Authorization": f"Bearer {ann['token']}"}
        assert c.post(f"/api/rooms/{room}/bots", json={"seat": ann["seat"], "bot": "strong"},
                      headers=ann_auth).status_code == 200
        assert c.post(f"/api/rooms/{room}/leave", headers=ann_auth).json()["escaped"] is False
        cat = c.post(f"/api/rooms/{room}/seats", json={"name": "cat"}).json()
        assert cat["seat"] == ann["seat"]
        assert c.post(f"/api/rooms/{room}/start",
                      headers={"Authorization": f"Bearer {bob['token']}"}).status_code == 200
        assert app.state.lobby.rooms[room].bots == {}  # two players, no bot


def test_a_seat_the_database_refused_stays_free(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The join answers 503 "nothing changed" and hands out no token: the seat was
    taken in memory all the same, held by nobody until the owner removed it."""
    from sqlalchemy.exc import OperationalError

    app = create_app(ServerConfig(db=str(tmp_path / "ghost.db"), bot_workers=0))
    with TestClient(app) as c:
        room = c.post("/api/rooms", json={}).json()["room_id"]
        assert c.post(f"/api/rooms/{room}/seats", json={"name": "ann"}).status_code == 200
        store = app.state.lobby.store

        async def locked(*args: object, **kwargs: object) -> None:
            raise OperationalError("INSERT INTO seats", {}, Exception("database is locked"))

        with monkeypatch.context() as patch:
            patch.setattr(store, "save_seat", locked)
            refused = c.post(f"/api/rooms/{room}/seats", json={"name": "bob"})
            assert refused.status_code == 503 and refused.json()["code"] == "storage"
        info = c.get(f"/api/rooms/{room}").json()
        assert info["free_seats"] == [1, 2, 3] and info["seats"][1]["name"] is None
        assert c.post(f"/api/rooms/{room}/seats", json={"name": "bob"}).json()["seat"] == 1


def test_a_long_forwarded_name_is_counted_under_a_key_a_seat_can_store() -> None:
    # a trusted proxy may forward a name, not an address: seats.address is 64 characters
    # and PostgreSQL refused the join (503), leaving the seat taken by nobody
    from hzmj.server.guard import address_key

    key = address_key("client-" + "a" * 80)
    assert len(key) <= 64 and key == address_key("client-" + "a" * 80)
    assert key != address_key("client-" + "a" * 79)
    assert address_key("testclient") == "testclient"
