"""Tables held by a cluster of 1 and of 2 nodes, and the failover time after kill -9.

    uv run python benchmarks/bench_cluster.py --db postgresql://… [--json]

Needs a throwaway PostgreSQL database (its hzmj tables are dropped; default
``$HZMJ_TEST_POSTGRES_URL``) and Redis (``--redis``, else a ``redis-server`` started
here).  For N = 1 and N = 2 it starts N nodes (``python -m hzmj.server --redis …``, bots
in each node's worker process) and adds tables in steps — one scripted WebSocket player
and three bots each, the player connected to the table's owner as a routing proxy would —
until the players' p99 latency (action sent → its result received, as in
``bench_server.py``) reaches ``--p99-ms``; ``tables_N`` is the last step under it.  A
player who stops leaves a table that waits for them (nobody at it: it pauses), so earlier
steps cost nothing later.  Then, with 2 nodes, ``failover_s`` is the time from kill -9 of
a node to the first action applied for each of its rooms elsewhere (the worst room): the
tables of bots' owners stay connected through the other node, whose relay closes with
1012 and is opened again at once, as a browser does (a room taken over comes back paused
until a seat connects).

Everything shares this machine's cores, the load generator included: the ratio is a
lower bound of what separate machines give (docs/scaling.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from typing import Any

import httpx
import redis
from sqlalchemy import text
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.typing import Subprotocol

from bench_server import Window, free_port, make_table, player
from hzmj.server.config import database_url
from hzmj.server.storage import make_engine


def start_node(name: str, port: int, db: str, redis_url: str, args: argparse.Namespace
               ) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HZMJ_BOT_DELAY": str(args.bot_delay), "HZMJ_HAND_PAUSE": "0",
           "HZMJ_RATE_PER_SECOND": "1000", "HZMJ_RATE_BURST": "1000",
           "HZMJ_LEASE_TTL": str(args.ttl), "HZMJ_AWAY_GRACE": "1e9",
           "HZMJ_TIME_SCALE": "1000",
           "HZMJ_CREATE_BURST": "100000"}  # one client creates every table
    return subprocess.Popen(
        [sys.executable, "-m", "hzmj.server", "--port", str(port), "--db", db,
         "--log-level", "warning", "--redis", redis_url, "--node-id", name,
         "--node-url", f"http://127.0.0.1:{port}"], env=env, stdout=subprocess.DEVNULL)


def wait_up(port: int) -> None:
    for _ in range(1800):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit(f"node on port {port} did not start")


async def reset(db: str, r: redis.Redis) -> None:
    engine = make_engine(database_url(db))
    async with engine.begin() as conn:
        await conn.execute(text("DROP TABLE IF EXISTS match_players, ratings, sessions, "
                                "accounts, actions, seats, rooms, alembic_version CASCADE"))
    await engine.dispose()
    r.flushdb()


def _text(value: object) -> str:
    """A Redis reply as text (``b"n1"`` → ``"n1"``; none → ``""``)."""
    return value.decode() if isinstance(value, bytes) else str(value or "")


async def step(ports: list[int], r: redis.Redis, tables: int, seconds: float, warmup: float,
               bot: str, seed: int) -> float:
    """Add ``tables`` tables, play them for ``seconds``; the players' p99 latency (ms)."""
    latencies: list[float] = []
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{ports[0]}", timeout=120) as http:
        rooms = await asyncio.gather(*(make_table(http, seed + i, bot) for i in range(tables)))
        by_name = {f"n{i}": port for i, port in enumerate(ports)}
        owners = [by_name[_text(r.get(f"hzmj:lease:{room}"))] for room, _ in rooms]
        window = Window()  # measured from warmup to seconds after the tables are made
        start = time.monotonic()
        window.start, window.stop = start + warmup, start + seconds
        count = [0, tables]  # players that have had their first prompt (unused here)
        await asyncio.gather(*(player(port, http, room, token, seed + i, window,
                                      asyncio.Event(), count, latencies)
                               for i, ((room, token), port) in enumerate(zip(rooms, owners,
                                                                             strict=True))))
    latencies.sort()
    if not latencies:
        return float("inf")
    return 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]


async def capacity(ports: list[int], r: redis.Redis, args: argparse.Namespace
                   ) -> tuple[int, list[dict[str, Any]]]:
    """Tables held under the p99 target, adding ``--step`` tables at a time."""
    held, total, steps = 0, 0, []
    while total + args.step <= args.max_tables:
        p99 = await step(ports, r, total + args.step, args.seconds, args.warmup, args.bot,
                         seed=100_000 * len(ports) + total)
        # every step plays all its tables afresh: the tables of earlier steps wait idle
        total += args.step
        steps.append({"tables": total, "p99_ms": round(p99, 1)})
        if p99 >= args.p99_ms:
            break
        held = total
    return held, steps


async def hold_seat(ports: list[int], room: str, token: str) -> None:
    """Keep ``token``'s socket to ``room`` open through any of ``ports`` (a table nobody
    is at stands still), opening it again through the next port when it closes."""
    protocols = [Subprotocol("hzmj"), Subprotocol(f"token.{token}")]
    tries = 0
    while True:
        port = ports[tries % len(ports)]
        tries += 1
        try:
            async with connect(f"ws://127.0.0.1:{port}/ws/rooms/{room}", max_size=None,
                               subprotocols=protocols, open_timeout=5) as ws:
                async for _ in ws:
                    pass
        except (ConnectionClosed, WebSocketException, OSError, TimeoutError):
            pass
        await asyncio.sleep(0.1)


async def failover(ports: list[int], procs: list[subprocess.Popen[bytes]], db: str,
                   r: redis.Redis, bot: str) -> float:
    """Kill -9 the node owning the most of some all-bot tables; seconds until each of its
    rooms applies an action on another node (the worst)."""
    holders = []
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{ports[0]}", timeout=60) as http:
        rooms = []
        for i in range(6):
            room, token = await make_table(http, 900 + i, bot)
            auth = {"authorization": f"Bearer {token}"}
            await http.post(f"/api/rooms/{room}/bots", json={"seat": 0, "bot": bot},
                            headers=auth)
            holders.append(asyncio.create_task(hold_seat(ports, room, token)))
            await http.post(f"/api/rooms/{room}/start", headers=auth)
            rooms.append(room)
    owners = [_text(r.get(f"hzmj:lease:{room}")) for room in rooms]
    held = sorted(set(owners) - {""})
    if not held:
        raise SystemExit("no node holds a lease on the failover rooms")
    victim = max(held, key=owners.count)  # the node owning the most
    mine = [room for room, owner in zip(rooms, owners, strict=True) if owner == victim]
    doomed = procs[int(victim.removeprefix("n"))]
    engine = make_engine(database_url(db))

    async def counts() -> dict[str, int]:
        async with engine.connect() as conn:
            rows = (await conn.execute(text(
                "SELECT room_id, count(*) FROM actions WHERE room_id = ANY(:ids) "
                "GROUP BY room_id"), {"ids": mine})).all()
        return {room: 0 for room in mine} | {room: int(n) for room, n in rows}

    try:
        await asyncio.sleep(2)  # every table under way
        doomed.kill()
        doomed.wait()
        killed = time.monotonic()
        before = await counts()
        resumed: dict[str, float] = {}
        while len(resumed) < len(mine) and time.monotonic() < killed + 120:
            now = await counts()
            resumed |= {room: time.monotonic() - killed for room in mine
                        if room not in resumed and now[room] > before[room]}
            await asyncio.sleep(0.05)
    finally:
        for holder in holders:
            holder.cancel()
        await asyncio.gather(*holders, return_exceptions=True)
        await engine.dispose()
    return round(max(resumed.values()), 2) if len(resumed) == len(mine) and mine \
        else float("nan")


def cluster(n: int, db: str, redis_url: str, r: redis.Redis, args: argparse.Namespace
            ) -> dict[str, Any]:
    asyncio.run(reset(db, r))
    ports = [free_port() for _ in range(n)]
    procs = [start_node(f"n{i}", port, db, redis_url, args) for i, port in enumerate(ports)]
    try:
        for port in ports:
            wait_up(port)
        held, steps = asyncio.run(capacity(ports, r, args))
        result: dict[str, Any] = {"tables": held, "steps": steps}
        if n > 1:
            result["failover_s"] = asyncio.run(failover(ports, procs, db, r, args.bot))
        return result
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=os.environ.get("HZMJ_TEST_POSTGRES_URL"),
                        help="a throwaway PostgreSQL database URL (its tables are dropped)")
    parser.add_argument("--redis", default=None, help="redis://… (flushed); default: start one")
    parser.add_argument("--step", type=int, default=20, help="tables added per step")
    parser.add_argument("--max-tables", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=12.0, help="length of a step")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--p99-ms", type=float, default=100.0)
    parser.add_argument("--bot-delay", type=float, default=0.3)
    parser.add_argument("--bot", default="efficiency")
    parser.add_argument("--ttl", type=float, default=3.0, help="lease TTL of the nodes (s)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if not args.db:
        raise SystemExit("--db (or HZMJ_TEST_POSTGRES_URL) must name a throwaway PostgreSQL")
    own_redis = None
    redis_url = args.redis
    if redis_url is None:
        if shutil.which("redis-server") is None:
            raise SystemExit("no --redis and no redis-server to start")
        port = free_port()
        own_redis = subprocess.Popen(["redis-server", "--port", str(port), "--save", "",
                                      "--appendonly", "no"], stdout=subprocess.DEVNULL)
        redis_url = f"redis://127.0.0.1:{port}/0"
        time.sleep(0.5)
    try:
        r = redis.Redis.from_url(redis_url)
        one = cluster(1, args.db, redis_url, r, args)
        two = cluster(2, args.db, redis_url, r, args)
    finally:
        if own_redis is not None:
            own_redis.terminate()
            own_redis.wait(10)
    result = {"tables_1": one["tables"], "tables_2": two["tables"],
              "ratio": round(two["tables"] / one["tables"], 2) if one["tables"] else None,
              "failover_s": two["failover_s"], "lease_ttl_s": args.ttl,
              "p99_target_ms": args.p99_ms, "steps_1": one["steps"], "steps_2": two["steps"],
              "bot": args.bot, "bot_delay_s": args.bot_delay, "cpus": os.cpu_count()}
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>14}: {value}")


if __name__ == "__main__":
    main()
