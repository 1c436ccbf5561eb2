"""Determinization for search bots: one random world consistent with what a seat has seen.

>>> import random
>>> from hzmj.game import Match
>>> from hzmj.rules import Rules
from hzmj.shown import clip, shown
>>> m = Match(Rules(), seed=7)
>>> seat = m.to_move()[0]
>>> world = determinize(m.view(seat), random.Random(1))
>>> world.view(seat) == m.view(seat)
True

:func:`determinize` takes a seat's view (``Match.view(seat)``, RULES §13) and returns a
:class:`~hzmj.game.Match` (``log=False`` by default) in which every tile that seat cannot
see — the other concealed hands, the faces of concealed kongs not yet shown (RULES §6.7),
the live wall, the burned tiles and the dead wall — is dealt at random from exactly the
tiles it has not seen, while everything it has seen (its own hand and last draw, melds,
discards, chains, points, dealer, level, dice, 财神 and indicator, the lock, the 摊 counts,
the open claim and its own legal actions) is as in the view.  So
``world.view(seat) == view``, and a search can apply actions to ``world`` (or its
:meth:`~hzmj.game.Match.clone`) up to the hand's end.

What no view shows is set to the reading the seat can make (docs/rules-decisions.md):
过胡 / 失碰 memories (RULES §6.6) of every seat start empty (the seat's own current claim
options are kept from the view); 后半场承包 feeders (RULES §10.4) are empty; the seat's
own concealed kongs count as shown; when another seat is in turn it is taken to have drawn
(a random tile of its hand).  A determinized world's :meth:`~hzmj.game.Match.record` does
not replay (it has no start of match); later hands are dealt from a seed drawn from
``rng``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from hzmj.events import Action, action_from_json
from hzmj.game import DEAD_WALL, Match, SeatState
from hzmj.hand import key_units
from hzmj.rules import Rules
from hzmj.shown import clip, shown
from hzmj.tiles import NUM_KINDS, Meld, MeldKind, Tile, counts_of, full_set, tile, tile_name

_SEED_BITS: Final = 63


#: the keys of ``Match.view(seat)`` that a world is built from
VIEW_KEYS: Final = ("seat", "over", "phase", "rules", "players", "caishen", "indicator",
                    "hand", "live", "dealer", "level", "hand_no", "dice", "turn", "lock",
                    "claim", "last_draw", "legal_actions", "to_move")


def determinize(view: Mapping[str, Any], rng: random.Random, *, log: bool = False) -> Match:
    """A match consistent with ``view`` (a seat's ``Match.view(seat)``), the unseen tiles
    dealt at random from ``rng`` (see the module docstring).

    ``TypeError`` when ``view`` is not a mapping (a view is a dict) or ``rng`` no
    ``random.Random``; ``ValueError`` for a view lacking one of :data:`VIEW_KEYS` (named),
    a spectator's view, a finished match, a view whose tiles do not add up (more copies
    seen than exist, or no kind left for a face-down kong), or any other malformed content
    (a player without ``melds``, a tile that is no tile, a count that is no number).
    """
    if not isinstance(view, Mapping):
        raise TypeError(f"determinize needs a seat's view (the dict Match.view(seat) "
                        f"returns), got {type(view).__name__}")
    if not isinstance(rng, random.Random):
        raise TypeError(f"determinize needs a random.Random, got {type(rng).__name__}")
    missing = [key for key in VIEW_KEYS if key not in view]
    if missing:
        raise ValueError(f"the view lacks {', '.join(missing)}: determinize needs the whole "
                         "of Match.view(seat)")
    seat = view["seat"]
    if seat is None:
        raise ValueError("determinize needs a seat's view, not a spectator's")
    if type(seat) is not int:  # true is no seat
        raise ValueError(f"the view's seat must be a seat number, got {shown(seat)}")
    if view["over"] or view["phase"] == "over":
        raise ValueError("the match is over: nothing to determinize")
    try:
        return _deal(view, seat, rng, log)
    except KeyError as exc:  # a player or meld without one of its fields
        raise ValueError(f"malformed view: no {clip(str(exc), 80)} where one was "
                         "expected") from None
    except (TypeError, AttributeError, IndexError) as exc:  # a field of the wrong shape
        raise ValueError(f"malformed view: {clip(str(exc), 200)}") from None


def _deal(view: Mapping[str, Any], seat: int, rng: random.Random, log: bool) -> Match:
    """:func:`determinize` of a view with every key and a seat."""
    rules = Rules.from_dict(view["rules"])
    players = view["players"]
    if len(players) != rules.players or not 0 <= seat < rules.players:
        raise ValueError(f"the view has {len(players)} players and seat {seat} at a table "
                         f"of {rules.players}")
    for p in players:
        count = p["concealed_count"]
        if type(count) is not int or not 0 <= count <= 14:  # RULES §4.4: 14 at most
            raise ValueError(f"a player's concealed_count must be 0..14, got {shown(count)}")
    if type(view["live"]) is not int or view["live"] < 0:
        raise ValueError(f"the view's live count must be a whole number ≥ 0, got "
                         f"{shown(view['live'])}")
    cs = tile(view["caishen"])
    indicator = tile(view["indicator"]) if view["indicator"] is not None else None
    own = [tile(t) for t in view["hand"]]

    # the seen tiles, and what is left for the hidden places
    unseen = counts_of(full_set(rules.drop_bamboo))
    seen: list[Tile] = list(own)
    if indicator is not None:
        seen.append(indicator)
    melds: list[list[Meld | None]] = []
    for p in players:
        row: list[Meld | None] = []
        for m in p["melds"]:
            if m["tiles"] is None:  # a face-down concealed kong (RULES §6.7)
                row.append(None)
                continue
            meld = _meld_from_view(m, cs)
            seen.extend(meld.physical_tiles)
            row.append(meld)
        melds.append(row)
        seen.extend(tile(d["tile"]) for d in p["discards"] if d["claimed_by"] is None)
    for t in seen:
        unseen[t] -= 1
        if unseen[t] < 0:
            raise ValueError(f"the view shows more copies of {tile_name(t)} than exist")

    # face-down kongs first (four of one kind), then shuffle the rest into the hidden places
    for row in melds:
        for i, slot in enumerate(row):
            if slot is None:
                kinds = [k for k in range(NUM_KINDS) if unseen[k] >= 4 and k != cs]  # §5.3
                if not kinds:
                    raise ValueError("no kind is left for a face-down kong")
                k = rng.choice(kinds)
                unseen[k] -= 4
                row[i] = Meld(MeldKind.CONCEALED_KONG, (k,) * 4)
    pool = [k for k in range(NUM_KINDS) for _ in range(unseen[k])]
    rng.shuffle(pool)
    hands: list[list[Tile]] = []
    for i, p in enumerate(players):
        if i == seat:
            hands.append(own)
        else:
            hands.append(pool[:p["concealed_count"]])
            del pool[:p["concealed_count"]]
    kongs = sum(1 for row in melds for meld in row if meld is not None and meld.is_kong)
    live = view["live"]
    dead = DEAD_WALL - (indicator is not None)
    if len(pool) != kongs + live + dead:
        raise ValueError(f"the view's tiles do not add up: {len(pool)} unseen for "
                         f"{kongs} burned, {live} live and {dead} dead-wall tiles")
    burned, live_tiles, dead_tiles = pool[:kongs], pool[kongs:kongs + live], pool[kongs + live:]

    world = Match(rules, 0, log=log, _deal=False)
    points = [p["points"] for p in players]
    world._setup(rules, rng.getrandbits(_SEED_BITS), view["dealer"], view["level"], points,
                 log=log)
    world._replayable = False
    world.hand_no = view["hand_no"]
    world._caishen = cs
    world._units = key_units(cs)
    world.seats = [_seat_state(p, melds[i], own_seat=i == seat)
                   for i, p in enumerate(players)]
    for i, st in enumerate(world.seats):
        st.hold(list(hands[i]), world._units)
    dice = (view["dice"][0], view["dice"][1])
    world.wall = _wall(rules, world.seats, burned, live_tiles, dead_tiles, dice, indicator)
    world.live_end = len(world.wall) - DEAD_WALL - 2 * kongs
    world.head = world.live_end - live
    world.burned = burned
    world.dice = dice
    world.indicator = indicator
    world.turn = view["turn"]
    world.phase = view["phase"]
    world.lock = view["lock"]
    world.tan = _tan(rules, world.seats)
    world._winners_on = world._list_discard_winners()
    world.claim_tile = None
    world.claim_from = -1
    world.claim_options = {}
    world.claim_responses = {}
    world._turn_cache = None
    world._self_draw = None
    world.drew, world.last_draw = _drew(view, world, rng)
    world.replaced = False
    if view["phase"] == "claim":
        _open_claim(view, world, seat)
    elif view["turn"] == seat and _offered(world, seat) != view["legal_actions"]:
        world.replaced = True  # RULES §5.5: the draw was a kong replacement (no second kong)
        world._turn_cache = None
    return world


def _offered(world: Match, seat: int) -> list[dict[str, Any]]:
    return [a.to_json() for a in world.legal_actions(seat)]


def _meld_from_view(m: Mapping[str, Any], cs: Tile) -> Meld:
    """A meld from its view form (physical tiles, RULES §5.2)."""
    claimed = tile(m["claimed"]) if m["claimed"] is not None else None
    return Meld.of(MeldKind(m["type"]), [tile(t) for t in m["tiles"]], cs, m["from"], claimed)


def _seat_state(p: Mapping[str, Any], melds: Sequence[Meld | None], *,
                own_seat: bool) -> SeatState:
    """A seat's shown state (its concealed tiles are given by ``hold``)."""
    hidden = set() if own_seat else {i for i, m in enumerate(p["melds"]) if m["tiles"] is None}
    return SeatState(
        melds=[m for m in melds if m is not None],
        hidden_kongs=hidden,
        discards=[(tile(d["tile"]), d["claimed_by"]) for d in p["discards"]],
        chain=list(p["chain"]),
        points=p["points"],
        auto=p["auto"],
    )


def _wall(rules: Rules, seats: Sequence[SeatState], burned: list[Tile], live: list[Tile],
          dead: list[Tile], dice: tuple[int, int], indicator: Tile | None) -> list[Tile]:
    """A full wall, head first (RULES §4.3–4.6): the tiles now in hands, melds and
    discards where the dealt and drawn tiles were, then the live wall, then the stacks the
    replacement draws used (burned upper tile, drawn lower tile), then the dead wall with
    the indicator in its place."""
    in_play = [t for st in seats for t in st.concealed]
    in_play += [t for st in seats for m in st.melds for t in m.physical_tiles]
    in_play += [t for st in seats for t, by in st.discards if by is None]
    kongs = len(burned)
    head = len(in_play) - kongs
    tail: list[Tile] = []
    for j in range(kongs):
        tail += [burned[j], in_play[head + j]]
    dead_wall = list(dead)
    if indicator is not None:
        d = dice[0] + dice[1]
        stack = d - 10 if d > 10 else d  # counted from the tail, RULES §14.1
        dead_wall.insert(DEAD_WALL - 2 * stack, indicator)
    wall = in_play[:head] + live + tail + dead_wall
    if sorted(wall) != full_set(rules.drop_bamboo):
        raise ValueError("the view's tiles do not add up to a full set")
    return wall


def _tan(rules: Rules, seats: Sequence[SeatState]) -> dict[tuple[int, int], int]:
    """RULES §6.5: 摊 counts read from the claimed melds (an added kong was a pong)."""
    tan: dict[tuple[int, int], int] = {}
    for i, st in enumerate(seats):
        for m in st.melds:
            if m.source is None:
                continue
            if m.kind is MeldKind.CHOW or rules.pong_counts_as_tan:
                tan[(i, m.source)] = tan.get((i, m.source), 0) + 1
    return tan


def _drew(view: Mapping[str, Any], world: Match, rng: random.Random) -> tuple[bool, Tile | None]:
    """Whether the seat in turn drew (and what): the view's own draw; the dealer's dealt
    14 before any play (RULES §4.7); another seat in turn is taken to have drawn."""
    if view["phase"] != "turn":
        return False, None
    if view["last_draw"] is not None:
        return True, tile(view["last_draw"])
    opening = all(not st.discards and not st.melds for st in world.seats)
    if opening:
        return True, None
    if view["turn"] == view["seat"]:
        return False, None  # own turn without a draw: after a claim
    return True, rng.choice(world.seats[view["turn"]].concealed)


def _open_claim(view: Mapping[str, Any], world: Match, seat: int) -> None:
    """The open claim window: every other seat's options from its dealt hand, the seat's
    own exactly as the view lists them (or none once it has answered)."""
    world.claim_tile = tile(view["claim"]["tile"])
    world.claim_from = view["claim"]["from"]
    options = world._claim_options(world.claim_from, world.claim_tile)
    own: list[Action] = [action_from_json(a) for a in view["legal_actions"]]
    if seat in view["to_move"] and own:
        options[seat] = own
    else:
        options.pop(seat, None)
    world.claim_options = options
    world.claim_responses = {}
    world._resolve_claims_if_decided()  # nobody left to answer: play moves on
