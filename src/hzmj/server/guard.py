"""What stands between clients and the rooms: strict JSON, body limits, rate limits, and
a log filter that keeps seat tokens out of the server's log.

Every limit's value comes from :class:`~hzmj.server.config.ServerConfig`; this module
only enforces them (documented in ``docs/protocol.md``, "Limits").
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import json
import logging
import re
import socket
import time
from collections import deque
from typing import Any

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_JSON_DEPTH = 32  # no message or body of ours nests deeper than a few levels
# scope key of a WebSocket whose connect was counted (connects_per_second) before the
# application saw it: by a cluster node's router, where the client reached the cluster
CONNECT_COUNTED = "hzmj.connect_counted"
TOO_MANY_CONNECTS = 4429  # the close code of a WebSocket over a cap or a rate


def too_many_connects(per_second: float) -> str:
    """The close reason of a WebSocket refused for ``connects_per_second``."""
    return (f"too many connections from your address (at most {per_second:g} a second); "
            "reconnect in a moment")


class NotUnicode(ValueError):
    """Standard JSON that holds a lone surrogate (``"\\ud800"``): well-formed, but no
    text; a request answers 422 for it, as for any other invalid field.  ``path`` is
    where (object keys and list indexes)."""

    def __init__(self, message: str, path: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.path = path


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is out of range for a number")
    return value


def strict_json(text: str) -> Any:
    """Parse ``text`` as standard JSON; :class:`ValueError` with a short reason for
    what Python's parser lets through but JSON (or our storage) cannot carry: NaN and
    Infinity, numbers that overflow to infinity, nesting deeper than
    :data:`MAX_JSON_DEPTH`, and (:class:`NotUnicode`) lone surrogates."""
    try:
        data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError(f"malformed JSON: nested deeper than {MAX_JSON_DEPTH} levels") \
            from None
    except ValueError as exc:
        raise ValueError(f"malformed JSON: {exc}") from None
    _check_tree(data)
    return data


def _check_tree(data: Any) -> None:
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise NotUnicode("a string holds a lone surrogate (not Unicode text)",
                                 path) from None
            continue
        if not isinstance(item, (dict, list)):
            continue
        if len(path) >= MAX_JSON_DEPTH:
            raise ValueError(f"malformed JSON: nested deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(item, dict):
            stack.extend((key, path) for key in item)  # a bad key: its object is at fault
            stack.extend((value, (*path, str(key))) for key, value in item.items())
        else:
            stack.extend((value, (*path, i)) for i, value in enumerate(item))


class Bucket:
    """Token bucket: ``rate`` takes a second, bursts of ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.at = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def ready(self) -> bool:
        """Whether :meth:`take` would succeed now (nothing is taken)."""
        return self.tokens + (time.monotonic() - self.at) * self.rate >= 1


# an IPv6 /48 (one site) holds 65,536 /64 networks: it shares this many times one /64's
# allowance, so a site cannot multiply its rate limits by hopping between its /64s
NETWORK_SHARE = 8
NETWORK_CACHE = 1 << 16  # /64 keys whose /48 is remembered (a few MB at most)


class BucketsByKey:
    """One :class:`Bucket` per key (a client address, a seat token); buckets that have
    filled up again are forgotten, so memory stays bounded by the active keys.

    An IPv6 ``/64`` key (:func:`address_key`) also draws on its ``/48``'s bucket, which
    is :data:`NETWORK_SHARE` times as large and as fast: a take succeeds only when both
    have a token."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, Bucket] = {}

    def _bucket(self, key: str, share: int = 1) -> Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(self.rate * share, self.burst * share)
        return bucket

    def take(self, key: str) -> bool:
        if len(self._buckets) > 10_000:
            now = time.monotonic()
            self._buckets = {k: b for k, b in self._buckets.items()
                             if b.tokens + (now - b.at) * b.rate < b.burst}
        bucket = self._bucket(key)
        network = network_key(key)
        if network is None:
            return bucket.take()
        shared = self._bucket(network, NETWORK_SHARE)
        if not (bucket.ready() and shared.ready()):
            return False
        return bucket.take() and shared.take()


def client_address(request: HTTPConnection) -> str:
    """The client's address as the rate limits and room bans know it (behind a trusted
    proxy, the forwarded one: ``hzmj serve --forwarded-allow-ips``): an IPv4 address as
    it is, an IPv6 one as its ``/64`` network (``"2001:db8:1:2::/64"``: one subscriber
    holds a whole /64, so counting each address would give it 2^64 allowances), an
    IPv4-mapped IPv6 address as the IPv4 one; anything else (a test client's name) as
    given, ``"?"`` when there is none."""
    return address_key(request.client.host) if request.client else "?"


def address_key(host: str) -> str:
    """The key :func:`client_address` counts ``host`` under."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])  # a zone ("fe80::1%eth0") dropped
    except ValueError:
        # not an address (a name a proxy forwarded): as given, or its digest if it is
        # longer than the 64 characters a seat stores (PostgreSQL refused the join)
        if len(host) <= 64:
            return host
        return "name:" + hashlib.sha256(host.encode("utf-8", "surrogatepass")).hexdigest()[:40]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@functools.lru_cache(maxsize=NETWORK_CACHE)
def network_key(key: str) -> str | None:
    """The IPv6 ``/48`` that an :func:`address_key` ``/64`` key lies in
    (``"2001:db8:1:2::/64"`` → ``"2001:db8:1::/48"``); None for any other key.  Cached,
    and parsed in C when not: a room create compares the creator with every live room's
    (thousands in a cluster), and the rate limits ask it for every IPv6 visitor."""
    if not key.endswith("/64"):
        return None
    try:
        packed = socket.inet_pton(socket.AF_INET6, key[:-3])
    except (OSError, ValueError):  # not an IPv6 address (a name a proxy forwarded)
        return None
    if any(packed[8:]):  # host bits: no /64 network address_key makes
        return None
    return socket.inet_ntop(socket.AF_INET6, packed[:6] + bytes(10)) + "/48"


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an address (a zone dropped, an IPv4-mapped IPv6 address as the IPv4
    one: a dual-stack socket, ``--host ::``, shows IPv4 clients so); None for a name."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return mapped or ip


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (``127.0.0.1``, ``::1``,
    ``::ffff:127.0.0.1``)."""
    ip = _ip(host)
    return ip is not None and ip.is_loopback


class TrustedProxies:
    """The proxies whose ``X-Forwarded-For`` is believed (``hzmj serve
    --forwarded-allow-ips``, ``forwarded_allow_ips``): addresses and networks, comma
    separated; ``*`` every client (then any client names the address it likes); empty:
    none.  uvicorn applies the header (:meth:`uvicorn_hosts`); the server asks this
    list who is a proxy (:meth:`unnamed`, and the metrics' loopback rule)."""

    def __init__(self, spec: str) -> None:
        items = [item.strip() for item in spec.split(",") if item.strip()]
        self.everyone = "*" in items
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self.names: set[str] = set()
        for item in items:
            try:
                self.networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                self.names.add(item)  # not an address: uvicorn compares it as written

    def __contains__(self, host: str) -> bool:
        if self.everyone:
            return True
        ip = _ip(host)
        if ip is None:
            return host in self.names
        return any(ip in net for net in self.networks)

    def uvicorn_hosts(self) -> str:
        """The list for uvicorn's ``forwarded_allow_ips``, with the IPv4-mapped form of
        every IPv4 entry: on a dual-stack socket a proxy at 127.0.0.1 connects as
        ``::ffff:127.0.0.1``, which uvicorn would not trust (its header ignored, every
        visitor counted as the proxy)."""
        if self.everyone:
            return "*"
        items = [str(net) for net in self.networks] + sorted(self.names)
        items += [f"::ffff:{net.network_address}/{96 + net.prefixlen}"
                  for net in self.networks if net.version == 4]
        return ",".join(items)

    def unnamed(self, conn: HTTPConnection) -> bool:
        """Whether ``conn`` came from a trusted proxy that named no visitor (no
        ``X-Forwarded-For``): it counts under the proxy's address, which every visitor
        behind that proxy shares."""
        host = conn.client.host if conn.client else ""
        return host in self and not any(value.strip() for value
                                        in conn.headers.getlist("x-forwarded-for"))


log = logging.getLogger("hzmj.server")


class UnnamedVisitors:
    """ASGI middleware that tells the operator, once per proxy address, that a trusted
    proxy sends requests without ``X-Forwarded-For``: every visitor behind it then
    counts as one client for the per-address limits (docs/scaling.md)."""

    def __init__(self, app: ASGIApp, proxies: TrustedProxies) -> None:
        self.app = app
        self.proxies = proxies
        self.warned: set[str] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and len(self.warned) < 64:
            conn = HTTPConnection(scope)
            host = conn.client.host if conn.client else ""
            if host not in self.warned and self.proxies.unnamed(conn):
                self.warned.add(host)
                # info, not a warning: a browser on the server's own machine looks the
                # same as a proxy that names nobody
                log.info("requests from %s, a trusted proxy (--forwarded-allow-ips), "
                         "carry no X-Forwarded-For: they count as one client for the "
                         "per-address limits and /metrics needs the token; a proxy must "
                         "set X-Forwarded-For to the visitor's address (docs/scaling.md)",
                         host)
        await self.app(scope, receive, send)


class Strikes:
    """Refusals within the last ``window`` seconds; older ones are forgiven."""

    def __init__(self, window: float) -> None:
        self.window = window
        self._times: deque[float] = deque()

    def add(self) -> int:
        """Count one more; return how many are within the window."""
        now = time.monotonic()
        self._times.append(now)
        while self._times[0] < now - self.window:
            self._times.popleft()
        return len(self._times)


class RequestGuard:
    """ASGI middleware for HTTP requests: a body over ``max_body_bytes`` is refused
    with 413 before it is read whole, and a JSON body that is not strict JSON
    (:func:`strict_json`) with 400, before any handler sees it."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.limit = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await _answer(send, 413, f"request body too large (limit {self.limit} bytes)")
            return
        body = b""
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            if len(body) > self.limit:
                await _answer(send, 413, f"request body too large (limit {self.limit} bytes)")
                return
            if not message.get("more_body", False):
                break
        kind = headers.get(b"content-type", b"").decode("latin-1").lower()
        if body and (not kind or "json" in kind):
            try:
                strict_json(body.decode("utf-8"))
            except UnicodeDecodeError:
                await _answer(send, 400, "the body is not UTF-8")
                return
            except NotUnicode as exc:  # shaped like every other 422 (docs/protocol.md)
                where = [_printable(p) for p in exc.path]
                await _answer(send, 422, [{"loc": ["body", *where], "msg": str(exc),
                                           "type": "unicode"}])
                return
            except ValueError as exc:
                await _answer(send, 400, str(exc))
                return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _printable(part: str | int) -> str | int:
    """A location that can be written back as JSON (a key may hold a lone surrogate)."""
    if isinstance(part, int):
        return part
    return part.encode("utf-8", "backslashreplace").decode("utf-8")[:200]


async def _answer(send: Send, status: int, detail: Any) -> None:
    payload = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload})


_TOKEN = re.compile(r"(token[=.:]\s*|bearer\s+)[^\s&\"',;]+", re.IGNORECASE)


class TokenFilter(logging.Filter):
    """Blanks anything that looks like a seat token (``token=…``, ``token.…``,
    ``Bearer …``) in a log record: a token must never reach a log."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = _TOKEN.sub(r"\1***", message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True
