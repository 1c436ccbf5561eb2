"""Worlds for search: a :class:`~hzmj.game.Match` consistent with one seat's view.

:func:`determinize` deals the tiles a seat cannot see (RULES §13) at random into the other
seats' concealed hands, their face-down kongs and the live wall, keeping everything the
view shows (own hand, melds, discards, chains, points, the 财神 and its lock, the claim
on offer); :func:`clone` copies a match for one more line of play.  A search plays each
candidate action in such a world to the end of the hand and reads the seat's points.

Interim: the fast-core work (issue 10) brings ``Match.clone()`` and the engine's own
determinization helper; this module is the stop-gap until then and goes when they land.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

from hzmj.game import DEAD_WALL, Match, SeatState
from hzmj.rules import Rules
from hzmj.tiles import NUM_KINDS, WHITE, Meld, MeldKind, Tile, full_set, tile


def clone(match: Match) -> Match:
    """An independent copy of ``match`` for search: everything a hand changes is copied;
    the log and the action list start empty (the copy has no record)."""
    w = copy.copy(match)
    w.log = []
    w.actions = []
    w.results = list(match.results)
    w.seats = [dataclasses.replace(
        s, concealed=list(s.concealed), melds=list(s.melds), hidden_kongs=set(s.hidden_kongs),
        discards=list(s.discards), chain=list(s.chain), feeders=set(s.feeders),
        missed_pong=set(s.missed_pong), missed_win=set(s.missed_win)) for s in match.seats]
    w.burned = list(match.burned)
    w.tan = dict(match.tan)
    w.claim_options = dict(match.claim_options)
    w.claim_responses = dict(match.claim_responses)
    return w


def _meld(m: dict[str, Any], caishen: Tile, hidden_kind: Tile | None) -> Meld:
    """A view's meld in the engine's form: pongs and kongs of physical tiles, chows of
    the kinds played with the physical tiles beside (RULES §5.2)."""
    kind = MeldKind(m["type"])
    claimed = tile(m["claimed"]) if m["claimed"] is not None else None
    if m["tiles"] is None:  # a face-down concealed kong (RULES §6.7)
        assert hidden_kind is not None
        return Meld(kind, (hidden_kind,) * 4)
    physical = tuple(tile(t) for t in m["tiles"])
    if kind is not MeldKind.CHOW:
        return Meld(kind, tuple(sorted(physical)), m["from"], claimed)
    played = tuple(sorted(caishen if t == WHITE and caishen != WHITE else t for t in physical))
    phys = tuple(sorted(physical, key=lambda t: caishen if t == WHITE else t))
    return Meld(kind, played, m["from"], claimed, phys if phys != played else None)


def determinize(view: dict[str, Any], rng: random.Random) -> Match:
    """A match in the state ``view`` shows, the unseen tiles dealt by ``rng``.

    ``view`` is ``Match.view(seat)`` of a seat that is to move.  Each face-down kong of
    another seat gets a kind of which four copies are unseen; the rest of the unseen
    tiles are shuffled into the other hands, the live wall and the dead wall.  What the
    view cannot tell (who passed on a claim, 失碰/过胡 of others) starts empty.
    """
    rules = Rules.from_dict(view["rules"])
    seat = view["seat"]
    caishen = tile(view["caishen"])
    pool = full_set(rules.drop_bamboo)
    counts = [0] * NUM_KINDS
    for t in pool:
        counts[t] += 1
    own = [tile(t) for t in view["hand"]]
    seen = list(own)
    if view["indicator"] is not None:
        seen.append(tile(view["indicator"]))
    for p in view["players"]:
        for d in p["discards"]:
            if d["claimed_by"] is None:
                seen.append(tile(d["tile"]))
        for m in p["melds"]:
            seen += [tile(t) for t in m["tiles"] or ()]
    for t in seen:
        counts[t] -= 1
    hidden_kinds: dict[tuple[int, int], Tile] = {}
    for p in view["players"]:
        for i, m in enumerate(p["melds"]):
            if m["tiles"] is None:
                kinds = [k for k in range(NUM_KINDS) if counts[k] >= 4 and k != caishen]
                k = rng.choice(kinds)
                counts[k] -= 4
                hidden_kinds[(p["seat"], i)] = k
    unseen = [k for k in range(NUM_KINDS) for _ in range(max(0, counts[k]))]
    rng.shuffle(unseen)

    match = Match.__new__(Match)
    match._setup(rules, 0, view["dealer"], view["level"],
                 [p["points"] for p in view["players"]])
    match.log = []
    match.hand_no = view["hand_no"]
    seats = []
    tan: dict[tuple[int, int], int] = {}
    for p in view["players"]:
        s = p["seat"]
        st = SeatState(points=p["points"], auto=p["auto"], chain=list(p["chain"]))
        for i, m in enumerate(p["melds"]):
            st.melds.append(_meld(m, caishen, hidden_kinds.get((s, i))))
            if m["tiles"] is None:
                st.hidden_kongs.add(i)
            source = m["from"]
            if source is not None and m["type"] != "concealed_kong" and (
                    m["type"] == "chow" or rules.pong_counts_as_tan):  # RULES §6.5
                tan[(s, source)] = tan.get((s, source), 0) + 1
        st.discards = [(tile(d["tile"]), d["claimed_by"]) for d in p["discards"]]
        if s == seat:
            st.concealed = own
        else:
            n = p["concealed_count"]
            st.concealed, unseen = unseen[:n], unseen[n:]
        seats.append(st)
    match.seats = seats
    live = view["live"]
    if live > len(unseen):
        raise ValueError("the view shows more live tiles than tiles unseen")
    # the live wall first, then whatever else is unseen stands in for the dead wall
    match.wall = unseen + [WHITE] * max(0, DEAD_WALL - (len(unseen) - live))
    match.head = 0
    match.live_end = live
    match.burned = []
    match.dice = (view["dice"][0], view["dice"][1])
    match.indicator = tile(view["indicator"]) if view["indicator"] is not None else None
    match._caishen = caishen
    match.turn = view["turn"]
    match.lock = view["lock"]
    match.tan = tan
    match._winners_on = match._list_discard_winners()
    match.claim_responses = {}
    match._turn_cache = None
    match._self_draw = None
    claim = view["claim"]
    if view["phase"] == "claim" and claim is not None:
        match.phase = "claim"
        match.drew = False
        match.last_draw = None
        match.claim_tile = tile(claim["tile"])
        match.claim_from = claim["from"]
        match.claim_options = match._claim_options(claim["from"], match.claim_tile)
        # the others' answers are unknown: keep only the seats after the discarder up to us
        order = match._after[claim["from"]]
        for s in order[:order.index(seat)]:
            match.claim_options.pop(s, None)
        if seat not in match.claim_options:
            raise ValueError("the view offers a claim the world does not")
    else:
        match.phase = "turn"
        match.claim_tile = None
        match.claim_from = -1
        match.claim_options = {}
        match.last_draw = tile(view["last_draw"]) if view["last_draw"] else None
        melds = len(view["players"][seat]["melds"])
        no_play = all(not p["discards"] and not p["melds"] for p in view["players"])
        # after a chow or pong there is no draw; the dealer's dealt 14 count as one (§4.7)
        match.drew = match.last_draw is not None or (no_play and melds == 0)
    return match
