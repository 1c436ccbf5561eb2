"""Slow clients at the HTTP layer: a deadline for every request's headers.

uvicorn times out an idle keep-alive connection but not one that sends its request
headers a byte at a time ("slowloris"): thousands of those hold as many file descriptors
until the process can open no database file.  :class:`HeaderDeadline` is uvicorn's own
HTTP protocol (``httptools``) with a timer from the connection's start, and from each
request's first byte, to the end of that request's headers; a client that misses it is
disconnected.  A WebSocket is past its headers once upgraded, so a long game is never cut.
"""

from __future__ import annotations

import asyncio
import resource
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class HeaderDeadline(HttpToolsProtocol):
    """``header_seconds`` (a class attribute, set by :func:`header_deadline`) for a
    request's headers to arrive."""

    header_seconds: float = 10.0
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        transport: Any = getattr(self, "transport", None)
        if transport is not None and not transport.is_closing():
            transport.close()


def header_deadline(seconds: float) -> type[HeaderDeadline]:
    """The protocol class for uvicorn's ``http=`` with a deadline of ``seconds``."""
    return type("HeaderDeadline", (HeaderDeadline,), {"header_seconds": float(seconds)})


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
