"""Pair two one-seat arena runs deal by deal: bot A in run A against bot B in run B.

    uv run python benchmarks/pair_runs.py /tmp/new.jsonl strong /tmp/strong.jsonl strong
    uv run python benchmarks/pair_runs.py /tmp/new1.jsonl,/tmp/new2.jsonl strong \\
        /tmp/old1.jsonl,/tmp/old2.jsonl strong      # several seeds pooled

Both files come from ``benchmarks/arena_resumable.py`` with the same ``--hands`` and
``--seed`` and the same other bots (e.g. ``X,efficiency,efficiency,efficiency``), so a
match ``(deal, rotation)`` deals the same walls to the same seats in both runs and the
only difference is the bot under test.  For each deal both runs finished, the mean
points per hand of bot A's seats in run A minus bot B's seats in run B is one paired
difference; the report gives the mean difference (points per hand) with its standard
error, one-sided p-values ("A scores more") of a paired t-test and a sign test, and how
many deals differ at all.  Bot names are matched exactly as in the files (``strong``, ``expert@8``, …).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from pathlib import Path

from hzmj.arena import paired_t_pvalue, sign_test_pvalue


def seat_points(paths: list[Path], bot: str) -> dict[tuple[int, int], list[int]]:
    """``(match seed, rotation) -> [points per hand of every seat bot plays]`` of one or
    more runs (the match seed names a deal, whatever run and ``--seed`` it came from)."""
    out: dict[tuple[int, int], list[int]] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            d = json.loads(line)
            pts = [p for name, hand_points, _m, _t in d["seats"] if name == bot
                   for p in hand_points]
            if pts:
                out[(d["seed"], d["rotation"])] = pts
    return out


def pair(a: dict[tuple[int, int], list[int]],
         b: dict[tuple[int, int], list[int]]) -> dict[str, float | int]:
    """The paired comparison of two runs' seat points (see the module docstring)."""
    deals = sorted({k[0] for k in a} & {k[0] for k in b})
    diffs: list[float] = []
    for deal in deals:
        keys = [k for k in a if k[0] == deal and k in b]
        if not keys:
            continue
        pa = [p for k in keys for p in a[k]]
        pb = [p for k in keys for p in b[k]]
        diffs.append(statistics.fmean(pa) - statistics.fmean(pb))
    n = len(diffs)
    if n < 2:
        raise SystemExit(f"only {n} deal(s) in common: nothing to pair")
    mean = statistics.fmean(diffs)
    se = statistics.stdev(diffs) / math.sqrt(n)
    return {"deals": n, "differ": sum(1 for x in diffs if x), "better": sum(x > 0 for x in diffs),
            "worse": sum(x < 0 for x in diffs), "diff": round(mean, 3), "se": round(se, 3),
            "p_t": paired_t_pvalue(diffs), "p_sign": sign_test_pvalue(diffs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_a", help="run file(s) of bot A, comma-separated")
    parser.add_argument("bot_a")
    parser.add_argument("run_b", help="run file(s) of bot B, comma-separated")
    parser.add_argument("bot_b")
    args = parser.parse_args()
    args.run_a = [Path(p) for p in args.run_a.split(",")]
    args.run_b = [Path(p) for p in args.run_b.split(",")]
    print(json.dumps(pair(seat_points(args.run_a, args.bot_a),
                          seat_points(args.run_b, args.bot_b))))


if __name__ == "__main__":
    main()
