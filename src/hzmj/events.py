"""Actions (what a seat asks for) and events (what happened), with their JSON forms.

Every action and event has a stable JSON form: a flat object with a ``"type"`` key; tiles
are compact tile names (``"5m"``, ``"7z"``).  This JSON is the wire protocol and the
replay format (``docs/protocol.md``).

Actions (client → engine)::

    {"type": "discard", "seat": 1, "tile": "5m"}
    {"type": "win", "seat": 1}                       # self-draw, or on the open discard
    {"type": "kong", "seat": 1, "tile": "9s", "kind": "concealed" | "added" | "exposed"}
    {"type": "pong", "seat": 1}
    {"type": "chow", "seat": 1, "tiles": ["4m", "6m"]}  # the two tiles from the hand
    {"type": "pass", "seat": 1}
    {"type": "escape", "seat": 1}

Events carry per-seat secrets; :meth:`Event.for_seat` blanks every secret the seat may
not see (RULES §13), and ``for_seat(None)`` is the spectator form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from hzmj.shown import shown
from hzmj.tiles import Tile, tile, tile_name


class IllegalActionError(ValueError):
    """An action that is malformed, stale, from the wrong seat, or not legal now.
    The match state is unchanged when it is raised."""


class ProtocolError(IllegalActionError):
    """An action's JSON is malformed (unknown type, missing or bad field)."""


# --------------------------------------------------------------------------------------
# actions


@dataclass(frozen=True, slots=True)
class Action:
    """Base class: every action names the acting ``seat``."""

    seat: int
    type: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        """The action's JSON form (the module docstring): exactly the keys of
        :data:`ACTION_KEYS` for its type; :func:`action_from_json` reads it back."""
        return {"type": self.type, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """打: discard ``tile`` (a kind, 0–33) from the hand, on the own turn."""

    tile: Tile
    type: ClassVar[str] = "discard"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "tile": tile_name(self.tile)}


@dataclass(frozen=True, slots=True)
class Win(Action):
    """胡: a self-drawn win on the own turn, or a discard win during a claim window."""

    type: ClassVar[str] = "win"


KONG_KINDS: Final = ("concealed", "added", "exposed")


@dataclass(frozen=True, slots=True)
class Kong(Action):
    """杠: ``kind`` is ``concealed`` (暗杠), ``added`` (补杠) or ``exposed`` (明杠, a claim)."""

    tile: Tile
    kind: str
    type: ClassVar[str] = "kong"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "tile": tile_name(self.tile),
                "kind": self.kind}


@dataclass(frozen=True, slots=True)
class Pong(Action):
    """碰 the open discard."""

    type: ClassVar[str] = "pong"


@dataclass(frozen=True, slots=True)
class Chow(Action):
    """吃 the open discard with ``tiles``: the two physical tiles from the hand, sorted."""

    tiles: tuple[Tile, Tile]
    type: ClassVar[str] = "chow"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "tiles": [tile_name(t) for t in self.tiles]}


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """过: decline every claim on the open discard."""

    type: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Escape(Action):
    """逃跑: leave the match; a bot plays the seat from now on (RULES §8.5)."""

    type: ClassVar[str] = "escape"


# every key of each action type's JSON form (what its to_json writes)
ACTION_KEYS: Final[Mapping[str, tuple[str, ...]]] = {
    kind: ("type", "seat", *fields) for kind, fields in (
        ("discard", ("tile",)), ("win", ()), ("kong", ("tile", "kind")), ("pong", ()),
        ("chow", ("tiles",)), ("pass", ()), ("escape", ()))}


def action_from_json(data: Mapping[str, Any]) -> Action:
    """Parse an action's JSON form; :class:`ProtocolError` names what is wrong (an
    unknown type, a missing or malformed field, a key the type does not have)."""
    if not isinstance(data, Mapping):
        raise ProtocolError("an action must be a JSON object")
    kind = data.get("type")
    keys = ACTION_KEYS.get(kind) if isinstance(kind, str) else None
    if keys is None:
        raise ProtocolError(f"unknown action type {shown(kind)}")
    unknown = [k for k in data if k not in keys]
    if unknown:
        raise ProtocolError(f"unknown key {shown(unknown[0], 40)} in a {kind} action (its "
                            f"keys: {', '.join(keys)})")
    seat = data.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise ProtocolError(f"action needs an integer 'seat', got {shown(seat)}")
    try:
        if kind == "discard":
            return Discard(seat, _tile_field(data, "tile"))
        if kind == "win":
            return Win(seat)
        if kind == "kong":
            k = data.get("kind")
            if k not in KONG_KINDS:
                raise ProtocolError(f"kong 'kind' must be one of {', '.join(KONG_KINDS)}")
            return Kong(seat, _tile_field(data, "tile"), str(k))
        if kind == "pong":
            return Pong(seat)
        if kind == "chow":
            raw = data.get("tiles")
            if not isinstance(raw, list) or len(raw) != 2:
                raise ProtocolError("chow needs 'tiles': two tile names")
            a, b = sorted(_parse_tile(x) for x in raw)
            return Chow(seat, (a, b))
        if kind == "pass":
            return Pass(seat)
        return Escape(seat)  # the last type of ACTION_KEYS
    except ValueError as exc:
        if isinstance(exc, ProtocolError):
            raise
        raise ProtocolError(str(exc)) from None


def _parse_tile(x: Any) -> Tile:
    if not isinstance(x, str):
        raise ProtocolError(f"a tile must be a string like '5m', got {x!r}")
    return tile(x)


def _tile_field(data: Mapping[str, Any], key: str) -> Tile:
    if key not in data:
        raise ProtocolError(f"missing field {key!r}")
    return _parse_tile(data[key])


# --------------------------------------------------------------------------------------
# events

SPECTATOR: Final = None


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, as JSON-ready ``data`` (which includes ``"type"``).

    ``secrets`` maps a key of ``data`` to the one seat allowed to see it; the special
    owner ``PER_SEAT`` marks a list whose i-th entry only seat i may see.  ``for_seat``
    returns the data with every other secret replaced by ``None``.
    """

    data: Mapping[str, Any]
    secrets: Mapping[str, int] = field(default_factory=dict)

    PER_SEAT: ClassVar[int] = -1

    @property
    def type(self) -> str:
        """The event's type (``"discard"``, ``"hand_end"``…, docs/engine-api.md)."""
        return str(self.data["type"])

    def to_json(self) -> dict[str, Any]:
        """The full, unredacted form (for the record once the hand is over)."""
        return dict(self.data)

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        """The form seat ``seat`` may see (``None``: a spectator), RULES §13."""
        out = dict(self.data)
        for key, owner in self.secrets.items():
            if owner == Event.PER_SEAT:
                out[key] = [v if i == seat else None for i, v in enumerate(out[key])]
            elif owner != seat:
                out[key] = None
        return out


_new_object = object.__new__
# the slots' own setters: a frozen dataclass's __init__ goes through object.__setattr__ per
# field, which costs the logging engine more than building the event's data
_set_data: Final = Event.__dict__["data"].__set__
_set_secrets: Final = Event.__dict__["secrets"].__set__


def new_event(data: dict[str, Any], secrets: Mapping[str, int] | None = None) -> Event:
    """``Event(data, secrets or {})``, built about twice as fast (the engine's log)."""
    e: Event = _new_object(Event)
    _set_data(e, data)
    _set_secrets(e, secrets if secrets is not None else {})
    return e
