"""The expert and oracle bots (issue 15): play-outs in worlds dealt from a seat's view
(RULES §13), determinism of the fixed-count mode, legal play under the rule variants, the oracle's
measurement-only use, and the level-3 discard-win safety of every bot (RULES §8.4)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from hzmj.bots.efficiency import EfficiencyBot, discard_danger
from hzmj.bots.expert import ExpertBot
from hzmj.bots.oracle import OracleBot
from hzmj.bots.registry import BOT_NAMES, make_bot, sees_all, show_match
from hzmj.bots.rollout import play_out
from hzmj.bots.seat import read_seat
from hzmj.bots.strong import StrongBot
from hzmj.determinize import determinize
from hzmj.events import Discard
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.tiles import tile
from test_bots import VARIANTS, discards, make_view


def _positions(rules: Rules, seed: int, limit: int = 400) -> list[tuple[Match, int]]:
    """Copies of a match of efficiency bots at each decision with a choice."""
    m = Match(rules, seed)
    bot = EfficiencyBot()
    out = []
    while not m.over and len(out) < limit and m.hand_no <= 2:
        seat = m.to_move()[0]
        legal = m.legal_actions(seat)
        if len(legal) > 1:
            out.append((m.clone(), seat))
        m.apply(bot.choose(m.view(seat), legal))
    return out


def test_play_out_ends_the_hand_and_settles_zero_sum() -> None:
    for m, seat in _positions(Rules(discard_win=True, dealer_start_level=3), 8)[::10]:
        world = determinize(m.view(seat), random.Random(0))
        done = len(world.results)
        world.apply(world.legal_actions(seat)[-1])
        points = play_out(world, seat, done)
        result = world.results[done]
        deltas = result.settlement.deltas if result.settlement else (0,) * m.n
        assert sum(deltas) == 0 and points == deltas[seat]


def test_registry_knows_expert_and_oracle() -> None:
    assert BOT_NAMES == ("random", "efficiency", "strong", "expert", "oracle")
    assert make_bot("expert", 1).budget_ms == 100  # type: ignore[attr-defined]
    assert make_bot("expert:250", 1).budget_ms == 250  # type: ignore[attr-defined]
    assert make_bot("expert@8", 1).samples == 8  # type: ignore[attr-defined]
    assert sees_all("oracle") and not sees_all("expert@8")
    for bad in ("expert@0", "strong@4", "expert@x", "oracle:30", "expert:30@2"):
        with pytest.raises(ValueError, match="bot"):
            make_bot(bad, 0)


def test_expert_fixed_count_is_deterministic() -> None:
    m, seat = _positions(Rules(), 4)[25]
    view, legal = m.view(seat), m.legal_actions(seat)
    first = ExpertBot(3, samples=3).explain(view, legal)
    again = ExpertBot(3, samples=3).explain(view, legal)
    assert first == again
    assert first[0].action in legal


@pytest.mark.parametrize("options", VARIANTS)
def test_expert_and_oracle_play_only_legal_actions(options: dict[str, Any]) -> None:
    rules = Rules(**options)
    m = Match(rules, 31)
    bots = [ExpertBot(1, samples=1, width=2), OracleBot(2), EfficiencyBot(),
            StrongBot(4, budget_ms=10)][:rules.players]
    show_match(bots, m)
    decisions = 0
    while not m.over and m.hand_no == 1:
        seat = m.to_move()[0]
        legal = m.legal_actions(seat)
        action = bots[seat].choose(m.view(seat), legal)
        assert action in legal
        m.apply(action)
        decisions += 1
    assert decisions > 10


def test_oracle_refuses_to_play_blind() -> None:
    m = Match(Rules(), 2)
    seat = m.to_move()[0]
    with pytest.raises(RuntimeError, match="sees every tile"):
        OracleBot().choose(m.view(seat), m.legal_actions(seat))


def test_expert_review_values_the_move_played() -> None:
    m, seat = _positions(Rules(), 4)[25]
    view, legal = m.view(seat), m.legal_actions(seat)
    worst = legal[0] if legal[0] != ExpertBot(0, samples=2).choose(view, legal) else legal[1]
    ranked = ExpertBot(0, samples=2).explain(view, legal, include=worst)
    assert worst in [c.action for c in ranked]


# --------------------------------------------------------------------------------------
# RULES §8.4: a discard at the dealer's level 3 may be won on; the discarder pays T


def _level3_view(hand: str, *, discard_win: bool = True, level: int = 3) -> dict[str, Any]:
    """Seat 0 (the dealer) to discard; seat 1 shows three pongs and threw away 1z, seat 3
    threw 2z (as many of each are unseen: the plain tie-break throws 2z)."""
    view = make_view(hand, caishen="9m", indicator="9m", last_draw=hand[-2:],
                     rules=Rules(caishen_mode="flip", discard_win=discard_win,
                                 dealer_start_level=level))
    view["level"] = level
    view["players"][1]["melds"] = [
        {"type": "pong", "tiles": [k] * 3, "from": giver, "claimed": k}
        for k, giver in (("2p", 2), ("5p", 3), ("8s", 2))]
    view["players"][1]["concealed_count"] = 4
    view["players"][1]["discards"] = [{"tile": "1z", "claimed_by": None},
                                      {"tile": "6z", "claimed_by": None}]
    view["players"][3]["discards"] = [{"tile": "2z", "claimed_by": None}]
    return view


def test_level3_danger_only_with_discard_wins_at_level3() -> None:
    hand = "123m456p789s99m5s1z2z"
    assert discard_danger(read_seat(_level3_view(hand)), tile("2z")) > \
        discard_danger(read_seat(_level3_view(hand)), tile("1z")) > 0
    for view in (_level3_view(hand, discard_win=False), _level3_view(hand, level=2)):
        assert discard_danger(read_seat(view), tile("2z")) == 0


@pytest.mark.parametrize("bot", [EfficiencyBot(), StrongBot(), ExpertBot(0, samples=2)],
                         ids=["efficiency", "strong", "expert"])
def test_bots_stop_feeding_a_level3_discard_win_when_it_costs_little(bot: Any) -> None:
    # 1z and 2z are both useless; seat 1 (three pongs shown) threw 1z away itself
    hand = "123m456p789s99m5s1z2z"
    assert EfficiencyBot().choose(_level3_view(hand, level=1), discards(hand)) == \
        Discard(0, tile("2z"))  # the plain tie-break
    assert bot.choose(_level3_view(hand), discards(hand)) == Discard(0, tile("1z"))


@pytest.mark.parametrize("bot", [EfficiencyBot(), StrongBot()], ids=["efficiency", "strong"])
def test_bots_still_keep_a_ready_hand_when_safety_costs_a_step(bot: Any) -> None:
    # throwing 4s would be safer than 2z, but it breaks the ready hand (shanten 0 → 1)
    hand = "123m456p789s99m45s2z"
    assert bot.choose(_level3_view(hand), discards(hand)) == Discard(0, tile("2z"))


# --------------------------------------------------------------------------------------
# the oracle plans its own draws from the real wall (measurement only, RULES §13)


def _state(hand: str, cs: int) -> Any:
    from hzmj.bots import analysis as an
    from hzmj.hand import split_wilds
    from hzmj.tiles import parse_tiles

    counts, wilds = split_wilds(parse_tiles(hand), cs)
    return an.state_of(counts, wilds, 0)


def test_plan_length_counts_own_draws_to_a_complete_hand() -> None:
    from hzmj.bots.analysis import plan_length
    from hzmj.bots.oracle import NEVER, discard_plans

    cs = tile("9s")
    ready = _state("123m456m789m123p5p", cs)  # waits on 5p only
    assert plan_length(ready, [tile("1z"), tile("2z"), tile("5p")], cs) == 3
    assert plan_length(ready, [tile("1z"), tile("2z")], cs) == NEVER
    assert plan_length(ready, [tile("9s")], cs) == 1  # the 财神 completes the pair
    # two shanten: the plan needs both draws that help, in any order, among junk
    two = _state("123m456m789m45p12z", cs)
    assert plan_length(two, [tile("3z"), tile("6p"), tile("4z"), tile("1z")], cs) == 4
    assert plan_length(two, [tile("3z"), tile("6p"), tile("4z")], cs) == NEVER
    # from 14 tiles: throw the tile the coming draws do not need
    plans = discard_plans(_state("123m456m789m123p5p1z", cs), [tile("5p"), tile("1z")],
                          [tile("1z")], cs)
    assert plans == {tile("5p"): 1, tile("1z"): NEVER}


def test_oracle_plans_are_exact_on_the_real_wall() -> None:
    """At every turn of a real match the oracle's plan order starts with the discard
    whose own draws (every n-th live tile) complete the hand soonest."""
    from hzmj.bots.oracle import NEVER, discard_plans, live_wall, own_draws, plan_rank
    from hzmj.bots.rollout import seat_state

    checked = 0
    for m, seat in _positions(Rules(), 6)[:120]:
        if m.phase != "turn" or m.to_move() != [seat]:
            continue
        legal = m.legal_actions(seat)
        if any(not isinstance(a, Discard) for a in legal):
            continue
        ranked = plan_rank(m, seat, legal)
        assert sorted(map(str, (a for a, _ in ranked))) == sorted(map(str, legal))
        plans = discard_plans(seat_state(m, seat), [a.tile for a in legal],  # type: ignore[attr-defined]
                              own_draws(live_wall(m), m.n - 1, m.n), m.caishen)
        best = min(plans.values())
        first, when = ranked[0]
        assert isinstance(first, Discard) and plans[first.tile] == best
        assert when == (NEVER if best == NEVER else best * m.n)
        checked += 1
    assert checked > 20


def test_oracle_out_scores_efficiency_on_the_same_deals() -> None:
    """One duplicate deal (8 hands in each of 4 seats): the oracle, seeing the wall,
    scores more than the efficiency bots on the same walls (a ceiling to measure by)."""
    from hzmj.arena import arena

    stats = arena(("oracle", "efficiency", "efficiency", "efficiency"), Rules(), 8, 5,
                  duplicate=True, workers=1)
    pair = next(p for p in stats["pairs"] if p["a"] == "oracle")
    assert stats["bots"]["oracle"]["hands"] == 32
    assert pair["mean_diff"] > 1.0


def test_expert_leaves_a_win_on_offer_to_the_strong_bot() -> None:
    """A win on offer is the strong bot's call (its 爆头 gamble is calibrated; random
    worlds over-rate declining): no search in play, and in a review the search values
    the candidates in points but the strong bot's choice stays first."""
    from hzmj.events import Win

    found = 0
    for seed in range(3, 40):
        for m, seat in _positions(Rules(), seed):
            legal = m.legal_actions(seat)
            if not any(isinstance(a, Win) for a in legal):
                continue
            view = m.view(seat)
            strong = StrongBot(0, budget_ms=10).explain(view, legal)[0].action
            bot = ExpertBot(0, samples=4)
            assert bot.choose(view, legal) == strong
            assert bot.stats["searched"] == 0
            other = next(a for a in legal if a != strong)
            ranked = bot.explain(view, legal, include=other)
            assert ranked[0].action == strong and bot.stats["searched"] == 1
            assert other in [c.action for c in ranked]
            assert "points over 4 worlds" in ranked[0].detail
            found += 1
            break
        if found >= 2:
            break
    assert found >= 2
