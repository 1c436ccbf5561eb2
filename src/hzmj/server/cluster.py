"""Many server processes (nodes) sharing PostgreSQL and Redis (``docs/scaling.md``).

Each room is run by one node, its *owner*, which holds the room's lease in Redis (a key
with a TTL that the owner renews) and the room's fencing epoch in the database
(:meth:`Store.take_room`).  Any node answers any request: :class:`ClusterRouter` sends a
command for a room owned elsewhere to its owner over Redis pub/sub (request and reply,
with a timeout) and proxies a WebSocket to the owner's node, so a client never needs to
know which node runs its table.  When a node dies its leases expire; the live nodes take
its rooms (``SET NX`` on the lease: exactly one taker), rebuild them by replaying their
stored actions and carry on.  New rooms go to the least-loaded live node; ``hzmj node
drain`` makes a node hand its rooms over.

Redis keys (all under ``hzmj:``): ``nodes`` (set of node ids), ``node:<id>`` (the node's
URL and state, expires unless refreshed), ``load`` (hash: node -> rooms), ``live`` (set of
unfinished rooms), ``lease:<room>`` (owner node id, with TTL), ``infos`` (hash: room ->
lobby entry), ``drain:<id>``, and for ``rooms_per_address`` ``rooms_of`` (hash: address or
IPv6 /48 -> live rooms and creates under way), ``creator_of`` (hash: live room -> its
creator) and ``reserved`` (creates under way), ``generation`` (gone: Redis lost its data,
and the nodes register their rooms again), ``connects:<address>`` (a token bucket of
WebSocket connects); channels ``<db>:cmd:<id>`` (requests and
replies for a node) and ``<db>:lobby`` (room updates, rooms given up).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
import logging
import math
import os
import random
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine, MutableMapping
from dataclasses import dataclass
from typing import Any, cast

import redis.asyncio as aioredis
from redis.exceptions import RedisError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.typing import Subprotocol

from hzmj.rules import Rules
from hzmj.server.config import ServerConfig
from hzmj.server.guard import (
    CONNECT_COUNTED,
    NETWORK_SHARE,
    TOO_MANY_CONNECTS,
    address_key,
    network_key,
    too_many_connects,
)
from hzmj.server.protocol import RoomInfo
from hzmj.server.rooms import Lobby, Room, cancel_and_wait
from hzmj.server.storage import Store
from hzmj.shown import counted

log = logging.getLogger("hzmj.server.cluster")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

PREFIX = "hzmj:"
NODES, LOAD, LIVE, INFOS = (PREFIX + k for k in ("nodes", "load", "live", "infos"))
# rooms_per_address across the cluster: counters kept by the scripts below, never read
# whole on a create (a create costs one script call whatever the number of live rooms)
ROOMS_OF = PREFIX + "rooms_of"  # address (and IPv6 /48) -> its live rooms + reservations
CREATOR_OF = PREFIX + "creator_of"  # live room -> JSON [address, /48 or ""]
RESERVED = PREFIX + "reserved"  # creates under way: JSON [node, nonce, address, /48] by time
RESERVATION_TTL = 60.0  # a reservation left by a node that died mid-create stops counting
# a node reads the whole live set only when a room may have lost its owner (a node left
# the live set, a room was given up, a client asked for a room nobody holds); and this
# often in any case, for what no one told it (a lost pub/sub message)
FULL_SCAN_EVERY = 30.0
FORWARDED = "hzmj.forwarded"  # scope key of a request a node runs for another node
PROXIED = b"x-hzmj-proxied"  # header of a WebSocket a node proxies to the owner
CLIENT = b"x-hzmj-client"  # with it: the client's address and the cluster's signature
SECRET = PREFIX + "secret"  # the nodes' shared key for CLIENT signatures
# made by the first node to find it missing: a Redis that lost its data (a restart without
# persistence, FLUSHDB) lost it too, and each node that sees a new one registers its rooms
# again (live, lobby entries, rooms_of), as it did when it started
GENERATION = PREFIX + "generation"
INTERNAL = b"x-hzmj-"  # header names only nodes may send (stripped from what clients send)
ROOM_PATH = re.compile(r"^/(?:api/rooms|api/matches|ws/rooms)/([^/]+)")
HOP_HEADERS = {b"host", b"connection", b"upgrade", b"content-length"}


def node_key(node: str) -> str:
    return f"{PREFIX}node:{node}"


def lease_key(room_id: str) -> str:
    return f"{PREFIX}lease:{room_id}"


def drain_key(node: str) -> str:
    return f"{PREFIX}drain:{node}"


def channel(db: int, node: str) -> str:
    """The pub/sub channel of ``node``'s commands in Redis database ``db``.  Redis's
    pub/sub spans its databases, so a channel names the database: two clusters on one
    Redis server (``…/1`` and ``…/2``) must not answer each other's requests."""
    return f"{PREFIX}{db}:cmd:{node}"


def lobby_channel(db: int) -> str:
    """The pub/sub channel of room updates (and rooms given up) of database ``db``."""
    return f"{PREFIX}{db}:lobby"


def redis_db(r: aioredis.Redis) -> int:
    """The database number ``r`` was opened on (the URL's ``/N``)."""
    return int(r.connection_pool.connection_kwargs.get("db", 0))


# renew every lease still ours; the 1-based positions of the ones that are not
RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[1] then redis.call('pexpire', key, ARGV[2])
  else table.insert(lost, i) end
end
return lost
"""
RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"

# The rooms_per_address counters.  Invariant between any two scripts: rooms_of holds, for
# each address and IPv6 /48, its rooms in creator_of plus its reservations in reserved;
# every change of those is made in one script with its count, so a race between nodes
# can neither pass the cap nor lose a count.  RECOUNT rebuilds rooms_of from the two.
COUNT = """
local function count(key, address, network, by)
  for _, field in ipairs({address, network}) do
    if field ~= '' and redis.call('hincrby', key, field, by) <= 0 then
      redis.call('hdel', key, field)
    end
  end
end
"""
# KEYS rooms_of, reserved; ARGV reservation, now, expired-before, address, /48, limit,
# the /48's limit.  1: reserved; 0: the cap is reached (nothing written)
RESERVE = COUNT + """
for _, old in ipairs(redis.call('zrangebyscore', KEYS[2], '-inf', ARGV[3])) do
  local e = cjson.decode(old)
  count(KEYS[1], e[3], e[4], -1)
end
redis.call('zremrangebyscore', KEYS[2], '-inf', ARGV[3])
local function held(field) return tonumber(redis.call('hget', KEYS[1], field) or '0') end
if held(ARGV[4]) >= tonumber(ARGV[6]) then return 0 end
if ARGV[5] ~= '' and held(ARGV[5]) >= tonumber(ARGV[7]) then return 0 end
count(KEYS[1], ARGV[4], ARGV[5], 1)
redis.call('zadd', KEYS[2], ARGV[2], ARGV[1])
return 1
"""
# a create that failed: KEYS rooms_of, reserved; ARGV reservation, address, /48
CANCEL = COUNT + """
if redis.call('zrem', KEYS[2], ARGV[1]) == 1 then count(KEYS[1], ARGV[2], ARGV[3], -1) end
"""
# a room made: its reservation becomes its creator_of entry, one count either way (an
# entry a recount wrote already: the reservation's count goes).  A reservation that
# expired meanwhile (a create slower than RESERVATION_TTL) counted nothing since, and
# other creates may have taken its place: the room counts again only below the cap, as
# a new reservation would (0: refused, nothing written; the node undoes the room).
# KEYS rooms_of, reserved, creator_of; ARGV reservation, room, entry, address, /48,
# limit, the /48's limit
SETTLE = COUNT + """
local function held(field) return tonumber(redis.call('hget', KEYS[1], field) or '0') end
local had = redis.call('zrem', KEYS[2], ARGV[1])
if had == 0 and redis.call('hexists', KEYS[3], ARGV[2]) == 0
    and (held(ARGV[4]) >= tonumber(ARGV[6])
         or (ARGV[5] ~= '' and held(ARGV[5]) >= tonumber(ARGV[7]))) then
  return 0
end
local added = redis.call('hsetnx', KEYS[3], ARGV[2], ARGV[3])
if added ~= had then count(KEYS[1], ARGV[4], ARGV[5], added - had) end
return 1
"""
# a room no longer live (over, expired, not rebuilt): out of live and the lobby, its
# creator's count down once.  KEYS live, infos, creator_of, rooms_of; ARGV room
NOT_LIVE = COUNT + """
redis.call('srem', KEYS[1], ARGV[1])
redis.call('hdel', KEYS[2], ARGV[1])
local entry = redis.call('hget', KEYS[3], ARGV[1])
if entry then
  redis.call('hdel', KEYS[3], ARGV[1])
  local e = cjson.decode(entry)
  count(KEYS[4], e[1], e[2], -1)
end
"""
# a node starting: entries for the open rooms the database names (a Redis that lost its
# data), entries of rooms no longer live dropped, reservations past their time dropped,
# and rooms_of counted afresh (what a node that died between two steps left wrong is
# right again).  KEYS rooms_of, reserved, creator_of, live; ARGV expired-before, then
# room, entry pairs
RECOUNT = COUNT + """
redis.call('zremrangebyscore', KEYS[2], '-inf', ARGV[1])
for i = 2, #ARGV, 2 do redis.call('hsetnx', KEYS[3], ARGV[i], ARGV[i + 1]) end
redis.call('del', KEYS[1])
local entries = redis.call('hgetall', KEYS[3])
for i = 1, #entries, 2 do
  if redis.call('sismember', KEYS[4], entries[i]) == 1 then
    local e = cjson.decode(entries[i + 1])
    count(KEYS[1], e[1], e[2], 1)
  else
    redis.call('hdel', KEYS[3], entries[i])
  end
end
for _, r in ipairs(redis.call('zrange', KEYS[2], 0, -1)) do
  local e = cjson.decode(r)
  count(KEYS[1], e[3], e[4], 1)
end
"""


# connects_per_second across the cluster: a token bucket per address (and IPv6 /48, which
# has NETWORK_SHARE times the rate and burst), on Redis's clock.  KEYS the address's
# bucket (then its /48's); ARGV tokens a second, burst, the /48's share.  1: taken from
# each; 0: refused, nothing taken
TAKE_CONNECT = """
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local levels = {}
for i, key in ipairs(KEYS) do
  local share = i == 1 and 1 or tonumber(ARGV[3])
  local rate, burst = tonumber(ARGV[1]) * share / 1000, tonumber(ARGV[2]) * share
  local held = redis.call('hmget', key, 'tokens', 'at')
  local tokens = tonumber(held[1]) or burst
  local at = tonumber(held[2]) or now
  tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
  if tokens < 1 then return 0 end
  levels[i] = {tokens - 1, rate, burst}
end
for i, key in ipairs(KEYS) do
  local tokens, rate, burst = unpack(levels[i])
  redis.call('hset', key, 'tokens', tostring(tokens), 'at', tostring(now))
  local full = rate > 0 and math.ceil((burst - tokens) / rate) or 86400000
  redis.call('pexpire', key, full + 1000)
end
return 1
"""


def connects_key(address: str) -> str:
    """The :data:`TAKE_CONNECT` bucket of an address key or IPv6 /48."""
    return f"{PREFIX}connects:{address}"


class Unavailable(Exception):
    """A room is between owners (its node died and no node has taken it yet)."""


@dataclass(frozen=True)
class Node:
    """A live node as its heartbeat describes it."""

    id: str
    url: str
    rooms: int
    draining: bool


def _entry(creator: str) -> str:
    """The :data:`CREATOR_OF` entry of a room ``creator`` made."""
    return json.dumps([creator, network_key(creator) or ""])


REDIS_CONNECTIONS = 100  # a node's connections to Redis; more calls at once wait their turn


def _redis(url: str) -> aioredis.Redis:
    # a pool that makes callers wait for a connection (up to the socket timeout): redis-py's
    # own refuses the 101st call at once (MaxConnectionsError), and a burst of requests or
    # a node giving up its rooms made that many at once
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=REDIS_CONNECTIONS, timeout=5, decode_responses=True,
        socket_timeout=5, socket_connect_timeout=5, health_check_interval=10)
    return aioredis.Redis(connection_pool=pool)


async def live_nodes(r: aioredis.Redis) -> list[Node]:
    """Every node whose heartbeat has not expired, with its load (rooms it owns); the
    expired ones are struck off."""
    ids = sorted(cast(set[str], await r.smembers(NODES)))
    if not ids:
        return []
    beats = await r.mget([node_key(i) for i in ids])
    loads = await r.hgetall(LOAD)
    nodes, dead = [], []
    for node_id, beat in zip(ids, beats, strict=True):
        if beat is None:
            dead.append(node_id)
            continue
        info = json.loads(beat)
        nodes.append(Node(node_id, info["url"], int(loads.get(node_id, info["rooms"])),
                          bool(info["draining"])))
    if dead:
        await r.srem(NODES, *dead)
        await r.hdel(LOAD, *dead)
    return nodes


class ClusterLobby(Lobby):
    """The lobby of one node: the rooms it owns, and its part in the cluster."""

    def __init__(self, store: Store, config: ServerConfig) -> None:
        super().__init__(store, config)
        assert config.redis, "ClusterLobby needs config.redis"
        self.node_id = config.node_id or f"{os.uname().nodename}-{secrets.token_hex(3)}"
        self.url = (config.node_url or "").rstrip("/")
        self.ttl_ms = int(config.lease_ttl * 1000)
        self.redis = _redis(config.redis)
        self.db = redis_db(self.redis)
        self.lobby_channel = lobby_channel(self.db)
        self._renew = self.redis.register_script(RENEW)
        self._release = self.redis.register_script(RELEASE)
        self._reserve = self.redis.register_script(RESERVE)
        self._cancel = self.redis.register_script(CANCEL)
        self._settle = self.redis.register_script(SETTLE)
        self._not_live = self.redis.register_script(NOT_LIVE)
        self._recount = self.redis.register_script(RECOUNT)
        self._take_connect = self.redis.register_script(TAKE_CONNECT)
        self.app: ASGIApp | None = None  # the whole application, for forwarded requests
        self.owned: set[str] = set()  # rooms whose lease this node holds
        self.secret = b""  # the cluster's key (Redis SECRET), read at every heartbeat
        self.generation: str | None = None  # the GENERATION this node's rooms are in
        self.draining = False
        self._dirty: set[str] = set()
        self._wake_flush = asyncio.Event()
        self._wake_scan = asyncio.Event()
        self._seen_nodes: frozenset[str] = frozenset()  # the live nodes at the last scan
        self._next_scan = 0.0  # the next scan in any case (time.monotonic())
        self._pending_scan = False  # the last scan left rooms to take
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._background: set[asyncio.Task[None]] = set()  # one-off jobs, kept referenced
        store.on_stale = self._on_stale

    # ------------------------------------------------------------------ life cycle

    async def restore(self) -> None:
        """Join the cluster: announce this node, list the unfinished rooms of the
        database as live (a Redis that lost its data learns them again), and start the
        loops that renew leases, take orphaned rooms and answer other nodes."""
        try:
            await self.redis.ping()
        except (RedisError, OSError) as exc:
            raise RuntimeError(f"Redis at {self.config.redis} cannot be reached: {exc}") \
                from None
        await self.redis.delete(drain_key(self.node_id))
        await self._beat()  # registers the database's unfinished rooms (a new generation)
        subscribed = asyncio.Event()
        self._tasks = [asyncio.create_task(coro) for coro in (
            self._heartbeat(), self._scan_loop(), self._flush_loop(), self._listen(subscribed))]
        await asyncio.wait_for(subscribed.wait(), 10)
        log.info("node %s joined at %s", self.node_id, self.url)
        self.start_services()

    async def close(self) -> None:
        """Leave: give every room up at once (the other nodes take them without waiting
        for the leases to expire), then stop."""
        self.draining = True
        await asyncio.gather(*(self._give_up(room_id, 1012, "server restarting")
                               for room_id in list(self.owned)))
        await cancel_and_wait([*self._tasks, *self._background])
        try:
            await self.redis.delete(node_key(self.node_id))
            await self.redis.srem(NODES, self.node_id)
            await self.redis.hdel(LOAD, self.node_id)
        except RedisError:
            log.warning("node %s: could not deregister", self.node_id)
        await self.redis.aclose()
        await super().close()

    # ------------------------------------------------------------------ rooms

    async def create(self, rules: Rules, name: str, seed: int | None,
                     creator: str | None = None, private: bool = False) -> Room:
        """A new room on this node; ``creator``'s live rooms count on every node
        (:data:`ROOMS_OF`): a place is reserved for it before the room is made, in one
        script with the check, so creates racing on several nodes cannot pass the cap.
        Without Redis, only this node's own rooms count."""
        if creator is None:
            return await self._create(rules, name, seed, None, private)
        network = network_key(creator) or ""
        reservation = json.dumps([self.node_id, secrets.token_hex(8), creator, network])
        limit = self.config.rooms_per_address
        now = time.time()
        try:
            reserved = await self._reserve(
                keys=[ROOMS_OF, RESERVED],
                args=[reservation, now, now - RESERVATION_TTL, creator, network, limit,
                      limit * NETWORK_SHARE])
        except RedisError:
            reserved = None
        if reserved == 0:
            raise self.too_many_rooms()
        try:
            room = await self._create(rules, name, seed, creator, private)
        except BaseException:
            if reserved:
                with contextlib.suppress(RedisError):
                    await self._cancel(keys=[ROOMS_OF, RESERVED],
                                       args=[reservation, creator, network])
            raise
        if reserved:
            try:
                settled = await self._settle(
                    keys=[ROOMS_OF, RESERVED, CREATOR_OF],
                    args=[reservation, room.id, _entry(creator), creator, network, limit,
                          limit * NETWORK_SHARE])
            except RedisError:  # the room is made: it counts until the reservation expires
                log.warning("node %s: room %s's creator not shared", self.node_id, room.id)
            else:
                if settled == 0:  # its reservation lapsed and the cap filled meanwhile
                    await self._unmake(room)
                    raise self.too_many_rooms()
        return room

    async def _unmake(self, room: Room) -> None:
        """Undo a room just made, before anyone knew of it: expired in the database, out
        of memory and of the cluster's live set, its lease freed."""
        await self.store.forget_addresses(room.id, status="expired")
        await self.drop(room.id, 1001, "the room expired")
        await self.forget(room.id)

    async def take_connect(self, address: str) -> bool:
        """:meth:`Lobby.take_connect` counted across the cluster (a client spreading its
        sockets over the nodes meets one allowance); this node's own count while Redis
        is away."""
        network = network_key(address)
        try:
            taken = await self._take_connect(
                keys=[connects_key(address), *([connects_key(network)] if network else [])],
                args=[self.config.connects_per_second, self.config.connect_burst,
                      NETWORK_SHARE])
        except RedisError:
            return await super().take_connect(address)
        return bool(taken)

    async def _create(self, rules: Rules, name: str, seed: int | None,
                      creator: str | None, private: bool) -> Room:
        room = await super().create(rules, name, seed, creator, private)
        await self.redis.set(lease_key(room.id), self.node_id, px=self.ttl_ms)
        await self.store.take_room(room.id)
        await self.redis.sadd(LIVE, room.id)
        self._own(room)
        return room

    async def forget(self, room_id: str) -> None:
        """A room evicted after its match or expired unplayed: free its lease and take
        it out of the cluster's lobby (its stored state stays)."""
        self.store.fences.pop(room_id, None)
        if room_id not in self.owned:
            return  # a finished room: its lease went when it ended
        try:
            await self._let_go(room_id)
        except RedisError:
            log.warning("node %s: could not free room %s; its lease will expire",
                        self.node_id, room_id)

    async def _let_go(self, room_id: str) -> None:
        """This node holds ``room_id`` no more (over, evicted or expired): out of the live
        set, the cluster's lobby and the creators' count, its lease freed."""
        self.owned.discard(room_id)
        await self._not_live(keys=[LIVE, INFOS, CREATOR_OF, ROOMS_OF], args=[room_id])
        await self._release(keys=[lease_key(room_id)], args=[self.node_id])
        await self._set_load()

    def _own(self, room: Room) -> None:
        self.owned.add(room.id)
        room.on_change = self._changed
        self._changed(room)

    async def infos(self) -> list[RoomInfo]:
        """The lobby of the whole cluster (each owner publishes its rooms), and the rooms
        finished here."""
        mine = {r.id: r.info() for r in self.rooms.values()}
        try:
            shared = cast(dict[str, str], await self.redis.hgetall(INFOS))
        except RedisError:
            return list(mine.values())
        everyone = {}
        for k, v in shared.items():
            try:
                everyone[k] = RoomInfo.model_validate_json(v)
            except ValueError:
                # a node of another version (a rolling upgrade) wrote a field this one
                # does not know: leave its room out (it may be private) rather than fail
                # the whole lobby for everyone
                log.debug("node %s: lobby entry of room %s not understood", self.node_id, k)
        return list({**everyone, **mine}.values())

    def _changed(self, room: Room) -> None:
        self._dirty.add(room.id)
        self._wake_flush.set()

    async def _flush_loop(self) -> None:
        """Publish changed rooms' lobby entries; give up finished rooms' leases."""
        while True:
            await self._wake_flush.wait()
            self._wake_flush.clear()
            dirty, self._dirty = self._dirty, set()
            try:
                await self._flush(dirty)
            except RedisError:
                log.warning("node %s: lobby update failed; retrying", self.node_id)
                self._dirty |= dirty
                await asyncio.sleep(0.5)
                self._wake_flush.set()
            await asyncio.sleep(0.05)  # a burst of changes costs one round

    async def _flush(self, dirty: set[str]) -> None:
        for room_id in dirty:
            room = self.rooms.get(room_id)
            if room is None or room_id not in self.owned:
                continue
            info = room.info()
            if info.status in ("over", "dissolved"):  # the record is stored: nothing to own
                await self._let_go(room_id)
            else:
                await self.redis.hset(INFOS, room_id, info.model_dump_json())
            await self.redis.publish(self.lobby_channel, json.dumps({"type": "room",
                                                        "room": info.model_dump()}))

    async def _set_load(self) -> None:
        await self.redis.hset(LOAD, self.node_id, len(self.owned))

    # ------------------------------------------------------------------ leases

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.ttl_ms / 3000)
            try:
                await self._beat()
            except RedisError:
                # rooms go on: no other node can take them while Redis is away, and the
                # fencing epoch refuses our writes if one did
                log.warning("node %s: Redis unreachable; keeping rooms", self.node_id)

    async def _beat(self) -> None:
        owned = sorted(self.owned)
        lost: list[str] = []
        for i in range(0, len(owned), 500):
            chunk = owned[i:i + 500]
            gone = await self._renew(keys=[lease_key(r) for r in chunk],
                                     args=[self.node_id, self.ttl_ms])
            lost += [chunk[int(k) - 1] for k in gone]
        for room_id in lost:
            # expired (this process stalled) and maybe not taken: take it back if free;
            # if another node took it meanwhile, its epoch fences our writes
            if not await self.redis.set(lease_key(room_id), self.node_id, nx=True,
                                        px=self.ttl_ms):
                await self._lost(room_id)
        if not self.draining and await self.redis.exists(drain_key(self.node_id)):
            self._spawn(self.drain())
        beat = json.dumps({"url": self.url, "rooms": len(self.owned),
                           "draining": self.draining, "pid": os.getpid(), "at": time.time()})
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(node_key(self.node_id), beat, px=self.ttl_ms)
            pipe.sadd(NODES, self.node_id)
            pipe.hset(LOAD, self.node_id, len(self.owned))
            pipe.set(SECRET, secrets.token_hex(32), nx=True)  # the first node makes the key
            pipe.get(SECRET)
            pipe.set(GENERATION, secrets.token_hex(8), nx=True)
            pipe.get(GENERATION)
            *_, secret, _, generation = await pipe.execute()
        self.secret = str(secret or "").encode()
        if generation != self.generation:
            await self._rejoin(starting=self.generation is None)
            self.generation = generation

    async def _rejoin(self, starting: bool) -> None:
        """Register this node's rooms in Redis: when it starts, and again when Redis lost
        its data (then no room counted towards ``rooms_per_address``, none was listed,
        and none whose node died was taken).  The rooms the database knows follow a
        lease TTL later, after the rooms' owners took their leases again, so that no node
        takes another's rooms meanwhile; a node that starts registers them at once."""
        if not starting:
            log.warning("node %s: Redis lost the cluster's keys; registering %s again",
                        self.node_id, counted(len(self.owned), "room"))
        await self._register(await self.store.unfinished_rooms() if starting else {})
        if not starting:
            self._spawn(self._register_stored(self.ttl_ms / 1000))
        self._dirty |= self.owned  # their lobby entries
        self._wake_flush.set()
        self._wake_scan.set()

    async def _register_stored(self, after: float) -> None:
        await asyncio.sleep(after)
        try:
            await self._register(await self.store.unfinished_rooms())
        except RedisError:
            log.warning("node %s: could not register the stored rooms", self.node_id)

    async def _register(self, stored: dict[str, str | None]) -> None:
        """Make ``stored`` (room -> creator, the database's unfinished rooms) and this
        node's live rooms (their creators from memory: the database forgets a creator
        when its match starts) live, with their creators' entries, and recount
        ``rooms_of`` from every entry and reservation."""
        mine = {room_id: room.creator for room_id in self.owned
                if (room := self.rooms.get(room_id)) is not None and room.over_at is None}
        creators = {**stored, **{r: c for r, c in mine.items() if c or r not in stored}}
        if creators:
            await self.redis.sadd(LIVE, *creators)
        entries = [(room, _entry(creator)) for room, creator in creators.items() if creator]
        await self._recount(keys=[ROOMS_OF, RESERVED, CREATOR_OF, LIVE],
                            args=[time.time() - RESERVATION_TTL,
                                  *(part for pair in entries for part in pair)])

    def _spawn(self, job: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _on_stale(self, room_id: str) -> None:
        """The database refused a write: another node owns the room now."""
        self._spawn(self._lost(room_id))

    async def _lost(self, room_id: str) -> None:
        log.warning("node %s: room %s was taken by another node", self.node_id, room_id)
        self.owned.discard(room_id)
        self.store.unfence(room_id)
        await self.drop(room_id, 1012, "the room moved to another server")

    async def _give_up(self, room_id: str, code: int, reason: str) -> None:
        """Stop a room here and free its lease for another node to take at once."""
        await self.drop(room_id, code, reason)
        self.store.unfence(room_id)
        self.owned.discard(room_id)
        try:
            await self._release(keys=[lease_key(room_id)], args=[self.node_id])
            await self._set_load()
            await self.redis.publish(self.lobby_channel,
                                     json.dumps({"type": "released", "room": room_id}))
        except RedisError:
            log.warning("node %s: could not free room %s; its lease will expire",
                        self.node_id, room_id)

    async def drain(self) -> None:
        """Take no more rooms and hand every room over to the other nodes."""
        if self.draining:
            return
        self.draining = True
        log.info("node %s: draining %s", self.node_id, counted(len(self.owned), "room"))
        await self._beat()  # placement stops choosing this node now
        await asyncio.gather(*(self._give_up(room_id, 1012, "the room moved to another server")
                               for room_id in list(self.owned)))
        await self._set_load()

    # ------------------------------------------------------------------ taking rooms

    async def _scan_loop(self) -> None:
        every = min(0.5, self.ttl_ms / 5000)
        while True:
            try:
                async with asyncio.timeout(every):
                    await self._wake_scan.wait()
            except TimeoutError:
                pass
            asked = self._wake_scan.is_set()
            self._wake_scan.clear()
            try:
                await self._watch(asked)
            except RedisError:
                log.warning("node %s: Redis unreachable; not taking rooms", self.node_id)
            except Exception:
                log.exception("node %s: scan failed", self.node_id)

    async def _watch(self, asked: bool) -> None:
        """Scan the live rooms (:meth:`_scan`) when one may have lost its owner: ``asked``
        (a room given up, a client asked for a room nobody holds, Redis lost its data),
        the live nodes changed since the last scan (a node's heartbeat expired: its
        leases expired before it), the last scan left rooms to take, or
        :data:`FULL_SCAN_EVERY` has passed.  Otherwise a tick reads the nodes alone, not
        every live room: a cluster's Redis reads grow with its nodes, not its rooms."""
        nodes = await live_nodes(self.redis)
        seen = frozenset(n.id for n in nodes)
        now = time.monotonic()
        if not (asked or self._pending_scan or seen != self._seen_nodes
                or now >= self._next_scan):
            return
        self._seen_nodes, self._next_scan = seen, now + FULL_SCAN_EVERY
        self._pending_scan = await self._scan(nodes)

    async def _scan(self, nodes: list[Node]) -> bool:
        """Take a fair share of the live rooms nobody holds a lease on.  True while some
        are left for the next scan: orphans left to other nodes (or to this one, if
        another was quicker), and rooms whose lease a node that is gone still holds (its
        heartbeat expired before its last leases)."""
        if self.draining:
            return False
        live = cast(set[str], await self.redis.smembers(LIVE))
        candidates = [r for r in live if r not in self.rooms]
        if not candidates:
            return False
        owners = await self.redis.mget([lease_key(r) for r in candidates])
        alive = {n.id for n in nodes}
        orphans = [r for r, o in zip(candidates, owners, strict=True) if o is None]
        left = any(o is not None and o not in alive for o in owners)
        if not orphans:
            return left
        takers = [n for n in nodes if not n.draining]
        random.shuffle(orphans)
        share = math.ceil(len(orphans) / max(1, len(takers)))
        for room_id in orphans[:share]:
            await self._take(room_id)
        return left or share < len(orphans)

    async def _take(self, room_id: str) -> None:
        if not await self.redis.set(lease_key(room_id), self.node_id, nx=True,
                                    px=self.ttl_ms):
            return  # another node was quicker: the lease is the lock
        try:
            room = None
            if await self.store.take_room(room_id) is not None:  # old owner's writes fail
                found = await self.store.load_rooms(room_id=room_id)
                room = await self.adopt(found[0]) if found else None
        except Exception:
            log.exception("node %s: taking room %s failed", self.node_id, room_id)
            await self._release(keys=[lease_key(room_id)], args=[self.node_id])
            return
        if room is None:  # finished, gone, or does not replay: not live any more
            await self._not_live(keys=[LIVE, INFOS, CREATOR_OF, ROOMS_OF], args=[room_id])
            await self._release(keys=[lease_key(room_id)], args=[self.node_id])
            return
        log.info("node %s took room %s at action %d", self.node_id, room_id,
                 len(room.match.actions) if room.match else 0)
        self._own(room)
        await self._set_load()

    # ------------------------------------------------------------------ routing

    async def route(self, method: str, path: str) -> str | None:
        """The node that must serve a request (None: this one).  Raises
        :class:`Unavailable` if its room has had no live owner for two lease TTLs."""
        if path == "/api/rooms" and method == "POST":
            return await self.place()
        m = ROOM_PATH.match(path)
        if m is None:
            return None
        room_id = m.group(1)
        deadline = time.monotonic() + 2 * self.ttl_ms / 1000
        while True:
            if room_id in self.rooms:
                return None
            owner = cast(str | None, await self.redis.get(lease_key(room_id)))
            if owner is not None and owner != self.node_id:
                if await self.redis.exists(node_key(owner)):
                    return owner
            elif owner is None and not await self.redis.sismember(LIVE, room_id):
                return None  # finished or unknown: this node's database answers
            if time.monotonic() > deadline:
                raise Unavailable(room_id)
            self._wake_scan.set()
            await asyncio.sleep(0.1)

    async def place(self) -> str | None:
        """The least-loaded live node that is not draining (None: this one)."""
        nodes = [n for n in await live_nodes(self.redis) if not n.draining]
        if not nodes:
            return None
        best = min(nodes, key=lambda n: (n.rooms, n.id != self.node_id))
        return None if best.id == self.node_id else best.id

    async def node_url(self, node: str) -> str | None:
        beat = await self.redis.get(node_key(node))
        return cast(str, json.loads(beat)["url"]) if beat else None

    # ------------------------------------------------------------------ node to node

    async def forward(self, node: str, request: dict[str, Any]) -> dict[str, Any] | None:
        """Run an HTTP request on ``node`` and return its response (None: the node is
        gone).  A node that does not answer within ``forward_timeout`` gives 504."""
        rid = secrets.token_hex(8)
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = reply
        try:
            message = json.dumps({**request, "type": "http", "id": rid, "from": self.node_id})
            if not await self.redis.publish(channel(self.db, node), message):
                return None
            async with asyncio.timeout(self.config.forward_timeout):
                return await reply
        except TimeoutError:
            body = json.dumps({"detail": f"node {node} did not answer in time"}).encode()
            return {"status": 504, "headers": [["content-type", "application/json"]],
                    "body": base64.b64encode(body).decode()}
        finally:
            self._pending.pop(rid, None)

    async def _listen(self, subscribed: asyncio.Event) -> None:
        while True:
            try:
                async with self.redis.pubsub() as pubsub:
                    await pubsub.subscribe(channel(self.db, self.node_id),
                                           self.lobby_channel)
                    subscribed.set()
                    async for msg in pubsub.listen():
                        if msg["type"] == "message":
                            self._on_message(json.loads(msg["data"]))
            except (RedisError, OSError):
                log.warning("node %s: pub/sub lost; reconnecting", self.node_id)
                await asyncio.sleep(0.5)

    def _on_message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "http":
            self._spawn(self._serve(msg))
        elif kind == "reply":
            waiting = self._pending.get(msg["id"])
            if waiting is not None and not waiting.done():
                waiting.set_result(msg)
        elif kind == "drain":
            self._spawn(self.drain())
        elif kind == "released":
            self._wake_scan.set()

    async def _serve(self, msg: dict[str, Any]) -> None:
        """Run a request forwarded by another node and publish the response to it."""
        assert self.app is not None
        response = await call_app(self.app, msg)
        await self.redis.publish(channel(self.db, msg["from"]),
                                 json.dumps({**response, "type": "reply", "id": msg["id"]}))


# ---------------------------------------------------------------------- ASGI plumbing


async def call_app(app: ASGIApp, request: dict[str, Any]) -> dict[str, Any]:
    """Run a serialized HTTP request through the application in this process."""
    body = base64.b64decode(request["body"])
    scope: Scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
        "method": request["method"], "scheme": "http", "path": request["path"],
        "raw_path": request["path"].encode(), "root_path": "",
        "query_string": request["query"].encode(),
        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in request["headers"]],
        "client": tuple(request.get("client") or ("0.0.0.0", 0)), "server": None,
        FORWARDED: True}
    status, headers, parts = 500, [], []

    async def send(message: Message) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status = message["status"]
            headers = [[k.decode("latin-1"), v.decode("latin-1")]
                       for k, v in message.get("headers", [])]
        elif message["type"] == "http.response.body":
            parts.append(message.get("body", b""))

    await app(scope, _replay_body(body), send)
    return {"status": status, "headers": headers,
            "body": base64.b64encode(b"".join(parts)).decode()}


async def _read_body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def sign_client(secret: bytes, node: str, host: str, path: str) -> str:
    """The :data:`CLIENT` header a node adds to a WebSocket it proxies for the client at
    ``host``: ``"HOST SIGNATURE"`` (HMAC-SHA256 over the proxying node, host and path)."""
    mac = hmac.new(secret, f"{node}\n{host}\n{path}".encode(), hashlib.sha256).hexdigest()
    return f"{host} {mac}"


def proxied_client(secret: bytes, scope: Scope) -> str | None:
    """The client's host a proxied WebSocket's :data:`CLIENT` header names, if a node of
    this cluster signed it; ``None`` otherwise (no header, a forged or stale signature,
    no key yet)."""
    headers = dict(scope.get("headers", []))
    node, claimed = headers.get(PROXIED), headers.get(CLIENT)
    if not secret or node is None or claimed is None:
        return None
    host, _, _ = claimed.decode("latin-1").partition(" ")
    expected = sign_client(secret, node.decode("latin-1"), host, scope.get("path", ""))
    return host if hmac.compare_digest(expected.encode(), claimed) else None


class ClusterRouter:
    """ASGI middleware: sends requests and WebSockets for rooms owned by another node
    there; everything else (and everything when not in a cluster) passes through."""

    def __init__(self, app: ASGIApp, lobby: Callable[[], Lobby | None]) -> None:
        self.app = app
        self.lobby = lobby

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        lobby = self.lobby()
        if (not isinstance(lobby, ClusterLobby) or scope["type"] not in ("http", "websocket")
                or scope.get(FORWARDED)):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket" and any(k == PROXIED for k, _ in scope["headers"]):
            # a node proxies a client's WebSocket here: that client's address counts (the
            # spectator cap is per address), not the proxying node's, and it is served
            # here (no proxying on) if a node signed it; anything else is routed as usual.
            # The proxying node counted its connect
            host = proxied_client(lobby.secret, scope)
            if host is not None:
                await self.app({**scope, "client": (host, 0), CONNECT_COUNTED: True},
                               receive, send)
                return
        if scope["type"] == "http":
            await self._http(lobby, scope, receive, send)
        else:
            await self._websocket(lobby, scope, receive, send)

    async def _http(self, lobby: ClusterLobby, scope: Scope, receive: Receive,
                    send: Send) -> None:
        body: bytes | None = None
        deadline = time.monotonic() + 2 * lobby.ttl_ms / 1000
        while True:
            try:
                node = await lobby.route(scope["method"], scope["path"])
            except Unavailable:
                await _respond(send, 503, b'{"detail": "the room is moving to another '
                                          b'server; try again"}')
                return
            if node is None:
                if body is None:
                    await self.app(scope, receive, send)
                else:
                    await self.app(scope, _replay_body(body), send)
                return
            if body is None:
                body = await _read_body(receive)
            client = scope.get("client")
            response = await lobby.forward(node, {
                "method": scope["method"], "path": scope["path"],
                "query": scope.get("query_string", b"").decode("latin-1"),
                "headers": [[k.decode("latin-1"), v.decode("latin-1")]
                            for k, v in scope["headers"] if k not in HOP_HEADERS],
                "body": base64.b64encode(body).decode(),
                "client": list(client) if client else None})
            if response is not None:
                await send({"type": "http.response.start", "status": response["status"],
                            "headers": [(k.encode("latin-1"), v.encode("latin-1"))
                                        for k, v in response["headers"]]})
                await send({"type": "http.response.body",
                            "body": base64.b64decode(response["body"])})
                return
            if time.monotonic() > deadline:  # the node vanished and nobody took over
                await _respond(send, 503, b'{"detail": "no server answers for the room; '
                                          b'try again"}')
                return
            await asyncio.sleep(0.1)

    async def _websocket(self, lobby: ClusterLobby, scope: Scope, receive: Receive,
                         send: Send) -> None:
        client = scope.get("client")
        if not await lobby.take_connect(address_key(client[0]) if client else "?"):
            # refused where the client came in: before a route is looked up or a socket
            # to the owner opened
            if await receive() == {"type": "websocket.connect"}:
                await send({"type": "websocket.accept"})
                await send({"type": "websocket.close", "code": TOO_MANY_CONNECTS,
                            "reason": too_many_connects(lobby.config.connects_per_second)})
            return
        scope = {**scope, CONNECT_COUNTED: True}
        try:
            node = await lobby.route("GET", scope["path"])
        except Unavailable:
            node = ""
        if node is None:
            await self.app(scope, receive, send)
            return
        url = await lobby.node_url(node) if node else None
        upstream: ClientConnection | None = None
        if url:
            target = re.sub(r"^http", "ws", url) + scope["path"]
            query = scope.get("query_string", b"").decode("latin-1")
            headers = [(k.decode("latin-1"), v.decode("latin-1"))
                       for k, v in scope["headers"]
                       if k not in HOP_HEADERS and not k.startswith((b"sec-websocket",
                                                                     INTERNAL))]
            if client and lobby.secret:
                headers.append((CLIENT.decode(), sign_client(lobby.secret, lobby.node_id,
                                                             client[0], scope["path"])))
            # the seat token travels as a subprotocol (never in a URL): pass them all on
            offered = [Subprotocol(p) for p in scope.get("subprotocols") or []]
            try:
                upstream = await connect(target + (f"?{query}" if query else ""),
                                         additional_headers=[*headers,
                                                             (PROXIED.decode(), lobby.node_id)],
                                         subprotocols=offered or None,
                                         max_size=None, open_timeout=5)
            except (OSError, TimeoutError, WebSocketException):
                upstream = None
        if await receive() != {"type": "websocket.connect"}:
            if upstream is not None:
                await upstream.close()
            return
        await send({"type": "websocket.accept",
                    "subprotocol": upstream.subprotocol if upstream is not None else None})
        if upstream is None:
            await send({"type": "websocket.close", "code": 1013,
                        "reason": "the room is moving to another server; try again"})
            return
        await _pipe(upstream, receive, send)


async def _pipe(upstream: ClientConnection, receive: Receive, send: Send) -> None:
    """Relay frames both ways until one side closes; pass the owner's close code on."""

    async def client_to_owner() -> None:
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                await upstream.close()
                return
            data = message.get("text")
            await upstream.send(data if data is not None else message.get("bytes") or b"")

    async def owner_to_client() -> None:
        try:
            async for data in upstream:
                key = "text" if isinstance(data, str) else "bytes"
                await send({"type": "websocket.send", key: data})
        except ConnectionClosed:
            pass
        code = upstream.close_code
        reason = upstream.close_reason or ""
        if code is None or code in (1005, 1006):  # the owner died: the client reconnects
            code, reason = 1012, "the room's server went away; reconnect"
        await send({"type": "websocket.close", "code": code, "reason": reason})

    tasks = [asyncio.create_task(client_to_owner()), asyncio.create_task(owner_to_client())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await upstream.close()


def _replay_body(body: bytes) -> Receive:
    """An ASGI ``receive`` that gives a request's whole body once (and then waits, as a
    client that sends nothing more)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()
        raise AssertionError  # pragma: no cover

    return receive


async def _respond(send: Send, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"retry-after", b"1")]})
    await send({"type": "http.response.body", "body": body})


# ---------------------------------------------------------------------- operators


async def list_nodes(redis_url: str) -> list[Node]:
    """The live nodes of the cluster behind ``redis_url`` (``hzmj node list``)."""
    r = _redis(redis_url)
    try:
        return await live_nodes(r)
    finally:
        await r.aclose()


async def drain_node(redis_url: str, node: str, timeout: float) -> int:
    """Ask ``node`` to hand its rooms over and wait until it holds none (``hzmj node
    drain``).  Returns how many rooms it had; LookupError if no such live node,
    TimeoutError if it still holds rooms after ``timeout`` seconds."""
    r = _redis(redis_url)
    try:
        found = {n.id: n for n in await live_nodes(r)}
        if node not in found:
            raise LookupError(f"no live node {node!r} (live: {', '.join(found) or 'none'})")
        await r.set(drain_key(node), "1")
        await r.publish(channel(redis_db(r), node), json.dumps({"type": "drain"}))
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            left = await r.hget(LOAD, node)
            if left is None or int(left) == 0:
                return found[node].rooms
            await asyncio.sleep(0.2)
        raise TimeoutError(f"node {node} still holds rooms after {timeout:g} s")
    finally:
        await r.aclose()
