"""Where the tiles a seat cannot see really are: the live wall or the other hands.

    uv run python benchmarks/live_tiles.py --matches 1000 --seed 10000

Plays efficiency-bot matches (default rules) and, at every turn of every seat, compares
each kind's copies in the live wall with what a uniform spread of that seat's unseen
tiles would put there (``unseen × live / unseen_total``).  Prints, per cell
``(category, unseen, stage, discarded)``, the ratio of the two sums (1.0 = uniform; cells
seen fewer than ``--min`` times are left out).  ``category``: ``honour``, ``t19`` (a 1 or
9), ``r28`` (a 2 or 8), ``mid`` (3–7) or ``caishen``, by the kind a tile plays as (RULES
§5.2); ``unseen``: copies the seat cannot see; ``stage``: live tiles left, 0 below 20, 1
below 40, 2 below 60, 3 from 60; ``discarded``: whether another seat threw that kind.
1,000 matches take about 2.5 minutes on one core.  (docs/bots.md: the strong bot drawing
with these chances was tried and not kept.)
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict

from hzmj.bots import analysis as an
from hzmj.bots.registry import make_bot
from hzmj.bots.seat import read_seat
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.tiles import NUM_KINDS

Cell = tuple[str, int, int, bool]


def category(nat: int) -> str:
    """The cell category of a draw name (a natural kind or :data:`analysis.WILD`)."""
    if nat == an.WILD:
        return "caishen"
    if nat >= 27:
        return "honour"
    return {0: "t19", 8: "t19", 1: "r28", 7: "r28"}.get(nat % 9, "mid")


def stage(live: int) -> int:
    """The cell stage of a hand with ``live`` tiles left in the live wall."""
    return min(live // 20, 3)


def measure(matches: int, seed: int) -> dict[Cell, list[float]]:
    """``cell -> [copies found in the live wall, copies a uniform spread expects, turns]``."""
    acc: dict[Cell, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    rules = Rules()
    for i in range(matches):
        m = Match(rules, seed + i)
        bots = [make_bot("efficiency", (seed + i) * 4 + s) for s in range(rules.players)]
        while not m.over:
            seat = m.to_move()[0]
            legal = m.legal_actions(seat)
            view = m.view(seat)
            if m.phase == "turn":
                info = read_seat(view)
                live = Counter(m.wall[m.head:m.head + m.live_count])
                spread = m.live_count / (info.unseen_total or 1)
                st = stage(m.live_count)
                others = set().union(*(kinds for s, kinds in enumerate(info.discarded)
                                       if s != seat))
                for k in range(NUM_KINDS):
                    u = info.unseen[k]
                    if u:
                        cell = (category(an.natural(k, info.caishen)), u, st, k in others)
                        row = acc[cell]
                        row[0] += live[k]
                        row[1] += u * spread
                        row[2] += 1
            m.apply(bots[seat].choose(view, legal))
    return acc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=10_000)
    ap.add_argument("--min", type=int, default=500, help="fewest turns a cell needs")
    args = ap.parse_args()
    acc = measure(args.matches, args.seed)
    for cell in sorted(acc):
        found, expected, turns = acc[cell]
        if turns >= args.min and expected:
            print(f"{cell!r}: {found / expected:.2f}  ({int(turns)} turns)")


if __name__ == "__main__":
    main()
