"""Game records and replay (the record is the seed plus the action log).

A record is a JSON object::

    {"format": "hzmj-record", "version": 1, "rules": {...RULES §3...}, "seed": 7,
     "actions": [{"type": "discard", "seat": 0, "tile": "5m"}, ...],
     "points": [..final or current points..], "hands": [..per-hand deltas..],
     "events_digest": "sha256 of every event",
     "commitment": "sha256 hex", "salt": "hex",     (a table server's records only)
     "made_by": {"17": "bot", "40": "clock"}}       (a table server's records only)

:func:`replay` rebuilds the match from ``rules``, ``seed`` and ``actions`` alone;
:func:`replay_steps` also returns what each action did (the replay page's steps);
:func:`verify` also checks the stored points, per-hand deltas and event digest, and the
fairness commitment when there is one.

``made_by`` says which actions a person's seat did not choose itself: the key is the
action's index in ``actions`` (a decimal string: JSON keys are strings), the value
``"bot"`` when the server's bot played the seat for its player (托管 switched on, away
past the grace, after repeated clock expiries, or after leaving, RULES §8.5) or
``"clock"`` when the seat's clock ran out and its default was applied (RULES §8.7).  An
action not listed is the seat's own: its player's, or on a bot's seat the bot's.  The
field is optional and outside the replay: a record without it (the engine's own, or one
a server wrote before it had the field) is as valid, and says nothing about who chose;
it is not in the digest nor in the commitment.  Readers of version 1 ignore top-level
fields they do not know, so the version stays 1.  An action, though, is exactly the JSON
form of :mod:`hzmj.events`: a key its type does not have is a :class:`RecordError` naming
the action's index and the key (an edited or hand-made record, never one a game wrote).

A table server commits to each match's seed before the deal is played: it publishes
``seed_commitment(seed, salt)`` (SHA-256 of ``"hzmj-seed:{seed}:{salt}"``, hex) at the
start and reveals ``seed`` and ``salt`` after the end (:func:`fair_record`), so anyone can
check that the deal they played was fixed before the first tile and never changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from hzmj.events import Action, Event, ProtocolError, action_from_json
from hzmj.rules import Rules
from hzmj.shown import clip, counted, shown

if TYPE_CHECKING:
    from hzmj.game import Match

RECORD_FORMAT: Final = "hzmj-record"
RECORD_VERSION: Final = 1
MADE_BY: Final = ("bot", "clock")  # who chose an action instead of its seat's player


class RecordError(ValueError):
    """A record is malformed, of an unknown version, or does not replay."""


def events_digest(events: Iterable[Event]) -> str:
    """SHA-256 over the full JSON form of every event, in order."""
    h = hashlib.sha256()
    for e in events:
        h.update(json.dumps(e.to_json(), sort_keys=True, ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()


def seed_commitment(seed: int, salt: str) -> str:
    """SHA-256 (hex) of ``hzmj-seed:{seed}:{salt}``: binds a match to its seed without
    showing it while the salt stays secret."""
    return hashlib.sha256(f"hzmj-seed:{seed}:{salt}".encode()).hexdigest()


def fair_record(match: Match, salt: str,
                made_by: Mapping[int, str] | None = None) -> dict[str, Any]:
    """:func:`make_record` with the seed's commitment and the salt that opens it."""
    return {**make_record(match, made_by), "commitment": seed_commitment(match.seed, salt),
            "salt": salt}


def make_record(match: Match, made_by: Mapping[int, str] | None = None) -> dict[str, Any]:
    """The record of ``match`` so far (see the module docstring), with ``made_by`` (action
    index -> one of :data:`MADE_BY`) when given.  A ``log=False`` match is replayed with
    the log for its digest.  ``ValueError`` when the match has no record
    (:meth:`~hzmj.game.Match.no_record_reason`)."""
    why_not = match.no_record_reason()
    if why_not is not None:
        raise ValueError(why_not)
    logged = match if match.logged else match.logged_replay()
    record = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "rules": match.rules.to_dict(),
        "seed": match.seed,
        "actions": [a.to_json() for a in match.actions],
        "points": match.points(),
        "hands": [list(r.settlement.deltas) if r.settlement else [0] * match.n
                  for r in match.results],
        "over": match.over,
        "events_digest": events_digest(logged.log),
    }
    if made_by is not None:
        record["made_by"] = {str(i): made_by[i] for i in sorted(made_by)}
    return record


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a replayed match: ``action`` (``None`` for the deal, step 0), the
    events it produced, and who chose the action when not its seat (``by``, from the
    record's ``made_by``: ``"bot"``, ``"clock"`` or ``None``)."""

    action: Action | None
    events: tuple[Event, ...]
    by: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"action": action json | null, "events": [full event json…], "by": …}``."""
        return {"action": self.action.to_json() if self.action is not None else None,
                "events": [e.to_json() for e in self.events], "by": self.by}


def replay(record: Mapping[str, Any]) -> Match:
    """Rebuild a match from a record's rules, seed and actions.

    Raises :class:`RecordError` for a malformed record or an action that does not apply.
    """
    return replay_steps(record)[0]


def replay_steps(record: Mapping[str, Any],
                 max_hands: int | None = None) -> tuple[Match, list[Step]]:
    """:func:`replay`, also returning every step: the deal, then one per action.  The
    steps' events, in order, are the match's whole log.  ``max_hands``: if the match goes
    on after hand ``max_hands``, stop at the step that ends it (its events then end with
    that hand's ``hand_end``, the next deal left out; the match is returned as that step
    left it)."""
    from hzmj.game import Match

    if not isinstance(record, Mapping) or record.get("format") != RECORD_FORMAT:
        raise RecordError(f"not an {RECORD_FORMAT} object")
    version = record.get("version")
    if type(version) is not int or version != RECORD_VERSION:  # 1.0 and true are not 1
        raise RecordError(f"unsupported record version {shown(version)}")
    try:
        if not isinstance(record["rules"], Mapping):
            raise RecordError(f"record's rules must be an object, got {shown(record['rules'])}")
        seed = record["seed"]
        if type(seed) is not int:  # a JSON integer: not 7.9, "7" or true
            raise RecordError(f"record's seed must be a whole number, got {shown(seed)}")
        try:
            rules = Rules.from_dict(record["rules"])
            match = Match(rules, seed)
        except (TypeError, ValueError, OverflowError, AttributeError) as exc:  # RulesError: ValueError
            raise RecordError(f"record has bad rules or seed: {clip(str(exc), 200)}") from None
        steps = [Step(None, tuple(match.log))]
        actions = record["actions"]
        if not isinstance(actions, list):
            raise RecordError(f"record's actions must be a list, got {type(actions).__name__}")
        made_by = _made_by(record.get("made_by", {}), len(actions))
        for i, raw in enumerate(actions):
            try:
                action = action_from_json(raw)
            except ProtocolError as exc:  # no game could have written it
                raise RecordError(f"action {i} ({shown(raw, 80)}) is malformed: "
                                  f"{clip(str(exc), 160)}") from None
            try:
                events = tuple(match.apply(action))
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise RecordError(f"action {i} ({shown(raw, 80)}) does not apply: "
                                  f"{clip(str(exc), 160)} (was the seed, the rules or an "
                                  f"earlier action changed?)") from None
            if (max_hands is not None and len(match.results) >= max_hands
                    and not match.over):
                end = max(k for k, e in enumerate(events) if e.type == "hand_end")
                steps.append(Step(action, events[:end + 1], made_by.get(i)))
                break
            steps.append(Step(action, events, made_by.get(i)))
    except KeyError as exc:
        raise RecordError(f"record lacks {exc}") from None
    return match, steps


def _made_by(raw: Any, actions: int) -> dict[int, str]:
    """A record's ``made_by`` as {action index: "bot" | "clock"}; :class:`RecordError`
    for anything else (an index must name one of the ``actions``)."""
    if not isinstance(raw, Mapping):
        raise RecordError(f"record's made_by must be an object, got {shown(raw, 80)}")
    out = {}
    for key, by in raw.items():
        if not (isinstance(key, str) and key.isdecimal() and key == str(int(key))
                and int(key) < actions):
            raise RecordError(f"made_by: {shown(key, 40)} is not the index of one of the "
                              f"{counted(actions, 'action')}")
        if by not in MADE_BY:
            raise RecordError(f"made_by: action {key} made by {shown(by, 40)}, not one of "
                              f"{', '.join(MADE_BY)}")
        out[int(key)] = by
    return out


def verify(record: Mapping[str, Any], replayed: Match | None = None) -> list[str]:
    """Replay ``record`` and list every difference from what it stores (empty: identical);
    a missing ``points``, ``hands``, ``over`` or ``events_digest`` is a difference.
    ``replayed``: the match :func:`replay` already made of this record (not replayed
    again).  :class:`RecordError` when the record does not replay."""
    match = replay(record) if replayed is None else replayed
    fresh = make_record(match)
    problems = []
    if "commitment" in record:
        salt = record.get("salt")
        if not isinstance(salt, str):
            problems.append("commitment: the record has no salt to open it")
        elif seed_commitment(match.seed, salt) != record["commitment"]:
            problems.append(f"commitment: SHA-256 of the seed and salt is "
                            f"{seed_commitment(match.seed, salt)!r}, the record committed "
                            f"to {record['commitment']!r}")
    for key in ("points", "hands", "over", "events_digest"):
        if key not in record:  # nothing to compare is no proof: make_record writes them all
            problems.append(f"{key}: missing from the record, replay gives {fresh[key]!r}")
        elif not _identical(record[key], fresh[key]):
            problems.append(f"{key}: record has {record[key]!r}, replay gives {fresh[key]!r}")
    return problems


def _identical(stored: Any, fresh: Any) -> bool:
    """``stored == fresh`` with every number, list and object of the same JSON type: a
    record's points are whole numbers and ``over`` is true or false, while Python holds
    ``1.0 == 1 == True`` (points edited to floats, or ``over`` to 0, verified)."""
    if type(stored) is not type(fresh):
        return False
    if isinstance(fresh, list):
        return len(stored) == len(fresh) and all(map(_identical, stored, fresh))
    if isinstance(fresh, dict):
        return stored.keys() == fresh.keys() and all(_identical(stored[k], v)
                                                      for k, v in fresh.items())
    return bool(stored == fresh)
