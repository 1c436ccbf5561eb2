"""Arena (issue 4): statistics on known inputs, seat rotation, and a tiny real run."""

from __future__ import annotations

import math

import pytest

from hzmj.arena import (
    Game,
    arena,
    betainc,
    mean_ci,
    paired_t_pvalue,
    plan,
    print_report,
    run,
    sign_test_pvalue,
    t_cdf,
    t_quantile,
)
from hzmj.rules import Rules


def test_student_t_against_table_values() -> None:
    assert betainc(1, 1, 0.3) == pytest.approx(0.3)
    assert t_cdf(0.0, 5) == pytest.approx(0.5)
    assert t_cdf(2.015, 5) == pytest.approx(0.95, abs=1e-4)
    assert t_quantile(0.975, 10) == pytest.approx(2.228, abs=1e-3)
    assert t_quantile(0.975, 1000) == pytest.approx(1.962, abs=1e-3)


def test_mean_ci_and_p_values_on_known_inputs() -> None:
    mean, lo, hi = mean_ci([1, 2, 3, 4, 5])
    assert mean == 3
    assert (lo, hi) == (pytest.approx(1.0367, abs=1e-4), pytest.approx(4.9633, abs=1e-4))
    # t = 4.2426 with 4 df: closed form 1/2 − (√x/2)(1 + (1 − x)/2), x = t²/(t² + 4)
    assert paired_t_pvalue([1, 2, 3, 4, 5]) == pytest.approx(0.0066178, abs=1e-6)
    assert paired_t_pvalue([-1, -2, -3, -4, -5]) == pytest.approx(1 - 0.0066178, abs=1e-6)
    assert sign_test_pvalue([1, 1, 1, 1, -1, 0]) == pytest.approx(6 / 32)
    assert sign_test_pvalue([2] * 10) == pytest.approx(1 / 1024)
    assert math.isnan(paired_t_pvalue([1.0]))


def test_duplicate_plan_rotates_every_bot_over_every_seat() -> None:
    games = plan(["strong", "efficiency", "random"], Rules(players=3), 16, 9, True)
    # 16 hands = 2 matches of 8, each in 3 rotations of the order and 3 of its reverse
    assert len(games) == 2 * 6
    first = [g for g in games if g.deal == 0]
    assert len({g.seed for g in first}) == 1  # the same walls (RULES §4.3)
    assert {g.seats.index("strong") for g in first} == {0, 1, 2}
    # two different bots among others: the reversed order too, so that neither is
    # always the other's 上家 (chows, 承包)
    mixed = plan(["expert@2", "strong", "efficiency", "efficiency"], Rules(), 8, 9, True)
    assert len(mixed) == 8 and len({g.seats for g in mixed}) == 8
    def right_of(g: Game, a: str, b: str) -> bool:  # b sits right after a (a is b's 上家)
        return g.seats[(g.seats.index(a) + 1) % 4] == b
    assert sum(right_of(g, "expert@2", "strong") for g in mixed) == 4
    assert sum(right_of(g, "strong", "expert@2") for g in mixed) == 4
    assert sorted(g.seats.index("strong") for g in mixed
                  if right_of(g, "strong", "expert@2")) == [0, 1, 2, 3]
    single = plan(["strong", "efficiency", "random"], Rules(players=3), 16, 9, False)
    assert len(single) == 2
    with pytest.raises(ValueError, match="3 seats"):
        plan(["random"] * 4, Rules(players=3), 8, 0, True)


def test_small_duplicate_arena_report() -> None:
    report = arena(["efficiency", "random"], Rules(players=2), 8, 1, duplicate=True,
                   workers=1)
    assert report["hands"] == 16 and report["deals"] == 1 and report["matches"] == 2
    eff, rnd = report["bots"]["efficiency"], report["bots"]["random"]
    assert eff["hands"] == rnd["hands"] == 16
    # zero-sum over a duplicate deal (RULES §10.6): the two means are opposite
    assert eff["mean_points_per_hand"] == pytest.approx(-rnd["mean_points_per_hand"])
    assert eff["mean_points_per_hand"] > 0 and eff["win_rate"] > rnd["win_rate"]
    pair = next(p for p in report["pairs"] if p["a"] == "efficiency")
    assert pair["deals"] == 1 and pair["mean_diff"] > 0


def test_workers_never_outnumber_the_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--workers 10000`` for one match started 10,000 processes (helper-22)."""
    from concurrent.futures import ProcessPoolExecutor

    import hzmj.arena as arena_module

    started: list[int] = []

    class Recording(ProcessPoolExecutor):
        def __init__(self, max_workers: int) -> None:
            started.append(max_workers)
            super().__init__(max_workers=max_workers)

    monkeypatch.setattr(arena_module, "ProcessPoolExecutor", Recording)
    rules = Rules(hands=8)
    # the same bot in every seat: one seating (a plan of them used to index past it)
    games = plan(["random"] * 4, rules, 16, 1, duplicate=False)
    assert len(games) == 2
    results = run(games, rules, workers=10_000)
    assert started == [2] and [r.game for r in results] == games
    assert run(games[:1], rules, workers=10_000)[0].game == games[0]  # one game: in-process
    assert started == [2]


def test_the_report_fits_a_terminal_of_80_columns() -> None:
    # the decision times were a seventh column: at 80 columns "ms med/mean/max" read
    # "ms med/mean/…" and the max was cut from every row ("1.71/9.7/…")
    from rich.console import Console

    bot = {"hands": 16, "mean_points_per_hand": -0.4375, "ci95": [-6.0, 5.125],
           "win_rate": 0.125, "mean_multiplier": 2.0, "decision_ms_median": 1.713,
           "decision_ms_mean": 9.71, "decision_ms_max": 104.2}
    report = {"hands": 16, "matches": 2, "deals": 2, "duplicate": False, "seed": 1,
              "seconds": 2.0, "pairs": [],
              "bots": {"strong": bot, "efficiency": {**bot, "hands": 48,
                                                      "decision_ms_max": 7.0}}}
    out = Console(width=80, record=True, highlight=False)
    with out.capture() as captured:
        print_report(report, out)
    lines = captured.get().splitlines()
    assert "…" not in "".join(lines[:7]).replace("-6.00 … 5.12", "")
    assert "│ strong     │    16 │    -0.44 │ -6.00 … 5.12 │     0.12 │   2.00 │" in lines
    assert lines[7:10] == ["decision times, ms (median / mean / max):",
                           "  strong      1.71 / 9.7 / 104", "  efficiency  1.71 / 9.7 / 7"]
