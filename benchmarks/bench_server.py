"""Table server load: N concurrent tables, each one scripted WebSocket player + 3 bots.

    uv run python benchmarks/bench_server.py [--tables 100,250,500] [--seconds 20] [--json]

For each table count, starts ``python -m hzmj.server`` on a free port with a fresh SQLite
file (bots' pause ``--bot-delay``, no pause between hands, the rooms' default
``claim_pause_ms``), creates the tables, and lets every player answer each prompt at once
with a random legal action.  Once every table has started (``start_s``: how long the
stampede of starts took) and ``--warmup`` more seconds have passed, it measures for
``--seconds``: the server's public steps per second (all seats), the player's actions
per second, and the latency from sending an action to receiving its result (its ack, or
the first event of a later step), p50 and p99 — one line per table count, so that
whether throughput holds as tables are added shows in one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from hzmj.server.config import tune_gc


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db: Path, port: int, bot_delay: float) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HZMJ_BOT_DELAY": str(bot_delay), "HZMJ_HAND_PAUSE": "0",
           "HZMJ_RATE_PER_SECOND": "1000", "HZMJ_RATE_BURST": "1000",
           "HZMJ_CREATE_BURST": "100000"}  # one client creates every table
    proc = subprocess.Popen([sys.executable, "-m", "hzmj.server", "--port", str(port),
                             "--db", str(db), "--log-level", "warning"], env=env,
                            stdout=subprocess.DEVNULL)
    for _ in range(600):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("server did not start")


async def make_table(http: httpx.AsyncClient, seed: int, bot: str) -> tuple[str, str]:
    made = await http.post("/api/rooms", json={"rules": {"hands": 16}, "seed": seed,
                                               "name": f"bench {seed}"})
    if made.is_error:
        raise SystemExit(f"the server did not make a room: {made.status_code} {made.text}")
    room = made.json()["room_id"]
    token = (await http.post(f"/api/rooms/{room}/seats", json={"name": "p"})).json()["token"]
    auth = {"authorization": f"Bearer {token}"}
    for seat in (1, 2, 3):
        await http.post(f"/api/rooms/{room}/bots", json={"seat": seat, "bot": bot},
                        headers=auth)
    return room, token


class Window:
    """The measured window: it opens ``warmup`` seconds after every table has started
    (a start stampede of hundreds of tables is not the load of a running site) and lasts
    ``seconds``; until it is set both ends are in the future."""

    def __init__(self) -> None:
        self.start = self.stop = float("inf")
        self.states: dict[str, int] = {}  # room → its state_id as the window opens


async def player(port: int, http: httpx.AsyncClient, room: str, token: str, seed: int,
                 window: Window, started: asyncio.Event, count: list[int],
                 latencies: list[float]) -> int:
    """Play until the window closes; return the public steps seen inside it."""
    rng = random.Random(seed)
    state = 0
    protocols = [Subprotocol("hzmj"), Subprotocol(f"token.{token}")]
    async with connect(f"ws://127.0.0.1:{port}/ws/rooms/{room}", subprotocols=protocols) as ws:
        await ws.recv()
        for attempt in range(3):  # a kept-alive connection the server closed meanwhile
            try:
                await http.post(f"/api/rooms/{room}/start",
                                headers={"authorization": f"Bearer {token}"})
                break
            except httpx.TransportError:
                if attempt == 2:
                    raise
        sent_at: float | None = None
        sent_state = -1
        first = True
        while time.monotonic() < window.stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), max(0.01, min(
                    5.0, window.stop - time.monotonic())))
            except TimeoutError:
                continue
            msg: dict[str, Any] = json.loads(raw)
            sid = msg.get("state_id", -1)
            now = time.monotonic()
            if now < window.start:
                window.states[room] = max(window.states.get(room, 0), sid)
            state = max(state, sid)
            if sent_at is not None and (msg["type"] in ("ack", "error")
                                        or (msg["type"] == "event" and sid > sent_state)):
                if msg["type"] != "error" and window.start <= now < window.stop:
                    latencies.append(time.perf_counter() - sent_at)
                sent_at = None
            if msg["type"] == "prompt":
                if first:
                    first = False
                    count[0] += 1
                    if count[0] >= count[1]:
                        started.set()
                action = rng.choice(msg["actions"])
                sent_at, sent_state = time.perf_counter(), msg["state_id"]
                await ws.send(json.dumps({"type": "action", "state_id": msg["state_id"],
                                          "action": action}))
            elif msg["type"] == "event" and msg["event"]["type"] == "match_end":
                break
            elif msg["type"] == "event" and msg["event"]["type"] == "hand_end":
                await ws.send(json.dumps({"type": "ready"}))  # the gate between hands
    return state - window.states.get(room, 0)


def cpu_seconds(pid: int) -> float | None:
    """CPU seconds (user + system) used so far by process ``pid`` and every live process
    descended from it (the bot workers), from ``/proc``; ``None`` where there is no
    ``/proc`` (not Linux)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    try:
        stats = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    text = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue  # gone meanwhile
                fields = text[text.rindex(")") + 2:].split()
                stats[int(entry)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    except OSError:
        return None
    family, total = {pid}, 0
    for child, (parent, _) in sorted(stats.items()):  # parents are older: lower pids
        if parent in family:
            family.add(child)
    for member in family:
        total += stats.get(member, (0, 0))[1]
    return total / tick


async def measure_cpu(window: Window, server: int | None, out: dict[str, Any]) -> None:
    """The share of a core the load generator and the server (with its workers) used
    inside the window: a load generator near a whole core measures itself, not the
    server."""
    while window.start == float("inf"):
        await asyncio.sleep(0.05)
    await asyncio.sleep(max(0.0, window.start - time.monotonic()))
    client0, server0 = time.process_time(), cpu_seconds(server) if server else None
    await asyncio.sleep(max(0.0, window.stop - time.monotonic()))
    span = window.stop - window.start
    out["client_cores"] = round((time.process_time() - client0) / span, 2)
    server1 = cpu_seconds(server) if server else None
    if server0 is not None and server1 is not None:
        out["server_cores"] = round((server1 - server0) / span, 2)


async def run(tables: int, seconds: float, port: int, bot: str,
              warmup: float, server: int | None = None) -> dict[str, Any]:
    latencies: list[float] = []
    cpu: dict[str, Any] = {}
    window = Window()
    started = asyncio.Event()
    count = [0, tables]  # players that have had their first prompt, of all
    # every player starts its table at once: let them all wait for a connection
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}",
                                 timeout=httpx.Timeout(60, pool=600),
                                 limits=httpx.Limits(max_connections=200)) as http:
        rooms = [await make_table(http, seed, bot) for seed in range(tables)]
        begin = time.monotonic()
        meter = asyncio.create_task(measure_cpu(window, server, cpu))
        players = asyncio.gather(*(player(port, http, room, token, i, window, started,
                                          count, latencies)
                                   for i, (room, token) in enumerate(rooms)))
        try:
            async with asyncio.timeout(300):
                await started.wait()
        finally:
            start_s = time.monotonic() - begin
            window.start = time.monotonic() + warmup
            window.stop = window.start + seconds
        steps = await players
        await meter
    latencies.sort()

    def pct(p: float) -> float:
        return round(1000 * latencies[min(len(latencies) - 1, int(p * len(latencies)))], 2) \
            if latencies else float("nan")

    return {
        "tables": tables,
        "start_s": round(start_s, 2),
        "seconds": seconds,
        "steps": sum(steps),
        "steps_per_s": round(sum(steps) / seconds, 1),
        "player_actions": len(latencies),
        "player_actions_per_s": round(len(latencies) / seconds, 1),
        "latency_ms_p50": pct(0.50),
        "latency_ms_p99": pct(0.99),
        "latency_ms_mean": round(1000 * statistics.fmean(latencies), 2) if latencies else None,
        **cpu,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="100,250,500",
                        help="table counts, comma-separated: one fresh server each")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--bot-delay", type=float, default=0.3,
                        help="seconds a bot waits before acting (the server's knob)")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds after every table has started before the window")
    parser.add_argument("--bot", default="efficiency", help="the bots' name")
    parser.add_argument("--port", type=int, default=None,
                        help="use a server already running on this local port")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    # the load generator's own garbage collections (hundreds of sockets, thousands of
    # messages) would show as the server's latency: collected as rarely as the server's
    tune_gc(50_000)
    results = []
    for tables in (int(t) for t in args.tables.split(",")):
        if args.port is not None:
            result = asyncio.run(run(tables, args.seconds, args.port, args.bot, args.warmup))
        else:
            port = free_port()
            with tempfile.TemporaryDirectory() as tmp:
                proc = start_server(Path(tmp) / "bench.db", port, args.bot_delay)
                try:
                    result = asyncio.run(run(tables, args.seconds, port, args.bot,
                                             args.warmup, proc.pid))
                finally:
                    proc.terminate()
                    proc.wait(30)
        result.update(bot=args.bot, bot_delay_s=args.bot_delay, warmup_s=args.warmup)
        results.append(result)
        print(" ".join(f"{key}={value}" for key, value in result.items()), flush=True,
              file=sys.stderr if args.json else sys.stdout)
    first = results[0]["player_actions_per_s"] / results[0]["tables"] if results else 0
    summary = {"runs": results, "per_table_throughput_vs_first": [
        round(r["player_actions_per_s"] / r["tables"] / first, 2) if first else None
        for r in results]}
    if args.json:
        print(json.dumps(summary))
    else:
        print("per-table throughput vs the first run:", summary["per_table_throughput_vs_first"])


if __name__ == "__main__":
    main()
