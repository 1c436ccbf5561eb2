"""Per-seat views of a match (RULES §13): exactly what one seat, or a spectator, may see.

Every outgoing path (first sync, reconnection, spectators, bots, logs) builds its picture
of the table from :func:`build_view`; nothing else reads a seat's concealed tiles.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from hzmj.game import DEAD_WALL, seat_index
from hzmj.game import TILE_NAMES as NAMES
from hzmj.rules import Rules

if TYPE_CHECKING:
    from hzmj.game import Match


def build_view(match: Match, seat: int | None) -> dict[str, Any]:
    """JSON-ready view for ``seat`` (``None``: spectator).

    Shape: ``{"seat", "hand_no", "dealer", "level", "dice", "caishen", "indicator",
    "live", "dead", "turn", "phase", "lock", "claim", "players": [...], "hand",
    "last_draw", "legal_actions", "to_move", "over"}``; ``players[i]`` has ``points``,
    ``concealed_count``, ``melds`` (a concealed kong not yet shown to others has
    ``tiles: null``, RULES §6.7), ``discards`` (``{"tile", "claimed_by"}``), ``chain``,
    ``auto`` and ``dealer``.  ``hand`` and ``last_draw`` are the seat's own (null for a
    spectator).  ``to_move`` names, during a claim window, only the seat itself
    (:func:`_to_move_seen_by`).  ``ValueError`` for a seat not at the table (a negative
    index would read another seat's hand).
    """
    if seat is not None:
        seat = seat_index(seat, match.n)
    players = []
    for i, st in enumerate(match.seats):
        melds = []
        for idx, m in enumerate(st.melds):
            hidden = idx in st.hidden_kongs and i != seat
            melds.append({
                "type": m.kind.value,
                "tiles": None if hidden else [NAMES[t] for t in m.physical_tiles],
                "from": m.source,
                "claimed": NAMES[m.claimed] if m.claimed is not None else None,
            })
        players.append({
            "seat": i,
            "points": st.points,
            "dealer": i == match.dealer,
            "concealed_count": len(st.concealed),
            "melds": melds,
            "discards": [{"tile": NAMES[t], "claimed_by": by} for t, by in st.discards],
            "chain": list(st.chain),
            "auto": st.auto,
        })
    own = match.seats[seat] if seat is not None else None
    claim = None
    if match.phase == "claim" and match.claim_tile is not None:
        claim = {"tile": NAMES[match.claim_tile], "from": match.claim_from}
    return {
        "seat": seat,
        "hand_no": match.hand_no,
        "hands_total": match.rules.hands if match.rules.match_mode == "hands" else None,
        "dealer": match.dealer,
        "level": match.level,
        "dice": list(match.dice),
        "caishen": NAMES[match.caishen],
        "indicator": NAMES[match.indicator] if match.indicator is not None else None,
        "live": match.live_count,
        "dead": DEAD_WALL,
        "turn": match.turn,
        "phase": "over" if match.over else match.phase,
        "lock": match.lock,
        "claim": claim,
        "players": players,
        "hand": [NAMES[t] for t in sorted(own.concealed)] if own else None,
        "last_draw": (NAMES[match.last_draw] if own is not None and match.turn == seat
                      and match.phase == "turn" and match.last_draw is not None else None),
        "legal_actions": ([a.to_json() for a in match.legal_actions(seat)]
                          if seat is not None else []),
        "to_move": _to_move_seen_by(match, seat),
        "over": match.over,
        "rules": dict(_rules_dict(match.rules)),
    }


def _to_move_seen_by(match: Match, seat: int | None) -> list[int]:
    """Whose move it is, as ``seat`` may know it.  In a claim window the seats still to
    answer are exactly those holding a claim, which would tell about their concealed tiles
    (RULES §13), so a seat sees only itself there and a spectator sees nobody."""
    to_move = match.to_move()
    if match.phase == "claim":
        return [seat] if seat in to_move else []
    return to_move


@lru_cache(maxsize=16)
def _rules_dict(rules: Rules) -> dict[str, Any]:
    return rules.to_dict()
