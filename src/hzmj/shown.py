"""How messages show values: a client's input quoted and cut to a few dozen characters,
so that a pasted file or a hostile client's megabyte is never echoed back (into a
response, a WebSocket close frame, a log line or a terminal); a count with its noun in
the singular or plural."""

from __future__ import annotations

MOST = 40
"""Characters of a client's value an error message shows at most."""


def clip(text: str, most: int = MOST) -> str:
    """``text`` cut to ``most`` characters, ``…`` ending a cut one."""
    return text if len(text) <= most else text[:most - 1] + "…"


def shown(value: object, most: int = MOST) -> str:
    """``repr(value)`` cut to ``most`` characters (``…`` where cut)."""
    return clip(repr(value), most)


def counted(n: int, one: str, many: str | None = None) -> str:
    """``"1 hand"``, ``"2 hands"``: ``n`` and its noun, ``many`` (default ``one + "s"``)
    unless ``n`` is 1."""
    return f"{n} {one if n == 1 else many or one + 's'}"
