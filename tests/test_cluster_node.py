"""One cluster node (:class:`~hzmj.server.cluster.ClusterLobby`) in this process, on an
SQLite file and a Redis database of its own, driven step by step: what a slow create, a
Redis that lost its data or a dead node leave behind, without starting server processes
(``tests/test_cluster.py`` runs real nodes).

Runs when Redis can be had: ``HZMJ_TEST_REDIS_URL`` (its database is flushed; never one
another engineer uses), or a ``redis-server`` on PATH started here (``.ci/redis.sh``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from hzmj.rules import Rules
from hzmj.server import cluster
from hzmj.server.cluster import ClusterLobby
from hzmj.server.config import ServerConfig, database_url
from hzmj.server.rooms import RoomError, cancel_and_wait
from hzmj.server.storage import open_store
from test_server_support import redis_for_tests


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    yield from redis_for_tests(flush=False)


@pytest.fixture
def r(redis_url: str) -> redis.Redis:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    client.flushdb()
    return client


Job = Callable[[ClusterLobby], Awaitable[None]]


def on_a_node(redis_url: str, tmp_path: Path, job: Job, **settings: Any) -> None:
    """Run ``job`` on a node (``n1``) that has joined the cluster, then close the node.
    The lease TTL is long (heartbeats every 20 s): the test drives the steps it looks
    at itself."""
    async def one(nodes: list[ClusterLobby]) -> None:
        await job(nodes[0])

    on_nodes(redis_url, tmp_path, 1, one, **settings)


def on_nodes(redis_url: str, tmp_path: Path, count: int,
             job: Callable[[list[ClusterLobby]], Awaitable[None]], **settings: Any) -> None:
    """:func:`on_a_node` for ``count`` nodes ``n1``, ``n2`` … on one database."""
    async def run() -> None:
        nodes = []
        try:
            for i in range(count):
                cfg = ServerConfig(db=str(tmp_path / "node.db"), redis=redis_url,
                                   node_id=f"n{i + 1}", bot_workers=0, lease_ttl=60,
                                   **settings)
                store = await open_store(database_url(cfg.db))
                nodes.append(ClusterLobby(store, cfg))
                await nodes[-1].restore()
            await job(nodes)
        finally:
            for lobby in nodes:
                await lobby.close()
                await lobby.store.close()

    asyncio.run(run())


def test_a_create_whose_reservation_lapsed_is_refused_at_the_cap(
        redis_url: str, r: redis.Redis, tmp_path: Path) -> None:
    """A create slower than the reservation's 60 s: the reservation expired, other creates
    of the address took its place, and the room was counted again when it was made (17
    live rooms for a cap of 16).  Now the room is undone and the create refused."""
    address = "198.51.100.7"

    async def job(lobby: ClusterLobby) -> None:
        make = lobby._create

        async def slow(*args: Any) -> Any:
            # meanwhile: the reservation expired (another node struck it off) and the
            # address's other creates filled the cap
            r.delete(cluster.RESERVED)
            r.hset(cluster.ROOMS_OF, address, "16")
            return await make(*args)

        lobby._create = slow  # type: ignore[method-assign]
        with pytest.raises(RoomError) as refused:
            await lobby.create(Rules(), "slow", None, address)
        assert refused.value.code == "too_many_rooms"
        assert lobby.rooms == {} and lobby.owned == set()
        assert r.hgetall(cluster.ROOMS_OF) == {address: "16"}  # nothing added
        assert r.hlen(cluster.CREATOR_OF) == 0 and r.scard(cluster.LIVE) == 0
        assert r.keys(cluster.PREFIX + "lease:*") == []
        stored = await lobby.store.load_rooms(statuses=("open", "running", "expired"))
        assert [s.status for s in stored] == ["expired"]
        # below the cap, a lapsed reservation's room counts as a new one would
        async def lapsed(*args: Any) -> Any:
            r.delete(cluster.RESERVED)
            r.hset(cluster.ROOMS_OF, address, "3")
            return await make(*args)

        lobby._create = lapsed  # type: ignore[method-assign]
        r.hset(cluster.ROOMS_OF, address, "3")
        room = await lobby.create(Rules(), "slow", None, address)
        assert r.hget(cluster.ROOMS_OF, address) == "4"
        assert json.loads(r.hget(cluster.CREATOR_OF, room.id) or "null") == [address, ""]

    on_a_node(redis_url, tmp_path, job)


def test_after_redis_lost_its_data_the_rooms_count_and_show_again(
        redis_url: str, r: redis.Redis, tmp_path: Path) -> None:
    """FLUSHDB (or a Redis restarted without persistence) under a running node: its
    rooms no longer counted towards rooms_per_address, were not listed, and a dead
    node's rooms stayed unknown until some node restarted.  The next heartbeat sees the
    generation key gone and registers the node's rooms again, a playing room's creator
    from memory (the database forgot it at the start); the database's other rooms follow
    a lease TTL later."""
    address, other = "198.51.100.8", "203.0.113.9"

    async def job(lobby: ClusterLobby) -> None:
        waiting = await lobby.create(Rules(), "waiting", None, address)
        playing = await lobby.create(Rules(), "playing", None, address)
        _, token = await playing.call(lambda: playing.join("p", None, address))
        for seat in (1, 2, 3):
            await playing.call(lambda s=seat: playing.add_bot(token, s, "random"))
        await playing.call(lambda: playing.start(token))
        # an open room of a node that died, in the database only
        await lobby.store.create_room("orphan", "o", Rules().to_json(), 1, creator=other)
        assert r.hget(cluster.ROOMS_OF, address) == "2"
        r.flushdb()
        await lobby._beat()
        assert r.hgetall(cluster.ROOMS_OF) == {address: "2"}
        assert r.smembers(cluster.LIVE) == {waiting.id, playing.id}
        assert {room: json.loads(entry)[0] for room, entry
                in r.hgetall(cluster.CREATOR_OF).items()} == {waiting.id: address,
                                                               playing.id: address}
        assert {r.get(cluster.lease_key(room)) for room in (waiting.id, playing.id)} == {"n1"}
        for _ in range(100):  # the flush loop publishes their lobby entries again
            if r.hlen(cluster.INFOS) == 2:
                break
            await asyncio.sleep(0.05)
        assert set(r.hkeys(cluster.INFOS)) == {waiting.id, playing.id}
        assert len(lobby._background) == 1  # the stored rooms' turn, a lease TTL later
        await lobby._register_stored(0)
        assert r.smembers(cluster.LIVE) == {waiting.id, playing.id, "orphan"}
        assert r.hgetall(cluster.ROOMS_OF) == {address: "2", other: "1"}
        await lobby._beat()  # the same generation: nothing more to do
        assert len(lobby._background) == 1

    on_a_node(redis_url, tmp_path, job)


def test_a_node_reads_the_live_rooms_only_when_one_may_have_lost_its_owner(
        redis_url: str, r: redis.Redis, tmp_path: Path) -> None:
    """Every node read the whole live set (and every other room's lease) twice a second:
    with 10,000 rooms and 10 nodes, 400,000 keys a second for nothing.  Now an idle tick
    reads the nodes alone; the live rooms are scanned when a node leaves, while a gone
    node's lease or an orphan is left, when asked, and every FULL_SCAN_EVERY."""
    ghost = {"url": "http://127.0.0.1:1", "rooms": 1, "draining": False}

    async def job(lobby: ClusterLobby) -> None:
        for task in lobby._tasks:  # this test ticks the scans itself
            if task.get_coro().__name__ == "_scan_loop":  # type: ignore[union-attr]
                task.cancel()
        scans = []
        scan = lobby._scan

        async def counted(nodes: list[cluster.Node]) -> bool:
            scans.append(sorted(n.id for n in nodes))
            return await scan(nodes)

        lobby._scan = counted  # type: ignore[method-assign]
        for name in ("ghost1", "ghost2"):  # two other nodes, one room each
            await lobby.store.create_room(f"{name}-room", name, Rules().to_json(), 1)
            r.sadd(cluster.NODES, name)
            r.set(cluster.node_key(name), json.dumps(ghost), px=60_000)
            r.set(cluster.lease_key(f"{name}-room"), name, px=60_000)
            r.sadd(cluster.LIVE, f"{name}-room")
        await lobby._watch(False)
        assert scans == [["ghost1", "ghost2", "n1"]]  # the nodes changed: one scan
        for _ in range(5):
            await lobby._watch(False)
        assert len(scans) == 1  # nothing changed: no scan
        # ghost1 dies: its lease expired, then its heartbeat
        r.delete(cluster.lease_key("ghost1-room"), cluster.node_key("ghost1"))
        await lobby._watch(False)
        assert len(scans) == 2 and "ghost1-room" in lobby.owned
        assert r.get(cluster.lease_key("ghost1-room")) == "n1"
        # ghost2's heartbeat expires before its lease: scans go on until the lease does
        r.delete(cluster.node_key("ghost2"))
        await lobby._watch(False)
        await lobby._watch(False)
        assert len(scans) == 4 and "ghost2-room" not in lobby.owned
        r.delete(cluster.lease_key("ghost2-room"))
        await lobby._watch(False)
        assert len(scans) == 5 and "ghost2-room" in lobby.owned
        await lobby._watch(False)
        assert len(scans) == 5  # nothing left
        await lobby._watch(True)  # asked (a room given up, a client looking for one)
        lobby._next_scan = 0  # the scan in any case, for what no one told
        await lobby._watch(False)
        assert len(scans) == 7

    on_a_node(redis_url, tmp_path, job)


def test_a_task_that_swallows_its_cancellation_is_stopped_all_the_same() -> None:
    """On Python 3.11 ``asyncio.wait_for`` (redis-py's reads run in it) swallows a
    cancellation that comes with its result: a node's scan loop ran on after close()
    cancelled it, and the node never stopped on SIGTERM.  A task still running is
    cancelled again."""
    swallowed = []

    async def loop() -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                swallowed.append(1)
                if len(swallowed) == 3:
                    raise

    async def run() -> asyncio.Task[None]:
        task = asyncio.create_task(loop())
        await asyncio.sleep(0)
        await asyncio.wait_for(cancel_and_wait([task]), 30)
        return task

    task = asyncio.run(run())
    assert task.cancelled() and len(swallowed) == 3


def test_the_connect_rate_is_one_allowance_across_the_nodes(
        redis_url: str, r: redis.Redis, tmp_path: Path) -> None:
    """WebSocket connects of one address (connects_per_second, connect_burst) count in
    Redis: a client spreading its sockets over the nodes meets one allowance, an IPv6 /64
    draws on its /48's share (eight times as large) too, and without Redis a node counts
    alone."""
    from hzmj.server.guard import NETWORK_SHARE

    async def job(nodes: list[ClusterLobby]) -> None:
        one, two = nodes
        taken = [await (one, two)[i % 2].take_connect("198.51.100.30") for i in range(4)]
        assert taken == [True, True, True, False]
        assert not await one.take_connect("198.51.100.30")
        assert await two.take_connect("198.51.100.31")  # another address
        level = r.hgetall(cluster.connects_key("198.51.100.30"))
        # the bucket goes once it would be full again (3 tokens at 0.001 a second)
        assert float(level["tokens"]) < 1
        assert 0 < r.pttl(cluster.connects_key("198.51.100.30")) <= 3_000_000 + 1000
        # a site's /64s: each its own burst, all of them NETWORK_SHARE bursts together
        site = [f"2001:db8:5:{i:x}::/64" for i in range(NETWORK_SHARE * 3 + 1)]
        answers = [await nodes[i % 2].take_connect(net) for i, net in enumerate(site)]
        assert answers == [True] * (NETWORK_SHARE * 3) + [False]
        assert await one.take_connect("2001:db8:6::/64")  # another site
        async def unreachable(**_: Any) -> None:
            raise redis.ConnectionError("Redis is away")

        one._take_connect = unreachable  # type: ignore[assignment]  # this node's own
        assert [await one.take_connect("198.51.100.30") for _ in range(4)] == [
            True, True, True, False]

    on_nodes(redis_url, tmp_path, 2, job, connect_burst=3, connects_per_second=0.001)


def test_a_burst_of_redis_calls_waits_for_connections_instead_of_failing(
        redis_url: str, r: redis.Redis, tmp_path: Path) -> None:
    """redis-py's pool refused the 101st call at once (MaxConnectionsError): a node giving
    up 100 rooms on SIGTERM left some leases to expire, and a burst of requests for rooms
    (each looks up the room's owner) answered 500.  Calls now wait for a connection."""
    calls = 3 * cluster.REDIS_CONNECTIONS

    async def job(lobby: ClusterLobby) -> None:
        r.set("probe", "1")

        async def slow_get() -> Any:  # each holds its connection for a moment
            async with lobby.redis.pipeline(transaction=False) as pipe:
                pipe.eval("local t = redis.call('time') return 1", 0)
                pipe.get("probe")
                return (await pipe.execute())[-1]

        answers = await asyncio.gather(*(slow_get() for _ in range(calls)),
                                       return_exceptions=True)
        assert answers == ["1"] * calls

    on_a_node(redis_url, tmp_path, job)
