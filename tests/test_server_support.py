"""Helpers for the server tests: a real server process on a free port, and a scripted
WebSocket player.  (No tests here; the test_server_* modules import it.)"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from hzmj.events import action_from_json
from hzmj.game import Match
from hzmj.rules import Rules

FAST = {"HZMJ_BOT_DELAY": "0", "HZMJ_HAND_PAUSE": "0", "HZMJ_RATE_PER_SECOND": "1000",
        "HZMJ_RATE_BURST": "1000", "HZMJ_BOT_WORKERS": "0", "HZMJ_CREATE_BURST": "1000",
        "HZMJ_JOIN_BURST": "1000", "HZMJ_CONNECT_BURST": "1000",
        "HZMJ_ALLOW_FIXED_SEED": "1", "HZMJ_CLAIM_PAUSE_SCALE": "0"}


def redis_for_tests(*, flush: bool) -> Iterator[str]:
    """A Redis URL for a module's tests (a generator for a module-scoped fixture):
    ``HZMJ_TEST_REDIS_URL`` when set (its database emptied first when ``flush``), else a
    ``redis-server`` of its own on a free port, stopped afterwards; ``pytest.skip`` when
    there is neither."""
    import pytest
    import redis

    url = os.environ.get("HZMJ_TEST_REDIS_URL")
    if url:
        if flush:
            redis.Redis.from_url(url).flushdb()
        yield url
        return
    if shutil.which("redis-server") is None:
        pytest.skip("no Redis: HZMJ_TEST_REDIS_URL is not set and redis-server is not "
                    "installed (.ci/redis.sh installs and starts one)")
    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(100):
        try:
            if redis.Redis.from_url(url).ping():
                break
        except redis.RedisError:
            time.sleep(0.05)
    yield url
    proc.terminate()
    proc.wait(10)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``python -m hzmj.server`` on a free port with a database file."""

    def __init__(self, db: Path, env: dict[str, str] | None = None,
                 args: list[str] | None = None, log_level: str = "warning",
                 log: Path | None = None) -> None:
        self.db = db
        self.env = {**os.environ, **FAST, **(env or {})}
        self.args = args or []  # more command-line options (a cluster node's)
        self.start_timeout = 120.0  # a busy shared 2-core machine starts slowly
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_level = log_level
        self.log = log  # the server's stdout and stderr go here when given

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        out = None if self.log is None else self.log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hzmj.server", "--port", str(self.port), "--db",
             str(self.db), "--log-level", self.log_level, *self.args], env=self.env,
            stdout=out, stderr=out)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            try:
                if httpx.get(f"{self.base}/api/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("server did not come up")

    def children(self) -> list[int]:
        assert self.proc is not None
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True,
                             text=True).stdout
        return [int(p) for p in out.split()]

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def post(base: str, path: str, body: dict[str, Any] | None = None,
         token: str | None = None) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return httpx.post(f"{base}{path}", json=body or {}, headers=headers, timeout=10)


def room_with_bots(base: str, rules: dict[str, Any] | None = None, seed: int | None = 1,
                   bots: int | None = None, bot: str = "efficiency") -> tuple[str, str]:
    """A room with one player at seat 0 and bots on the other seats: (room_id, token)."""
    r = post(base, "/api/rooms", {"rules": rules or {}, "name": "test", "seed": seed})
    assert r.status_code == 200, r.text
    room = r.json()["room_id"]
    joined = post(base, f"/api/rooms/{room}/seats", {"name": "tester"}).json()
    players = Rules.from_dict(rules or {}).players
    for seat in range(1, players if bots is None else bots + 1):
        r = post(base, f"/api/rooms/{room}/bots", {"seat": seat, "bot": bot}, joined["token"])
        assert r.status_code == 200, r.text
    return room, joined["token"]


def ws_protocols(token: str | None) -> list[Subprotocol]:
    """The WebSocket subprotocols that carry a seat token (never the URL)."""
    return [Subprotocol("hzmj")] + ([Subprotocol(f"token.{token}")] if token else [])


class Client:
    """A WebSocket client that records every message it receives."""

    def __init__(self, ws_base: str, room: str, token: str | None = None) -> None:
        self.url = f"{ws_base}/ws/rooms/{room}"
        self.protocols = ws_protocols(token)
        self.messages: list[dict[str, Any]] = []
        self.ws: ClientConnection | None = None

    async def __aenter__(self) -> Client:
        self.ws = await connect(self.url, max_size=None, subprotocols=self.protocols)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.ws is not None
        await self.ws.close()

    async def send(self, data: dict[str, Any] | str) -> None:
        assert self.ws is not None
        await self.ws.send(data if isinstance(data, str) else json.dumps(data))

    async def recv(self, timeout: float = 20) -> dict[str, Any]:
        assert self.ws is not None
        msg: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.messages.append(msg)
        return msg

    async def until(self, pred: Callable[[dict[str, Any]], bool],
                    timeout: float = 20) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            msg = await self.recv(max(0.01, end - time.monotonic()))
            if pred(msg):
                return msg

    async def play(self, choose: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                   stop: str = "match_end", timeout: float = 60) -> dict[str, Any]:
        """Answer every prompt (by default with its default action) and press ready after
        each hand until an event of type ``stop``; return that event message."""
        end = time.monotonic() + timeout
        while True:
            msg = await self.recv(max(0.01, end - time.monotonic()))
            if msg["type"] == "prompt":
                action = choose(msg) if choose else msg["actions"][-1]
                await self.send({"type": "action", "state_id": msg["state_id"],
                                 "action": action})
            elif msg["type"] == "event" and msg["event"]["type"] == stop:
                return msg
            elif msg["type"] == "event" and msg["event"]["type"] == "hand_end":
                await self.send({"type": "ready"})  # the gate between hands


def is_event(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["type"] == "event" and m["event"]["type"] == kind


def check_no_leak(messages: list[dict[str, Any]], seat: int | None) -> None:
    """Structural check that no message shows another seat's concealed tiles or the wall
    before the hand is over (hand_end reveals every hand, RULES §13)."""
    for msg in messages:
        if msg["type"] == "event":
            _check_event(msg["event"], seat)
            continue
        if msg["type"] == "snapshot":  # its log of the hand: events as sent one by one
            for e in msg["hand_events"]:
                _check_event(e, seat)
            msg = {k: v for k, v in msg.items() if k != "hand_events"}
        keys = _keys(msg)
        assert "wall" not in keys and "concealed" not in keys, msg
        if msg["type"] == "snapshot" and msg["view"] is not None:
            v = msg["view"]
            assert v["seat"] == seat
            if seat is None:
                assert v["hand"] is None and v["last_draw"] is None
            for p in v["players"]:
                assert set(p) >= {"concealed_count"} and "hand" not in p
        elif msg["type"] == "prompt":
            assert seat is not None
            assert all(a["seat"] == seat for a in msg["actions"])


def _check_event(e: dict[str, Any], seat: int | None) -> None:
    keys = _keys(e)
    assert "wall" not in keys and ("concealed" not in keys or e["type"] == "hand_end"), e
    if e["type"] == "hand_start":
        assert all(h is None for i, h in enumerate(e["hands"]) if i != seat), e
    if e["type"] == "draw" and e["seat"] != seat:
        assert e["tile"] is None, e
    if e["type"] == "kong" and e["kind"] == "concealed" and e["seat"] != seat:
        assert e["tile"] is None, e


def _keys(data: Any) -> set[str]:
    if isinstance(data, dict):
        return set(data).union(*(_keys(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(*(_keys(v) for v in data))
    return set()


def check_against_record(messages: list[dict[str, Any]], seat: int | None,
                         record: dict[str, Any]) -> int:
    """Every event, snapshot and prompt equals what the engine gives ``seat`` at that
    state, replaying the record: the server sends exactly the redacted engine output.
    Returns how many messages were compared."""
    by_step: dict[int, list[dict[str, Any]]] = {}
    for msg in messages:
        if msg["type"] in ("snapshot", "prompt") and (msg["type"] == "prompt"
                                                       or msg["view"] is not None):
            by_step.setdefault(msg["state_id"], []).append(msg)
    match = Match(Rules.from_dict(record["rules"]), record["seed"])
    actions = [action_from_json(a) for a in record["actions"]]
    # several engine states share one public step (answers in a claim window): a message
    # of that step must equal what the engine gives at one of them
    seen: dict[int, list[tuple[Any, list[dict[str, Any]]]]] = {}
    for n in range(len(actions) + 1):
        seen.setdefault(match.step, []).append(
            (json.loads(json.dumps(match.view(seat))),
             [a.to_json() for a in match.legal_actions(seat)] if seat is not None else []))
        if n < len(actions):
            match.apply(actions[n])
    compared = 0
    sent = [json.loads(json.dumps(e.for_seat(seat))) for e in match.log]
    for step, msgs in by_step.items():
        for msg in msgs:
            states = seen[step]
            if msg["type"] == "snapshot":
                assert any(msg["view"] == view for view, _ in states), step
                # the log of the hand: what event messages carried, from its hand_start
                events = msg["hand_events"]
                assert events and events[0]["type"] == "hand_start", step
                first = next(i for i, e in enumerate(sent) if e == events[0])
                assert sent[first:first + len(events)] == events, step
            else:
                assert seat is not None
                assert any(msg["actions"] == legal for _, legal in states), step
            compared += 1
    for msg in messages:
        if msg["type"] == "event":
            expected = json.loads(json.dumps(match.log[msg["seq"]].for_seat(seat)))
            assert msg["event"] == expected, msg
            assert msg["state_id"] == match.event_steps[msg["seq"]], msg
            compared += 1
    return compared


@contextmanager
def uvicorn_thread(cfg: Any) -> Iterator[int]:
    """The app for ``cfg`` (a ``ServerConfig``) served by a real uvicorn in a thread, with
    the options ``hzmj serve`` uses (the request deadline lives in its HTTP protocol);
    yields the port."""
    import uvicorn

    from hzmj.server.app import create_app, uvicorn_options

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(cfg), host="127.0.0.1", port=port,
                                           log_level="warning", **uvicorn_options(cfg)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        end = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < end, "the server did not start"
            time.sleep(0.05)
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def attended(c: Any, room: str, token: str, auto: bool = False) -> Iterator[Any]:
    """The seat ``token``'s socket open on the TestClient ``c`` while the block runs (a
    table nobody is at stands still); ``auto``: the seat under 托管, its bot plays it."""
    with c.websocket_connect(f"/ws/rooms/{room}", subprotocols=ws_protocols(token)) as ws:
        if auto:
            ws.send_json({"type": "auto", "on": True})
        yield ws


@contextmanager
def seats_held(tables: list[tuple[str, str]], ws_bases: list[str]) -> Iterator[None]:
    """Keep each table's seat token connected while the block runs (``tables``: (room,
    token) pairs, e.g. the owner of a table of bots): a table nobody is at stands still
    (docs/protocol.md, "Clocks, bots and absent players").  The sockets live in a thread
    of their own and read whatever comes; one that closes (its server killed, restarted
    or drained) is opened again through the next of ``ws_bases``, until the table's match
    ends or the room is gone (4404)."""
    from websockets.exceptions import ConnectionClosed, WebSocketException

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def hold(room: str, token: str) -> None:
        tries = 0
        while True:
            base = ws_bases[tries % len(ws_bases)]
            tries += 1
            try:
                async with connect(f"{base}/ws/rooms/{room}", max_size=None,
                                   subprotocols=ws_protocols(token), open_timeout=5) as ws:
                    async for raw in ws:
                        msg = json.loads(raw)
                        if msg["type"] == "event" and msg["event"]["type"] == "match_end":
                            return
                    if ws.close_code == 4404:
                        return
            except (ConnectionClosed, WebSocketException, OSError, TimeoutError):
                pass
            await asyncio.sleep(0.2)

    held = [asyncio.run_coroutine_threadsafe(hold(room, token), loop)
            for room, token in tables]
    try:
        yield
    finally:
        for future in held:
            future.cancel()
        time.sleep(0.2)  # the cancellations run, the sockets close
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def bots_play_to_the_end(c: Any, room: str, token: str, players: int,
                         bot: str = "random", timeout: float = 120) -> None:
    """The owner (``token``) hands every seat, its own too, to ``bot``, starts, and waits
    with its socket open (a table nobody is at pauses) until the match is over; ``c`` is
    a TestClient."""
    auth = {"Authorization": f"Bearer {token}"}
    for seat in range(players):
        assert c.post(f"/api/rooms/{room}/bots", json={"seat": seat, "bot": bot},
                      headers=auth).status_code == 200
    with attended(c, room, token):
        assert c.post(f"/api/rooms/{room}/start", headers=auth).status_code == 200
        deadline = time.monotonic() + timeout
        while c.get(f"/api/rooms/{room}").json()["status"] != "over":
            assert time.monotonic() < deadline, "the match did not end"
            time.sleep(0.05)
