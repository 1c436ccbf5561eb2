"""The engine against RULES §4, §5, §6, §8, §11, §12, §13: one exact position per rule.

Positions come from :mod:`scenario` (one line each).  Unless a test says otherwise the
mode is ``white`` (``P`` = 5z is the 财神), seat 0 deals at level 1, base score 1.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from hzmj.events import Discard, Escape, Event, IllegalActionError, Pong
from hzmj.game import Match, shuffle_wall
from hzmj.rules import Rules
from hzmj.tiles import WHITE, tile_name
from scenario import DEAD_WALL, T, act, deal, offered, parse_action, play, run_until

# inert 13-tile hands: no pair, no two tiles of a suit within two ranks (no claim, no win)
INERT_A = "147m147p147s1234z"
INERT_B = "258m258p258s1234z"
INERT_C = "369m369p369s1234z"
INERT_E = "369m369p147s1234z"  # no 9s
NO_EAST = ("258m147p369s2346z", "369m258p147s2367z", "147m369p258s3467z")  # no 1z


def ev(events: list[Event], kind: str) -> dict[str, Any]:
    """The data of the first event of type ``kind``."""
    return next(dict(e.data) for e in events if e.type == kind)


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def turn_of(seat: int) -> Any:
    return lambda m: m.phase == "turn" and m.turn == seat


# --------------------------------------------------------------------------------------
# §4 setting up a hand


@pytest.mark.parametrize("size", [0, 1, 2, 5, 108, 136, 300])
def test_rules_4_3_shuffle_wall_is_the_standard_shuffle(size: int) -> None:
    # the engine's inlined shuffle must deal exactly what random.Random.shuffle deals, and
    # leave the generator in the same state (records and digests depend on both)
    for seed in range(200):
        ours, theirs = random.Random(seed), random.Random(seed)
        a, b = list(range(size)), list(range(size))
        shuffle_wall(ours, a)
        theirs.shuffle(b)
        assert a == b
        assert ours.getstate() == theirs.getstate()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rules_4_4_dealer_gets_14_others_13_dealt_from_the_head(players: int) -> None:
    for seed in range(5):
        m = Match(Rules(players=players), seed)
        sizes = [len(s.concealed) for s in m.seats]
        assert sizes[m.dealer] == 14
        assert sorted(sizes) == [13] * (players - 1) + [14]
        assert m.live_count == 136 - DEAD_WALL - (13 * players + 1)
        assert m.to_move() == [m.dealer]
        pos = 0
        for i in range(players):  # dealer first, then in turn order
            seat = (m.dealer + i) % players
            take = sizes[seat]
            assert sorted(m.wall[pos:pos + take]) == sorted(m.seats[seat].concealed)
            pos += take


@pytest.mark.parametrize(("dice", "stack"),
                         [((1, 1), 2), ((3, 4), 7), ((4, 6), 10), ((5, 6), 1), ((6, 6), 2)])
def test_rules_4_5_flip_indicator_is_upper_tile_of_dth_stack_from_tail(
        dice: tuple[int, int], stack: int) -> None:
    m = deal(None, None, None, None, caishen="7p", dice=dice)
    assert m.indicator == m.caishen == T("7p")
    assert m.wall[136 - 2 * stack] == T("7p")  # the upper tile: the one nearer the head
    assert ev(m.log, "hand_start")["indicator"] == "7p"
    assert 136 - 2 * stack >= 136 - DEAD_WALL  # part of the dead wall


def test_rules_4_5_flip_indicator_position_for_random_walls() -> None:
    for seed in range(30):
        m = Match(Rules(), seed)
        d = sum(m.dice)
        stack = d - 10 if d > 10 else d
        assert m.indicator == m.wall[len(m.wall) - 2 * stack] == m.caishen


def test_rules_4_5_flip_only_three_caishen_in_play_white_stands_in() -> None:
    m = deal("123456789m11p45p1z", INERT_A, INERT_B, INERT_C, caishen="5m", dice=(2, 3))
    assert m.caishen == T("5m") and m.wall.index(T("5m"), 136 - 10) == 136 - 10
    assert 136 - 10 >= m.live_end  # the indicator is never drawn: 3 财神 in play
    # the white dragon is an ordinary 5m now (RULES §5.2): 4m P 6m is a chow
    m = deal("6m147p147s12346z4s7s", "47m5z147p258s1234z", caishen="5m", players=2)
    act(m, "0 discard 6m")
    assert offered(m, 1) == ["chow 4m5z", "chow 7m5z", "pass"]


def test_rules_4_5_white_indicator_leaves_three_white_caishen() -> None:
    m = deal("5z147m147p147s1234z", "5z5z258m258p258s12z", caishen="P", players=2)
    assert m.caishen == WHITE and m.indicator == WHITE
    events = act(m, "0 discard 5z")  # a 财神 discard: no pong of two white dragons
    assert ev(events, "discard")["caishen"] is True
    assert m.phase == "turn" and m.turn == 1


def test_rules_4_5_white_mode_flips_nothing() -> None:
    m = Match(Rules(caishen_mode="white"), 3)
    assert m.indicator is None and m.caishen == WHITE
    assert ev(m.log, "hand_start")["indicator"] is None


def test_rules_4_6_dead_wall_is_never_drawn_and_the_hand_is_drawn() -> None:
    m = Match(Rules(), 11)
    wall = list(m.wall)
    events = run_until(m, lambda m: m.hand_no == 2)  # defaults: discard the draw, pass
    first_hand = events[:types(events).index("hand_end")]
    draws = [e.data for e in first_hand if e.type == "draw"]
    dealt = 13 * 4 + 1
    assert [d["tile"] for d in draws] == [tile_name(t) for t in wall[dealt:len(wall) - DEAD_WALL]]
    assert draws[-1]["live"] == 0
    assert ev(events, "hand_end")["result"] == "draw"


def test_rules_4_7_tianhu_takes_the_best_winning_tile() -> None:
    # RULES §15 E2: 123456789m111pP + 1z is 爆头 (M=2); other choices would be plain
    m = deal("123456789m111p1zP", INERT_A, INERT_B, INERT_C)
    assert offered(m, 0)[0] == "win"
    events = act(m, "0 win")
    win = ev(events, "win")
    assert win["tile"] == "1z" and win["self_draw"] is True and win["chain"] == []
    assert win["score"]["multiplier"] == 2
    assert ev(events, "hand_end")["deltas"] == [12, -4, -4, -4]  # dealer factor 2


def test_rules_4_7_tianhu_may_be_declined() -> None:
    m = deal("123456789m111p1zP", INERT_A, INERT_B, INERT_C, draws="7z")
    events = act(m, "0 discard 1z")
    assert ev(events, "draw")["seat"] == 1
    assert not m.over and m.hand_no == 1


def test_rules_4_8_every_hand_starts_fresh() -> None:
    m = deal("123456789m111p1zP", INERT_A, INERT_B, INERT_C)
    play(m, "0 discard 5z")  # a lock and a chain in hand 1
    assert m.lock == 0 and m.seats[0].chain == ["piao"]
    run_until(m, lambda m: m.hand_no == 2)
    assert m.lock is None and m.tan == {}
    assert all(s.chain == [] and not s.melds and not s.discards for s in m.seats)


# --------------------------------------------------------------------------------------
# §5 the 财神


def test_rules_5_3_no_concealed_kong_of_four_caishen() -> None:
    m = deal("5555z9999m123p456s", INERT_A, players=2)
    assert "kong 9m concealed" in offered(m, 0)
    assert "kong 5z concealed" not in offered(m, 0)


def test_rules_5_3_a_caishen_never_melds() -> None:
    # flip 财神 = 5m: seat 1 holds a real 5m next to 4m/7m, but no white dragon
    m = deal("6m147p147s12346z4s7s", "457m147p258s1234z", caishen="5m", players=2)
    act(m, "0 discard 6m")
    assert m.phase == "turn" and m.turn == 1  # no chow 4m5m / 5m7m


def test_rules_5_4_caishen_discard_opens_no_claim() -> None:
    m = deal("5z147m147p147s1234z", "5z5z258m258p258s12z", players=2)
    events = act(m, "0 discard 5z")
    assert ev(events, "discard") == {"type": "discard", "seat": 0, "tile": "5z",
                                     "caishen": True, "lock": 0}
    assert types(events) == ["discard", "draw"] and m.to_move() == [1]


def _locked_table() -> Match:
    """Seat 0 holds a 财神 (P); seat 2 could pong/chow 9p, holds 777s and 6666z."""
    return deal("389m147p1955s234z5z", "248m258p169s1234z", "12m78p99p777s6666z",
                "369m369p368s1277z", draws="9p7s5s", replacements="4m")


def test_rules_5_5_caishen_lock_forces_draw_discard() -> None:
    m = _locked_table()
    play(m, "0 discard 5z")
    assert m.lock == 0
    assert offered(m, 1) == ["discard 9p"]  # 摸打
    with pytest.raises(IllegalActionError):
        act(m, "1 discard 2m")


def test_rules_5_5_caishen_lock_blocks_claims_of_locked_players() -> None:
    m = _locked_table()
    play(m, "0 discard 5z", "1 discard 9p")  # seat 2 could pong or chow 9p
    assert m.phase == "turn" and m.turn == 2


def test_rules_5_5_caishen_lock_allows_concealed_kong_only_with_the_drawn_tile() -> None:
    m = _locked_table()
    play(m, "0 discard 5z", "1 discard 9p")
    assert offered(m, 2) == ["kong 7s concealed", "discard 7s"]  # not the 6666z kong
    events = act(m, "2 kong 7s concealed")
    assert ev(events, "draw")["replacement"] is True
    assert offered(m, 2) == ["discard 4m"]  # the replacement must go too


def test_rules_5_5_no_second_kong_on_the_replacement_under_the_lock() -> None:
    # seat 1 is locked, konges 7p with its drawn 7p and replaces with 1z while holding 1z1z1z
    m = deal("389m258p1955s234z5z", "777p111z258m258s3z", draws="7p", replacements="1z",
             players=2)
    play(m, "0 discard 5z")
    assert m.lock == 0 and offered(m, 1) == ["kong 7p concealed", "discard 7p"]
    events = act(m, "1 kong 7p concealed")
    assert ev(events, "draw")["tile"] == "1z" and ev(events, "draw")["replacement"] is True
    assert offered(m, 1) == ["discard 1z"]  # no kong 1z: one kong per draw under the lock
    with pytest.raises(IllegalActionError):
        act(m, "1 kong 1z concealed")


def test_rules_5_5_replacement_that_wins_may_still_win_under_the_lock() -> None:
    # seat 1 is locked; its replacement 3z pairs the lone 3z: a self-drawn win (gangkai)
    m = deal("389m258p1955s234z5z", "777p123m456m789s3z", draws="7p", replacements="3z",
             players=2)
    play(m, "0 discard 5z", "1 kong 7p concealed")
    assert offered(m, 1) == ["win", "discard 3z"]


def test_rules_5_5_the_locker_is_free_and_its_plain_discard_ends_the_lock() -> None:
    m = _locked_table()
    play(m, "0 discard 5z", "1 discard 9p", "2 kong 7s concealed", "2 discard 4m")
    assert offered(m, 3) == ["discard 5s"]
    act(m, "3 discard 5s")
    assert m.to_move() == [0] and offered(m, 0) == ["pong", "pass"]  # the locker may pong
    act(m, "0 pong")
    assert len(offered(m, 0)) > 1  # and discard freely
    events = act(m, "0 discard 3m")
    assert ev(events, "discard")["lock"] is None and m.lock is None
    assert offered(m, 1) == ["chow 2m4m", "pass"]  # the freeing discard is claimable


def test_rules_5_5_another_caishen_discard_moves_the_lock() -> None:
    m = deal("5z147m147p147s1234z", INERT_B, INERT_C, "147m258p369s1234z", draws="5z7z")
    play(m, "0 discard 5z")
    assert offered(m, 1) == ["discard 5z"]
    events = act(m, "1 discard 5z")
    assert ev(events, "discard")["lock"] == 1 and m.lock == 1
    assert offered(m, 2) == ["discard 7z"]  # still locked, now by seat 1


def test_rules_5_5_locked_player_may_still_win_by_self_draw() -> None:
    m = deal("5z147m147p147s1234z", "123456789m11p22p", INERT_B, INERT_C, draws="2p")
    play(m, "0 discard 5z")
    assert offered(m, 1) == ["win", "discard 2p"]
    assert ev(act(m, "1 win"), "hand_end")["winner"] == 1


def test_rules_5_5_no_discard_win_under_anothers_lock() -> None:
    # discard wins are on (level 3); seat 1 locks, so the dealer may not win on seat 2
    m = deal("123456789m11p45p7z", "5z258m258p258s234z", INERT_C, INERT_A, draws="3z3p",
             level=3, discard_win=True)
    play(m, "0 discard 7z", "1 discard 5z")
    assert m.lock == 1
    act(m, "2 discard 3p")
    assert m.phase == "turn" and m.turn == 3  # the dealer is offered no win


# --------------------------------------------------------------------------------------
# §6 a turn and its claims


def test_rules_6_1_draws_come_from_the_head_in_order() -> None:
    m = deal(None, None, None, None, draws="1z2z3z4z")
    events = m.apply(m.legal_actions(0)[-1])
    events += run_until(m, turn_of(0))
    assert [e.data["tile"] for e in events if e.type == "draw"] == ["1z", "2z", "3z", "4z"]


CHOW_TABLE = ("39m159p147s123467z", "258m3467p258s123z", "369m468p369s1247z")


def test_rules_6_3_chow_only_by_the_next_seat_with_each_choice_offered() -> None:
    m = deal(*CHOW_TABLE)
    act(m, "0 discard 5p")
    assert m.to_move() == [1]  # seat 2 also holds 46p but is not the 下家
    assert offered(m, 1) == ["chow 3p4p", "chow 4p6p", "chow 6p7p", "pass"]
    events = act(m, "1 chow 4p6p")
    assert ev(events, "chow") == {"type": "chow", "seat": 1, "from": 0, "tile": "5p",
                                  "tiles": ["4p", "5p", "6p"]}
    assert m.turn == 1 and m.last_draw is None
    assert "win" not in offered(m, 1)


def test_rules_5_2_discarded_white_dragon_is_claimed_as_the_caishen_kind() -> None:
    m = deal("5z147p147s12346z4s7s", "46m5z5z147p258s124z", caishen="5m", players=2)
    act(m, "0 discard 5z")  # not a 财神 here: a plain 5m
    assert offered(m, 1) == ["pong", "chow 4m6m", "pass"]
    events = act(m, "1 chow 4m6m")
    assert ev(events, "chow")["tiles"] == ["4m", "5z", "6m"]
    assert m.view(0)["players"][1]["melds"][0]["tiles"] == ["4m", "5z", "6m"]


INERT_D = "369m258p369s1234z"
PONG_TABLE = ("7s147m147p14s1234z9m", "68s258m258p1234z2s", "777s369m369p1234z", INERT_D)


def test_rules_6_3_pong_and_exposed_kong_by_anyone_and_pong_beats_chow() -> None:
    m = deal(*PONG_TABLE)
    act(m, "0 discard 7s")
    assert m.to_move() == [1, 2]
    assert offered(m, 1) == ["chow 6s8s", "pass"]
    assert offered(m, 2) == ["pong", "kong 7s exposed", "pass"]
    act(m, "1 chow 6s8s")
    assert m.to_move() == [2]  # the chow waits for the higher claim
    events = act(m, "2 pong")
    assert ev(events, "pong")["seat"] == 2 and m.seats[1].melds == []
    assert m.turn == 2


def test_rules_6_3_chow_applies_when_the_pong_is_passed() -> None:
    m = deal(*PONG_TABLE)
    events = play(m, "0 discard 7s", "2 pass", "1 chow 6s8s")
    assert ev(events, "chow")["seat"] == 1


def test_rules_6_3_exposed_kong_draws_a_replacement() -> None:
    m = deal(*PONG_TABLE, replacements="6z")
    events = play(m, "0 discard 7s", "2 kong 7s exposed")
    assert ev(events, "kong") == {"type": "kong", "seat": 2, "from": 0, "tile": "7s",
                                  "tiles": ["7s"] * 4, "kind": "exposed"}
    draw = ev(events, "draw")
    assert draw["seat"] == 2 and draw["replacement"] is True and draw["tile"] == "6z"
    assert m.seats[2].chain == ["kong"]


WIN_TABLE = ("33p147m147s123477z", "33p258m258s9m2567z", "123456789m11p45p", INERT_D)


def test_rules_6_3_discard_win_beats_pong() -> None:
    m = deal(*WIN_TABLE, level=3, discard_win=True)
    act(m, "0 discard 3p")
    assert offered(m, 1) == ["pong", "pass"] and offered(m, 2) == ["win", "pass"]
    act(m, "1 pong")
    assert m.to_move() == [2]
    events = act(m, "2 win")
    win = ev(events, "win")
    assert win["seat"] == 2 and win["from"] == 0 and win["self_draw"] is False
    # RULES §10.5: the discarder pays T = 8 (dealer) + 1 + 1 at level 3
    assert ev(events, "hand_end")["deltas"] == [-10, 0, 10, 0]


TWO_WINNERS = ("3p147m147s1234z9m99s", "123456789s11p45p", "123456789m11p45p",
               "258m369p258s1234z")


def test_rules_6_3_two_discard_wins_first_in_turn_order_wins() -> None:
    m = deal(*TWO_WINNERS, level=3, discard_win=True)
    act(m, "0 discard 3p")
    assert m.to_move() == [1, 2]
    act(m, "2 win")
    assert m.to_move() == [1]  # seat 1 comes first after the discarder
    events = act(m, "1 win")
    assert ev(events, "win")["seat"] == 1


def test_rules_6_3_second_claimant_wins_when_the_first_passes() -> None:
    m = deal(*TWO_WINNERS, level=3, discard_win=True)
    events = play(m, "0 discard 3p", "1 pass", "2 win")
    assert ev(events, "win")["seat"] == 2 and ev(events, "win")["tile"] == "3p"


def test_rules_6_4_kong_replacement_is_the_lower_tile_of_the_last_live_stack() -> None:
    m = deal("1111z123m456p789s4z", *NO_EAST, replacements="9m")
    end, live = m.live_end, m.live_count
    upper = m.wall[end - 2]
    events = act(m, "0 kong 1z concealed")
    assert ev(events, "draw")["tile"] == "9m" and m.last_draw == T("9m")
    assert m.burned == [upper]  # the upper tile is burned
    assert m.live_end == end - 2 and m.live_count == live - 2


# seat k % 4 makes draw k (k = 1 is seat 1's first); 63 live tiles: draw 61 leaves 2
LAST = (INERT_A + "7z", "999s147m258p1234z", "369m369p258s1234z", INERT_B)


def test_rules_6_4_kong_needs_two_live_tiles() -> None:
    m = deal(INERT_A + "7z", "258m258p258s1234z", "999s147m147p1234z", "369m369p258s1234z",
             last_draws="7m9s8p")
    run_until(m, lambda m: m.live_count == 1)
    assert m.turn == 2 and m.last_draw == T("9s")
    assert not any(a.startswith("kong") for a in offered(m, 2))


def test_rules_6_4_kong_with_two_live_tiles_then_the_hand_is_drawn() -> None:
    m = deal(*LAST, last_draws="9s8p7m")
    run_until(m, lambda m: m.live_count == 2)
    assert m.turn == 1 and m.last_draw == T("9s")
    assert "kong 9s concealed" in offered(m, 1)
    events = act(m, "1 kong 9s concealed")
    assert ev(events, "draw")["tile"] == "7m" and m.burned == [T("8p")]
    assert m.live_count == 0
    events = run_until(m, lambda m: m.hand_no == 2)
    assert ev(events, "hand_end")["result"] == "draw"  # RULES §8.6


def test_rules_8_6_a_win_on_the_last_live_tile_is_a_win() -> None:
    m = deal(INERT_A + "7z", INERT_B, INERT_C, "123456789m11p45p", last_draws="1z2z3p")
    run_until(m, lambda m: m.live_count == 0)
    assert m.turn == 3 and offered(m, 3)[0] == "win"
    events = act(m, "3 win")
    assert ev(events, "hand_end")["result"] == "win"


def _third_pong_offered(**options: Any) -> bool:
    """Seat 2 pongs seat 1's 1m and 1p; is a third pong (1s) from seat 1 offered?"""
    m = deal("25m258p2589s13477z", "369m369p369s4677z", "119m119p119s2346z",
             draws="1m1z1p1z1s", **options)
    play(m, "0 discard 2m", "1 discard 1m", "2 pong", "2 discard 2z", "0 discard 1z",
         "1 discard 1p", "2 pong", "2 discard 3z", "0 discard 1z", "1 discard 1s")
    return m.phase == "claim" and "pong" in offered(m, 2)


@pytest.mark.parametrize(("options", "offered_"), [
    ({"level": 1}, True),  # three_tan_contract on: a third 摊 is allowed
    ({"level": 2}, False),  # … but not between two non-dealers at dealer level 2–3
    ({"level": 3}, False),
    ({"level": 1, "three_tan_contract": False}, False),  # off: at most 2 摊
    ({"level": 1, "three_tan_contract": False, "pong_counts_as_tan": False}, True),
    ({"level": 3, "pong_counts_as_tan": False}, True),  # pongs are not 摊 at all
])
def test_rules_6_5_tan_limits(options: dict[str, Any], offered_: bool) -> None:
    assert _third_pong_offered(**options) is offered_


def test_rules_6_5_third_chow_from_the_same_player_needs_the_contract_option() -> None:
    for contract, expected in ((False, False), (True, True)):
        m = deal("3m3p3s69m69p69s46777z", "12m12p12s9m9p9s1234z", draws="8m8p8s",
                 three_tan_contract=contract)
        play(m, "0 discard 3m", "1 chow 1m2m", "1 discard 1z", "0 discard 3p",
             "1 chow 1p2p", "1 discard 2z", "0 discard 3s")
        assert ("chow 1s2s" in offered(m, 1)) is expected
        assert m.tan[(1, 0)] == 2


SHIPENG = ("147m1479p147s1234z", "258m258p258s1234z", "369m369p3677s123z", "258m258p258s4667z")


def test_rules_6_6_shipeng_no_pong_of_the_same_tile_in_the_go_around() -> None:
    m = deal(*SHIPENG, draws="7s")
    play(m, "0 discard 7s", "2 pass", "1 discard 7s")
    assert m.phase == "turn" and m.turn == 2  # seat 2 passed on 7s and may not pong it


def test_rules_6_6_shipeng_clears_when_the_player_draws() -> None:
    m = deal(*SHIPENG, draws="1z9s7s")
    play(m, "0 discard 7s", "2 pass", "1 discard 1z")
    assert m.seats[2].missed_pong == set()  # cleared by seat 2's draw
    play(m, "2 discard 9s", "3 discard 7s")
    assert offered(m, 2) == ["pong", "pass"]


GUOHU = ("147m33p147s123477z", "258m258p258s1234z", "369m369p369s1234z", "123456789m11p45p")


def test_rules_6_6_guohu_no_discard_win_on_the_same_tile_in_the_go_around() -> None:
    m = deal(*GUOHU, draws="7z", level=3, discard_win=True)
    act(m, "0 discard 3p")
    assert offered(m, 3) == ["win", "pass"]
    play(m, "3 pass", "1 discard 7z", "0 pong", "0 discard 3p")
    assert m.phase == "turn" and m.turn == 1  # seat 3 passed on 3p
    run_until(m, turn_of(3))
    assert m.seats[3].missed_win == set()  # cleared by seat 3's draw


@pytest.mark.parametrize(("discard_win", "level", "offered_"),
                         [(False, 3, False), (True, 2, False), (True, 1, False), (True, 3, True)])
def test_rules_8_4_discard_win_needs_the_option_and_level_3(
        discard_win: bool, level: int, offered_: bool) -> None:
    m = deal(*GUOHU, level=level, discard_win=discard_win)
    act(m, "0 discard 3p")
    assert ("win" in offered(m, 3)) is offered_


def test_rules_8_4_no_discard_win_between_two_non_dealers() -> None:
    m = deal("147m147p147s12347z", "258m258p258s1234z", "369m369p369s1234z",
             "123456789m11p45p", draws="1z3p", level=3, discard_win=True)
    play(m, "0 discard 7z", "1 discard 1z", "2 discard 3p")
    assert offered(m, 3) == ["chow 4p5p", "pass"]  # no discard win


def test_rules_10_5_dealer_wins_on_a_discard_example_p6() -> None:
    m = deal("123456789m11p45p7z", INERT_A, INERT_B, INERT_C, draws="3p",
             level=3, discard_win=True)
    events = play(m, "0 discard 7z", "1 discard 3p", "0 win")
    assert ev(events, "hand_end")["deltas"] == [24, -24, 0, 0]


# --------------------------------------------------------------------------------------
# §8 chains and how a hand ends; §10 settlement in real hands


def test_rules_9_caipiao_after_a_caishen_discard_example_e9() -> None:
    m = deal("123456789m111p5z5z", INERT_A, INERT_B, INERT_C, draws="2z3z4z1z")
    play(m, "0 discard 5z")
    assert m.seats[0].chain == ["piao"]
    run_until(m, turn_of(0))
    events = act(m, "0 win")
    assert ev(events, "win")["score"]["multiplier"] == 4  # 财飘
    assert ev(events, "hand_end")["deltas"] == [24, -8, -8, -8]


def test_rules_8_2_a_plain_discard_clears_the_chain() -> None:
    m = deal("123456789m111p5z2z", INERT_A, INERT_B, INERT_C, draws="3z4z6z1z")
    play(m, "0 discard 5z")
    run_until(m, turn_of(0))
    play(m, "0 discard 1z")
    assert m.seats[0].chain == [] and m.lock is None


def test_rules_9_gangkai_example_e10() -> None:
    m = deal("123m456m789p7z9999s", INERT_A, INERT_B, INERT_E, replacements="7z")
    play(m, "0 kong 9s concealed")
    events = act(m, "0 win")
    assert ev(events, "win")["chain"] == ["kong"]
    assert ev(events, "win")["score"]["multiplier"] == 2  # 杠开
    assert ev(events, "hand_end")["deltas"] == [12, -4, -4, -4]


def test_rules_9_gangbao_example_e11() -> None:
    m = deal("123m456m789p9999s5z", INERT_A, INERT_B, INERT_E, replacements="1z")
    events = play(m, "0 kong 9s concealed", "0 win")
    assert ev(events, "win")["score"]["multiplier"] == 4  # 杠暴


def test_rules_9_piao_then_kong_example_e12() -> None:
    m = deal("123m456m789p999s5z5z", INERT_A, INERT_B, INERT_E, draws="2z3z4z9s",
             replacements="1z")
    play(m, "0 discard 5z")
    run_until(m, turn_of(0))
    events = play(m, "0 kong 9s concealed", "0 win")
    assert ev(events, "win")["chain"] == ["piao", "kong"]
    assert ev(events, "win")["score"]["multiplier"] == 8
    assert ev(events, "hand_end")["deltas"] == [48, -16, -16, -16]


CONTRACT = ("119m119p119s13467z", "234567m345p678s2z", "258m258p258s5577z", "3469m369p369s257z")


def test_rules_10_4_fan_chengbao_in_a_real_hand() -> None:
    # the dealer pongs three of seat 1's discards; seat 1 then self-draws: dealer pays 2T
    m = deal(*CONTRACT, draws="1m1p1s2z")
    play(m, "0 discard 1z", "1 discard 1m", "0 pong", "0 discard 3z", "1 discard 1p",
         "0 pong", "0 discard 4z", "1 discard 1s", "0 pong", "0 discard 6z")
    assert m.tan == {(0, 1): 3}
    events = act(m, "1 win")
    end = ev(events, "hand_end")
    assert end["deltas"] == [-8, 8, 0, 0]  # T = 2 + 1 + 1
    assert [p["reason"] for p in end["payments"]] == ["fan_chengbao"]


def test_rules_10_4_chengbao_in_a_real_hand_example_p4() -> None:
    m = deal("1m1p1s147m147p147s23z", "11m11p11s23m66z47z2z", INERT_C, "258m258p258s1346z",
             draws="9m9p9s8m8p8s7m7p7s4m")
    play(m, "0 discard 1m", "1 pong", "1 discard 4z")
    run_until(m, turn_of(0))
    play(m, "0 discard 1p", "1 pong", "1 discard 7z")
    run_until(m, turn_of(0))
    play(m, "0 discard 1s", "1 pong", "1 discard 2z")
    run_until(m, turn_of(1))
    assert m.last_draw == T("4m")
    end = ev(act(m, "1 win"), "hand_end")
    assert end["deltas"] == [-4, 4, 0, 0]
    assert [p["reason"] for p in end["payments"]] == ["chengbao"]


def test_rules_10_4_houbanchang_chengbao_in_a_real_hand() -> None:
    # the dealer discards a 财神, pongs seat 1's 7s, discards another 财神, then wins 爆头
    m = deal("123m456m789p77s5z5z5z", None, None, None, draws="7s2z3z4z1z")
    play(m, "0 discard 5z", "1 discard 7s", "0 pong", "0 discard 5z")
    assert m.seats[0].feeders == {1}
    run_until(m, turn_of(0))
    events = act(m, "0 win")
    assert ev(events, "win")["score"]["multiplier"] == 8  # 双财飘: 2^(1+0+2)
    end = ev(events, "hand_end")
    assert end["deltas"] == [48, -48, 0, 0]  # seat 1 pays T = 3 × 16
    assert [p["reason"] for p in end["payments"]] == ["houbanchang_chengbao"]


# --------------------------------------------------------------------------------------
# §11 dealer succession, §12 end of the match


@pytest.mark.parametrize(("level", "after"), [(1, 2), (2, 3), (3, 3)])
def test_rules_11_2_a_draw_keeps_the_dealer_and_raises_the_level(level: int, after: int) -> None:
    m = deal(None, None, None, None, dealer=2, level=level)
    run_until(m, lambda m: m.hand_no == 2)
    assert m.results[0].winner is None
    assert (m.dealer, m.level) == (2, after)


def test_rules_11_2_dealer_win_raises_the_level() -> None:
    m = deal("123456789m111p1zP", INERT_A, INERT_B, INERT_C, level=2)
    act(m, "0 win")
    assert (m.hand_no, m.dealer, m.level) == (2, 0, 3)


def test_rules_11_3_non_dealer_win_takes_the_deal_at_the_start_level() -> None:
    m = deal(INERT_A + "7z", "123456789m11p22p", INERT_B, INERT_C, draws="2p", level=3,
             dealer_start_level=2)
    play(m, "0 discard 7z", "1 win")
    assert (m.hand_no, m.dealer, m.level) == (2, 1, 2)


def test_rules_12_1_hands_mode_ends_after_the_hands() -> None:
    import random

    m = Match(Rules(hands=8), 5)
    rng = random.Random(5)
    while not m.over:
        legal = m.legal_actions(m.to_move()[0])
        m.apply(legal[rng.randrange(len(legal))])
    kinds = types(m.log)
    assert kinds.count("hand_end") == 8 and kinds.count("hand_start") == 8
    assert kinds[-1] == "match_end" and m.to_move() == []
    with pytest.raises(IllegalActionError):
        m.apply(Discard(0, 0))


def test_rules_12_2_points_mode_goes_on_during_a_dealer_streak_then_ends() -> None:
    m = deal("123456789m111p1zP", INERT_A, INERT_B, INERT_C, match_mode="points",
             points=[50, 3, 50, 50])
    act(m, "0 win")  # seat 1 pays 4 and is at -1, but the dealer won
    assert m.points()[1] == -1 and not m.over and m.hand_no == 2
    events = run_until(m, lambda m: m.over)  # hand 2: defaults draw the hand
    assert ev(events, "hand_end")["result"] == "draw"
    assert ev(events, "match_end")["points"] == m.points()
    assert m.over and m.hand_no == 2


def test_rules_8_5_escape_at_level_3_pays_caipiao_and_hands_the_seat_to_a_bot() -> None:
    m = deal(None, None, None, None, level=3)
    events = m.apply(Escape(2))
    esc = ev(events, "escape")
    assert esc["deltas"] == [32, 4, -40, 4]  # M=4 × dealer factor 8 to the dealer
    assert m.is_auto(2) and m.points() == [32, 4, -40, 4]
    with pytest.raises(IllegalActionError):
        m.apply(Escape(2))
    run_until(m, turn_of(2))
    assert m.legal_actions(2)  # the hand goes on; a bot plays seat 2


@pytest.mark.parametrize("level", [1, 2])
def test_rules_8_5_escape_below_level_3_costs_nothing(level: int) -> None:
    m = deal(None, None, None, None, level=level)
    esc = ev(m.apply(Escape(1)), "escape")
    assert esc["deltas"] == [0, 0, 0, 0] and esc["payments"] == []
    assert m.is_auto(1) and m.points() == [0, 0, 0, 0]


# --------------------------------------------------------------------------------------
# §13 hidden information


@pytest.mark.parametrize("seat", [-1, -4, 4, 9, True, 1.0, "0"])
def test_rules_13_a_view_of_no_seat_is_refused(seat: Any) -> None:
    # view(-1) was seat 3's view labelled seat -1 (Python's negative index): its hand shown
    # to a caller that meant no seat at all; view(4) an IndexError
    m = Match(Rules(players=4), 1)
    # (the compiled engine refuses a non-int as a TypeError, and takes a bool as an int)
    with pytest.raises((ValueError, TypeError)):
        m.view(seat)
    if not isinstance(seat, bool):  # hand_of(-1) was seat 3's hand
        with pytest.raises((ValueError, TypeError)):
            m.hand_of(seat)
    assert m.view(3)["seat"] == 3 and m.view(None)["hand"] is None
    assert len(m.hand_of(3).concealed) == 13 and len(m.hand_of(0).concealed) in (13, 14)


@pytest.mark.parametrize("seat", [-1, 4, 9, None, 1.0, "0"])
def test_legal_actions_of_no_seat_is_refused(seat: Any) -> None:
    # legal_actions(4) at a 4-player table was [] (a seat with nothing to do), hiding the
    # caller's mistake; None a TypeError from a comparison.  Compiled: TypeError
    m = Match(Rules(players=4), 1)
    with pytest.raises((ValueError, TypeError)) as caught:
        m.legal_actions(seat)
    assert caught.type is TypeError or "no seat" in str(caught.value)
    to_move = m.to_move()[0]
    assert m.legal_actions(to_move) and m.legal_actions((to_move + 1) % 4) == []


@pytest.mark.parametrize("seat", [-1, 4, 9])
def test_is_auto_of_no_seat_is_refused(seat: int) -> None:
    # is_auto(-1) answered for seat 3, is_auto(4) was an IndexError
    m = Match(Rules(players=4), 1)
    m.apply(Escape(3))
    with pytest.raises(ValueError, match=f"no seat {seat} at a 4-player table"):
        m.is_auto(seat)
    assert [m.is_auto(s) for s in range(4)] == [False, False, False, True]


@pytest.mark.parametrize("rules", [{"players": 4}, None, "hands=8"])
def test_a_match_of_rules_that_are_no_rules_is_a_type_error(rules: Any) -> None:
    # a dict said "'dict' object has no attribute 'players'" (AttributeError)
    with pytest.raises(TypeError, match="Rules"):
        Match(rules, 1)
    assert Match(Rules.from_dict({"players": 4}), 1).n == 4


def test_rules_6_7_concealed_kong_hidden_until_the_owners_next_draw() -> None:
    m = deal("1111z123m456p789s4z", *NO_EAST, replacements="9m")
    events = act(m, "0 kong 1z concealed")
    kong = next(e for e in events if e.type == "kong")
    assert kong.for_seat(0)["tile"] == "1z"
    assert kong.for_seat(1)["tile"] is None and kong.for_seat(None)["tile"] is None
    replacement = next(e for e in events if e.type == "draw")
    assert replacement.for_seat(1)["tile"] is None
    assert m.view(0)["players"][0]["melds"][0]["tiles"] == ["1z"] * 4
    assert m.view(1)["players"][0]["melds"][0]["tiles"] is None
    assert m.view(None)["players"][0]["melds"][0]["tiles"] is None
    act(m, "0 discard 4z")
    events = run_until(m, turn_of(0))
    assert ev(events, "kong_shown") == {"type": "kong_shown", "seat": 0, "tile": "1z"}
    assert m.view(1)["players"][0]["melds"][0]["tiles"] == ["1z"] * 4


def test_rules_6_7_concealed_kong_shown_when_its_owner_claims_next() -> None:
    # play comes back to the owner through a pong: the go-around has passed
    m = deal("1111z123m456p799s4z", *NO_EAST, replacements="9m")
    act(m, "0 kong 1z concealed")
    act(m, "0 discard 4z")
    act(m, "1 discard 9s")
    assert offered(m, 0) == ["pong", "pass"]
    assert m.view(2)["players"][0]["melds"][0]["tiles"] is None
    events = act(m, "0 pong")
    assert [e.type for e in events][:2] == ["kong_shown", "pong"]
    assert m.view(2)["players"][0]["melds"][0]["tiles"] == ["1z"] * 4


def test_rules_6_7_concealed_kong_shown_at_the_end_of_the_hand() -> None:
    # seat 1 self-draws before play comes back to the kong's owner; the match ends there
    m = deal("1111z123m456p789s4z", "123456789m11p22p", NO_EAST[1], NO_EAST[2],
             replacements="9m", draws="2p", match_mode="points", points=[1, 1, 1, 1])
    play(m, "0 kong 1z concealed", "0 discard 4z")
    assert m.view(1)["players"][0]["melds"][0]["tiles"] is None
    act(m, "1 win")
    assert m.over
    for seat in (1, 2, None):
        assert m.view(seat)["players"][0]["melds"][0]["tiles"] == ["1z"] * 4


def test_rules_13_claim_windows_show_no_other_seats_options() -> None:
    m = deal(*PONG_TABLE)
    act(m, "0 discard 7s")
    assert m.to_move() == [1, 2]
    assert m.view(1)["to_move"] == [1] and m.view(2)["to_move"] == [2]
    assert m.view(3)["to_move"] == [] and m.view(None)["to_move"] == []
    assert m.view(3)["legal_actions"] == []


# --------------------------------------------------------------------------------------
# illegal actions


def _snapshot(m: Match) -> tuple[Any, ...]:
    return (m.record(), [m.view(s) for s in range(m.n)], m.view(None), m.state_id)


@pytest.mark.parametrize("text", [
    "1 discard 1m",  # not seat 1's turn
    "0 discard 5m",  # not in the hand
    "0 pong",  # nothing to pong
    "0 win",  # not a winning hand
    "0 kong 1m concealed",  # no quad
    "0 pass",  # nothing to pass
])
def test_illegal_actions_leave_the_state_unchanged(text: str) -> None:
    m = deal(*CHOW_TABLE)
    before = _snapshot(m)
    with pytest.raises(IllegalActionError):
        act(m, text)
    assert _snapshot(m) == before


def test_stale_and_unoffered_claims_are_rejected() -> None:
    m = deal(*PONG_TABLE)
    act(m, "0 discard 7s")
    before = _snapshot(m)
    for text in ("0 discard 9m",  # stale: already applied
                 "3 pong", "3 pass",  # seat 3 has no claim
                 "2 chow 6s8s",  # only the 下家 may chow
                 "1 pong", "1 win"):  # not offered to seat 1
        with pytest.raises(IllegalActionError):
            act(m, text)
        assert _snapshot(m) == before
    act(m, "2 pass")
    with pytest.raises(IllegalActionError):  # already answered
        m.apply(Pong(2))
    assert parse_action("2 pong") == Pong(2)


# ------------------------------------------------------------------ public steps (RULES §13)


@pytest.mark.parametrize("hand1, window", [
    ("19m19p19s1234567z", False),   # seat 1 cannot take the 3z
    ("19m19p19s1233567z", True),    # seat 1 holds a pair of 3z: a claim window opens
])
def test_rules_13_steps_after_a_discard_do_not_show_a_window(hand1: str, window: bool) -> None:
    m = deal("123456789m11p22p3z", hand1, draws="4z")
    assert m.step == 0
    events = act(m, "0 discard 3z")
    assert (m.phase == "claim") is window
    if window:
        assert m.step == 1 and [e.type for e in events] == ["discard"]
        act(m, "1 pass")
    # window or not: the discard is step 1 and its outcome (seat 1's draw) step 2
    start = next(i for i, e in enumerate(m.log) if e.type == "discard")
    tail = list(zip([e.type for e in m.log[start:]], m.event_steps[start:], strict=True))
    assert tail == [("discard", 1), ("draw", 2)]
    assert m.step == 2 and m.to_move() == [1]
