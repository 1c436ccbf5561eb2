"""What one seat knows, read from its view (RULES §13) into the forms the bots compute on.

Bots never touch the engine: :func:`read_seat` parses ``match.view(seat)`` only.  Tile
counts follow :mod:`hzmj.hand`: ``counts`` are natural tiles by the kind they play as
(a white dragon standing in counts as the 财神 kind, RULES §5.2) and ``wilds`` the 财神
tiles held.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hzmj.hand import split_wilds
from hzmj.rules import Rules
from hzmj.tiles import NUM_KINDS, WHITE, Tile, suit_of, tile

_TAN_TYPES = ("chow", "pong", "exposed_kong", "added_kong")  # 补杠 keeps its pong's 摊


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat's knowledge at a decision.

    ``concealed``: own concealed tiles (physical kinds); ``melds``: own declared sets;
    ``unseen[k]``: copies of kind ``k`` the seat cannot see (4 − own − visible
    elsewhere, never below 0; 0 for bamboo under ``drop_bamboo``);
    ``tan[(taker, giver)]``: 摊 counts read from the melds (RULES §6.5); ``draws_left``:
    own draws the live wall still allows (about);
    ``shown[i]``: seat i's declared sets; ``discarded[i]``: the kinds seat i discarded;
    ``turns[i]``: seat i's discards so far, claimed ones too (the turns it has played);
    ``lock``: the seat whose 财神 lock holds (RULES §5.5), if any.
    """

    seat: int
    players: int
    caishen: Tile
    concealed: tuple[Tile, ...]
    melds: int
    unseen: tuple[int, ...]
    chain: tuple[str, ...]
    last_draw: Tile | None
    live: int
    dealer: int
    level: int
    claim_tile: Tile | None
    claim_from: int | None
    tan: dict[tuple[int, int], int]
    rules: Rules
    shown: tuple[int, ...] = ()
    discarded: tuple[frozenset[Tile], ...] = ()
    lock: int | None = None
    turns: tuple[int, ...] = ()

    @property
    def counts_wilds(self) -> tuple[list[int], int]:
        """Own concealed tiles as 34 natural counts (a white dragon standing in counted
        as the 财神 kind) and the number of 财神 held."""
        return split_wilds(self.concealed, self.caishen)

    @property
    def unseen_total(self) -> int:
        """Copies this seat cannot see, summed over the kinds (others' concealed tiles, the
        live and the dead wall)."""
        return sum(self.unseen)

    @property
    def draws_left(self) -> int:
        """Own draws left if nobody claims: live tiles ÷ players, rounded down."""
        return max(0, self.live // self.players)

    def draw_probability(self) -> list[float]:
        """Chance that the next tile drawn is each kind, from the unseen counts."""
        total = self.unseen_total or 1
        return [u / total for u in self.unseen]


def read_seat(view: dict[str, Any]) -> SeatInfo:
    """Parse a seat's view (``Match.view(seat)``) into a :class:`SeatInfo`."""
    seat = view["seat"]
    caishen = tile(view["caishen"])
    rules = Rules.from_dict(view["rules"])
    concealed = tuple(tile(t) for t in view["hand"] or ())
    seen = [0] * NUM_KINDS
    for t in concealed:
        seen[t] += 1
    if view["indicator"] is not None:  # RULES §4.5: the flipped tile is out of play
        seen[tile(view["indicator"])] += 1
    tan: dict[tuple[int, int], int] = {}
    own_melds = 0
    chain: tuple[str, ...] = ()
    for p in view["players"]:
        if p["seat"] == seat:
            own_melds = len(p["melds"])
            chain = tuple(p["chain"])
        for d in p["discards"]:
            if d["claimed_by"] is None:  # a claimed discard is counted in the meld
                seen[tile(d["tile"])] += 1
        for m in p["melds"]:
            for t in m["tiles"] or ():  # a face-down concealed kong shows nothing
                seen[tile(t)] += 1
            counts_as_tan = m["type"] == "chow" or (m["type"] != "concealed_kong"
                                                    and rules.pong_counts_as_tan)
            if m["from"] is not None and m["type"] in _TAN_TYPES and counts_as_tan:
                key = (p["seat"], m["from"])
                tan[key] = tan.get(key, 0) + 1
    # a 财神 kind has only 3 copies in flip mode beside the indicator; never below zero
    unseen = tuple(0 if rules.drop_bamboo and suit_of(k) == 2 else max(0, 4 - s)
                   for k, s in enumerate(seen))  # 缺一门: no bamboo in play (RULES §3)
    claim = view["claim"]
    return SeatInfo(
        seat=seat,
        players=len(view["players"]),
        caishen=caishen,
        concealed=concealed,
        melds=own_melds,
        unseen=unseen,
        chain=chain,
        last_draw=tile(view["last_draw"]) if view["last_draw"] else None,
        live=view["live"],
        dealer=view["dealer"],
        level=view["level"],
        claim_tile=tile(claim["tile"]) if claim else None,
        claim_from=claim["from"] if claim else None,
        tan=tan,
        rules=rules,
        shown=tuple(len(p["melds"]) for p in view["players"]),
        discarded=tuple(frozenset(tile(d["tile"]) for d in p["discards"])
                        for p in view["players"]),
        lock=view["lock"],
        turns=tuple(len(p["discards"]) for p in view["players"]),
    )


def plays_as_natural(t: Tile, caishen: Tile) -> Tile:
    """The kind a non-财神 physical tile plays as (a white dragon stands in, RULES §5.2)."""
    return caishen if t == WHITE and caishen != WHITE else t


def remove_tiles(tiles: Sequence[Tile], gone: Sequence[Tile]) -> tuple[Tile, ...]:
    """``tiles`` minus one copy of each of ``gone`` (``ValueError`` if one is missing)."""
    out = list(tiles)
    for t in gone:
        out.remove(t)
    return tuple(out)
