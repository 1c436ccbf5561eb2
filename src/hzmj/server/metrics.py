"""Prometheus metrics of one server process (``GET /metrics``, docs/scaling.md).

Counters count from the process's start (moves by who made them, hands and matches
finished, refusals by code); the bots' decision times are a histogram of what a table
waits (queueing in the worker pool included); the gauges are read from the lobby at each
scrape (rooms by status, connections, worker pools).  In a cluster every node serves its
own: sum them in Prometheus.

Who may read them: a client on the loopback (behind a proxy trusted with
``--forwarded-allow-ips``, the visitor's own address counts, not the proxy's), or anyone sending ``Authorization: Bearer`` with the server's
``metrics_token`` (``HZMJ_METRICS_TOKEN``).  Everyone else gets 403: room counts and
latencies are an operator's business, not the public's.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.requests import Request

if TYPE_CHECKING:
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
        by_status = {"open": 0, "running": 0, "over": 0}
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


def allowed(request: Request, token: str | None) -> bool:
    """Whether ``request`` may read the metrics: from the loopback, or with the token."""
    if token:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(),
                                                              token.encode()):
            return True
    host = request.client.host if request.client else ""
    try:  # the forwarded address behind a trusted proxy (uvicorn's proxy headers)
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    # IPv4's loopback as a dual-stack socket (--host ::) shows it: ::ffff:127.0.0.1
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return (mapped or ip).is_loopback


def render(registry: CollectorRegistry) -> bytes:
    """The text exposition format of ``registry``."""
    return generate_latest(registry)
