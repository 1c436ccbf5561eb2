"""Slow clients at the HTTP layer: a deadline for every request, headers and body.

uvicorn times out an idle keep-alive connection but not one that sends its request a
byte at a time ("slowloris", or headers at once and a body that never comes): thousands
of those hold as many file descriptors until the process can open no database file.
:class:`RequestDeadline` is uvicorn's own HTTP protocol (``httptools``) with one timer
per request, from the connection's start (the first request) or the request's first
byte (later ones on a keep-alive connection) to the end of its body; a client that
misses it is disconnected.  The timer is not re-armed by bytes that arrive, so a
trickle cannot stretch it.  A WebSocket upgrade ends the timer with its headers, so a
long game is never cut.
"""

from __future__ import annotations

import asyncio
import resource
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class RequestDeadline(HttpToolsProtocol):
    """``request_seconds`` (a class attribute, set by :func:`request_deadline`) for a
    request's headers and body to arrive."""

    request_seconds: float = 10.0
    _request_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._request_timer is None:  # the first request keeps the connection's timer
            self._arm()

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        if self.parser.should_upgrade() and self._should_upgrade():
            self._disarm()  # a WebSocket: the game's own clocks take over

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._request_timer = self.loop.call_later(self.request_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None

    def _too_slow(self) -> None:
        self._request_timer = None
        transport: Any = getattr(self, "transport", None)
        if transport is not None and not transport.is_closing():
            transport.close()


def request_deadline(seconds: float) -> type[RequestDeadline]:
    """The protocol class for uvicorn's ``http=`` with a deadline of ``seconds``."""
    return type("RequestDeadline", (RequestDeadline,), {"request_seconds": float(seconds)})


def raise_file_limit() -> tuple[int, int]:
    """Lift this process's soft limit of open files to its hard limit (every socket is
    one; Linux often starts at 1024); the limits after, ``(soft, hard)``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft, hard
