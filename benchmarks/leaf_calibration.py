"""Is the strong bot's value of a hand calibrated?  Its prediction against what happened.

    uv run python benchmarks/leaf_calibration.py --matches 100 --seed 300
    uv run python benchmarks/leaf_calibration.py --matches 100 --seed 300 --set WALL_HAZARD=1

Plays ``--matches`` matches (default rules) with the strong bot in seat 0 and efficiency
bots elsewhere.  At each of seat 0's discards it takes the 13-tile hand left and asks the
strong bot's search for its value ``Q`` (``strong._Search.exact``: the expected M of
seat 0's own self-drawn win from here, each go-around discounted by the others' wins,
RULES §9.1) — the quantity the bot ranks its discards by at shanten ≤ 1.  When the hand
ends, the outcome of each such decision is the M seat 0 won (0 when it did not win).
``--set`` changes the bot's settings as ``strong_variant.py`` does.  Printed first: by
the draws seat 0 had left when it discarded, the share of its go-arounds that ended in
another seat's win (the search's ``1 − rho``); then by shanten, 财神 held and the own
draws left: the number of decisions, the mean predicted ``Q``, the mean outcome and their
ratio (1 = calibrated).  A ratio far from 1
at some shanten means the leaf over- or under-rates that distance from ready against the
others, which is what the search trades (a plain win now against a 爆头-ready hand, a
claim against a pass, more useful draws against a better shape).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from hzmj.bots import analysis as an
from hzmj.bots import strong
from hzmj.bots.efficiency import hand_state
from hzmj.bots.registry import make_bot
from hzmj.bots.seat import read_seat
from hzmj.bots.strong import _Search
from hzmj.events import Discard
from hzmj.game import Match
from hzmj.rules import Rules

Key = tuple[int, int, str]


def draws_bucket(d: int) -> str:
    return "12+" if d >= 12 else "6-11" if d >= 6 else "1-5"


def measure(matches: int, seed: int, max_shanten: int
            ) -> tuple[dict[Key, list[float]], dict[int, list[int]],
                       dict[tuple[int, int], list[int]]]:
    """``({(shanten, 财神 held (2 = 2+), draws bucket): [n, Σ predicted, Σ outcome]},
    {draws left at seat 0's discard: [go-arounds, go-arounds ended by another's win]},
    {(shanten, 财神 held): [go-arounds, go-arounds that lowered the shanten]})``: the last
    counts, from each of seat 0's discards to its next one (its draw, or a claim, RULES
    §6.3) or its win, whether the hand came nearer to ready; a go-around ended by another
    seat's win or the wall is not counted."""
    rules = Rules()
    table: dict[Key, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    hazard: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    progress: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    for s in range(seed, seed + matches):
        m = Match(rules, s, log=False)
        bots = [make_bot("strong" if i == 0 else "efficiency", s * 10 + i) for i in range(m.n)]
        pending: list[tuple[Key, float]] = []
        around: int | None = None  # draws left when seat 0 last discarded
        last: tuple[int, int] | None = None  # (shanten, 财神) after seat 0's last discard
        done = 0
        while not m.over:
            seat = m.to_move()[0]
            view = m.view(seat)
            if seat == 0 and around is not None:  # the go-around passed: seat 0 is back
                hazard[around][0] += 1
                around = None
            action = bots[seat].choose(view, m.legal_actions(seat))
            if seat == 0 and isinstance(action, Discard):
                info = read_seat(view)
                around = info.draws_left
                after = an.remove(hand_state(info), an.natural(action.tile, info.caishen))
                sh = an.shanten(after)
                if last is not None:
                    progress[last][0] += 1
                    progress[last][1] += sh < last[0]
                last = (sh, min(after[1], 2))
                if 0 <= sh <= max_shanten and info.draws_left > 0:
                    search = _Search(info, 1 << 30)
                    q = search.exact(after, search.draws)
                    pending.append(((sh, min(after[1], 2), draws_bucket(search.draws)), q))
            m.apply(action)
            if len(m.results) > done:
                res = m.results[done]
                done += 1
                won = (res.score.multiplier if res.winner == 0 and res.score else 0)
                if last is not None and res.winner == 0:
                    progress[last][0] += 1
                    progress[last][1] += 1
                last = None
                if around is not None:
                    hazard[around][0] += 1
                    hazard[around][1] += res.winner not in (None, 0)
                    around = None
                for key, q in pending:
                    row = table[key]
                    row[0] += 1
                    row[1] += q
                    row[2] += won
                pending = []
    return table, hazard, progress


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--seed", type=int, default=300)
    parser.add_argument("--max-shanten", type=int, default=3)
    parser.add_argument("--set", default="", metavar="KEY=VALUE,...",
                        help="strong bot settings, as benchmarks/strong_variant.py takes them")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from strong_variant import apply

    apply(args.set)
    table, hazard, progress = measure(args.matches, args.seed, args.max_shanten)
    print("draws left at seat 0's discard: go-arounds, share ended by another's win")
    for k in sorted(hazard, reverse=True):
        n, lost = hazard[k]
        print(f"  {k:3} {n:6} {lost / n:6.3f}")
    print("shanten 财神: go-arounds, share that lowered the shanten (own draw or a claim; "
          "at 0: won), the search's TYPICAL_USEFUL (one own draw)")
    for (sh, w), (n, stepped) in sorted(progress.items()):
        if 0 <= sh <= args.max_shanten and n:
            print(f"  {sh:3} {w:3} {n:7} {stepped / n:6.3f} {strong._typical(sh, w):6.3f}")
    print("shanten 财神 draws      n  predicted  outcome  ratio")
    for key in sorted(table, key=lambda k: (k[0], k[1], -int(k[2].split("-")[0].rstrip("+")))):
        n, pred, won = table[key]
        if n:
            ratio = f"{won / pred:5.2f}" if pred else "  -  "
            print(f"{key[0]:7} {key[1]:4} {key[2]:>5} {int(n):6} {pred / n:10.3f} "
                  f"{won / n:8.3f} {ratio}")


if __name__ == "__main__":
    main()
