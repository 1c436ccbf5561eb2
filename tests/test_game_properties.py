"""Invariants over many seeded random matches (2/3/4 players, flip/white, 缺一门, discard
wins, points mode): tiles are conserved at every step (RULES §1, §4.6, §6.4), settlements
are zero-sum (§10.6), nobody sees another seat's concealed tiles (§13), records replay
exactly, every offered action is accepted and every other action is rejected without a
trace."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from hzmj.events import (
    Action,
    Chow,
    Discard,
    Escape,
    IllegalActionError,
    Kong,
    Pass,
    Pong,
    Win,
)
from hzmj.game import Match
from hzmj.hand import shanten_counts, split_wilds
from hzmj.record import replay, verify
from hzmj.rules import Rules
from hzmj.tiles import full_set, tile_name
from scenario import DEAD_WALL

CONFIGS = {
    "4p-flip": Rules(players=4),
    "4p-white-discard-win": Rules(caishen_mode="white", discard_win=True, dealer_start_level=3),
    "3p-discard-win-no-contract": Rules(players=3, discard_win=True, dealer_start_level=3,
                                        three_tan_contract=False),
    "2p-drop-bamboo": Rules(players=2, drop_bamboo=True),
    "2p-white-pongs-free": Rules(players=2, caishen_mode="white", pong_counts_as_tan=False),
    "4p-points-capped-baotou": Rules(match_mode="points", start_points=40, dealer_start_level=2,
                                     cap=64, must_baotou_with_caishen=True, base_score=2),
}
MATCHES_PER_CONFIG = 3
MAX_STEPS = 4000


def physical_tiles(m: Match) -> list[int]:
    """Every tile the hand accounts for: concealed, melds, unclaimed discards, live wall,
    dead wall and burned tiles."""
    tiles = [t for t in m.wall[m.head:m.live_end]]
    tiles += m.wall[len(m.wall) - DEAD_WALL:] + m.burned
    for s in m.seats:
        tiles += s.concealed
        for meld in s.melds:
            tiles += meld.physical_tiles
        tiles += [t for t, by in s.discards if by is None]
    return sorted(tiles)


def random_action(rng: random.Random, m: Match) -> Action:
    seat = rng.randrange(m.n)
    t = rng.randrange(34)
    choices: list[Action] = [
        Discard(seat, t), Win(seat), Pong(seat), Pass(seat),
        Kong(seat, t, rng.choice(("concealed", "added", "exposed"))),
        Chow(seat, (t, min(33, t + rng.choice((1, 2))))),
    ]
    return rng.choice(choices)


def pick(rng: random.Random, m: Match, legal: list[Action]) -> Action:
    """A random bot that mostly wins when it can and discards towards a win (so that
    wins, 财神 discards and contracts happen often), else plays any legal action."""
    wins = [a for a in legal if isinstance(a, Win)]
    if wins and rng.random() < 0.95:
        return wins[0]
    discards = [a for a in legal if isinstance(a, Discard)]
    if len(discards) > 1 and rng.random() < 0.8:
        st = m.seats[legal[0].seat]

        def shanten_after(a: Discard) -> int:
            rest = list(st.concealed)
            rest.remove(a.tile)
            counts, wilds = split_wilds(rest, m.caishen)
            return shanten_counts(counts, wilds, len(st.melds))

        return min(discards, key=shanten_after)
    return legal[rng.randrange(len(legal))]


def fingerprint(m: Match) -> tuple[Any, ...]:
    return (m.state_id, len(m.log), len(m.actions), m.phase, m.turn, m.head, m.live_end,
            [list(s.concealed) for s in m.seats], m.points(), dict(m.claim_responses))


def check_hidden(m: Match, seen: int) -> None:
    """RULES §13 on the events since ``seen`` and on every seat's view."""
    for e in m.log[seen:]:
        for seat in [None, *range(m.n)]:
            data = e.for_seat(seat)
            if e.type == "hand_start":
                assert all(h is None for i, h in enumerate(data["hands"]) if i != seat)
            elif e.type == "draw" and e.data["seat"] != seat:
                assert data["tile"] is None
            elif e.type == "kong" and e.data["kind"] == "concealed" and e.data["seat"] != seat:
                assert data["tile"] is None
    if m.over:
        return
    for seat in [None, *range(m.n)]:
        v = m.view(seat)
        if seat is None:
            assert v["hand"] is None and v["last_draw"] is None and v["legal_actions"] == []
        else:
            assert v["hand"] == [tile_name(t) for t in sorted(m.seats[seat].concealed)]
        for i, p in enumerate(v["players"]):
            assert set(p) == {"seat", "points", "dealer", "concealed_count", "melds",
                              "discards", "chain", "auto"}
            assert p["concealed_count"] == len(m.seats[i].concealed)
            for idx, meld in enumerate(p["melds"]):
                hidden = idx in m.seats[i].hidden_kongs and i != seat
                assert (meld["tiles"] is None) is hidden
        if m.phase == "claim":
            assert v["to_move"] in ([], [seat])


def run_match(rules: Rules, seed: int) -> Match:
    """Play one random match, checking every invariant at every step."""
    rng = random.Random(seed)
    m = Match(rules, seed)
    full = full_set(rules.drop_bamboo)
    seen = 0
    for step in range(MAX_STEPS):
        if m.over:
            break
        assert physical_tiles(m) == full
        check_hidden(m, seen)
        seen = len(m.log)
        seat = rng.choice(m.to_move())
        legal = m.legal_actions(seat)
        assert legal and m.default_action(seat) == legal[-1]
        assert all(a.seat == seat for a in legal) and len(set(legal)) == len(legal)
        # a few actions that are not offered to anyone: rejected, state untouched
        before = fingerprint(m)
        for _ in range(3):
            bad = random_action(rng, m)
            if bad in m.legal_actions(bad.seat):
                continue
            with pytest.raises(IllegalActionError):
                m.apply(bad)
            assert fingerprint(m) == before
        if step % 97 == 0:  # every offered action is accepted (on copies)
            for a in legal:
                copy.deepcopy(m).apply(a)
        if rng.random() < 0.002:
            runner = rng.randrange(m.n)
            if not m.is_auto(runner):
                m.apply(Escape(runner))
                continue
        m.apply(pick(rng, m, legal))
    assert m.over, "the match did not end"
    check_hidden(m, seen)
    return m


@pytest.mark.parametrize("name", list(CONFIGS))
def test_random_matches_keep_every_invariant(name: str) -> None:
    rules = CONFIGS[name]
    start = rules.start_points if rules.match_mode == "points" else 0
    outcomes = {"win": 0, "draw": 0}  # hands by result
    for seed in range(MATCHES_PER_CONFIG):
        m = run_match(rules, seed * 7919 + len(name))
        for e in m.log:
            if e.type in ("hand_end", "escape"):
                assert sum(e.data["deltas"]) == 0  # RULES §10.6
            if e.type == "hand_end":
                outcomes[e.data["result"]] += 1
        assert sum(m.points()) == start * rules.players
        # record → replay gives the same match
        record = m.record()
        assert verify(record) == []
        assert replay(record).record() == record
    assert outcomes["win"] > 0


def test_replays_mid_match_are_identical() -> None:
    rng = random.Random(3)
    m = Match(Rules(players=3, discard_win=True, dealer_start_level=3), 99)
    for _ in range(300):
        m.apply(pick(rng, m, m.legal_actions(m.to_move()[0])))
    again = replay(m.record())
    assert again.record() == m.record()
    assert [again.view(s) for s in range(3)] == [m.view(s) for s in range(3)]
