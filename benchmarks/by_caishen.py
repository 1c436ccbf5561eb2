"""Where a bot's points come from, by the most 财神 its hand held during each hand.

    uv run python benchmarks/by_caishen.py --bot strong --matches 300
    uv run python benchmarks/by_caishen.py --bot efficiency --matches 300

Plays ``--matches`` matches (default rules, seeds ``--seed`` onwards) with ``--bot`` in
seat 0 and efficiency bots elsewhere; the same seeds give the same walls, so two runs
compare two bots on the same deals.  For each group of hands (0, 1, 2, 3+ 财神 held at
some own turn) it prints the hands, the wins and their multipliers M (RULES §9), the
wins whose hand was still 爆头-ready after throwing a 财神 (财飘 possible, RULES §7.3),
and the seat's points.
"""

from __future__ import annotations

import argparse
from collections import Counter

from hzmj.bots import analysis as an
from hzmj.bots.efficiency import hand_state
from hzmj.bots.registry import make_bot
from hzmj.bots.seat import read_seat
from hzmj.game import Match
from hzmj.rules import Rules


def measure(bot: str, matches: int, seed: int) -> dict[int, Counter[str]]:
    """``{caishen held (3 = 3+): Counter(hands, wins, M1, M2, …, piao_ready, points)}``."""
    groups: dict[int, Counter[str]] = {w: Counter() for w in range(4)}
    rules = Rules()
    for i in range(matches):
        m = Match(rules, seed + i)
        bots = [make_bot(bot if s == 0 else "efficiency", (seed + i) * 4 + s)
                for s in range(rules.players)]
        most, piao_ready, ended = 0, False, 0
        while not m.over:
            seat = m.to_move()[0]
            legal = m.legal_actions(seat)
            view = m.view(seat)
            if seat == 0 and m.phase == "turn":
                state = hand_state(read_seat(view))
                most = max(most, state[1])
                piao_ready |= state[1] >= 2 and an.baotou_ready(an.remove(state, an.WILD))
            m.apply(bots[seat].choose(view, legal))
            if len(m.results) > ended:
                ended = len(m.results)
                res = m.results[-1]
                g = groups[min(most, 3)]
                g["hands"] += 1
                g["piao_ready"] += piao_ready
                if res.settlement is not None:
                    g["points"] += res.settlement.deltas[0]
                if res.winner == 0 and res.score is not None:
                    g["wins"] += 1
                    g[f"M{res.score.multiplier}"] += 1
                most, piao_ready = 0, False
    return groups


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bot", default="strong")
    ap.add_argument("--matches", type=int, default=300)
    ap.add_argument("--seed", type=int, default=50_000)
    args = ap.parse_args()
    for held, g in measure(args.bot, args.matches, args.seed).items():
        if not g["hands"]:
            continue
        ms = ", ".join(f"{k} {v}" for k, v in sorted(g.items()) if k.startswith("M"))
        print(f"{held}{'+' if held == 3 else ''} 财神: {g['hands']} hands, {g['wins']} wins "
              f"({g['wins'] / g['hands']:.1%}; {ms or 'none'}), 财飘-ready {g['piao_ready']}, "
              f"points {g['points']:+d} ({g['points'] / g['hands']:+.2f} a hand)")


if __name__ == "__main__":
    main()
