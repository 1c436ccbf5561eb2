"""Bot arena: bots play whole matches against each other; per-bot statistics with
confidence intervals and paired significance tests (stdlib math only).

Unit of play: a **deal** is one full match (``rules.hands`` hands in ``hands`` mode, or
until someone is broke in ``points`` mode) from one match seed, so dealer succession and
levels (RULES §11) are played as at a real table.  ``hands=N`` asks for
``ceil(N / rules.hands)`` deals.  With ``duplicate`` every deal is replayed once per
rotation of the bots over the seats, and of their reversed order where that seats them
differently (the same seed gives the same walls, RULES §4.3), so each bot meets the same
tiles from every seat, on either side of every other bot, and luck largely cancels.

Statistics are taken per deal (a bot's mean points per hand over its seats in that
deal), because hands of one match, and rotations of one deal, are not independent:
the 95% CI of the mean uses Student's t over deals, and "A scores higher than B" is a
one-sided paired t-test and a sign test over the deals both played.
"""

from __future__ import annotations

import hashlib
import math
import os
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from hzmj.bots.registry import make_bot, show_match
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.shown import counted

WORKERS = 2
MAX_WORKERS_PER_CPU = 4  # --workers beyond this (or beyond the games) start no more processes

# --------------------------------------------------------------------------------------
# statistics (stdlib only)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularised incomplete beta (Lentz's method)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
                    -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-14:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
          + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(ln) * _betacf(a, b, x) / a
    return 1.0 - math.exp(ln) * _betacf(b, a, 1.0 - x) / b


def t_sf(t: float, df: float) -> float:
    """Upper tail ``P(T > t)`` of Student's t (exact in the far tail too)."""
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


def t_cdf(t: float, df: float) -> float:
    """Student's t cumulative distribution function."""
    return 1.0 - t_sf(t, df)


def t_quantile(p: float, df: float) -> float:
    """Inverse of :func:`t_cdf` (bisection; ``0 < p < 1``)."""
    lo, hi = -1e3, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mean_ci(xs: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean and its two-sided ``level`` confidence interval (Student's t)."""
    n = len(xs)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = statistics.fmean(xs)
    if n == 1:
        return (m, -math.inf, math.inf)
    half = t_quantile(0.5 + level / 2, n - 1) * statistics.stdev(xs) / math.sqrt(n)
    return (m, m - half, m + half)


def paired_t_pvalue(diffs: Sequence[float]) -> float:
    """One-sided p-value of ``mean(diffs) > 0`` (paired t-test)."""
    n = len(diffs)
    if n < 2:
        return math.nan
    sd = statistics.stdev(diffs)
    m = statistics.fmean(diffs)
    if sd == 0:
        return 0.0 if m > 0 else 1.0
    return t_sf(m / (sd / math.sqrt(n)), n - 1)


def sign_test_pvalue(diffs: Sequence[float]) -> float:
    """One-sided exact sign test of "positive more often than negative" (ties dropped)."""
    pos = sum(1 for d in diffs if d > 0)
    n = pos + sum(1 for d in diffs if d < 0)
    if n == 0:
        return 1.0
    return float(sum(math.comb(n, k) for k in range(pos, n + 1)) / 2 ** n)


# --------------------------------------------------------------------------------------
# playing


def derive_seed(*parts: object) -> int:
    """A 31-bit seed from the arena seed and indices (stable across runs and platforms)."""
    digest = hashlib.sha256(":".join(str(p) for p in ("arena", *parts)).encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


@dataclass(frozen=True, slots=True)
class Game:
    """One match to play: ``deal`` index, its match ``seed``, the bots' ``rotation`` and
    the bot name of each seat."""

    deal: int
    seed: int
    rotation: int
    seats: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SeatResult:
    """What one seat's bot did in one match."""

    name: str
    hand_points: tuple[int, ...]
    multipliers: tuple[int, ...]  # one per hand this seat won
    decision_seconds: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class GameResult:
    """One planned match's outcome: the ``game`` and each seat's result, seat 0 first."""

    game: Game
    seats: tuple[SeatResult, ...]


def plan(bots: Sequence[str], rules: Rules, hands: int, seed: int,
         duplicate: bool) -> list[Game]:
    """The matches to play (see the module docstring)."""
    n = rules.players
    if len(bots) != n:
        raise ValueError(f"{counted(len(bots), 'bot')} for {n} seats")
    per_match = rules.hands if rules.match_mode == "hands" else 8
    deals = max(1, math.ceil(hands / per_match))
    seatings = _seatings(bots)
    games = []
    for deal in range(deals):
        # one seating a deal, in turn (fewer than n when the bots repeat: A, A, A, A has one)
        for r in (range(len(seatings)) if duplicate else [deal % min(n, len(seatings))]):
            games.append(Game(deal, derive_seed(seed, deal), r, seatings[r]))
    return games


def _seatings(bots: Sequence[str]) -> list[tuple[str, ...]]:
    """The seatings of a duplicate deal: every rotation of ``bots`` over the seats, then
    every rotation of the reversed order that is not already there.

    Rotations alone keep the order around the table: with ``A, B, E, E`` bot A is always
    B's 上家, so B may chow A's discards (RULES §6.2) and claims can make A liable
    (承包, §10.4), never the other way round.  Measured with two copies of the strong bot
    (``strong:100, strong, efficiency, efficiency``, 1,600 hands): the one seated first
    came out 0.47 points per hand behind (p 0.06), a bias as large as the edges being
    measured.  With the reversed order too, every bot sits on each side of every other;
    one bot against copies of another (``A, E, E, E``) needs no more matches."""
    n = len(bots)
    out: list[tuple[str, ...]] = []
    for order in (list(bots), list(reversed(bots))):
        for r in range(n):
            seats = tuple(order[(s - r) % n] for s in range(n))
            if seats not in out:
                out.append(seats)
    return out


def play_game(rules: Rules, game: Game) -> GameResult:
    """Play one match with fresh bots; bots see only their views (RULES §13)."""
    m = Match(rules, game.seed)
    bots = [make_bot(name, derive_seed(game.seed, game.rotation, s))
            for s, name in enumerate(game.seats)]
    show_match(bots, m)
    times: list[list[float]] = [[] for _ in game.seats]
    while not m.over:
        seat = m.to_move()[0]
        legal = m.legal_actions(seat)
        view = m.view(seat)
        start = time.perf_counter()
        action = bots[seat].choose(view, legal)
        times[seat].append(time.perf_counter() - start)
        m.apply(action)
    points: list[list[int]] = [[] for _ in game.seats]
    mults: list[list[int]] = [[] for _ in game.seats]
    for res in m.results:
        deltas = res.settlement.deltas if res.settlement else (0,) * m.n
        for s, d in enumerate(deltas):
            points[s].append(d)
        if res.winner is not None and res.score is not None:
            mults[res.winner].append(res.score.multiplier)
    return GameResult(game, tuple(
        SeatResult(name, tuple(points[s]), tuple(mults[s]), tuple(times[s]))
        for s, name in enumerate(game.seats)))


def _play(args: tuple[Rules, Game]) -> GameResult:
    return play_game(*args)


def run(games: Sequence[Game], rules: Rules, *, workers: int = WORKERS,
        progress: Callable[[int], None] | None = None,
        ray: str | None = None) -> list[GameResult]:
    """Play ``games`` on ``workers`` processes (1: in this process; at most one per game
    and ``MAX_WORKERS_PER_CPU`` per CPU), or as tasks on the
    Ray cluster at ``ray`` (``"local"``: one on this machine, :mod:`hzmj.cluster`);
    results in plan order whatever the order they finish in."""
    results: list[GameResult] = []
    # never more processes than games, nor than a few per CPU (results do not depend on it)
    workers = min(workers, len(games), MAX_WORKERS_PER_CPU * (os.cpu_count() or 1))
    if ray is not None:
        from hzmj.cluster import ray_map

        results = ray_map(_play, [(rules, g) for g in games], ray, progress)
    elif workers <= 1:
        for g in games:
            results.append(play_game(rules, g))
            if progress:
                progress(len(results))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(_play, (rules, g)) for g in games]
            for fut in as_completed(futures):
                results.append(fut.result())
                if progress:
                    progress(len(results))
    return sorted(results, key=lambda r: (r.game.deal, r.game.rotation))


# --------------------------------------------------------------------------------------
# report


@dataclass
class BotStats:
    """Per-bot figures; ``per_deal`` maps a deal to the bot's mean points per hand."""

    name: str
    hands: int = 0
    points: int = 0
    wins: int = 0
    multipliers: list[int] = field(default_factory=list)
    decisions: list[float] = field(default_factory=list)
    per_deal: dict[int, list[float]] = field(default_factory=dict)

    def deal_means(self) -> dict[int, float]:
        """Points a hand, averaged per deal (the unit the paired tests compare)."""
        return {d: statistics.fmean(v) for d, v in self.per_deal.items()}

    def to_dict(self) -> dict[str, Any]:
        mean, lo, hi = mean_ci(list(self.deal_means().values()))
        ms = sorted(self.decisions)
        return {
            "hands": self.hands,
            "mean_points_per_hand": _r(mean),
            "ci95": [_r(lo), _r(hi)],
            "win_rate": _r(self.wins / self.hands if self.hands else math.nan),
            "wins": self.wins,
            "mean_multiplier": _r(statistics.fmean(self.multipliers)
                                  if self.multipliers else math.nan),
            "decision_ms_median": _r(1000 * statistics.median(ms) if ms else math.nan),
            "decision_ms_mean": _r(1000 * statistics.fmean(ms) if ms else math.nan),
            "decision_ms_p99": _r(1000 * ms[min(len(ms) - 1, int(0.99 * len(ms)))]
                                  if ms else math.nan),
            "decision_ms_max": _r(1000 * ms[-1] if ms else math.nan),
        }


def _r(x: float) -> float | None:
    return None if math.isnan(x) or math.isinf(x) else round(x, 4)


def _sig(p: float) -> float | None:
    """A p-value to three significant digits (tiny ones stay visible)."""
    return None if math.isnan(p) else float(f"{p:.3g}")


def summarise(results: Sequence[GameResult]) -> dict[str, Any]:
    """Per-bot statistics and pairwise tests as a JSON-ready dict."""
    stats: dict[str, BotStats] = {}
    for gr in results:
        for sr in gr.seats:
            bs = stats.setdefault(sr.name, BotStats(sr.name))
            bs.hands += len(sr.hand_points)
            bs.points += sum(sr.hand_points)
            bs.wins += len(sr.multipliers)
            bs.multipliers.extend(sr.multipliers)
            bs.decisions.extend(sr.decision_seconds)
            if sr.hand_points:
                bs.per_deal.setdefault(gr.game.deal, []).append(statistics.fmean(sr.hand_points))
    pairs = []
    names = list(stats)
    for a_name in names:
        for b_name in names:
            if a_name == b_name:
                continue
            ma, mb = stats[a_name].deal_means(), stats[b_name].deal_means()
            diffs = [ma[d] - mb[d] for d in ma if d in mb]
            pairs.append({"a": a_name, "b": b_name, "deals": len(diffs),
                          "mean_diff": _r(statistics.fmean(diffs) if diffs else math.nan),
                          "p_t": _sig(paired_t_pvalue(diffs)),
                          "p_sign": _sig(sign_test_pvalue(diffs))})
    hands = sum(len(gr.seats[0].hand_points) for gr in results)
    return {"matches": len(results), "deals": len({gr.game.deal for gr in results}),
            "hands": hands, "bots": {n: s.to_dict() for n, s in stats.items()},
            "pairs": pairs}


def arena(bots: Sequence[str], rules: Rules, hands: int, seed: int, *, duplicate: bool,
          workers: int = WORKERS, progress: Callable[[int, int], None] | None = None,
          on_results: Callable[[list[GameResult]], None] | None = None,
          ray: str | None = None) -> dict[str, Any]:
    """Plan, play and summarise (the ``hzmj arena`` command without its display);
    ``on_results`` sees every match's result (``hzmj arena --rate``); ``ray``: play on
    that Ray cluster (:func:`run`)."""
    games = plan(bots, rules, hands, seed, duplicate)
    start = time.perf_counter()
    results = run(games, rules, workers=workers, ray=ray,
                  progress=(lambda done: progress(done, len(games))) if progress else None)
    if on_results is not None:
        on_results(results)
    report = summarise(results)
    report.update({"seed": seed, "duplicate": duplicate, "bots_by_seat": list(bots),
                   "rules": rules.to_dict(), "seconds": round(time.perf_counter() - start, 1)})
    return report


def print_report(report: dict[str, Any], console: Any) -> None:
    """The report as two rich tables (per bot, then pairwise tests) on ``console``."""
    from rich.table import Table

    def fmt(x: Any) -> str:
        return "–" if x is None else f"{x:.2f}" if isinstance(x, float) else str(x)

    title = (f"{counted(report['hands'], 'hand')} "
             f"({counted(report['matches'], 'match', 'matches')}, "
             f"{counted(report['deals'], 'deal')}"
             f"{', duplicate' if report['duplicate'] else ''}), seed {report['seed']}, "
             f"{report['seconds']} s")
    table = Table(title=title)
    table.add_column("bot")
    for col in ("hands", "pts/hand", "95% CI", "win rate", "mean M"):
        table.add_column(col, justify="right", no_wrap=True)
    for name, b in report["bots"].items():
        lo, hi = b["ci95"]
        table.add_row(name, str(b["hands"]), fmt(b["mean_points_per_hand"]),
                      f"{fmt(lo)} … {fmt(hi)}", fmt(b["win_rate"]), fmt(b["mean_multiplier"]))
    console.print(table)
    # a column of their own made the table wider than a terminal: the max was cut to "…"
    timed = {name: b for name, b in report["bots"].items() if b["decision_ms_max"] is not None}
    if timed:
        console.print("decision times, ms (median / mean / max):")
    width = max(map(len, timed), default=0)
    for name, b in timed.items():
        console.print(f"  {name:<{width}}  {b['decision_ms_median']:.2f} / "
                      f"{b['decision_ms_mean']:.1f} / {b['decision_ms_max']:.0f}")
    pairs = Table(title="A scores more than B? (one-sided, paired over deals)")
    for col in ("A", "B", "deals", "mean diff", "p (t-test)", "p (sign test)"):
        pairs.add_column(col)
    for p in report["pairs"]:
        pairs.add_row(p["a"], p["b"], str(p["deals"]), fmt(p["mean_diff"]),
                      "–" if p["p_t"] is None else f"{p['p_t']:.3g}",
                      "–" if p["p_sign"] is None else f"{p['p_sign']:.3g}")
    console.print(pairs)
    for name, r in report.get("ratings", {}).items():
        console.print(f"{name} bot ≈ {r['rating']:,} (±{r['sigma']}, {counted(r['matches'], 'match', 'matches')})")
