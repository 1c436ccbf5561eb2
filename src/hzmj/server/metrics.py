"""Prometheus metrics of one server process (``GET /metrics``, docs/scaling.md).

Counters count from the process's start (moves by who made them, hands and matches
finished, refusals by code); the bots' decision times are a histogram of what a table
waits (queueing in the worker pool included); the gauges are read from the lobby at each
scrape (rooms by status, connections, worker pools).  In a cluster every node serves its
own: sum them in Prometheus.

Who may read them: anyone sending ``Authorization: Bearer`` with the server's
``metrics_token`` (``HZMJ_METRICS_TOKEN``), and a client on the loopback unless the
loopback is a trusted proxy's address (``forwarded_allow_ips``, by default 127.0.0.1):
a proxy on this machine makes every visitor it forwards look local, and one that sends
no ``X-Forwarded-For`` cannot be told from the operator's own ``curl``.  Everyone else
gets 403: room counts and latencies are an operator's business, not the public's.
Wrong tokens count against the client's address like failed log-ins (:class:`Gate`):
past ``login_failures`` in ``login_window`` every token from it is refused (429) until
the window has passed, so the token cannot be guessed by trying.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.requests import Request

from hzmj.server.guard import TrustedProxies, client_address, is_loopback, network_key

if TYPE_CHECKING:
    from hzmj.server.accounts import Throttle
    from hzmj.server.rooms import Lobby

# Process-wide, like the bot worker pools they describe; every app of the process
# (tests run several) registers them in its own registry next to its lobby's gauges.
MOVES = Counter("hzmj_moves", "Moves applied, by who made them: player (a person), bot "
                "(a bot's seat), auto (the bot for a person: 托管, away, left), clock "
                "(the default on a timeout, RULES §8.7)", ["by"], registry=None)
HANDS = Counter("hzmj_hands_finished", "Hands finished (a win or a draw)", registry=None)
MATCHES = Counter("hzmj_matches_finished", "Matches played to their end", registry=None)
REFUSALS = Counter("hzmj_refusals", "Requests and messages refused, by the error code a "
                   "client gets (too_many_rooms, rate_limited, not_legal …)", ["code"],
                   registry=None)
BOT_SECONDS = Histogram("hzmj_bot_decision_seconds", "Seconds from asking a bot to its "
                        "answer, waiting for a worker included, by bot",
                        ["bot"], registry=None,
                        buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def refused(code: str | None) -> None:
    """Count one refusal with ``code`` (``"other"`` when it has none)."""
    REFUSALS.labels(code or "other").inc()


class LobbyCollector(Collector):
    """The gauges of one lobby, read when Prometheus scrapes."""

    def __init__(self, lobby: Callable[[], Lobby]) -> None:
        self.lobby = lobby

    def collect(self) -> Iterator[Metric]:
        lob = self.lobby()
        rooms = GaugeMetricFamily("hzmj_rooms", "Rooms in this process's memory, by status",
                                  labels=["status"])
        by_status = {"open": 0, "running": 0, "over": 0, "dissolved": 0}
        sockets = {"seat": 0, "spectator": 0}
        for room in lob.rooms.values():
            by_status[room.status] += 1
            sockets["seat"] += room.seated_connections
            sockets["spectator"] += len(room.spectators)
        for status, n in by_status.items():
            rooms.add_metric([status], n)
        yield rooms
        yield GaugeMetricFamily("hzmj_rooms_max", "The live-room cap (max_rooms)",
                                value=lob.config.max_rooms)
        conns = GaugeMetricFamily("hzmj_connections", "Open WebSockets, by kind",
                                  labels=["kind"])
        for kind, n in sockets.items():
            conns.add_metric([kind], n)
        yield conns
        yield GaugeMetricFamily("hzmj_rooms_quarantined",
                                "Stored rooms that could not be rebuilt",
                                value=len(lob.quarantined))
        yield GaugeMetricFamily("hzmj_bot_workers", "Bot worker processes (0: inline)",
                                value=lob.thinker.workers)
        yield GaugeMetricFamily("hzmj_bot_queue", "Bot decisions waiting for a worker",
                                value=lob.thinker.waiting)
        yield CounterMetricFamily("hzmj_bot_worker_restarts",
                                  "Bot worker pools respawned since the start",
                                  value=lob.thinker.restarts)
        yield GaugeMetricFamily("hzmj_degraded", "1 while /api/health says degraded",
                                value=int(bool(lob.problems())))


def registry_for(lobby: Callable[[], Lobby]) -> CollectorRegistry:
    """A registry with the process's counters and the gauges of the lobby that ``lobby()``
    returns at each scrape."""
    registry = CollectorRegistry(auto_describe=True)
    for metric in (MOVES, HANDS, MATCHES, REFUSALS, BOT_SECONDS):
        registry.register(metric)
    registry.register(LobbyCollector(lobby))
    return registry


def presented_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer`` header, if there is one."""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    return given.strip() if scheme.lower() == "bearer" else None


def token_matches(given: str, token: str | None) -> bool:
    """Whether ``given`` is ``token``, compared in constant time (of the digests, so not
    even the token's length shows in the time taken)."""
    if not token:
        return False
    digest = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).digest()
              for t in (given, token)]
    return hmac.compare_digest(*digest)


def local(request: Request, proxies: TrustedProxies) -> bool:
    """Whether ``request`` comes from the loopback and not through a proxy: its address
    (the forwarded one behind a trusted proxy) is a loopback address that no trusted
    proxy has (``*`` trusts every address, so none is local)."""
    host = request.client.host if request.client else ""
    return is_loopback(host) and host not in proxies


class Gate:
    """Who may read the metrics (the module's docstring).  Wrong tokens are failures of
    the client's address in ``by_address`` and, for an IPv6 /64, of its /48 in
    ``by_network`` (a site does not get a fresh allowance from each of its /64s)."""

    def __init__(self, token: str | None, proxies: TrustedProxies, by_address: Throttle,
                 by_network: Throttle) -> None:
        self.token, self.proxies = token, proxies
        self.by_address, self.by_network = by_address, by_network

    def verdict(self, request: Request) -> tuple[int, int]:
        """200, 403 or 429 for ``request``, and the seconds to wait when 429."""
        given = presented_token(request)
        if given is None:
            return (200 if local(request, self.proxies) else 403), 0
        address = client_address(request)
        network = network_key(address)
        wait = max(self.by_address.retry_after(address),
                   self.by_network.retry_after(network) if network else 0.0)
        if wait > 0:  # even the right token: or guessing would go on, only unanswered
            return 429, math.ceil(wait)
        if token_matches(given, self.token):
            return 200, 0
        self.by_address.fail(address)
        if network:
            self.by_network.fail(network)
        return (200 if local(request, self.proxies) else 403), 0
