"""Bots (issue 4): legal play under every rule variant, known best decisions in crafted
positions (RULES §5, §7.3, §9, §10.4), determinism, explanations and decision time."""

from __future__ import annotations

import dataclasses
import random
import statistics
import time
from typing import Any

import pytest

from hzmj.bots import analysis as an
from hzmj.bots import strong
from hzmj.bots.efficiency import EfficiencyBot, hand_state
from hzmj.bots.random_bot import RandomBot
from hzmj.bots.registry import BOT_NAMES, make_bot
from hzmj.bots.seat import read_seat
from hzmj.bots.strong import StrongBot, _Search
from hzmj.events import Action, Chow, Discard, Kong, Pass, Pong, Win
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.tiles import WHITE, parse_tiles, tile, tile_name

VARIANTS = [
    pytest.param({}, id="defaults"),
    pytest.param({"players": 2, "drop_bamboo": True}, id="2p-drop-bamboo"),
    pytest.param({"players": 3, "caishen_mode": "white"}, id="3p-white"),
    pytest.param({"discard_win": True, "dealer_start_level": 3}, id="discard-win-level3"),
    pytest.param({"must_baotou_with_caishen": True, "cap": 64}, id="must-baotou-cap"),
    pytest.param({"three_tan_contract": False, "pong_counts_as_tan": False}, id="no-contract"),
    pytest.param({"match_mode": "points", "start_points": 40}, id="points-mode"),
]


@pytest.mark.parametrize("options", VARIANTS)
def test_every_bot_returns_only_legal_actions(options: dict[str, Any]) -> None:
    rules = Rules(**options)
    bots = [RandomBot(1), EfficiencyBot(2), StrongBot(3, budget_ms=20)]
    for seed in (11, 12):
        m = Match(rules, seed)
        decisions = 0
        while not m.over and m.hand_no <= 2 and decisions < 400:
            seat = m.to_move()[0]
            legal = m.legal_actions(seat)
            view = m.view(seat)
            picks = [b.choose(view, legal) for b in bots]
            for bot, pick in zip(bots, picks, strict=True):
                assert pick in legal, (bot.name, pick, legal)
                if not isinstance(bot, RandomBot):  # the others explain what they play
                    assert bot.explain(view, legal)[0].action == pick
            m.apply(picks[(seat + seed) % 3])  # every bot drives some seats
            decisions += 1
        assert decisions > 20


def test_registry_names_and_budget() -> None:
    assert BOT_NAMES[:3] == ("random", "efficiency", "strong")
    assert isinstance(make_bot("strong:30", 1), StrongBot)
    assert make_bot("strong:30", 1).budget_ms == 30  # type: ignore[attr-defined]
    for bad in ("nobody", "efficiency:30", "strong:x"):
        with pytest.raises(ValueError, match="bot"):
            make_bot(bad, 0)


# --------------------------------------------------------------------------------------
# crafted positions: a view built the way Match.view builds it (RULES §13)


def make_view(hand: str, *, caishen: str = "5z", indicator: str | None = None,
              last_draw: str | None = None, live: int = 60, players: int = 4,
              claim: tuple[str, int] | None = None, chain: list[str] | None = None,
              melds: list[dict[str, Any]] | None = None,
              rules: Rules | None = None) -> dict[str, Any]:
    rules = rules or Rules(players=players, caishen_mode="white" if caishen == "5z" else "flip")
    table = [{"seat": i, "points": 0, "dealer": i == 0, "concealed_count": 13,
              "melds": [], "discards": [], "chain": [], "auto": False}
             for i in range(players)]
    table[0]["chain"] = chain or []
    table[0]["melds"] = melds or []
    return {"seat": 0, "hand_no": 1, "hands_total": 8, "dealer": 0, "level": 1,
            "dice": [3, 4], "caishen": caishen, "indicator": indicator, "live": live,
            "dead": 20, "turn": 0, "phase": "claim" if claim else "turn", "lock": None,
            "claim": {"tile": claim[0], "from": claim[1]} if claim else None,
            "players": table, "hand": [tile_name(t) for t in sorted(parse_tiles(hand))],
            "last_draw": last_draw, "legal_actions": [], "to_move": [0], "over": False,
            "rules": rules.to_dict()}


def discards(hand: str) -> list[Action]:
    return [Discard(0, t) for t in sorted(set(parse_tiles(hand)))]


def test_discards_the_isolated_honour_from_a_one_shanten_hand() -> None:
    hand = "1234m456p79s2377s1z"  # flip mode, 财神 9m: no wild in hand
    view = make_view(hand, caishen="9m", indicator="9m", last_draw="4m")
    for bot in (EfficiencyBot(), StrongBot()):
        assert bot.choose(view, discards(hand)) == Discard(0, tile("1z"))


def test_keeps_a_ready_hand_ready() -> None:
    hand = "123m456p789s2377s9p"  # drew 9p: throw it back, 23s waits on 1s/4s
    view = make_view(hand, caishen="9m", indicator="9m", last_draw="9p")
    for bot in (EfficiencyBot(), StrongBot()):
        pick = bot.choose(view, discards(hand))
        assert pick == Discard(0, tile("9p"))


def test_never_discards_a_caishen_that_is_not_caipiao_safe() -> None:
    hand = "P13m456p789s23s117z"  # RULES §5.1: P (白) is the 财神 in white mode
    view = make_view(hand, last_draw="7z")
    for bot in (EfficiencyBot(), StrongBot()):
        ranked = bot.explain(view, discards(hand))
        assert ranked[0].action != Discard(0, tile("P"))
        assert bot.choose(view, discards(hand)) != Discard(0, tile("P"))


def test_caipiao_discards_a_caishen_when_the_rest_stays_baotou_ready() -> None:
    # RULES §9.1: 4 sets + two 财神 after drawing P; discarding one P keeps the hand
    # 爆头-ready, so the next draw wins as 财飘 (M=4) instead of 爆头 now (M=2)
    hand = "123m456m789p111sPP"
    legal = [Win(0), *discards(hand)]
    view = make_view(hand, last_draw="P")
    for bot in (EfficiencyBot(), StrongBot()):
        assert bot.choose(view, legal) == Discard(0, tile("P"))
    late = make_view(hand, last_draw="P", live=2)  # no next draw: take the 爆头 now
    assert EfficiencyBot().choose(late, legal) == Win(0)


def test_strong_declines_a_plain_win_for_a_baotou_ready_hand() -> None:
    # drawn 1s completes 111s: win now is 平胡 (P pairs with 1z), M=1; throwing 1z leaves
    # P + four sets, 爆头-ready: any next draw wins with M=2 (RULES §7.3)
    hand = "123m456m789p111s1zP"
    legal = [Win(0), *discards(hand)]
    view = make_view(hand, last_draw="1s")
    assert EfficiencyBot().choose(view, legal) == Win(0)
    assert StrongBot().choose(view, legal) == Discard(0, tile("1z"))


def test_strong_konged_before_a_sure_baotou_replacement() -> None:
    # a concealed kong of 1s keeps 123m456m789p + P: the replacement wins as 杠暴, M=4
    hand = "123m456m789p1111sP"
    legal = [Win(0), Kong(0, tile("1s"), "concealed"), *discards(hand)]
    view = make_view(hand, last_draw="1s")
    assert StrongBot().choose(view, legal) == Kong(0, tile("1s"), "concealed")


def test_strong_values_a_draw_that_improves_the_wait_rules_7(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # ready on a lone 1z (单钓, 3 copies unseen); a drawn 5p does not win, but keeping it
    # and throwing 1z leaves 2345p, which waits on 2p and 5p (改良: same shanten, more waits)
    hand = "123m456m789m234p1z"
    info = read_seat(make_view(hand, caishen="9s", indicator="9s"))
    state = hand_state(info)
    p5, z1 = an.natural(tile("5p"), info.caishen), an.natural(tile("1z"), info.caishen)
    reshaped = an.remove(an.add(state, p5), z1)
    assert an.shanten(state) == an.shanten(reshaped) == 0 and p5 not in an.useful(state)
    deep = _Search(info, 10_000)
    assert deep.after_draw(state, p5, 4) == deep.leaf(reshaped, 4) > deep.leaf(state, 4)
    monkeypatch.setattr(strong, "IMPROVE", False)
    flat = _Search(info, 10_000)
    assert flat.after_draw(state, p5, 4) == flat.leaf(state, 4)  # thrown back
    # the option to reshape never lowers a draw's value below throwing it back
    for k in range(34):
        if k not in an.useful(state):
            assert deep.after_draw(state, k, 4) >= flat.after_draw(state, k, 4)


def test_strong_search_declines_a_plain_win_for_baotou_too_rules_9_1(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a look-ahead draw of 1s wins plainly (1z pairs with the 财神 P, M=1); throwing 1z
    # instead leaves four sets + P, 爆头-ready (M=2 on any later draw): the search values
    # that draw as the root would play it
    hand = "123m456m789p11s1zP"
    info = read_seat(make_view(hand))
    state = hand_state(info)
    s1 = an.natural(tile("1s"), info.caishen)
    ready = an.remove(an.add(state, s1), an.natural(tile("1z"), info.caishen))
    assert an.baotou_ready(ready) and an.win_multiplier(state, s1) == 1
    search = _Search(info, 10_000)
    value = search.after_draw(state, s1, 4)
    assert value == search.leaf(ready, 4) - (1 - search.r) * strong.LOSS
    assert value > 1  # worth more than the plain win
    assert search.after_draw(state, s1, 0) == 1  # no draw left: take the win
    monkeypatch.setattr(strong, "BAOTOU_IN_SEARCH", False)
    assert _Search(info, 10_000).after_draw(state, s1, 4) == 1


def test_strong_leaf_counts_the_claims_a_go_around_offers_rules_6_3(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # one step from ready: 77s and 99p can be ponged from anyone, 23s chowed from the
    # player before us (RULES §6.3); the lone 1z gets nothing from a claim
    hand = "123m456p99p2377s1z"
    info = read_seat(make_view(hand, caishen="9m", indicator="9m"))
    state = hand_state(info)
    assert an.shanten(state) == 1
    useful = an.useful(state)
    rows = dict(strong._claimable(state))
    nat = {name: an.natural(tile(name), info.caishen) for name in ("7s", "9p", "1s", "4s")}
    assert rows == {nat["7s"]: True, nat["9p"]: True, nat["1s"]: False, nat["4s"]: False}
    assert set(rows) <= set(useful) and an.natural(tile("1z"), info.caishen) not in rows
    with_claims = _Search(info, 10_000).leaf(state, 6)
    monkeypatch.setattr(strong, "CLAIM_SHARE", 0.0)
    own_draws_only = _Search(info, 10_000).leaf(state, 6)
    assert with_claims > own_draws_only > 0
    # a ready hand waits for its own draw (no discard wins here): claims add nothing
    ready = hand_state(read_seat(make_view("123m456p789s2377s", caishen="9m",
                                           indicator="9m")))
    assert an.shanten(ready) == 0
    monkeypatch.setattr(strong, "CLAIM_SHARE", 0.5)
    high = _Search(info, 10_000).leaf(ready, 6)
    monkeypatch.setattr(strong, "CLAIM_SHARE", 0.0)
    assert _Search(info, 10_000).leaf(ready, 6) == high


def test_strong_reshapes_only_with_a_draw_that_touches_the_hand() -> None:
    state = hand_state(read_seat(make_view("123m456m789m234p1z", caishen="9s",
                                           indicator="9s")))
    touches = {name: strong._connected(state, an.natural(tile(name), tile("9s")))
               for name in ("5p", "6p", "1p", "8p", "1z", "7z", "1s")}
    assert touches == {"5p": True, "6p": True, "1p": True, "8p": False, "1z": True,
                       "7z": False, "1s": False}


def _exchanges_to_baotou(state: an.State, limit: int) -> int:
    """Fewest draw-and-discard exchanges (at most ``limit``) that leave ``state``
    爆头-ready, by brute force over every draw and discard; ``limit + 1`` if none do."""
    frontier = {state}
    for n in range(limit + 1):
        if any(an.baotou_ready(x) for x in frontier):
            return n
        frontier = {an.remove(full, y) for x in frontier for k in range(34) if x[0][k] < 4
                    for full in (an.add(x, k),) for y in range(34) if full[0][y] and y != k}
    return limit + 1


def test_baotou_distance_counts_exchanges_to_a_baotou_ready_hand_rules_7_3() -> None:
    cases = {"123m456m789p123sP": 0, "123m456m789p12s5sP": 1, "123m456m789p113sP": 1,
             "123m456m78p19s5s9pP": 2, "1122m3344p5567sP": 1, "123m456m789p12sPP": 0,
             "123m456m789p123s4s": -1}  # no 财神: no 爆头 route
    for hand, want in cases.items():
        state = hand_state(read_seat(make_view(hand)))
        assert strong.baotou_distance(state) == want, hand
        if want >= 0:
            assert _exchanges_to_baotou(state, 1) == min(want, 2), hand
    # against brute force: hands near 爆头-ready with 1–3 财神, 0–2 melds, seven pairs
    rng = random.Random(7)
    checked = 0
    for base in ("123m456m789p123s", "234m567p345s789s", "112233m4455p66s"):
        for _ in range(8):
            tiles = parse_tiles(base)
            for _ in range(rng.randint(1, 2)):
                tiles[rng.randrange(len(tiles))] = rng.randrange(34)
            wilds = rng.randint(1, 3)
            melds = rng.randint(0, 2)
            counts = [0] * 34
            for t in tiles[3 * melds:-(wilds - 1) or None]:
                counts[t] += 1
            if max(counts) > 4 or counts[tile("5z")]:
                continue
            state = (tuple(counts), wilds, melds)
            assert sum(counts) + wilds + 3 * melds == 13
            want = _exchanges_to_baotou(state, 1)
            assert min(strong.baotou_distance(state), 2) == want, state
            checked += 1
    assert checked >= 15


def test_strong_leaf_values_the_baotou_route_rules_9_1(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # one 财神 (P) and a plain wait on 3s/6s, one exchange (5s for 3s) from 爆头-ready
    info = read_seat(make_view("123m456m789p45s1zP"))
    state = hand_state(info)
    assert an.shanten(state) == 0 and strong.baotou_distance(state) == 1
    with_route = _Search(info, 10_000).leaf(state, 8)
    monkeypatch.setattr(strong, "BAOTOU_LEAF", False)
    plain = _Search(info, 10_000).leaf(state, 8)
    assert with_route > plain > 0
    # the route: each of the 8 draws completes the sets with the no-财神 winning chance
    # c = 0.095 (draws 1..7), after which the next draw wins for sure with M=2; r per draw
    r, c = _Search(info, 10_000).r, strong.TYPICAL_USEFUL[0][0]
    assert with_route == pytest.approx(sum((r * (1 - c)) ** (t - 1) * r * c * 2 * r
                                           for t in range(1, 8)))
    # no 财神, no 爆头 route: the leaf is the ready hand's own
    info = read_seat(make_view("123m456m789p45s1z1z", caishen="9m", indicator="9m"))
    state = hand_state(info)
    assert strong.baotou_distance(state) == -1
    without = _Search(info, 10_000).leaf(state, 8)
    monkeypatch.setattr(strong, "BAOTOU_LEAF", True)
    assert _Search(info, 10_000).leaf(state, 8) == without > 0


def test_strong_search_wins_on_any_draw_once_baotou_ready_rules_7_3(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 4 sets + P: any draw wins as 爆头, also a 9s that no held tile is near
    info = read_seat(make_view("123m456m789p123sP"))
    state = hand_state(info)
    far = an.natural(tile("9s"), info.caishen)
    assert an.baotou_ready(state) and far not in an.useful(state)
    search = _Search(info, 10_000)
    assert search.after_draw(state, far, 4) == 2.0
    # every draw wins: M=2, or 财飘 (M=4 on the next draw) when the draw is a second 财神
    r, wild = search.r, search.p[an.WILD]
    piao = r * 4 - (1 - r) * strong.LOSS
    assert search.leaf(state, 2) == pytest.approx(r * ((1 - wild) * 2.0 + wild * piao))
    assert search.leaf(state, 1) == pytest.approx(r * 2.0)  # no draw left to win the 财飘
    monkeypatch.setattr(strong, "PIAO_IN_SEARCH", False)
    assert _Search(info, 10_000).leaf(state, 2) == pytest.approx(r * 2.0)
    monkeypatch.setattr(strong, "BAOTOU_LEAF", False)  # the bot before: near draws only
    flat = _Search(info, 10_000)
    assert flat.after_draw(state, far, 4) == flat.leaf(state, 4) < 2.0


def test_strong_search_plays_caipiao_as_the_root_does_rules_9_1(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # two 财神 (P P), 3 sets and 45s: 爆头-ready (one P fills the run); a 3s or 6s frees
    # both 财神, so the hand throws one for 财飘 and wins the next draw at M=4
    info = read_seat(make_view("123m456m789p45sPP"))
    state = hand_state(info)
    assert state[1] == 2 and an.baotou_ready(state)
    search = _Search(info, 10_000)
    r = search.r
    six, far = an.natural(tile("6s"), info.caishen), an.natural(tile("9s"), info.caishen)
    assert search.after_draw(state, six, 4) == pytest.approx(r * 4 - (1 - r) * strong.LOSS)
    assert search.after_draw(state, far, 4) == 2.0  # 爆头 now: the 财神 still fills the run
    assert search.after_draw(state, six, 0) == 2.0  # no draw left to win it
    # after a kong (the replacement draw doubles, 杠暴 M=4), 财飘 doubles that again
    assert search.after_draw(state, six, 4, 2) == pytest.approx(r * 8 - (1 - r) * strong.LOSS)
    monkeypatch.setattr(strong, "PIAO_IN_SEARCH", False)
    assert _Search(info, 10_000).after_draw(state, six, 4) == 2.0


def test_claim_chance_of_a_discard_rules_6_3() -> None:
    # flip mode, 财神 9m: 121 tiles unseen, 60 of them in the live wall
    info = read_seat(make_view("1234m456p79s2377s1z", caishen="9m", indicator="9m", live=60))
    total = info.unseen_total
    q = 13 / total  # one unseen copy in one opponent's hand
    # 7z: 4 unseen; a pong needs two in one of the three hands; honours are never chowed
    u = info.unseen[tile("7z")]
    pair = 1 - (1 - q) ** u - u * q * (1 - q) ** (u - 1)
    assert strong.claim_chance(info, tile("7z")) == pytest.approx(1 - (1 - pair) ** 3)
    # 1z: 3 unseen, a pong is less likely; a 财神 is never claimed (RULES §5.4)
    assert 0 < strong.claim_chance(info, tile("1z")) < strong.claim_chance(info, tile("7z"))
    assert strong.claim_chance(info, info.caishen) == 0.0
    # a middle tile may also be chowed by the next seat: likelier than an honour
    assert strong.claim_chance(info, tile("5p")) > strong.claim_chance(info, tile("7z"))
    # opponents with declared sets hold fewer concealed tiles: less likely
    shown = dataclasses.replace(info, shown=(0, 3, 3, 3))
    assert strong.claim_chance(shown, tile("5p")) < strong.claim_chance(info, tile("5p"))
    # a 1 can only be chowed with 23: less likely than a 2 (13 or 34 too)
    assert strong.claim_chance(info, tile("1p")) < strong.claim_chance(info, tile("2p"))
    # flip mode, 财神 5m: a white dragon plays as 5m, so it can chow a 4m (RULES §5.2)
    info = read_seat(make_view("1234m456p79s2377s1z", caishen="5m", indicator="5m"))
    none = dataclasses.replace(info, unseen=tuple(0 if k == WHITE else u
                                                  for k, u in enumerate(info.unseen)))
    assert strong.claim_chance(none, tile("4m")) < strong.claim_chance(info, tile("4m"))


def test_drop_bamboo_leaves_no_bamboo_unseen_rules_3() -> None:
    rules = Rules(players=2, drop_bamboo=True)
    info = read_seat(make_view("1234m456p1z2z3z4z6z7z", players=2, rules=rules))
    assert all(info.unseen[k] == 0 for k in range(18, 27))  # no bamboo in the wall
    assert info.unseen_total == 4 * 25 - 13  # 25 kinds, 100 tiles in play, 13 held


def test_strong_charges_a_discard_its_claim_cost_rules_6_3(
        monkeypatch: pytest.MonkeyPatch) -> None:
    hand = "1234m456p79s2377s1z"  # shanten 1: the search values the discards
    view = make_view(hand, caishen="9m", indicator="9m", last_draw="4m")
    info = read_seat(view)
    monkeypatch.setattr(strong, "FEED_CLAIM", 0.0)
    plain = {c.action: c.value for c in StrongBot().explain(view, discards(hand))}
    monkeypatch.setattr(strong, "FEED_CLAIM", 0.05)
    charged = {c.action: c.value for c in StrongBot().explain(view, discards(hand))}
    common = [a for a in plain if a in charged and isinstance(a, Discard)]
    assert len(common) >= 2
    for a in common:
        assert isinstance(a, Discard)
        assert charged[a] == pytest.approx(plain[a] - 0.05 * strong.claim_cost(info, a.tile))
    # seat 0 deals in make_view: every seat's win costs alike, so the cost is the sum of
    # the seats' chances
    assert strong.loss_weights(info) == [0.0, 1.0, 1.0, 1.0]


def test_loss_weights_follow_the_dealer_factor_rules_10_1() -> None:
    info = read_seat(make_view("1234m456p79s2377s1z", caishen="9m", indicator="9m"))
    assert strong.loss_weights(info) == [0.0, 1.0, 1.0, 1.0]  # we deal: each pays D
    # seat 2 deals at level 3 (D = 8): its win costs us 8 M, another seat's 1 M, and our
    # win brings 8 + 1 + 1 = 10 M: 3 × 8 / 10 and 3 × 1 / 10
    far = dataclasses.replace(info, dealer=2, level=3)
    assert strong.loss_weights(far) == pytest.approx([0.0, 0.3, 2.4, 0.3])
    # D = 2 at level 1: 3 × 2 / 4 and 3 × 1 / 4
    lvl1 = dataclasses.replace(info, dealer=1, level=1)
    assert strong.loss_weights(lvl1) == pytest.approx([0.0, 1.5, 0.75, 0.75])
    # 3 players, seat 1 deals at level 3: we bring 8 + 1 = 9; 2 × 8 / 9 and 2 × 1 / 9
    three = read_seat(make_view("1234m456p79s2377s1z", caishen="9m", indicator="9m",
                                players=3))
    three = dataclasses.replace(three, dealer=1, level=3)
    assert strong.loss_weights(three) == pytest.approx([0.0, 16 / 9, 2 / 9])
    # 2 players: the one opponent's win always costs what ours brings
    two = read_seat(make_view("1234m456p79s2377s1z", caishen="9m", indicator="9m",
                              players=2))
    for dealer, level in ((0, 3), (1, 2)):
        assert strong.loss_weights(dataclasses.replace(two, dealer=dealer, level=level)) \
            == [0.0, 1.0]


def test_claim_cost_weighs_each_seat_by_its_win_rules_6_3_10_1(
        monkeypatch: pytest.MonkeyPatch) -> None:
    info = read_seat(make_view("1234m456p79s2377s1z", caishen="9m", indicator="9m", live=60))
    total = info.unseen_total
    q = 13 / total  # one unseen copy in one opponent's hand
    u = info.unseen[tile("7z")]
    pair = 1 - (1 - q) ** u - u * q * (1 - q) ** (u - 1)
    # an honour: only pongs, alike for every opponent
    assert strong.claim_chances(info, tile("7z")) == pytest.approx([0.0, pair, pair, pair])
    # a middle tile: only the next seat (1) may also chow it
    five = strong.claim_chances(info, tile("5p"))
    assert five[0] == 0.0 and five[1] > five[2] > 0 and five[2] == pytest.approx(five[3])
    # we deal: every weight is 1 and the cost is the chance that anyone claims
    for t in (tile("5p"), tile("7z")):
        assert strong.claim_cost(info, t) == pytest.approx(strong.claim_chance(info, t))
    # seat 2 deals at level 3: an honour's cost is the claim chance times the mean
    # weight (2.4 + 0.3 + 0.3) / 3 = 1: unchanged; a middle tile leans to seat 1 (0.3)
    far = dataclasses.replace(info, dealer=2, level=3)
    any5 = strong.claim_chance(info, tile("5p"))
    assert strong.claim_cost(far, tile("7z")) == pytest.approx(strong.claim_chance(info,
                                                                                   tile("7z")))
    mean5 = (0.3 * five[1] + 2.4 * five[2] + 0.3 * five[3]) / sum(five)
    assert strong.claim_cost(far, tile("5p")) == pytest.approx(any5 * mean5)
    assert strong.claim_cost(far, tile("5p")) < any5
    # the next seat deals at level 3: feeding it a chow costs more than the even cost
    nxt = dataclasses.replace(info, dealer=1, level=3)
    assert strong.claim_cost(nxt, tile("5p")) > any5
    monkeypatch.setattr(strong, "DEALER_WEIGHT", False)
    assert strong.claim_cost(far, tile("5p")) == pytest.approx(any5)


def test_claim_chances_wrap_to_seat_0_and_respect_the_tan_limit_rules_6_5() -> None:
    # seat 3's next seat is seat 0: only it may chow
    view = make_view("1234m456p79s2377s1z", caishen="9m", indicator="9m")
    view["seat"] = 3
    info = read_seat(view)
    five = strong.claim_chances(info, tile("5p"))
    assert five[3] == 0.0 and five[0] > five[1] > 0 and five[1] == pytest.approx(five[2])
    # without the contract rule a seat may take at most 2 摊 from us (RULES §6.5): seat 0
    # has taken 2 from seat 3, so it may neither chow nor (pongs counting as 摊) pong
    limited = dataclasses.replace(info, rules=Rules(three_tan_contract=False,
                                                    caishen_mode="flip"),
                                  tan={(0, 3): 2})
    assert strong.claim_chances(limited, tile("5p"))[0] == 0.0
    assert strong.claim_chances(limited, tile("5p"))[1] == pytest.approx(five[1])
    # pongs not counting as 摊: it may still pong, not chow
    pongs = dataclasses.replace(limited, rules=Rules(three_tan_contract=False,
                                                     pong_counts_as_tan=False,
                                                     caishen_mode="flip"))
    assert strong.claim_chances(pongs, tile("5p"))[0] == pytest.approx(five[1])
    # with the contract rule (and the dealer at level 1) there is no limit
    assert strong.claim_chances(dataclasses.replace(info, tan={(0, 3): 2}),
                                tile("5p")) == pytest.approx(five)


def test_claims_only_when_they_help() -> None:
    hand = "11m456p789s2355s7z"  # pong 5s, throw 7z: ready on 1s/4s (shanten 1 → 0)
    useful = make_view(hand, claim=("5s", 3), caishen="9m", indicator="9m")
    legal: list[Action] = [Pong(0), Pass(0)]
    assert EfficiencyBot().choose(useful, legal) == Pong(0)
    hand2 = "123m456p789s2355s"  # already ready on 1s/4s with a pair of 5s
    ready = make_view(hand2, claim=("5s", 3), caishen="9m", indicator="9m")
    assert EfficiencyBot().choose(ready, legal) == Pass(0)
    # chowing the winning 1s only trades two waits for a single one (self-draw only)
    win_tile = make_view(hand2, claim=("1s", 3), caishen="9m", indicator="9m")
    assert EfficiencyBot().choose(win_tile, [Chow(0, (tile("2s"), tile("3s"))),
                                             Pass(0)]) == Pass(0)
    chow = make_view("123m456p789s245s7z", claim=("3s", 3), caishen="9m", indicator="9m")
    legal2: list[Action] = [Chow(0, (tile("2s"), tile("4s"))),
                            Chow(0, (tile("4s"), tile("5s"))), Pass(0)]
    assert isinstance(EfficiencyBot().choose(chow, legal2), Chow)  # shanten 1 → 0


def test_seat_knowledge_counts_what_the_seat_sees() -> None:
    view = make_view("123m456p789s2377s9p", caishen="9m", indicator="9m", last_draw="9p")
    view["players"][1]["discards"] = [{"tile": "1s", "claimed_by": None},
                                      {"tile": "4s", "claimed_by": 2}]
    view["players"][2]["melds"] = [{"type": "chow", "tiles": ["4s", "5s", "6s"], "from": 1,
                                    "claimed": "4s"}]
    info = read_seat(view)
    assert info.unseen[tile("1s")] == 3
    assert info.unseen[tile("4s")] == 3  # the claimed 4s is counted once, in the meld
    assert info.unseen[tile("9m")] == 3  # the indicator (RULES §4.5)
    assert info.unseen[tile("7s")] == 1  # three in hand
    assert info.tan == {(2, 1): 1}


def test_analysis_baotou_and_multiplier() -> None:
    counts = [0] * 34
    for t in parse_tiles("123m456m789p111s"):
        counts[t] += 1
    state = an.state_of(counts, 1, 0)
    assert an.baotou_ready(state)
    assert an.win_multiplier(state, tile("3z")) == 2  # 爆头
    pairs = [0] * 34
    for t in parse_tiles("11m22m33p44s55s11z"):
        pairs[t] += 1
    assert an.win_multiplier(an.state_of(pairs, 1, 0), tile("2z")) == 4  # 七客
    pairs[tile("2z")] += 1
    assert an.win_multiplier(an.state_of(pairs, 0, 0), tile("2z")) == 4  # 清七对


def test_strong_is_deterministic_for_a_seed() -> None:
    def play(seed: int) -> list[Action]:
        m = Match(Rules(), 5)
        bots = [StrongBot(seed, budget_ms=30) for _ in range(4)]
        taken = []
        while not m.over and m.hand_no == 1:
            seat = m.to_move()[0]
            a = bots[seat].choose(m.view(seat), m.legal_actions(seat))
            taken.append(a)
            m.apply(a)
        return taken

    first = play(7)
    assert first == play(7)
    assert len(first) > 20


def test_efficiency_beats_random_and_decides_fast() -> None:
    times = []
    points = [0, 0, 0, 0]
    m = Match(Rules(), 3)
    bots = [EfficiencyBot(), RandomBot(1), RandomBot(2), RandomBot(3)]
    while not m.over:
        seat = m.to_move()[0]
        legal = m.legal_actions(seat)
        view = m.view(seat)
        start = time.perf_counter()
        a = bots[seat].choose(view, legal)
        if seat == 0:
            times.append(time.perf_counter() - start)
        m.apply(a)
    points = m.points()
    assert points[0] > max(points[1:])
    assert statistics.median(times) < 0.010  # about 1 ms on the reference machine


@pytest.mark.parametrize("name", ["efficiency", "strong", "expert@2", "oracle"])
def test_one_choose_for_explaining_bots(name: str) -> None:
    """The explaining bots share one ``choose`` (bots/base.py): a lone legal action is
    played without being valued, otherwise the first of ``explain``."""
    from hzmj.bots.base import ExplainingBot
    from hzmj.bots.registry import show_match

    bot = make_bot(name, 3)
    assert isinstance(bot, ExplainingBot)
    assert "choose" not in type(bot).__dict__
    match = Match(Rules(), 11)
    show_match([bot], match)
    seat = match.to_move()[0]
    legal = match.legal_actions(seat)
    assert len(legal) > 1
    assert bot.choose(match.view(seat), legal) == bot.explain(match.view(seat), legal)[0].action

    def refuse(*args: Any, **kwargs: Any) -> list[Any]:
        raise AssertionError("a lone action is not valued")

    bot.explain = refuse  # type: ignore[method-assign]
    assert bot.choose(match.view(seat), legal[:1]) == legal[0]


def test_useful_after_every_discard_equals_useful_one_at_a_time() -> None:
    """``analysis.useful_after`` (the efficiency bot's one pass over every discard) gives,
    for each discard of a 14-tile state, what ``useful`` gives that 13-tile state alone,
    财神 draws included; states from real play, caches emptied in between."""
    import random

    rng = random.Random(7)
    checked = 0
    for seed in range(6):
        m = Match(Rules(), seed)
        bots = [make_bot("efficiency", i) for i in range(4)]
        while not m.over and len(m.actions) < 120:
            seat = m.to_move()[0]
            view = m.view(seat)
            if m.phase == "turn" and rng.random() < 0.5:
                info = read_seat(view)
                counts, wilds = info.counts_wilds
                state = an.state_of(counts, wilds, info.melds)
                discards = [k for k in range(34) if counts[k]] + ([an.WILD] if wilds else [])
                an._useful.clear()
                an._shanten.clear()
                got = an.useful_after(state, discards)
                an._useful.clear()
                an._shanten.clear()
                assert got == [an.useful(an.remove(state, d)) for d in discards], state
                checked += len(discards)
            m.apply(bots[seat].choose(view, m.legal_actions(seat)))
    assert checked > 500


def test_feeds_third_tan_only_where_a_third_tan_is_allowed_rules_6_5_10_4() -> None:
    from hzmj.bots.efficiency import feeds_third_tan
    info = read_seat(make_view("1234m456p79s2377s1z", caishen="9m", indicator="9m"))
    # seat 1 (the next seat) has taken 2 摊 from us: a 5p could give it a third (a chow)
    two = dataclasses.replace(info, tan={(1, 0): 2})
    assert feeds_third_tan(two, tile("5p"))
    assert not feeds_third_tan(two, info.caishen)  # a 财神 opens no claim (RULES §5.4)
    # seat 2 deals at level 2: seats 0 and 1 are two non-dealers, no third 摊 between them
    assert not feeds_third_tan(dataclasses.replace(two, dealer=2, level=2), tile("5p"))
    # we deal at level 3: the limit does not bind the dealer's pairs
    assert feeds_third_tan(dataclasses.replace(two, level=3), tile("5p"))
    # without the contract rule a third 摊 is never offered
    off = dataclasses.replace(two, rules=Rules(three_tan_contract=False, caishen_mode="flip"))
    assert not feeds_third_tan(off, tile("5p"))


def test_feed_third_tan_value_prices_the_contract_a_discard_may_start_rules_10_4() -> None:
    info = read_seat(make_view("1234m456p79s2377s1z", caishen="9m", indicator="9m"))
    five = strong.claim_chances(info, tile("5p"))
    assert five[1] > five[2] > 0  # seat 1 may chow or pong 5p, seat 2 only pong it
    value = strong.feed_third_tan_value
    # no seat holds two 摊 from us: no contract to start
    assert value(info, tile("5p"), 0.6) == 0.0
    # seat 1 holds two.  反承包: if we then win it pays 2T, our win counts twice (+0.6 a
    # claim).  承包: if it wins (0.35) we pay its T: we deal at level 1 (D = 2), so it
    # takes 1 + 1 from the others where our win brings 2 + 2 + 2: 0.35 × 2 / 6
    two = dataclasses.replace(info, tan={(1, 0): 2})
    loss = 0.35 * 2 / 6
    assert value(two, tile("5p"), 0.6) == pytest.approx(five[1] * (0.6 - loss))
    low = value(two, tile("5p"), 0.1)  # a weak hand: the contract costs us
    assert low == pytest.approx(five[1] * (0.1 - loss)) and low < 0
    # seat 2 holds two: only its pong is a claim (pongs are 摊 by default, RULES §6.5)
    far = dataclasses.replace(info, tan={(2, 0): 2, (1, 0): 1})
    assert value(far, tile("5p"), 0.6) == pytest.approx(five[2] * (0.6 - loss))
    # pongs not 摊: seat 2 cannot start one; seat 1 only by a chow, so not on an honour
    no_pong_tan = Rules(pong_counts_as_tan=False, caishen_mode="flip")
    assert value(dataclasses.replace(far, rules=no_pong_tan), tile("5p"), 0.6) == 0.0
    assert strong.claim_chances(two, tile("7z"))[1] > 0
    assert value(dataclasses.replace(two, rules=no_pong_tan), tile("7z"), 0.6) == 0.0
    chow = strong.claim_chances(two, tile("5p"), pongs=False)[1]
    assert 0 < chow < five[1]
    assert value(dataclasses.replace(two, rules=no_pong_tan), tile("5p"), 0.6) == \
        pytest.approx(chow * (0.6 - loss))
    # a seat that already holds three, a 财神, the contract rule off: nothing changes
    assert value(dataclasses.replace(info, tan={(1, 0): 3}), tile("5p"), 0.6) == 0.0
    assert value(two, info.caishen, 0.6) == 0.0
    off = dataclasses.replace(two, rules=Rules(three_tan_contract=False, caishen_mode="flip"))
    assert value(off, tile("5p"), 0.6) == 0.0
    # non-dealers while the dealer is at level 2: no third 摊 between them (RULES §6.5)
    assert value(dataclasses.replace(two, dealer=2, level=2), tile("5p"), 0.6) == 0.0
    # seat 1 deals at level 3 (D = 8): its T takes 8 + 8, our win brings 8 + 1 + 1
    dealer = dataclasses.replace(two, dealer=1, level=3)
    c1 = strong.claim_chances(dealer, tile("5p"))[1]
    assert value(dealer, tile("5p"), 1.0) == pytest.approx(c1 * (1.0 - 0.35 * 16 / 10))
    # seat 3 deals at level 1: seat 1's T takes 1 + 2, our win brings 1 + 1 + 2
    third = dataclasses.replace(two, dealer=3, level=1)
    c1 = strong.claim_chances(third, tile("5p"))[1]
    assert value(third, tile("5p"), 1.0) == pytest.approx(c1 * (1.0 - 0.35 * 3 / 4))


def test_strong_survival_grows_riskier_as_the_others_play_rules_8_1(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``strong.survival``: the chance that a go-around passes without another seat's
    self-drawn win (RULES §8.1), each opponent by the turns it will have played then,
    times its declared sets' factor with ``HAZARD_BY_MELDS``."""
    view = make_view("123m456m789p45s1z1z", caishen="9m", indicator="9m", live=16)
    for seat, n in ((1, 5), (2, 5), (3, 4)):  # turns played so far
        view["players"][seat]["discards"] = [{"tile": "1p", "claimed_by": None}] * n
    view["players"][3]["melds"] = [{"type": "pong", "tiles": ["2p"] * 3, "from": 1}]
    info = read_seat(view)
    assert info.turns == (0, 5, 5, 4) and info.draws_left == 4
    h = strong.OTHER_WIN_BY_TURN
    rho = strong.survival(info)
    # the go-around before the draw made with d draws left is 4 − d go-arounds ahead
    assert rho[0] == 1.0
    for d in range(1, 5):
        ahead = 4 - d
        assert rho[d] == pytest.approx((1 - h[5 + ahead]) ** 2 * (1 - h[4 + ahead]))
    assert rho[4] > rho[3] > rho[2] > rho[1]  # later go-arounds are riskier
    monkeypatch.setattr(strong, "HAZARD_BY_MELDS", True)
    m0, m1 = strong.MELD_HAZARD[0], strong.MELD_HAZARD[1]
    assert strong.survival(info)[4] == pytest.approx(
        (1 - m0 * h[5]) ** 2 * (1 - m1 * h[4]))
    # the search uses it with WALL_HAZARD, the flat r per go-around without
    monkeypatch.setattr(strong, "WALL_HAZARD", True)
    assert _Search(info, 100).rho == strong.survival(info)
    monkeypatch.setattr(strong, "WALL_HAZARD", False)
    search = _Search(info, 100)
    assert search.rho == [search.r] * 5
