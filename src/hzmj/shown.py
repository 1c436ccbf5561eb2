"""How errors name a client's input: quoted, and cut to a few dozen characters, so that
a pasted file or a hostile client's megabyte is never echoed back (into a response, a
WebSocket close frame, a log line or a terminal)."""

from __future__ import annotations

MOST = 40
"""Characters of a client's value an error message shows at most."""


def clip(text: str, most: int = MOST) -> str:
    """``text`` cut to ``most`` characters, ``…`` ending a cut one."""
    return text if len(text) <= most else text[:most - 1] + "…"


def shown(value: object, most: int = MOST) -> str:
    """``repr(value)`` cut to ``most`` characters (``…`` where cut)."""
    return clip(repr(value), most)
