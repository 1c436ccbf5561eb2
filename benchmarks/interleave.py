"""Interleaved timing shared by the benchmarks: each side runs once per round, the sides
taking turns, so a slow spell of a shared machine hits them alike; a ratio is the median
of the per-round ratios, so one disturbed round does not move it.

    rates = interleaved({"hzmj": lambda r: play(200, seed=r), "rlcard": lambda r: other(20)}, 5)
    median_ratio(rates["hzmj"], rates["rlcard"])

A run gets the round's number (0, 1, ...; e.g. to deal other hands each round) and
returns how many units it did (hands, steps, calls); its rate is units per CPU second of
this process (``time.process_time``), so other processes disturb it less.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Mapping, Sequence

import hzmj


def interleaved(runs: Mapping[str, Callable[[int], float]],
                rounds: int) -> dict[str, list[float]]:
    """Per-round rates (units per CPU second) of every run, in ``rounds`` rounds in which
    each run takes its turn, in the order given."""
    out: dict[str, list[float]] = {name: [] for name in runs}
    for r in range(rounds):
        for name, run in runs.items():
            start = time.process_time()
            units = run(r)
            out[name].append(units / (time.process_time() - start))
    return out


def median_ratio(ours: Sequence[float], theirs: Sequence[float]) -> float:
    """Median over rounds of ``ours / theirs`` (rates of the same rounds)."""
    return statistics.median(o / t for o, t in zip(ours, theirs, strict=True))


def compiled() -> bool:
    """Whether the engine modules are the mypyc-compiled build (docs/performance.md)."""
    return hzmj.compiled_core()


def report(result: Mapping[str, object], as_json: bool) -> None:
    """Print a benchmark's result: one JSON object, or one aligned ``key: value`` a line."""
    if as_json:
        print(json.dumps(result))
        return
    width = max(map(len, result))
    for key, value in result.items():
        print(f"{key:>{width}}: {value}")
