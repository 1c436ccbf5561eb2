"""How much of a bot's points pass through the 摊 contracts (三摊承包, RULES §10.4).

    uv run python benchmarks/contract_flows.py --bot strong --matches 100 --seed 100
    uv run python benchmarks/contract_flows.py --bot efficiency --matches 100 --seed 100

Plays ``--matches`` matches (default rules: ``three_tan_contract`` and
``pong_counts_as_tan`` on) with ``--bot`` in seat 0 and efficiency bots elsewhere; the
same seeds give the same walls, so two runs compare two bots on the same deals.  For each
contract payment (``chengbao``: the winner took 3+ 摊 from the payer, who pays ``T``;
``fan_chengbao``: the payer took 3+ 摊 from the winner and pays ``2T``;
``houbanchang_chengbao``) it prints how often seat 0 paid it, received it, or neither,
with the points moved, in total and per hand (gross: a contract's payment stands in for
the ordinary shares, so 2T received is T more than a plain win).  Other payments are left
out.
"""

from __future__ import annotations

import argparse
from collections import Counter

from hzmj.bots.registry import make_bot
from hzmj.game import Match
from hzmj.rules import Rules

CONTRACTS = ("chengbao", "fan_chengbao", "houbanchang_chengbao")
"""The payment reasons of RULES §10.4 (not the ordinary shares, nor a discard win's T)."""


def measure(bot: str, matches: int, seed: int) -> tuple[int, Counter[tuple[str, str]],
                                                        Counter[tuple[str, str]]]:
    """``(hands, events, points)``, keyed by ``(reason, "paid" | "received" | "others")``
    from seat 0's side."""
    rules = Rules()
    events: Counter[tuple[str, str]] = Counter()
    points: Counter[tuple[str, str]] = Counter()
    hands = 0
    for s in range(seed, seed + matches):
        m = Match(rules, s)
        bots = [make_bot(bot if i == 0 else "efficiency", s * 10 + i) for i in range(m.n)]
        while not m.over:
            seat = m.to_move()[0]
            m.apply(bots[seat].choose(m.view(seat), m.legal_actions(seat)))
        for res in m.results:
            hands += 1
            for p in res.settlement.payments if res.settlement else ():
                if p.reason not in CONTRACTS:
                    continue
                side = "paid" if p.payer == 0 else "received" if p.payee == 0 else "others"
                events[(p.reason, side)] += 1
                points[(p.reason, side)] += p.amount
    return hands, events, points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", default="strong")
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args()
    hands, events, points = measure(args.bot, args.matches, args.seed)
    print(f"{args.bot} in seat 0, {hands} hands")
    for key in sorted(events):
        reason, side = key
        print(f"  {reason:22} {side:9} {events[key]:4} times {points[key]:6} points "
              f"({points[key] / hands:.3f} a hand)")


if __name__ == "__main__":
    main()
