"""Speed of :mod:`hzmj.hand` against the ``mahjong`` package (2.1.0), on the same seeded
random hands without wildcards, and of hzmj alone with 1–3 财神.

    uv run --group bench python benchmarks/bench_hand.py [--json] [--hands N] [--seed S]

Each side gets its native input prepared outside the timed loop (both use 34-count
lists; hzmj also gets the wildcard count).  hzmj fills its per-suit memo tables on first
use, so every figure is taken after one warm-up pass over the same hands; figures are
medians over interleaved passes, a ratio the median of the per-pass ratios.  Workloads:

* ``win_check``: winning 14-tile hands (hzmj ``is_win_counts``; mahjong
  ``Agari.is_agari``).
* ``engine_win_check``: the same hands as the engine tests them, from the per-suit integer
  keys it keeps up to date as tiles move (``hand.is_win_keys``); same baseline.
* ``shanten``: 13-tile hands dealt from a shuffled wall (hzmj ``shanten_counts``;
  mahjong ``Shanten.calculate_shanten`` without 13 orphans, which Hangzhou rules lack).
* ``waits``: ready 13-tile hands (a winning hand less one tile); mahjong's baseline is a
  ``calculate_shanten`` call on the hand plus each drawable kind; hzmj uses the internal
  fast path behind :func:`hzmj.hand.waits` (counts in, kinds out).

White dragons are left out of the hands: with hzmj in 白板财神 mode they would be wild.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any

from hzmj import hand as hzmj_hand
from hzmj.tiles import NUM_KINDS, WHITE
from interleave import compiled, interleaved, median_ratio

KINDS = [k for k in range(NUM_KINDS) if k != WHITE]
Counts = list[int]


# --------------------------------------------------------------------------------------
# hands


def winning_hand(rng: random.Random) -> Counts:
    """A 14-tile winning hand (4 sets + pair, or one time in ten seven distinct pairs)."""
    while True:
        c = [0] * NUM_KINDS
        if rng.random() < 0.1:
            for k in rng.sample(KINDS, 7):
                c[k] = 2
            return c
        c[rng.choice(KINDS)] += 2
        for _ in range(4):
            k = rng.choice(KINDS)
            if k < 27 and k % 9 <= 6 and rng.random() < 0.6:
                c[k] += 1
                c[k + 1] += 1
                c[k + 2] += 1
            else:
                c[k] += 3
        if max(c) <= 4:
            return c


def dealt_hand(rng: random.Random, size: int) -> Counts:
    wall = [k for k in KINDS for _ in range(4)]
    c = [0] * NUM_KINDS
    for k in rng.sample(wall, size):
        c[k] += 1
    return c


def without_one(rng: random.Random, c: Counts) -> Counts:
    out = list(c)
    out[rng.choice([k for k in range(NUM_KINDS) if c[k]])] -= 1
    return out


def with_wilds(rng: random.Random, c: Counts, wilds: int) -> tuple[Counts, int]:
    """Turn ``wilds`` random tiles of ``c`` into 财神 (removed from the counts)."""
    out = list(c)
    for _ in range(wilds):
        out[rng.choice([k for k in range(NUM_KINDS) if out[k]])] -= 1
    return out, wilds


# --------------------------------------------------------------------------------------
# timing


def per_second(runs: Sequence[tuple[Callable[[], object], int]],
               repeats: int) -> list[list[float]]:
    """Calls per second of each ``(run, calls)`` in each of ``repeats`` interleaved passes,
    after one untimed warm-up pass of each (:mod:`interleave`)."""
    for run, _ in runs:
        run()

    def timed(run: Callable[[], object], calls: int) -> Callable[[int], float]:
        def once(_: int) -> float:
            run()
            return calls
        return once

    rates = interleaved({str(i): timed(run, calls) for i, (run, calls) in enumerate(runs)},
                        repeats)
    return list(rates.values())


def compare(ours: list[float], theirs: list[float]) -> dict[str, float]:
    return {"hzmj_per_s": round(statistics.median(ours)),
            "baseline_per_s": round(statistics.median(theirs)),
            "ratio": round(median_ratio(ours, theirs), 2)}


# --------------------------------------------------------------------------------------
# the two sides


def hzmj_waits(c: Counts, wilds: int = 0) -> list[int]:
    return hzmj_hand._winning_draws(c, wilds, 0, WHITE, c)


def mahjong_waits(shanten: Any, c: Counts) -> list[int]:
    out = []
    for k in range(NUM_KINDS):
        if c[k] < 4:
            c[k] += 1
            if shanten.calculate_shanten(c, use_kokushi=False) == -1:
                out.append(k)
            c[k] -= 1
    return out


def run(n: int, seed: int, repeats: int) -> dict[str, Any]:
    from mahjong.agari import Agari
    from mahjong.shanten import Shanten

    agari, shanten = Agari(), Shanten()
    rng = random.Random(seed)
    wins = [winning_hand(rng) for _ in range(n)]
    dealt = [dealt_hand(rng, 13) for _ in range(n)]
    ready = [without_one(rng, c) for c in wins]

    # the two sides must agree before their speeds mean anything
    assert all(hzmj_hand.is_win_counts(c) and agari.is_agari(c) for c in wins)
    shanten_agree = sum(hzmj_hand.shanten_counts(c)
                        == shanten.calculate_shanten(c, use_kokushi=False) for c in dealt)
    waits_agree = sum([k for k in hzmj_waits(c) if k != WHITE] == mahjong_waits(shanten, c)
                      for c in ready)

    is_win, is_agari = hzmj_hand.is_win_counts, agari.is_agari
    is_win_keys = hzmj_hand.is_win_keys
    keyed = [hzmj_hand.group_keys(c) for c in wins]  # what the engine holds per seat
    assert all(is_win_keys(k, 0, True) for k in keyed)
    shanten_counts, calc = hzmj_hand.shanten_counts, shanten.calculate_shanten
    few = ready[: n // 10]  # the baseline is slow: a tenth of the hands is plenty
    result: dict[str, Any] = {
        "win_check": compare(*per_second([
            (lambda: [is_win(c, 0) for c in wins], n),
            (lambda: [is_agari(c) for c in wins], n)], repeats)),
        "engine_win_check": compare(*per_second([
            (lambda: [is_win_keys(k, 0, True) for k in keyed], n),
            (lambda: [is_agari(c) for c in wins], n)], repeats)),
        "shanten": compare(*per_second([
            (lambda: [shanten_counts(c, 0) for c in dealt], n),
            (lambda: [calc(c, use_kokushi=False) for c in dealt], n)], repeats)),
        "waits": compare(*per_second([
            (lambda: [hzmj_waits(c) for c in ready], n),
            (lambda: [mahjong_waits(shanten, c) for c in few], len(few))], repeats)),
    }
    result["shanten"]["agree"] = f"{shanten_agree}/{n}"
    result["waits"]["agree"] = f"{waits_agree}/{n}"

    wild_figures: dict[str, dict[str, int]] = {}
    for w in (1, 2, 3):
        wrng = random.Random(seed + w)
        w_wins = [with_wilds(wrng, c, w) for c in wins]
        w_dealt = [with_wilds(wrng, dealt_hand(wrng, 13), w) for _ in range(n)]
        w_ready = [with_wilds(wrng, c, w) for c in ready]
        assert all(is_win(c, k) for c, k in w_wins)
        win_s, shanten_s, waits_s = per_second([
            (lambda hs=w_wins: [is_win(c, k) for c, k in hs], n),
            (lambda hs=w_dealt: [shanten_counts(c, k) for c, k in hs], n),
            (lambda hs=w_ready: [hzmj_waits(c, k) for c, k in hs], n)], repeats)
        wild_figures[str(w)] = {"win_check_per_s": round(statistics.median(win_s)),
                                "shanten_per_s": round(statistics.median(shanten_s)),
                                "waits_per_s": round(statistics.median(waits_s))}
    result["wilds"] = wild_figures
    result["compiled"] = compiled()
    result["setup"] = {
        "hands": n,
        "seed": seed,
        "timing": f"CPU time; medians over {repeats} interleaved passes (ratios: median of "
                  "the per-pass ratios) after one warm-up pass over the same hands",
        "baseline": "mahjong 2.1.0: Agari.is_agari; Shanten.calculate_shanten"
                    "(use_kokushi=False); waits = calculate_shanten on hand + each kind",
        "agreement_note": "hands where hzmj and mahjong differ are seven pairs with a quad, "
                          "two pairs under RULES §7.2 but not under riichi rules",
        "memo_entries": len(hzmj_hand._suits) + len(hzmj_hand._honors),
        "import_hzmj_hand_s": round(import_seconds(), 3),
    }
    return result


def import_seconds() -> float:
    """Seconds to import :mod:`hzmj.hand` in a fresh interpreter."""
    code = ("import time; t = time.perf_counter(); import hzmj.hand; "
            "print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return float(out.stdout)


def table(result: dict[str, Any]) -> str:
    lines = [f"{'workload':<12}{'hzmj/s':>12}{'mahjong/s':>12}{'ratio':>8}"]
    for key in ("win_check", "engine_win_check", "shanten", "waits"):
        r = result[key]
        lines.append(f"{key:<12}{r['hzmj_per_s']:>12,}{r['baseline_per_s']:>12,}"
                     f"{r['ratio']:>8}")
    lines.append("")
    lines.append(f"{'财神':<12}{'win/s':>12}{'shanten/s':>12}{'waits/s':>12}")
    for w, r in result["wilds"].items():
        lines.append(f"{w:<12}{r['win_check_per_s']:>12,}{r['shanten_per_s']:>12,}"
                     f"{r['waits_per_s']:>12,}")
    lines.append("")
    for k, v in result["setup"].items():
        lines.append(f"{k}: {v}")
    lines.append(f"agreement with mahjong: shanten {result['shanten']['agree']}, "
                 f"waits {result['waits']['agree']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeats", type=int, default=15, help="interleaved passes")
    args = parser.parse_args(argv)
    result = run(args.hands, args.seed, args.repeats)
    print(json.dumps(result) if args.json else table(result))


if __name__ == "__main__":
    main()
