"""Where a search bot departs from the strong bot, and what each departure is worth.

    uv run python benchmarks/diagnose_expert.py [--bot expert@16] [--seeds 100:112] [--json]
        [--log FILE]      # each match's overrides as it finishes (JSON lines)

Seat 0 is played by ``--bot``; at each of its decisions with a choice the strong bot
(100 ms) is asked too.  Where they differ, the real match is cloned twice (``Match.clone``),
one clone takes the bot's action and the other the strong bot's, and both play on to the
end of the hand with the strong bot in seat 0 and efficiency bots elsewhere (the same
bots as the real match, so the only difference is that one decision): the difference of
seat 0's points is the *value of that override* on the real tiles.  Per kind of override
(``phase:strong's action->bot's action``) it prints the count and the summed value.
Paired on the same tiles, so small samples already say which kinds help.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from hzmj.bots.base import Bot
from hzmj.bots.registry import make_bot
from hzmj.bots.strong import StrongBot
from hzmj.game import Match
from hzmj.rules import Rules


def finish_hand(match: Match, bots: Sequence[Bot], done: int) -> int:
    """Play ``match`` until hand result ``done`` exists; seat 0's points from it."""
    while len(match.results) == done:
        seat = match.to_move()[0]
        match.apply(bots[seat].choose(match.view(seat), match.legal_actions(seat)))
    result = match.results[done]
    return result.settlement.deltas[0] if result.settlement else 0


def diagnose(bot_name: str, seeds: range,
             log: Callable[[dict[str, object]], None] | None = None) -> dict[str, object]:
    """The summary over matches ``seeds``; ``log`` sees each match's overrides."""
    counts: Counter[str] = Counter()
    value: dict[str, list[int]] = defaultdict(list)
    seen: dict[str, int] = {}
    for seed in seeds:
        bot = make_bot(bot_name, seed)
        strong = StrongBot(seed)
        others = [make_bot("efficiency", seed * 10 + s) for s in range(1, 4)]
        future: list[Bot] = [strong, *others]
        match = Match(Rules(), seed, log=False)
        while not match.over:
            seat = match.to_move()[0]
            legal = match.legal_actions(seat)
            if seat != 0 or len(legal) == 1:
                match.apply(future[seat].choose(match.view(seat), legal))
                continue
            view = match.view(0)
            mine, theirs = bot.choose(view, legal), strong.choose(view, legal)
            counts["decisions"] += 1
            if mine != theirs:
                done = len(match.results)
                a, b = match.clone(), match.clone()
                a.apply(mine)
                b.apply(theirs)
                kind = f"{match.phase}:{theirs.type}->{mine.type}"
                value[kind].append(finish_hand(a, future, done) - finish_hand(b, future, done))
            match.apply(mine)
        counts["hands"] += len(match.results)
        if log is not None:
            log({"seed": seed, "hands": len(match.results), "overrides": [
                [k, v] for k, vs in value.items() for v in vs[seen.get(k, 0):]]})
            seen = {k: len(vs) for k, vs in value.items()}
    overrides = {k: {"count": len(v), "value": sum(v)} for k, v in sorted(value.items())}
    total = sum(sum(v) for v in value.values())
    return {"bot": bot_name, "seeds": f"{seeds.start}:{seeds.stop}", **counts,
            "overrides": overrides, "override_value_total": total,
            "override_value_per_hand": round(total / max(1, counts["hands"]), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", default="expert@16")
    parser.add_argument("--seeds", default="100:112", help="match seeds, START:STOP")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--log", type=Path, help="append each match's overrides (JSON lines)")
    args = parser.parse_args()
    start, _, stop = args.seeds.partition(":")
    def log(row: dict[str, object]) -> None:
        if args.log is not None:
            with args.log.open("a") as f:
                f.write(json.dumps(row) + "\n")

    out = diagnose(args.bot, range(int(start), int(stop)), log)
    if args.json:
        print(json.dumps(out))
        return
    print(f"{out['bot']}: {out['decisions']} decisions with a choice in {out['hands']} hands")
    for kind, row in out["overrides"].items():  # type: ignore[attr-defined]
        print(f"  {kind:32} {row['count']:4d} overrides, {row['value']:+5d} points")
    print(f"  total {out['override_value_total']:+d} points "
          f"({out['override_value_per_hand']:+.3f} per hand)")


if __name__ == "__main__":
    main()
