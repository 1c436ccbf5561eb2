"""Server settings: database, pacing of bots and hands, timers, and every limit.

Every knob can be set from the environment (``HZMJ_*``), which is how tests and the
benchmark shorten the pauses of a server they start as a separate process.  The limits
that protect the server (sizes, rates, caps, lifetimes) all live here, documented in
``docs/protocol.md`` ("Limits").
"""

from __future__ import annotations

import difflib
import gc
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from hzmj.shown import clip, shown


def database_url(db: str) -> str:
    """An SQLAlchemy async URL from ``--db``: a file path (SQLite) or a URL.

    ``postgresql://…`` becomes ``postgresql+asyncpg://…`` and ``sqlite:///…`` becomes
    ``sqlite+aiosqlite:///…``; a URL that already names its driver is kept.
    """
    if "://" not in db:
        return f"sqlite+aiosqlite:///{Path(db).expanduser().resolve()}"
    scheme, rest = db.split("://", 1)
    if scheme in ("postgresql", "postgres"):
        return f"postgresql+asyncpg://{rest}"
    if scheme == "sqlite":
        return f"sqlite+aiosqlite://{rest}"
    return db


def web_address(url: str) -> bool:
    """Whether ``url`` is an ``http://`` or ``https://`` address with a host and, if it
    names one, a port of 1–65535 (what share links and other nodes can use)."""
    try:
        parts = urlsplit(url)
        port = parts.port  # ValueError when not a number or out of range
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and port != 0


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


SCRIPT_VARIABLES: Final = frozenset({"HZMJ_PG_DB", "HZMJ_PG_USER", "HZMJ_PG_PASSWORD",
                                     "HZMJ_REDIS_PORT", "HZMJ_REDIS_DIR"})
"""``HZMJ_*`` variables of the project's scripts (``.ci/postgres.sh``, ``.ci/redis.sh``),
not the server's settings; ``HZMJ_TEST_*`` are the tests'."""

MAX_REVIEW_WORKERS = 64
"""Processes the AI reviews may have at most (each is a whole Python process)."""


@dataclass(frozen=True)
class ServerConfig:
    """How the server runs.  Times are seconds."""

    db: str = "./hzmj.db"
    bot_delay: float = 0.6  # a bot's thinking pause before it acts
    bot_workers: int = -1  # processes that run the bots (-1: one per core; 0: inline)
    review_workers: int = 1  # processes that make AI reviews, apart from the tables' bot
    # workers so a review never delays a table's bot (0: reviews share the bot workers)
    hand_pause: float = 3.0  # after the next hand is dealt, before its first prompt (the deal)
    ready_seconds: float = 20.0  # the gate between hands: longest wait for 继续 (ready)
    time_scale: float = 1.0  # multiplies claim_seconds / turn_seconds (tests shorten them)
    claim_pause_scale: float = 1.0  # multiplies the rooms' claim_pause_ms (tests: 0)
    away_grace: float = 10.0  # a disconnected player keeps the clock this long before 托管
    expiries_to_auto: int = 2  # consecutive clock expiries that switch a seat to 托管
    # -- client limits
    max_body_bytes: int = 65536  # an HTTP request body above this is refused (413)
    max_message_bytes: int = 4096
    request_seconds: float = 10.0  # an HTTP request (headers and body) must arrive within this
    # (slowloris: sockets that send a header a minute hold the process's files)
    rate_per_second: float = 20.0  # per-connection message rate (token bucket)
    rate_burst: int = 40
    flood_strikes: int = 50  # messages refused for rate within strike_window → closed
    strike_window: float = 10.0  # a refused message stops counting after this long
    hints_per_second: float = 1.0  # per seat token, a token bucket like the messages'
    snapshots_per_second: float = 1.0  # snapshot requests of one connection (each is the
    snapshot_burst: int = 5  # whole view and every hand's result, ~20 KB late in a match)
    phrases_per_minute: float = 12.0  # quick phrases of one seat, all its connections
    phrase_burst: int = 3  # (each goes to every connection of the room)
    switches_per_minute: float = 30.0  # 托管 (auto) and ready switches of one seat, all its
    switch_burst: int = 10  # connections (each is a room message to every socket of the
    # room, 托管 also a database write: 600 a second from one address took a core)
    hints_burst: int = 5
    sockets_per_room: int = 64  # WebSocket connections to one room: each seat keeps
    # sockets_per_token of them for itself, spectators share the rest
    sockets_per_token: int = 4  # connections of one seat token
    spectators_per_address: int = 32  # spectator sockets of one client address, all rooms
    connects_per_second: float = 3.0  # WebSockets one client address may open (token
    connect_burst: int = 12  # bucket; each is a token check and a whole snapshot): a
    # flaky network's reconnects pass, a client that opens and closes in a loop does not
    create_per_minute: float = 10.0  # rooms one client address may create (token bucket)
    create_burst: int = 20
    rooms_per_address: int = 16  # live rooms (open or playing) one client address has
    # created; one more answers 429 (an IPv6 /48 shares NETWORK_SHARE times as many)
    join_per_minute: float = 30.0  # seats one client address may take (token bucket)
    join_burst: int = 12
    share_per_minute: float = 60.0  # share links one client address may ask for (token
    share_burst: int = 20  # bucket): a QR code not yet cached is 4–9 ms of pure Python
    signup_per_minute: float = 2.0  # accounts one client address may create (token bucket)
    signup_burst: int = 5
    login_per_minute: float = 20.0  # log-ins of one client address, right or wrong (each
    login_burst: int = 40  # hashes a password; each right one stores a session)
    # -- capacity and lifetimes
    max_rooms: int = 2000  # live rooms in memory; creating one more answers 503
    finished_grace: float = 120.0  # a finished room stays in memory this long
    open_idle: float = 3600.0  # an open room nobody joins or watches expires after this
    empty_idle: float = 600.0  # an open room where no player has a seat expires sooner
    # a running match pauses while no seat token has a connection (spectators do not
    # count); paused this long, the room is dissolved: its record so far stays, unrated
    unattended_limit: float = 600.0
    sweep_every: float = 5.0  # how often rooms are checked for eviction and expiry
    room_info_delay: float = 0.05  # seat changes within this are sent as one room message
    # a client's seed deals a room with humans too: for tests only, never in production
    allow_fixed_seed: bool = False
    session_days: float = 30.0  # an account session (cookie or bearer token) lasts this long
    login_failures: int = 5  # failed log-ins per user name and client address per login_window
    login_window: float = 900.0
    web_dir: str | None = None  # the browser client's static files (None: hzmj/web)
    # many nodes (docs/scaling.md); without ``redis`` the server is one process on its own
    redis: str | None = None  # redis://host:port/db shared by every node
    node_url: str | None = None  # where the other nodes reach this node
    node_id: str | None = None  # unique per node (None: made up at start-up)
    lease_ttl: float = 5.0  # a room's lease; a dead owner's rooms move after this
    forward_timeout: float = 10.0  # a command forwarded to a room's owner
    metrics_token: str | None = None  # GET /metrics with "Authorization: Bearer TOKEN" from
    # anywhere (without it, only loopback clients that are no trusted proxy)
    # the proxies whose X-Forwarded-For / -Proto are believed (``hzmj serve
    # --forwarded-allow-ips``): addresses and networks, comma-separated; "" none, "*" any
    forwarded_allow_ips: str = "127.0.0.1"
    public_url: str | None = None  # the address players use (share links, QR); None: the
    # address each visitor used, forwarded headers included
    lan_url: str | None = None  # set by `serve --host 0.0.0.0`: links for local visitors
    hint_ms: int = 300  # a hint's time budget: the strongest bot that fits decides
    # the server process's garbage collector (``hzmj serve`` only): a young collection
    # every ``gc_gen0`` allocations (Python's default is 700), and the objects alive at
    # start-up frozen out of every collection.  Hundreds of live matches make a full
    # collection take hundreds of milliseconds, every player's latency; 0 leaves the
    # collector as Python sets it
    gc_gen0: int = 50_000
    # the server's log lines (``hzmj serve``): "text" (LEVEL logger: message) or "json",
    # one object a line (time, level, logger, message) for a log collector
    log_format: str = "text"

    def __post_init__(self) -> None:
        """``ValueError`` for a setting no request could ever be served with."""
        from hzmj.bots.registry import MAX_BUDGET_MS

        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if f.type == "int" and not isinstance(value, int):  # 1.5 workers, 2.0 hints
                raise ValueError(f"{f.name} (HZMJ_{f.name.upper()}) must be a whole "
                                 f"number, got {value}")
            low = -1 if f.name == "bot_workers" else 0  # -1: one worker per core
            if not (math.isfinite(value) and value >= low):
                raise ValueError(f"{f.name} (HZMJ_{f.name.upper()}) must be a finite "
                                 f"number ≥ {low}, got {value}")
        if self.review_workers > MAX_REVIEW_WORKERS:
            raise ValueError(f"review_workers (HZMJ_REVIEW_WORKERS) must be at most "
                             f"{MAX_REVIEW_WORKERS}, got {self.review_workers}")
        for name in ("public_url", "node_url", "lan_url"):
            url = getattr(self, name)
            if url is not None and not web_address(url):
                raise ValueError(f"{name} (HZMJ_{name.upper()}) must be an http:// or "
                                 f"https:// address with a host, got {shown(url)}")
        if self.request_seconds <= 0:
            raise ValueError(f"request_seconds (HZMJ_REQUEST_SECONDS) must be above 0, got "
                             f"{self.request_seconds}")
        if not self.db.strip():
            raise ValueError("db (HZMJ_DB) must name an SQLite file or a database URL")
        if self.log_format not in ("text", "json"):
            raise ValueError(f"log_format (HZMJ_LOG_FORMAT) must be text or json, got "
                             f"{shown(self.log_format)}")
        if not 1 <= self.hint_ms <= MAX_BUDGET_MS:
            raise ValueError(f"hint_ms (HZMJ_HINT_MS) must be 1 to {MAX_BUDGET_MS} "
                             f"milliseconds, got {self.hint_ms}")

    @property
    def empty_lifetime(self) -> float:
        """How long an open room where nobody holds a seat lives after its last use: the
        shorter of ``empty_idle`` and ``open_idle``."""
        return min(self.empty_idle, self.open_idle)

    @property
    def db_url(self) -> str:
        return database_url(self.db)

    @property
    def workers(self) -> int:
        """Bot worker processes: ``bot_workers``, or one per core when it is -1."""
        return (os.cpu_count() or 1) if self.bot_workers < 0 else self.bot_workers

    @property
    def review_pool(self) -> int:
        """Processes of the AI reviews' own: ``review_workers``, or 0 when reviews share
        the bot workers (``review_workers`` 0) or run in a thread (no bot workers)."""
        return self.review_workers if self.workers > 0 else 0

    @classmethod
    def from_env(cls, **overrides: Any) -> ServerConfig:
        """Defaults, then ``HZMJ_<FIELD>`` environment variables, then ``overrides``."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = os.environ.get(f"HZMJ_{f.name.upper()}")
            if raw is None:
                continue
            default = getattr(cls, f.name)
            name = f"HZMJ_{f.name.upper()}"
            if isinstance(default, bool):
                if raw.lower() not in _TRUE + _FALSE:
                    raise ValueError(f"{name} must be one of {', '.join(_TRUE + _FALSE)}, "
                                     f"got {raw!r}")
                values[f.name] = raw.lower() in _TRUE
            elif isinstance(default, (int, float)):
                try:
                    values[f.name] = type(default)(raw)
                except ValueError:
                    raise ValueError(f"{name} must be a number ({type(default).__name__}), "
                                     f"got {raw!r}") from None
            else:
                values[f.name] = raw
        return replace(cls(**values), **{k: v for k, v in overrides.items() if v is not None})


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """A warning for each ``HZMJ_*`` name in ``environ`` that is no setting of
    :class:`ServerConfig` (a typo such as ``HZMJ_REVEIW_WORKERS`` was silently ignored),
    naming the closest setting; the scripts' and the tests' variables are left out.  Only
    names are shown, never values (a misspelt ``HZMJ_METRICS_TOKEN`` holds a secret)."""
    settings = [f.name.upper() for f in fields(ServerConfig)]
    warnings = []
    for name in sorted(environ):
        if (not name.upper().startswith("HZMJ_") or name[5:] in settings and name[:5] == "HZMJ_"
                or name in SCRIPT_VARIABLES or name.startswith("HZMJ_TEST_")):
            continue  # hzmj_bot_delay is not read either: names are upper-case
        close = difflib.get_close_matches(name[5:].upper(), settings, n=1)  # not by the prefix
        warnings.append(f"{clip(name)} is not a setting of the server and is ignored"
                        + (f": did you mean HZMJ_{close[0]}?" if close else
                           " (the settings: docs/protocol.md, \"Settings\")"))
    return warnings


def tune_gc(gen0: int) -> None:
    """Fewer, cheaper garbage collections for a long-running server process.

    A young collection every ``gen0`` net allocations of tracked objects, a middle one
    every 20 young ones, a full one every 20 middle ones (and, as always, only once the
    long-lived objects have grown by a quarter); everything alive now (the imported
    libraries, some hundred thousand objects) is frozen out of every later collection.
    ``gen0`` 0: Python's defaults stay."""
    if gen0 <= 0:
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(gen0, 20, 20)
