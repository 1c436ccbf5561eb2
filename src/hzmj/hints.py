"""Hints for one seat, read from its view alone (RULES §13): shanten, what each discard
leaves (shanten, waits, useful tiles with the copies still unseen) and an adviser's
suggestion.

Only ``Match.view(seat)`` is read, so a hint can never tell more than the seat may see:
``left`` counts the copies not in the seat's own hand or melds, not on any discard pile,
not in another seat's exposed melds and not the flipped indicator.  Without bamboo
(缺一门, RULES §3) no bamboo kind is listed: none is in play.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from hzmj.events import Action, Discard, action_from_json
from hzmj.hand import Wait, discard_options, shanten, waits, waits_after_discard
from hzmj.tiles import NUM_KINDS, Hand, Meld, MeldKind, Tile, full_set, tile, tile_name


class Adviser(Protocol):
    """A bot as :mod:`hzmj.bots.base` defines it; ``explain`` is optional."""

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        """One of ``legal``, chosen from ``view`` alone."""
        ...


def own_hand(view: dict[str, Any]) -> Hand:
    """The seat's concealed tiles and declared melds, from its view."""
    if view["hand"] is None:
        raise ValueError("a spectator's view has no hand")
    caishen = tile(view["caishen"])
    me = view["players"][view["seat"]]
    melds = tuple(_meld(m, caishen) for m in me["melds"])
    return Hand(tuple(tile(t) for t in view["hand"]), melds)


def _meld(m: dict[str, Any], caishen: Tile) -> Meld:
    # a white dragon in a chow plays as the 财神 kind (RULES §5.2)
    return Meld.of(MeldKind(m["type"]), [tile(t) for t in m["tiles"]], caishen, m["from"],
                   tile(m["claimed"]) if m["claimed"] is not None else None)


def visible_elsewhere(view: dict[str, Any]) -> list[int]:
    """Per kind, the tiles the seat sees outside its own hand and melds: unclaimed
    discards, the other seats' exposed melds and the flipped indicator (RULES §4.5)."""
    seen = [0] * NUM_KINDS
    if view["indicator"] is not None:
        seen[tile(view["indicator"])] += 1
    for p in view["players"]:
        for d in p["discards"]:
            if d["claimed_by"] is None:  # a claimed discard is counted in its meld
                seen[tile(d["tile"])] += 1
        if p["seat"] == view["seat"]:
            continue
        for m in p["melds"]:
            for t in m["tiles"] or ():  # a face-down concealed kong shows nothing
                seen[tile(t)] += 1
    return seen


def hints(view: dict[str, Any], adviser: Adviser | None = None) -> dict[str, Any]:
    """``{"shanten", "waits", "discards", "suggestion", "candidates"}`` for the seat of
    ``view`` (see ``docs/protocol.md``, ``GET /api/rooms/{id}/hints``).

    With 14 tiles, ``discards`` lists every legal discard, best first (the adviser's
    discard, then lowest shanten, then most useful tiles unseen) and ``waits`` is
    empty; with 13, ``waits`` are the hand's winning tiles and ``discards`` is empty.
    ``suggestion`` is the adviser's choice among the legal actions (``None`` when the
    seat has none to take) and ``candidates`` its ranked alternatives if it can
    ``explain``.  ``ValueError`` for a spectator's view; ``TypeError`` for an adviser
    that is no bot (a bot's name: ``make_bot(name, seed)`` makes one).
    """
    if adviser is not None and not callable(getattr(adviser, "choose", None)):
        raise TypeError(f"adviser must be a bot (hzmj.bots.registry.make_bot), got "
                        f"{type(adviser).__name__}")
    hand = own_hand(view)
    caishen = tile(view["caishen"])
    visible = visible_elsewhere(view)
    # RULES §3: under 缺一门 the bamboo tiles are not in play; all four count as gone, so
    # they add nothing to the useful tiles, and they are never listed
    in_play = set(full_set(view["rules"]["drop_bamboo"]))
    for k in range(NUM_KINDS):
        if k not in in_play:
            visible[k] = 4
    legal = [action_from_json(a) for a in view["legal_actions"]]
    result: dict[str, Any] = {"shanten": shanten(hand, caishen), "waits": [], "discards": [],
                              "suggestion": None, "candidates": []}
    if hand.size == 13:
        result["waits"] = _tiles_left(waits(hand, caishen, visible), in_play)
    else:
        allowed = {a.tile for a in legal if isinstance(a, Discard)}
        for option in discard_options(hand, caishen, visible):
            if option.discard not in allowed:
                continue
            d = option.discard
            ready = (waits_after_discard(hand, d, caishen, visible) if option.shanten == 0
                     else [])
            result["discards"].append({"tile": tile_name(d), "shanten": option.shanten,
                                       "waits": _tiles_left(ready, in_play),
                                       "useful": _tiles_left(option.useful, in_play)})
    if adviser is not None and legal:
        explain = getattr(adviser, "explain", None)
        if explain is not None:  # one search gives both: its first is what choose plays
            ranked = explain(view, legal)
            suggestion = ranked[0].action
            result["candidates"] = [c.to_json() for c in ranked]
        else:
            suggestion = adviser.choose(view, legal)
        result["suggestion"] = suggestion.to_json()
        if isinstance(suggestion, Discard):  # the first discard is the one marked best
            name = tile_name(suggestion.tile)
            result["discards"].sort(key=lambda d: d["tile"] != name)
    return result


def _tiles_left(found: Sequence[Wait], in_play: set[Tile]) -> list[dict[str, object]]:
    """``found`` as JSON, only the kinds ``in_play`` (not bamboo under 缺一门)."""
    return [w.to_dict() for w in found if w.tile in in_play]
