"""Room options (RULES §3): an immutable, validated rules object with a JSON form.

>>> r = Rules(players=2, drop_bamboo=True)
>>> Rules.from_json(r.to_json()) == r
True
>>> Rules(hands=7)
Traceback (most recent call last):
...
hzmj.rules.RulesError: hands: must be one of 8, 16 (got 7)
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

from hzmj.shown import clip, shown

MatchMode = Literal["hands", "points"]
CaishenMode = Literal["flip", "white"]


class RulesError(ValueError):
    """A room option has a bad value or a bad combination. ``key`` names the option."""

    def __init__(self, key: str, message: str) -> None:
        self.key = clip(key)  # a client's unknown key is echoed, never a megabyte of it
        super().__init__(f"{self.key}: {message}")


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of RULES §3 with its default. Invalid values raise :class:`RulesError`.

    Units: ``base_score`` and ``start_points`` are points; ``cap`` is the largest share
    in points before ``base_score`` (``None`` = no cap, RULES §10.2); ``claim_seconds`` and
    ``turn_seconds`` are seconds; ``claim_pause_ms`` is milliseconds.  Every value has
    its exact type (``4.0`` or ``True`` is no ``players``) and every number its bounds
    (:data:`BOUNDS`), so a stored rules object always rebuilds and no clock is endless.

    ``claim_pause_ms`` (docs/rules-decisions.md) is how long a table server holds the
    outcome of every discard, window or not, so that when the claim window closes does
    not tell whether one opened (RULES §13); the engine itself does not use it.
    """

    players: int = 4
    drop_bamboo: bool = False
    match_mode: MatchMode = "hands"
    hands: int = 8
    start_points: int = 50
    base_score: int = 1
    caishen_mode: CaishenMode = "flip"
    dealer_start_level: int = 1
    discard_win: bool = False
    three_tan_contract: bool = True
    pong_counts_as_tan: bool = True
    must_baotou_with_caishen: bool = False
    cap: int | None = None
    claim_seconds: int = 3
    turn_seconds: int = 15
    claim_pause_ms: int = 500

    def __post_init__(self) -> None:
        _one_of("players", self.players, (2, 3, 4))
        _bool("drop_bamboo", self.drop_bamboo)
        _one_of("match_mode", self.match_mode, ("hands", "points"))
        _one_of("hands", self.hands, (8, 16))
        _one_of("start_points", self.start_points, (40, 50, 60))
        _bounded("base_score", self.base_score)
        _one_of("caishen_mode", self.caishen_mode, ("flip", "white"))
        _one_of("dealer_start_level", self.dealer_start_level, (1, 2, 3))
        for key in ("discard_win", "three_tan_contract", "pong_counts_as_tan",
                    "must_baotou_with_caishen"):
            _bool(key, getattr(self, key))
        _one_of("cap", self.cap, (None, 64, 128, 256))
        for key in ("claim_seconds", "turn_seconds", "claim_pause_ms"):
            _bounded(key, getattr(self, key))
        if self.drop_bamboo and self.players != 2:
            raise RulesError("drop_bamboo", "缺一门 is only allowed with 2 players")

    # -- serialisation -----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of every option (JSON-safe)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_json(self) -> str:
        """:meth:`to_dict` as a JSON string, keys sorted (what the server stores)."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Build from a mapping; unknown keys raise :class:`RulesError`. Missing keys
        take their defaults."""
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise RulesError(str(key), f"unknown option (known: {', '.join(sorted(known))})")
        return cls(**dict(data))

    @classmethod
    def from_json(cls, text: str) -> Rules:
        """Build from JSON text of an object; :class:`RulesError` for text that is not
        JSON, not an object, or any bad option (as :meth:`from_dict`)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RulesError("rules", f"not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise RulesError("rules", "must be a JSON object")
        return cls.from_dict(data)

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated again)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_assignments(cls, items: Iterable[str], base: Rules | None = None) -> Rules:
        """Apply ``KEY=VALUE`` strings (the CLI's ``--rule``), e.g. ``cap=64``,
        ``must_baotou_with_caishen=true``, ``cap=none``.  Values are parsed by the type
        of the option; bad keys or values raise :class:`RulesError`."""
        data = (base or cls()).to_dict()
        for item in items:
            key, sep, raw = item.partition("=")
            key = key.strip()
            if not sep:
                raise RulesError(key or item, "expected KEY=VALUE")
            if key not in data:
                raise RulesError(key, f"unknown option (known: {', '.join(sorted(data))})")
            data[key] = _coerce(key, raw.strip(), data[key])
        return cls.from_dict(data)


_BOOL_KEYS = {"drop_bamboo", "discard_win", "three_tan_contract", "pong_counts_as_tan",
              "must_baotou_with_caishen"}
_STR_KEYS = {"match_mode", "caishen_mode"}


def _coerce(key: str, raw: str, current: Any) -> Any:
    low = raw.lower()
    if key in _BOOL_KEYS:
        if low in ("true", "1", "yes", "on"):
            return True
        if low in ("false", "0", "no", "off"):
            return False
        raise RulesError(key, f"expected true or false (got {shown(raw)})")
    if key in _STR_KEYS:
        return low
    if key == "cap" and low in ("none", "null", "no", "off", ""):
        return None
    try:
        return int(raw)
    except ValueError:
        raise RulesError(key, f"expected an integer (got {shown(raw)})") from None


#: inclusive bounds of the numeric options that are not a short list of choices
BOUNDS: dict[str, tuple[int, int]] = {
    "base_score": (1, 1000),
    "claim_seconds": (1, 60),
    "turn_seconds": (1, 600),
    "claim_pause_ms": (0, 5000),
}


def _one_of(key: str, value: Any, allowed: tuple[Any, ...]) -> None:
    # exact types: 4.0 == 4 and True == 1 in Python, but neither is an allowed value here
    if not any(value == a and type(value) is type(a) for a in allowed):
        names = ", ".join("none" if a is None else str(a) for a in allowed)
        raise RulesError(key, f"must be one of {names} (got {shown(value)})")


def _bool(key: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise RulesError(key, f"must be true or false (got {shown(value)})")


def _bounded(key: str, value: Any) -> None:
    low, high = BOUNDS[key]
    if type(value) is not int or not low <= value <= high:
        raise RulesError(key, f"must be an integer from {low} to {high} (got {shown(value)})")
