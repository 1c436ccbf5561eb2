"""The engine for search: ``Match(..., log=False)``, ``Match.clone()`` and
:func:`hzmj.determinize.determinize` (RULES §13: a world consistent with one seat's view).

Every check plays seeded random matches under several room options (RULES §3) and
compares against the logged engine, so a rule never differs between the modes.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from hzmj.determinize import determinize
from hzmj.events import Escape
from hzmj.game import Match
from hzmj.hand import group_keys, split_wilds
from hzmj.record import make_record, verify
from hzmj.rules import Rules
from hzmj.tiles import counts_of, full_set, tile
from scenario import deal

CONFIGS = {
    "4p-flip": Rules(),
    "4p-white-discard-win": Rules(caishen_mode="white", discard_win=True, dealer_start_level=3),
    "3p-flip": Rules(players=3, discard_win=True, dealer_start_level=3),
    "2p-drop-bamboo": Rules(players=2, drop_bamboo=True),
    "4p-points": Rules(match_mode="points", start_points=40, cap=64),
}


def play_random(m: Match, rng: random.Random, steps: int | None = None) -> None:
    """Random legal actions (and a rare escape) until the match ends or ``steps`` ran."""
    done = 0
    while not m.over and (steps is None or done < steps):
        seat = m.to_move()[0]
        if rng.random() < 0.002 and not m.is_auto(seat):
            m.apply(Escape(seat))
        else:
            m.apply(rng.choice(m.legal_actions(seat)))
        done += 1


def state(m: Match) -> tuple[object, ...]:
    """Everything that decides a match's future, as comparable values."""
    return (m.state_id, m.hand_no, m.dealer, m.level, m.over, m.phase, m.turn, m.head,
            m.live_end, tuple(m.wall), tuple(m.burned), m.lock, m.drew, m.last_draw,
            m.claim_tile, m.claim_from, sorted(m.tan.items()), m.points(),
            [(s.concealed, s.melds, s.hidden_kongs, s.discards, s.chain, s.feeders,
              s.missed_pong, s.missed_win, s.auto, s.counts, s.keys, s.wilds)
             for s in m.seats],
            {s: m.legal_actions(s) for s in range(m.n)}, m.actions)


def assert_incremental_state(m: Match) -> None:
    """The counts, group keys and 财神 count each seat keeps equal its concealed tiles."""
    for st in m.seats:
        counts, wilds = split_wilds(st.concealed, m.caishen)
        assert st.counts == counts_of(st.concealed)
        assert (st.keys, st.wilds) == (group_keys(counts), wilds)


# ------------------------------------------------------------------ log=False


@pytest.mark.parametrize("name", CONFIGS)
def test_unlogged_match_plays_exactly_like_the_logged_one(name: str) -> None:
    for seed in range(3):
        logged, quiet = Match(CONFIGS[name], seed), Match(CONFIGS[name], seed, log=False)
        rng_a, rng_b = random.Random(seed), random.Random(seed)
        while not logged.over:
            assert state(logged) == state(quiet)
            assert_incremental_state(quiet)
            assert logged.view(logged.to_move()[0]) == quiet.view(quiet.to_move()[0])
            play_random(logged, rng_a, 1)
            assert play_random(quiet, rng_b, 1) is None and quiet.log == []
        assert quiet.over and state(logged) == state(quiet)
        # the digest of the unlogged run is the logged run's (RULES §4: the seed decides)
        assert make_record(quiet) == make_record(logged)
        assert verify(make_record(quiet)) == []


def test_unlogged_apply_returns_no_events() -> None:
    m = Match(Rules(), 5, log=False)
    seat = m.to_move()[0]
    assert m.apply(m.legal_actions(seat)[-1]) == [] and m.log == [] and m.state_id == 1


def test_unlogged_match_from_a_wall_keeps_its_digest() -> None:
    logged = deal("123m456m789m11223p", "19m19p19s1234567z", draws="3z", caishen="5m")
    rules = logged.rules
    quiet = Match.from_wall(rules, logged.wall, logged.dice, log=False)
    rng_a, rng_b = random.Random(1), random.Random(1)
    play_random(logged, rng_a, 60)
    play_random(quiet, rng_b, 60)
    assert state(quiet) == state(logged)
    assert make_record(quiet)["events_digest"] == make_record(logged)["events_digest"]


# ------------------------------------------------------------------ clone


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("log", [True, False])
def test_clone_has_the_same_future_and_is_independent(name: str, log: bool) -> None:
    rng = random.Random(hash(name) & 0xFFFF)
    m = Match(CONFIGS[name], 11, log=log)
    while not m.over and m.hand_no <= 3:
        play_random(m, rng, rng.randrange(1, 40))
        before = state(m)
        twin = m.clone()
        assert twin is not m and state(twin) == before and twin.logged == log
        assert_incremental_state(twin)
        assert twin.view(None) == m.view(None)
        seed = rng.randrange(1 << 30)
        # play the clone on (past the hand's end): the original must not notice
        play_random(twin, random.Random(seed), 300)
        assert state(m) == before
        # the same actions on a second clone and on the original give the same match
        again = m.clone()
        play_random(again, random.Random(seed), 300)
        assert state(again) == state(twin) and again.log == twin.log


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("log", [True, False])
def test_hand_only_clone_ends_with_its_hand_like_the_full_match(name: str, log: bool) -> None:
    rng = random.Random(hash(name) & 0xFFFF)
    m = Match(CONFIGS[name], 5, log=log)
    checked = 0
    while not m.over and checked < 12:
        play_random(m, rng, rng.randrange(1, 40))
        if m.over:
            break
        hand = m.hand_no
        full, short = m.clone(), m.clone(hand_only=True).clone()  # clones keep hand_only
        while not short.over:  # the same random actions on both
            seat = short.to_move()[0]
            action = rng.choice(short.legal_actions(seat))
            short.apply(action)
            full.apply(action)
        # the hand's end, settlement and dealer succession (RULES §10-§11), no next deal
        assert short.hand_no == hand and short.to_move() == [] and short.legal_actions(0) == []
        assert full.over or full.hand_no == hand + 1
        assert short.results == full.results and short.points() == full.points()
        assert (short.dealer, short.level) == (full.dealer, full.level)
        if log:
            assert [e.type for e in short.log].count("match_end") == full.over
        checked += 1
    assert checked >= 3


def test_clone_of_a_finished_match_keeps_its_record() -> None:
    m = Match(Rules(players=2), 3)
    play_random(m, random.Random(3))
    assert make_record(m.clone()) == make_record(m)


# ------------------------------------------------------------------ determinize


def positions(rules: Rules, seed: int, every: int = 7) -> list[tuple[Match, int]]:
    """Positions along a random match: (match clone, a seat to move)."""
    m = Match(rules, seed, log=False)
    rng = random.Random(seed)
    out = []
    while not m.over and m.hand_no <= 3:
        if m.state_id % every == 0:
            out += [(m.clone(), s) for s in m.to_move()]
        play_random(m, rng, 1)
    return out


@pytest.mark.parametrize("name", CONFIGS)
def test_determinized_world_shows_the_seat_exactly_its_view(name: str) -> None:
    rng = random.Random(2)
    for m, seat in positions(CONFIGS[name], 4):
        view = m.view(seat)
        world = determinize(view, rng)
        assert world.view(seat) == view
        assert_incremental_state(world)
        # the seat's own tiles are kept, the rest is a full set (RULES §1)
        assert sorted(world.seats[seat].concealed) == sorted(m.seats[seat].concealed)
        assert sorted(world.wall) == full_set(world.rules.drop_bamboo)
        assert world.live_count == m.live_count and world.caishen == m.caishen
        # and the world plays on (past the hand's end) under the engine's rules
        play_random(world, rng, 300)


def test_determinize_deals_only_unseen_tiles_and_varies_them() -> None:
    m = Match(Rules(), 9, log=False)
    play_random(m, random.Random(9), 40)
    seat = m.to_move()[0]
    view = m.view(seat)
    seen = counts_of(tile(t) for t in view["hand"])
    hands = set()
    for k in range(20):
        world = determinize(view, random.Random(k))
        other = (seat + 1) % 4
        hands.add(tuple(sorted(world.seats[other].concealed)))
        hidden = (world.wall[world.head:] + [t for i, st in enumerate(world.seats) if i != seat
                                             for t in st.concealed])
        for t in hidden:  # no hidden place holds a tile the seat holds all copies of
            assert seen[t] < 4
    assert len(hands) == 20  # twenty different deals of another seat's hand


def test_determinize_picks_a_kind_for_a_face_down_kong() -> None:
    # seat 0 (the dealer) holds four 1z and declares a concealed kong: the others see no face
    m = deal("1111z234m567p789s5m", "129m19p19s234567z", caishen="5m", draws="3z")
    m.apply(next(a for a in m.legal_actions(0) if a.type == "kong"))
    m.apply(m.legal_actions(0)[-1])  # discard after the replacement
    while 1 not in m.to_move():
        play_random(m, random.Random(0), 1)
    view = m.view(1)
    assert view["players"][0]["melds"][0]["tiles"] is None
    kinds = set()
    for k in range(30):
        world = determinize(view, random.Random(k))
        assert world.view(1) == view
        kong = world.seats[0].melds[0]
        assert kong.is_concealed and kong.tiles[0] != world.caishen  # RULES §5.3
        kinds.add(kong.tiles[0])
    assert len(kinds) > 1


def test_determinize_rejects_what_it_cannot_deal() -> None:
    m = Match(Rules(), 1)
    with pytest.raises(ValueError, match="spectator"):
        determinize(m.view(None), random.Random(0))
    view = m.view(0)
    view["players"][1]["discards"] = [{"tile": view["hand"][0], "claimed_by": None}] * 5
    with pytest.raises(ValueError, match="copies"):
        determinize(view, random.Random(0))
    done = Match(Rules(players=2), 2)
    play_random(done, random.Random(2))
    with pytest.raises(ValueError, match="over"):
        determinize(done.view(0), random.Random(0))


@pytest.mark.parametrize("view", [None, [1, 2], "view", 7])
def test_determinize_refuses_what_is_no_view_as_a_type_error(view: Any) -> None:
    # an AttributeError ('list' object has no attribute 'get') said nothing of the cause
    with pytest.raises(TypeError, match="seat's view"):
        determinize(view, random.Random(0))
    with pytest.raises(TypeError, match=r"random\.Random"):
        determinize(Match(Rules(), 1).view(0), None)  # type: ignore[arg-type]


def _edited(edit: Any) -> dict[str, Any]:
    view = Match(Rules(), 3).view(0)
    edit(view)
    return view


@pytest.mark.parametrize(("edit", "says"), [
    (lambda v: v.clear(), "lacks seat, over, phase, rules, players"),
    (lambda v: v.pop("players"), "lacks players:"),
    (lambda v: v.pop("hand"), "lacks hand:"),
    (lambda v: v["players"][1].pop("melds"), "malformed view: no 'melds'"),
    (lambda v: v.__setitem__("players", None), "malformed view"),
    (lambda v: v.__setitem__("dice", [3]), "malformed view"),
    (lambda v: v.__setitem__("seat", True), "seat must be a seat number"),
    (lambda v: v.__setitem__("seat", 4), "seat 4 at a table of 4"),
    (lambda v: v.__setitem__("seat", -1), "seat -1 at a table of 4"),
    (lambda v: v.__setitem__("players", v["players"][:2]), "2 players"),
    (lambda v: v["players"][1].__setitem__("concealed_count", -3), "concealed_count"),
    (lambda v: v.__setitem__("live", "63"), "live count"),
    (lambda v: v["hand"].__setitem__(0, 5), "malformed view"),
])
def test_determinize_names_what_a_malformed_view_lacks(edit: Any, says: str) -> None:
    # KeyError 'players', AttributeError, IndexError; a negative concealed_count dealt
    # that seat all but three of the unseen tiles
    with pytest.raises(ValueError, match=re.escape(says)):
        determinize(_edited(edit), random.Random(0))


@pytest.mark.parametrize("log", [False, True])
def test_determinized_world_has_no_record_to_replay(log: bool) -> None:
    # with log=True the world wrote a record (its random seed, no actions) whose digest
    # did not replay
    m = Match(Rules(), 3)
    world = determinize(m.view(m.to_move()[0]), random.Random(0), log=log)
    with pytest.raises(ValueError, match="determinized"):
        world.record()


@pytest.mark.parametrize("log", [False, True])
def test_hand_only_clone_has_no_record(log: bool) -> None:
    # it stops at the hand's end: its record said over = true, which no replay of the
    # match's rules gives (verify: "over: record has True, replay gives False")
    m = Match(Rules(), 3, log=log)
    sim = m.clone(hand_only=True)
    play_random(sim, random.Random(1))
    assert sim.over and sim.hand_no == 1
    with pytest.raises(ValueError, match="hand-only"):
        sim.record()
