"""Hand multipliers (RULES §9) and settlement (RULES §10), checked against the worked
examples of RULES §15 and the seed figures of RULES §9.3."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hzmj.rules import Rules
from hzmj.scoring import (
    ChainStats,
    HandScore,
    discard_win_allowed,
    escape_penalty,
    pair_factor,
    score_hand,
    settle,
    share,
    tan_limit,
)
from hzmj.tiles import WHITE, parse_hand, tile


def score(hand: str, win: str, chain: tuple[str, ...] = (), *, caishen: str = "5z",
          discard: bool = False, **rules: object) -> HandScore:
    return score_hand(parse_hand(hand), tile(win), tile(caishen), chain, Rules(**rules),
                      discard=discard)


# --------------------------------------------------------------------------------------
# RULES §15 hands E1–E15 (caishen_mode white unless stated: P is the 财神)

PIAO = ("piao",)
KONG = ("kong",)
MUST = {"must_baotou_with_caishen": True}

E_CASES = [
    pytest.param("111m234m567m789p1z", "1z", (), "5z", {}, 1, "平胡", id="E1-pinghu"),
    pytest.param("123456789m111pP", "1z", (), "5z", {}, 2, "爆头", id="E2-baotou"),
    pytest.param("45mP111m222p333s1z", "1z", (), "5z", {}, 1, "平胡", id="E3-caishen-in-chow"),
    pytest.param("45mP111m222p333s1z", "1z", (), "5z", MUST, 0, None,
                 id="E3-must-baotou-no-win"),
    pytest.param("123456789m11pPP", "P", (), "5z", {}, 2, "爆头", id="E4-pair-of-two-caishen"),
    pytest.param("123456789m11pPP", "P", (), "5z", MUST, 2, "爆头", id="E4-must-baotou"),
    pytest.param("11m22m33p44s55s11z2z", "P", (), "5z", {}, 2, "七对子", id="E5-qidui"),
    pytest.param("11m22m33p44s55s11z2z", "P", (), "5z", MUST, 0, None,
                 id="E5-must-baotou-no-win"),
    pytest.param("11m22m33p44s55s11zP", "2z", (), "5z", {}, 4, "七客", id="E6-qike"),
    pytest.param("11m22m33p44s55s11z2z", "2z", (), "5z", {}, 4, "清七对", id="E7-qing-qidui"),
    pytest.param("11m22m33p44s55s11z2z", "2z", (), "5z", MUST, 4, "清七对",
                 id="E7-must-baotou-no-caishen"),
    pytest.param("1111m22m33p44s55s1z", "1z", (), "5z", {}, 8, "豪华清七对",
                 id="E8-haohua-qing-qidui"),
    pytest.param("123456789m111pP", "1z", PIAO, "5z", {}, 4, "财飘", id="E9-caipiao"),
    pytest.param("123m456m789p2z[9999s]", "2z", KONG, "5z", {}, 2, "杠开", id="E10-gangkai"),
    pytest.param("123m456m789pP[9999s]", "1z", KONG, "5z", {}, 4, "杠暴", id="E11-gangbao"),
    pytest.param("123m456m789pP[9999s]", "1z", ("piao", "kong"), "5z", {}, 8, "飘杠",
                 id="E12-piao-gang"),
    pytest.param("4mP6m111p222s333s1z", "1z", (), "5m", {}, 1, "平胡",
                 id="E13-flip-white-is-plain-5m"),
    pytest.param("4mP6m111p222s333s1z", "1z", (), "5m", MUST, 1, "平胡",
                 id="E13-flip-must-baotou-still-wins"),
    pytest.param("4m5m6m111p222s333s1z", "1z", (), "5m", {}, 1, "平胡",
                 id="E14-flip-real-5m-is-caishen"),
    pytest.param("4m5m6m111p222s333s1z", "1z", (), "5m", MUST, 0, None,
                 id="E14-flip-must-baotou-no-win"),
    pytest.param("11m22m33p44s55s11z2z", "3z", (), "5z", {}, 0, None, id="E15-no-win"),
]


@pytest.mark.parametrize(("hand", "win", "chain", "caishen", "rules", "m", "zh"), E_CASES)
def test_rules_15_hand_examples(hand: str, win: str, chain: tuple[str, ...], caishen: str,
                                rules: dict[str, object], m: int, zh: str | None) -> None:
    result = score(hand, win, chain, caishen=caishen, **rules)
    assert result.multiplier == m
    assert result.win is (m > 0)
    assert (result.pattern.zh if result.pattern else None) == zh
    assert result.explanation


def test_rules_15_e6_qike_is_baotou_e5_is_not() -> None:
    assert score("11m22m33p44s55s11zP", "2z").baotou
    assert not score("11m22m33p44s55s11z2z", "P").baotou


def test_rules_7_5_must_baotou_explains_why_there_is_no_win() -> None:
    result = score("45mP111m222p333s1z", "1z", **MUST)
    assert not result.win and result.readings
    assert any("§7.5" in line for line in result.explanation)


# --------------------------------------------------------------------------------------
# RULES §9.3 seed figures, each realised by a hand and a chain

SEED_CASES = [
    pytest.param("123456789m111pP", "1z", PIAO, 4, "财飘", id="9.3-caipiao-x4"),
    pytest.param("123456789m111pP", "1z", ("piao", "piao"), 8, "双财飘",
                 id="9.3-double-caipiao-x8"),
    pytest.param("123m456m789pP[9999s]", "1z", KONG, 4, "杠暴", id="9.3-gangbao-x4"),
    pytest.param("123m456m789pP[9999s]", "1z", ("piao", "kong"), 8, "飘杠",
                 id="9.3-piao-gang-x8"),
    pytest.param("123m456mP[9999s][1111p]", "1z", ("piao", "kong", "kong"), 16, "一飘双杠",
                 id="9.3-one-piao-two-kong-x16"),
    pytest.param("P[1111m][2222m][3333m][4444m]", "1z",
                 ("piao", "piao", "kong", "kong", "kong", "kong"), 128, "双飘四杠",
                 id="9.3-two-piao-four-kong-x128"),
    pytest.param("123m456mP[9999s][1111p]", "1z", ("kong", "kong"), 8, "双杠暴",
                 id="9.3-double-gangbao-x8"),
    pytest.param("1111m22m33p44s55sP", "1z", ("piao", "piao"), 32, "豪华七对子双财飘",
                 id="9.3-haohua-qidui-double-caipiao-x32"),
    pytest.param("1111m2222m3333pP", "1z", ("piao", "piao"), 128, "三豪华七对子双财飘",
                 id="9.3-triple-haohua-qidui-double-caipiao-x128"),
    pytest.param("11m22m33p44s55s11z2z", "2z", (), 4, "清七对", id="9.3-qing-qidui-x4"),
    pytest.param("1111m2222m3333p1z", "1z", (), 32, "三豪华清七对",
                 id="9.3-triple-haohua-qing-qidui-x32"),
]


@pytest.mark.parametrize(("hand", "win", "chain", "m", "zh"), SEED_CASES)
def test_rules_9_3_seed_figures(hand: str, win: str, chain: tuple[str, ...], m: int,
                                zh: str) -> None:
    result = score(hand, win, chain)
    assert (result.multiplier, result.pattern and result.pattern.zh) == (m, zh)


def test_rules_9_1_english_names_keep_the_luxury_count() -> None:
    assert score("1111m2222m3333p1z", "1z").pattern.en == "triple luxury pure seven pairs"
    assert score("1111m22m33p44s55sP", "1z").pattern.en == "luxury qike (seven pairs baotou)"


@pytest.mark.parametrize(("hand", "chain", "m", "zh"), [
    pytest.param("123m456m789p2z[9999s]", KONG, 2, "杠开", id="one-kong"),
    pytest.param("123m456m2z[9999s][1111p]", ("kong", "kong"), 4, "双杠开", id="two-kongs"),
    pytest.param("123m2z[9999s][1111p][7777p]", ("kong",) * 3, 8, "三杠开", id="three-kongs"),
    pytest.param("123m456m789p2z[9999s]", ("piao", "kong"), 2, "杠开", id="kong-after-piao"),
    pytest.param("123m456m2z[9999s][1111p]", ("kong", "piao", "kong"), 2, "杠开",
                 id="t-counts-only-after-last-piao"),
    pytest.param("123m456m789p2z[9999s]", ("kong", "piao"), 1, "平胡", id="piao-last-no-gangkai"),
])
def test_rules_9_1_gangkai_variants(hand: str, chain: tuple[str, ...], m: int, zh: str) -> None:
    result = score(hand, "2z", chain)
    assert (result.multiplier, result.pattern and result.pattern.zh) == (m, zh)
    assert not result.baotou


def test_rules_8_2_chain_stats() -> None:
    assert ChainStats.of(["kong", "piao", "kong", "kong"]) == ChainStats(3, 1, 2, "kong")
    assert ChainStats.of([]) == ChainStats()
    with pytest.raises(ValueError, match="chain item"):
        ChainStats.of(["chow"])


@pytest.mark.parametrize(("hand", "win", "m"), [
    pytest.param("123456789m111pP", "1z", 2, id="baotou-not-caipiao"),
    pytest.param("123m456m789pP[9999s]", "1z", 2, id="baotou-not-gangbao"),
    pytest.param("123m456m789p2z[9999s]", "2z", 1, id="plain-not-gangkai"),
    pytest.param("11m22m33p44s55s11zP", "2z", 4, id="qike-not-caipiao"),
])
def test_rules_8_4_discard_win_ignores_the_chain(hand: str, win: str, m: int) -> None:
    result = score(hand, win, ("piao", "kong"), discard=True)
    assert result.multiplier == m
    assert any("§8.4" in line for line in result.explanation)


def test_rules_8_4_no_discard_win_on_a_caishen() -> None:
    # RULES §5.4, §8.4: the same hand wins by self-draw on the 财神 (爆头, E4's kind)
    assert score("123456789m111pP", "P").multiplier == 2
    result = score("123456789m111pP", "P", discard=True, discard_win=True)
    assert (result.win, result.multiplier) == (False, 0)
    assert "§8.4" in result.explanation[0]
    flip = score("123456789m111p5m", "5m", caishen="5m", discard=True, discard_win=True)
    assert not flip.win


def test_rules_8_4_discard_win_still_validates_the_chain() -> None:
    with pytest.raises(ValueError, match="chain item"):
        score("123456789m111pP", "1z", ("pong",), discard=True)


def test_rules_7_hand_size_is_checked() -> None:
    with pytest.raises(ValueError, match="13"):
        score("123456789m111p", "1z")


# --------------------------------------------------------------------------------------
# RULES §15 settlements P1–P6 (seat 0 dealer, base 1, no cap)

P_CASES = [
    pytest.param(0, 1, 1, {}, None, {}, [6, -2, -2, -2], id="P1-dealer-self-draw"),
    pytest.param(1, 1, 1, {}, None, {}, [-2, 4, -1, -1], id="P2-non-dealer-self-draw"),
    pytest.param(1, 2, 2, {}, None, {}, [-8, 12, -2, -2], id="P3-level-2"),
    pytest.param(1, 1, 1, {(1, 0): 3}, None, {}, [-4, 4, 0, 0], id="P4-chengbao"),
    pytest.param(0, 1, 1, {(1, 0): 3}, None, {}, [12, -12, 0, 0], id="P5-fan-chengbao"),
    pytest.param(0, 1, 3, {}, 1, {"discard_win": True}, [24, -24, 0, 0], id="P6-discard-win"),
]


@pytest.mark.parametrize(("winner", "m", "level", "tan", "discarder", "rules", "vector"),
                         P_CASES)
def test_rules_15_settlement_vectors(winner: int, m: int, level: int,
                                     tan: dict[tuple[int, int], int], discarder: int | None,
                                     rules: dict[str, object], vector: list[int]) -> None:
    result = settle(Rules(**rules), winner=winner, multiplier=m, dealer=0, level=level,
                    tan=tan, discarder=discarder)
    assert list(result.deltas) == vector


def test_rules_10_2_cap_applies_to_each_share_then_base_score() -> None:
    rules = Rules(cap=64, base_score=2)
    result = settle(rules, winner=1, multiplier=64, dealer=0, level=3)
    assert list(result.deltas) == [-128, 384, -128, -128]  # dealer 8×64 capped to 64
    result = settle(Rules(cap=64, base_score=3), winner=1, multiplier=16, dealer=0, level=3)
    assert list(result.deltas) == [-192, 288, -48, -48]
    amount, text = share(rules, 64, winner=1, payer=0, dealer=0, level=3)
    assert amount == 128 and "capped at 64" in text


def test_rules_10_2_sums_of_capped_shares_are_not_capped_again() -> None:
    result = settle(Rules(cap=64), winner=1, multiplier=64, dealer=0, level=1,
                    tan={(2, 1): 3})
    # T = 64 (dealer 2×64 capped) + 64 + 64 = 192; 反承包 pays 2T = 384 > cap
    assert list(result.deltas) == [0, 384, -384, 0]


def test_rules_10_4_houbanchang_chengbao() -> None:
    result = settle(Rules(), winner=1, multiplier=4, dealer=0, level=1, piao_feeders=[2])
    assert list(result.deltas) == [0, 16, -16, 0]  # T = 8 + 4 + 4
    assert [p.reason for p in result.payments] == ["houbanchang_chengbao"]


def test_rules_10_4_tiaobiandan_amounts_add_up() -> None:
    # seat 1 wins (T = 2 + 1 + 1 = 4): took 3 摊 from seat 0 (T) and seat 0 fed it after a
    # 财神 discard (T); seat 2 took 3 摊 from seat 1 (2T)
    result = settle(Rules(), winner=1, multiplier=1, dealer=0, level=1,
                    tan={(1, 0): 3, (2, 1): 4}, piao_feeders=[0])
    assert list(result.deltas) == [-8, 16, -8, 0]
    assert sorted(p.reason for p in result.payments) == [
        "chengbao", "fan_chengbao", "houbanchang_chengbao"]
    assert any("挑扁担" in n for n in result.notes)


def test_rules_10_4_two_tan_is_no_contract() -> None:
    result = settle(Rules(), winner=1, multiplier=1, dealer=0, level=1, tan={(1, 0): 2})
    assert list(result.deltas) == [-2, 4, -1, -1]


def test_rules_10_4_contracts_off_without_three_tan_contract() -> None:
    rules = Rules(three_tan_contract=False)
    result = settle(rules, winner=1, multiplier=1, dealer=0, level=1,
                    tan={(1, 0): 2, (2, 1): 2}, piao_feeders=[3])
    assert list(result.deltas) == [-2, 4, -1, -1]
    assert {p.reason for p in result.payments} == {"share"}


@pytest.mark.parametrize(("rules", "level", "tan"), [
    (Rules(three_tan_contract=False), 1, {(1, 0): 3}),  # a third 摊 is never offered
    (Rules(), 2, {(1, 2): 3}),  # two non-dealers while the dealer is at level 2
    (Rules(), 3, {(2, 3): 4}),
], ids=["contract-off", "non-dealers-level-2", "non-dealers-level-3"])
def test_rules_6_5_settle_rejects_impossible_tan_counts(rules: Rules, level: int,
                                                        tan: dict[tuple[int, int], int]) -> None:
    with pytest.raises(ValueError, match="RULES §6.5"):
        settle(rules, winner=1, multiplier=1, dealer=0, level=level, tan=tan)


def test_rules_6_5_dealer_pairs_have_no_tan_limit_at_level_2() -> None:
    result = settle(Rules(), winner=1, multiplier=1, dealer=0, level=2, tan={(1, 0): 3})
    assert list(result.deltas) == [-6, 6, 0, 0]  # 承包: the dealer pays T = 4 + 1 + 1


def test_rules_8_4_settle_rejects_a_discard_win_the_rules_forbid() -> None:
    with pytest.raises(ValueError, match="RULES §8.4"):
        settle(Rules(), winner=0, multiplier=1, dealer=0, level=3, discarder=1)
    with pytest.raises(ValueError, match="RULES §8.4"):  # two non-dealers
        settle(Rules(discard_win=True), winner=1, multiplier=1, dealer=0, level=3,
               discarder=2)


def test_rules_10_5_discard_win_plus_contract_example() -> None:
    # W = seat 0, a level-3 dealer who took 3 摊 from A = seat 1; C = seat 2 discards.
    # Each share is 8 × 1, so T = 24: C pays T and A pays T.
    rules = Rules(discard_win=True)
    result = settle(rules, winner=0, multiplier=1, dealer=0, level=3, discarder=2,
                    tan={(0, 1): 3})
    assert list(result.deltas) == [48, -24, -24, 0]
    # W took 3 摊 from the discarder itself: it pays 2T
    result = settle(rules, winner=0, multiplier=1, dealer=0, level=3, discarder=2,
                    tan={(0, 2): 3})
    assert list(result.deltas) == [48, 0, -48, 0]


def test_rules_10_5_discard_win_without_contracts_is_t_only() -> None:
    rules = Rules(discard_win=True, three_tan_contract=False)
    result = settle(rules, winner=0, multiplier=1, dealer=0, level=3, discarder=2,
                    tan={(0, 1): 2})
    assert list(result.deltas) == [24, 0, -24, 0]


def test_rules_8_5_escape_penalty_is_priced_as_caipiao() -> None:
    # seat 2 escapes at dealer level 3; for each other seat X: share with X as winner, M = 4
    result = escape_penalty(Rules(), escaper=2, dealer=0, level=3)
    assert list(result.deltas) == [32, 4, -40, 4]
    assert {p.reason for p in result.payments} == {"escape"}
    result = escape_penalty(Rules(), escaper=0, dealer=0, level=3)
    assert list(result.deltas) == [-96, 32, 32, 32]


@pytest.mark.parametrize(("kwargs", "match"), [
    pytest.param({"winner": 4}, "winner", id="bad-winner"),
    pytest.param({"dealer": -1}, "dealer", id="bad-dealer"),
    pytest.param({"level": 4}, "level", id="level-4"),
    pytest.param({"multiplier": 3}, "power of two", id="multiplier-not-power-of-two"),
    pytest.param({"discarder": 1}, "discarder", id="discarder-is-winner"),
    pytest.param({"tan": {(1, 1): 3}}, "摊", id="tan-from-self"),
    pytest.param({"piao_feeders": [9]}, "feeder", id="bad-feeder"),
    pytest.param({"piao_feeders": [1]}, "own piao feeder", id="winner-as-own-feeder"),
])
def test_rules_10_settle_rejects_bad_input(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {"winner": 1, "multiplier": 1, "dealer": 0, "level": 1}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        settle(Rules(), **args)


# --------------------------------------------------------------------------------------
# RULES §10.6: every settlement is integer and sums to zero


@st.composite
def settlements(draw: st.DrawFn) -> tuple[Rules, dict[str, object]]:
    """Settlements the rules allow: 摊 counts within §6.5, discard wins per §8.4."""
    players = draw(st.sampled_from([2, 3, 4]))
    rules = Rules(players=players, cap=draw(st.sampled_from([None, 64, 128, 256])),
                  base_score=draw(st.integers(1, 10)),
                  three_tan_contract=draw(st.booleans()),
                  discard_win=True)
    seats = st.integers(0, players - 1)
    winner = draw(seats)
    dealer = draw(seats)
    level = draw(st.integers(1, 3))
    pairs = st.tuples(seats, seats).filter(lambda p: p[0] != p[1])
    tan = {}
    for (a, b), count in draw(st.dictionaries(pairs, st.integers(0, 5), max_size=6)).items():
        limit = tan_limit(rules, taker=a, giver=b, dealer=dealer, level=level)
        tan[(a, b)] = count if limit is None else min(count, limit)
    discarders = [s for s in range(players) if s != winner and discard_win_allowed(
        rules, winner=winner, discarder=s, dealer=dealer, level=level)]
    discarder = draw(st.none() | st.sampled_from(discarders)) if discarders else None
    return rules, {
        "winner": winner,
        "multiplier": 2 ** draw(st.integers(0, 10)),
        "dealer": dealer,
        "level": level,
        "discarder": discarder,
        "tan": tan,
        # 后半场承包 needs a self-drawn win (§8.4 empties a discard win's chain)
        "piao_feeders": [] if discarder is not None else draw(
            st.lists(seats.filter(lambda s: s != winner), max_size=2)),
    }


@given(settlements())
def test_rules_10_6_settlements_sum_to_zero(case: tuple[Rules, dict[str, object]]) -> None:
    rules, kwargs = case
    result = settle(rules, **kwargs)
    assert len(result.deltas) == rules.players
    assert all(type(d) is int for d in result.deltas)
    assert sum(result.deltas) == 0
    assert result.deltas[kwargs["winner"]] > 0
    assert sum(p.amount for p in result.payments) == result.deltas[kwargs["winner"]]


@pytest.mark.parametrize("level", [1, 2])
def test_rules_8_5_no_escape_penalty_below_level_3(level: int) -> None:
    result = escape_penalty(Rules(), escaper=2, dealer=0, level=level)
    assert list(result.deltas) == [0, 0, 0, 0]
    assert result.payments == ()


@given(st.sampled_from([2, 3, 4]), st.data())
def test_rules_8_5_escape_penalty_sums_to_zero(players: int, data: st.DataObject) -> None:
    seats = st.integers(0, players - 1)
    rules = Rules(players=players, base_score=data.draw(st.integers(1, 5)),
                  cap=data.draw(st.sampled_from([None, 64])))
    result = escape_penalty(rules, escaper=data.draw(seats), dealer=data.draw(seats),
                            level=data.draw(st.integers(1, 3)))
    assert sum(result.deltas) == 0 and all(type(d) is int for d in result.deltas)


@pytest.mark.parametrize(("level", "winner", "payer", "dealer", "expected"), [
    (1, 0, 1, 0, 2),   # the dealer wins: ×2 at level 1
    (2, 1, 0, 0, 4),   # the dealer pays: ×4 at level 2
    (3, 2, 3, 0, 1),   # neither is the dealer: 1 at any level
    (3, 3, 1, 1, 8),   # 三连庄 and above: ×8
])
def test_rules_10_1_pair_factor(level: int, winner: int, payer: int, dealer: int,
                                expected: int) -> None:
    assert pair_factor(level, winner=winner, payer=payer, dealer=dealer) == expected
    rules = Rules()
    amount, _ = share(rules, 2, winner=winner, payer=payer, dealer=dealer, level=level)
    assert amount == 2 * expected * rules.base_score


def test_rules_10_1_pair_factor_rejects_a_bad_level() -> None:
    with pytest.raises(ValueError, match="dealer level"):
        pair_factor(4, winner=0, payer=1, dealer=0)


def test_rules_8_4_10_4_no_houbanchang_chengbao_on_a_discard_win() -> None:
    """A discard win's chain is empty (§8.4), so no seat can be a 后半场承包 feeder
    (§10.4, p ≥ 1): such input is refused, not paid (it was charged T)."""
    rules = Rules(discard_win=True)
    args: dict[str, object] = {"winner": 0, "multiplier": 4, "dealer": 0, "level": 3,
                               "discarder": 1}
    assert list(settle(rules, **args).deltas) == [96, -96, 0, 0]  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="on a discard win"):
        settle(rules, **args, piao_feeders=[2])  # type: ignore[arg-type]


@pytest.mark.parametrize("win_tile, caishen", [(99, WHITE), (-1, WHITE), (0, 34)])
def test_score_hand_refuses_a_tile_that_is_no_kind(win_tile: int, caishen: int) -> None:
    # an IndexError (or a Python negative index) before; RULES §1.1: kinds are 0–33
    # (the compiled engine refuses a bool for an int as a TypeError)
    with pytest.raises((ValueError, TypeError)):
        score_hand(parse_hand("123456789m11p22s"), win_tile, caishen)


def test_score_hand_refuses_a_hand_string_and_a_chain_string() -> None:
    # a str hand raised AttributeError ('str' object has no attribute 'size'); a chain
    # "piao" was read item by item ('p' is no chain item)
    with pytest.raises(TypeError, match="Hand|str"):
        score_hand("123456789m111pP", tile("1z"), WHITE)  # type: ignore[arg-type]
    hand = parse_hand("123456789m111pP")
    with pytest.raises(TypeError, match=r"\['piao', 'kong'\]"):
        score_hand(hand, tile("1z"), WHITE, "piao")
    assert score_hand(hand, tile("1z"), WHITE, ["piao"]).multiplier == 4  # RULES §9 财飘


@pytest.mark.parametrize(("kwargs", "says"), [
    ({"multiplier": 1.0}, "multiplier"), ({"multiplier": float("nan")}, "multiplier"),
    ({"multiplier": "2"}, "multiplier"), ({"level": 1.0}, "level"),
    ({"winner": 1.0}, "winner"), ({"dealer": 0.0}, "dealer"),
    ({"tan": {(1, 0): 2.5}}, "摊"), ({"tan": {(1, 0): float("nan")}}, "摊"),
    ({"tan": {(1, 0): "2"}}, "摊"),
])
def test_settle_refuses_numbers_that_are_no_whole_numbers_rules_10(kwargs: dict[str, object],
                                                                 says: str) -> None:
    # a 摊 count of 2.5 or nan settled as none; 1.0 as M or level was a TypeError from
    # inside (unsupported operand); the compiled engine gives TypeError for a non-int
    args: dict[str, object] = {"winner": 1, "multiplier": 2, "dealer": 0, "level": 1,
                               **kwargs}
    with pytest.raises((ValueError, TypeError)) as caught:
        settle(Rules(), **args)  # type: ignore[arg-type]
    assert caught.type is TypeError or says in str(caught.value)


def test_settle_takes_no_true_for_a_multiplier_of_1() -> None:
    # "M=True × dealer factor 2" was settled; the compiled engine reads True as 1
    try:
        result = settle(Rules(), winner=0, multiplier=True, dealer=0, level=1)
    except ValueError as exc:
        assert "multiplier" in str(exc)
    else:
        assert result == settle(Rules(), winner=0, multiplier=1, dealer=0, level=1)
