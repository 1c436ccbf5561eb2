"""Slow clients at the HTTP layer: a deadline for every request, headers and body.

uvicorn times out an idle keep-alive connection but not one that sends its request a
byte at a time ("slowloris", or headers at once and a body that never comes): thousands
of those hold as many file descriptors until the process can open no database file.
:class:`RequestDeadline` is uvicorn's own HTTP protocol (``httptools``) with one timer
per request, from the connection's start (the first request) or the request's first
byte (later ones on a keep-alive connection) to the end of its body; a client that
misses it is disconnected.  The timer is not re-armed by bytes that arrive, so a
trickle cannot stretch it.  Any byte on an idle keep-alive connection starts it, even
one the parser skips (the blank lines allowed between requests) or one it refuses to
read (after an upgrade uvicorn does not support): uvicorn's keep-alive timer is
cancelled by any byte and re-armed only by a response.  A WebSocket upgrade ends the
timer when the connection is handed to the WebSocket protocol, after the request's
body if it announced one, so a long game is never cut and a body that never comes
cannot hold the socket.  Writing to a client that does not read (its window shut) is
timed too: ``request_seconds`` without a byte taken from the write buffer and the
connection is dropped.
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
    _write_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        transport.set_write_buffer_limits(high=0)  # any unsent byte pauses writing: timed
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._request_timer is None:  # the first request keeps the connection's timer
            self._arm()

    def data_received(self, data: bytes) -> None:
        if self._request_timer is None and self.timeout_keep_alive_task is not None:
            # bytes on an idle keep-alive connection: the next request's clock starts,
            # whether or not they begin a request (a CRLF the parser skips does not)
            self._arm()
        super().data_received(data)

    def handle_websocket_upgrade(self) -> None:
        self._disarm()  # a WebSocket: the game's own clocks take over once it is open
        self._unwatch_writes()
        self.transport.set_write_buffer_limits()  # asyncio's own marks for the game
        super().handle_websocket_upgrade()
        # uvicorn's WebSocket protocol has no clock for its handshake, and a request it
        # refuses (a body: Content-Length or chunked) is answered by nothing at all: the
        # socket stayed open for ever.  The handshake gets another ``request_seconds``.
        self.loop.call_later(self.request_seconds, _unless_open, self.transport)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._unwatch_writes()
        super().connection_lost(exc)

    # a client that does not read its responses (its window shut): they wait in the
    # write buffer (pipelined requests: megabytes, with the socket) for ever, even after
    # the close, which waits for the buffer to drain.  Any byte the kernel has not taken
    # pauses writing (a high-water mark of 0), and ``request_seconds`` with writing
    # paused and not a byte taken drop the connection.

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._write_timer is None:
            self._watch_writes(None)

    def resume_writing(self) -> None:
        self._unwatch_writes()
        super().resume_writing()

    def _watch_writes(self, before: int | None) -> None:
        self._write_timer = None
        transport: Any = getattr(self, "transport", None)
        if transport is None:
            return
        size = transport.get_write_buffer_size()
        if before is not None and size >= before:
            transport.abort()  # nothing taken in request_seconds; close() would wait
            return
        self._write_timer = self.loop.call_later(self.request_seconds, self._watch_writes,
                                                 size)

    def _unwatch_writes(self) -> None:
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None

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


def _unless_open(transport: asyncio.Transport) -> None:
    """Close ``transport`` unless its WebSocket handshake is done."""
    ws: Any = transport.get_protocol()
    done = getattr(ws, "handshake_complete", None)
    if done is None:  # uvicorn's legacy websockets protocol
        event = getattr(ws, "handshake_completed_event", None)
        done = event is None or event.is_set()
    if not done and not transport.is_closing():
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
