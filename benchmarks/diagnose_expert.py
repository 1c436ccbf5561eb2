"""Where a search bot departs from the strong bot, and what each departure is worth.

    uv run python benchmarks/diagnose_expert.py [--bot expert@16] [--seeds 100:112] [--json]
        [--log FILE]      # each match's overrides as it finishes (JSON lines)
        [--recheck N]     # each override searched again over N worlds
        [--others strong,efficiency,efficiency]   # seats 1-3 (default: efficiency)
        [--policy]        # value whole lines of play instead of single departures

Seat 0 is played by ``--bot``; at each of its decisions with a choice the strong bot
(100 ms) is asked too.  Where they differ, the real match is cloned twice (``Match.clone``),
one clone takes the bot's action and the other the strong bot's, and both play on to the
end of the hand with the strong bot in seat 0 and efficiency bots elsewhere (the same
bots as the real match, so the only difference is that one decision): the difference of
seat 0's points is the *value of that override* on the real tiles.  Per kind of override
(``phase:strong's action->bot's action``) it prints the count and the summed value.
Paired on the same tiles, so small samples already say which kinds help.

``--recheck N`` tells noise from bias: each override is searched again from the seat's
view over ``N`` fresh worlds (the expert's own play-outs, paired).  Overrides the long
search still prefers are what the search's *model* (random worlds, efficiency play-outs)
believes; if those lose on the real tiles, the model is biased and more samples will not
help.  Overrides it no longer prefers were the short search's noise.

``--policy`` values *lines of play* instead: at the first departure in each hand, the
clone that takes the bot's action plays on with the bot in seat 0 (its later departures
included), the other with the strong bot.  Summed over hands this is the bot − strong
difference in seat 0 on the same tiles, hand by hand: a single departure may be worth
something while the plan the search keeps following is not.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from hzmj.bots.base import Bot
from hzmj.bots.expert import search, view_seed
from hzmj.bots.registry import make_bot
from hzmj.bots.strong import StrongBot
from hzmj.determinize import determinize
from hzmj.events import Action
from hzmj.game import Match
from hzmj.rules import Rules


def finish_hand(match: Match, bots: Sequence[Bot], done: int) -> int:
    """Play ``match`` until hand result ``done`` exists; seat 0's points from it."""
    while len(match.results) == done:
        seat = match.to_move()[0]
        match.apply(bots[seat].choose(match.view(seat), match.legal_actions(seat)))
    result = match.results[done]
    return result.settlement.deltas[0] if result.settlement else 0


def recheck(view: dict[str, object], mine: Action, theirs: Action, worlds: int) -> float:
    """The search's paired mean of (points after ``mine``) − (after ``theirs``) over
    ``worlds`` fresh worlds dealt from the seat's view (a seed unlike the bot's)."""
    base = view_seed(987654321, view)
    values = search([mine, theirs], 0, lambda i: determinize(view, random.Random(base + i)),
                    lambda i: i < worlds)
    diffs = [x - y for x, y in zip(values[mine], values[theirs], strict=True)]
    return statistics.fmean(diffs) if diffs else 0.0


def diagnose(bot_name: str, seeds: range,
             log: Callable[[dict[str, object]], None] | None = None,
             worlds: int = 0,
             others: Sequence[str] = ("efficiency",) * 3,
             policy: bool = False) -> dict[str, object]:
    """The summary over matches ``seeds``; ``log`` sees each match's overrides;
    ``worlds`` > 0 rechecks each override over that many worlds (see the module doc);
    ``others`` names the bots of seats 1–3; ``policy``: lines of play (module doc)."""
    counts: Counter[str] = Counter()
    rechecked: list[tuple[float, int]] = []  # (long search's value, value on the tiles)
    value: dict[str, list[int]] = defaultdict(list)
    seen: dict[str, int] = {}
    for seed in seeds:
        bot = make_bot(bot_name, seed)
        strong = StrongBot(seed)
        rest = [make_bot(name, seed * 10 + s) for s, name in enumerate(others, 1)]
        future: list[Bot] = [strong, *rest]
        match = Match(Rules(), seed, log=False)
        valued_hand = -1  # policy mode: the hand whose first departure was valued
        while not match.over:
            seat = match.to_move()[0]
            legal = match.legal_actions(seat)
            if seat != 0 or len(legal) == 1:
                match.apply(future[seat].choose(match.view(seat), legal))
                continue
            view = match.view(0)
            mine, theirs = bot.choose(view, legal), strong.choose(view, legal)
            counts["decisions"] += 1
            if mine != theirs and not (policy and valued_hand == len(match.results)):
                done = valued_hand = len(match.results)
                a, b = match.clone(), match.clone()
                a.apply(mine)
                b.apply(theirs)
                kind = f"{match.phase}:{theirs.type}->{mine.type}"
                ours = [bot, *rest] if policy else future
                real = finish_hand(a, ours, done) - finish_hand(b, future, done)
                value[kind].append(real)
                if worlds:
                    rechecked.append((recheck(view, mine, theirs, worlds), real))
            match.apply(mine)
        counts["hands"] += len(match.results)
        if log is not None:
            log({"seed": seed, "hands": len(match.results), "overrides": [
                [k, v] for k, vs in value.items() for v in vs[seen.get(k, 0):]]})
            seen = {k: len(vs) for k, vs in value.items()}
    overrides = {k: {"count": len(v), "value": sum(v)} for k, v in sorted(value.items())}
    total = sum(sum(v) for v in value.values())
    out: dict[str, object] = {
        "bot": bot_name, "others": list(others), "mode": "policy" if policy else "step",
        "seeds": f"{seeds.start}:{seeds.stop}",
        **counts,
        "overrides": overrides, "override_value_total": total,
        "override_value_per_hand": round(total / max(1, counts["hands"]), 3)}
    if worlds:
        kept = [real for model, real in rechecked if model > 0]
        dropped = [real for model, real in rechecked if model <= 0]
        out["recheck"] = {
            "worlds": worlds,
            "still_preferred": len(kept), "real_value_still_preferred": sum(kept),
            "no_longer_preferred": len(dropped), "real_value_no_longer": sum(dropped),
            "pairs": [[round(model, 2), real] for model, real in rechecked]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", default="expert@16")
    parser.add_argument("--seeds", default="100:112", help="match seeds, START:STOP")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--log", type=Path, help="append each match's overrides (JSON lines)")
    parser.add_argument("--recheck", type=int, default=0, metavar="N",
                        help="search each override again over N worlds (noise or bias)")
    parser.add_argument("--others", default="efficiency,efficiency,efficiency",
                        help="the bots of seats 1-3, comma-separated")
    parser.add_argument("--policy", action="store_true",
                        help="value the bot's line of play from each hand's first departure")
    args = parser.parse_args()
    start, _, stop = args.seeds.partition(":")
    def log(row: dict[str, object]) -> None:
        if args.log is not None:
            with args.log.open("a") as f:
                f.write(json.dumps(row) + "\n")

    others = args.others.split(",")
    if len(others) != 3:
        parser.error("--others names three bots (seats 1-3)")
    out = diagnose(args.bot, range(int(start), int(stop)), log, args.recheck, others,
                   args.policy)
    if args.json:
        print(json.dumps(out))
        return
    print(f"{out['bot']}: {out['decisions']} decisions with a choice in {out['hands']} hands")
    for kind, row in out["overrides"].items():  # type: ignore[attr-defined]
        print(f"  {kind:32} {row['count']:4d} overrides, {row['value']:+5d} points")
    print(f"  total {out['override_value_total']:+d} points "
          f"({out['override_value_per_hand']:+.3f} per hand)")
    if "recheck" in out:
        r = out["recheck"]
        print(f"  rechecked over {r['worlds']} worlds: {r['still_preferred']} still "  # type: ignore[index]
              f"preferred ({r['real_value_still_preferred']:+d} points on the tiles), "  # type: ignore[index]
              f"{r['no_longer_preferred']} not ({r['real_value_no_longer']:+d})")  # type: ignore[index]


if __name__ == "__main__":
    main()
