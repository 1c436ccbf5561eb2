"""Where one bot departs from another, by kind of situation, and what each departure is worth.

    uv run python benchmarks/departures.py [--bot strong] [--reference efficiency]
        [--seeds 100:150] [--log FILE] [--report FILE ...]

Seat 0 is played by ``--bot`` against three efficiency bots; at each of its decisions with
a choice, ``--reference`` is asked too.  Where they differ, the real match is cloned twice
(``Match.clone``): one clone takes the bot's action, the other the reference's, and both
play on to the end of the hand with ``--bot`` in seat 0 (the same bots as the real match).
The difference of seat 0's points is that departure's value on the real tiles: a sample of
``Q(bot's move) − Q(reference's move)`` under the bot's own policy, paired (one policy-
improvement step: a kind of situation whose departures lose on average is where the bot
should play the reference's move instead).

Each departure is logged (JSON lines, ``--log``) with the situation's features: the
phase, both actions, the shanten of the hand before the decision, the 财神 held, own
draws left, the dealer and its level, the 摊 the seat has taken.  ``--report`` reads such
logs and prints the count, total, mean and standard error per kind of situation.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from diagnose_expert import finish_hand
from hzmj.bots import analysis as an
from hzmj.bots.base import Bot
from hzmj.bots.efficiency import hand_state
from hzmj.bots.registry import make_bot
from hzmj.bots.seat import SeatInfo, read_seat
from hzmj.bots.strong import baotou_distance, claim_cost
from hzmj.events import Action, Discard
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.tiles import Tile, format_tiles


def _shown(a: Action) -> str:
    tile = getattr(a, "tile", None)
    return f"{a.type}:{format_tiles([tile])}" if tile is not None else a.type


def features(view: dict[str, object], mine: Action, theirs: Action) -> dict[str, object]:
    """What the departure's situation looks like from the seat (its view only)."""
    info = read_seat(view)
    state = hand_state(info)
    return {
        "phase": view["phase"], "bot": _shown(mine), "reference": _shown(theirs),
        "kind": f"{view['phase']}:{theirs.type}->{mine.type}",
        "shanten": an.shanten(state), "caishen": sum(t == info.caishen for t in info.concealed),
        "draws_left": info.draws_left, "melds": info.melds,
        "dealer": info.dealer == info.seat, "level": info.level,
        "claim_from": (None if info.claim_from is None
                       else (info.claim_from - info.seat) % info.players),
        "tan_taken": max([n for (a, _), n in info.tan.items() if a == info.seat], default=0),
        **({f"{who}_after": _after(info, state, a.tile) for who, a in (("bot", mine),
                                                                        ("ref", theirs))}
           if isinstance(mine, Discard) and isinstance(theirs, Discard) else {}),
    }


def _after(info: SeatInfo, state: an.State, tile: Tile) -> dict[str, object]:
    """A discard's result: shanten, useful kinds, the 爆头 distance, the claim cost."""
    after = an.remove(state, an.natural(tile, info.caishen))
    return {"shanten": an.shanten(after), "useful": len(an.useful(after)),
            "baotou": baotou_distance(after), "claim": round(claim_cost(info, tile), 3)}


class Without:
    """The bot ``name``'s best action that is not of a type in ``types`` (pass instead of
    its claim, a discard instead of its kong, …): ``--reference strong-without:chow,pong``
    measures what the bot's own chows and pongs are worth, decision by decision."""

    def __init__(self, name: str, types: set[str], seed: int) -> None:
        self.bot = make_bot(name, seed)
        self.types = types

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        allowed = [a for a in legal if a.type not in self.types]
        if not allowed or len(allowed) == len(legal):
            return self.bot.choose(view, legal)
        ranked = self.bot.explain(view, legal, include=allowed[0])
        return next((c.action for c in ranked if c.action.type not in self.types), allowed[0])


class With:
    """The bot ``name`` that always takes an action of a type in ``types`` when one is
    legal (the best of them by the bot's own ranking), else plays as the bot:
    ``--reference strong-with:pong`` measures the pongs the bot passes up."""

    def __init__(self, name: str, types: set[str], seed: int) -> None:
        self.bot = make_bot(name, seed)
        self.types = types

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        wanted = [a for a in legal if a.type in self.types]
        if not wanted:
            return self.bot.choose(view, legal)
        ranked = self.bot.explain(view, legal, include=wanted[0])
        return next((c.action for c in ranked if c.action.type in self.types), wanted[0])


class Patched:
    """The strong bot with some of its module constants set otherwise while it decides
    (``strong+FEED_CLAIM=0.15,LOSS=0.5``, as ``benchmarks/strong_variant.py`` takes them):
    a variant measured decision by decision against the bot as it is."""

    def __init__(self, name: str, settings: str, seed: int) -> None:
        from hzmj.bots import strong

        self.module = strong
        self.bot = make_bot(name, seed)
        self.values: dict[str, object] = {}
        for item in settings.split(","):
            key, _, value = item.partition("=")
            old = getattr(strong, key)
            self.values[key] = value == "1" if isinstance(old, bool) else type(old)(value)

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        saved = {k: getattr(self.module, k) for k in self.values}
        for k, v in self.values.items():
            setattr(self.module, k, v)
        try:
            return self.bot.choose(view, legal)
        finally:
            for k, v in saved.items():
                setattr(self.module, k, v)


def reference_bot(spec: str, seed: int) -> Bot:
    """``NAME``, ``NAME-without:TYPE,TYPE`` (:class:`Without`), ``NAME-with:TYPE,TYPE``
    (:class:`With`) or
    ``strong+KEY=VALUE,…`` (:class:`Patched`)."""
    name, _, types = spec.partition("-without:")
    if types:
        return Without(name, set(types.split(",")), seed)
    name, _, types = spec.partition("-with:")
    if types:
        return With(name, set(types.split(",")), seed)
    name, _, settings = spec.partition("+")
    return Patched(name, settings, seed) if settings else make_bot(name, seed)


def departures(bot_name: str, reference: str, seeds: Iterable[int],
               log: Callable[[dict[str, object]], None]) -> None:
    """Play ``seeds`` (one match each, default rules) and ``log`` every departure."""
    for seed in seeds:
        bot = make_bot(bot_name, seed)
        ref = reference_bot(reference, seed)
        rest = [make_bot("efficiency", seed * 10 + s) for s in (1, 2, 3)]
        bots = [bot, *rest]
        match = Match(Rules(), seed, log=False)
        while not match.over:
            seat = match.to_move()[0]
            legal = match.legal_actions(seat)
            if seat != 0 or len(legal) == 1:
                match.apply(bots[seat].choose(match.view(seat), legal))
                continue
            view = match.view(0)
            mine, theirs = bot.choose(view, legal), ref.choose(view, legal)
            if mine != theirs:
                done = len(match.results)
                a, b = match.clone(), match.clone()
                a.apply(mine)
                b.apply(theirs)
                value = finish_hand(a, bots, done) - finish_hand(b, bots, done)
                log({"seed": seed, "hand": done, **features(view, mine, theirs),
                     "value": value})
            match.apply(mine)
        log({"seed": seed, "hands": len(match.results)})


def report(rows: list[dict[str, object]], keys: tuple[str, ...]) -> None:
    """Count, total, mean and s.e. of the value per combination of ``keys``."""
    groups: dict[tuple[object, ...], list[float]] = defaultdict(list)
    for row in rows:
        groups[tuple(row[k] for k in keys)].append(float(row["value"]))  # type: ignore[arg-type]
    print(f"{' / '.join(keys):48} {'n':>5} {'total':>7} {'mean':>7} {'s.e.':>6}")
    for key, vals in sorted(groups.items(), key=lambda kv: str(kv[0])):
        se = statistics.stdev(vals) / math.sqrt(len(vals)) if len(vals) > 1 else float("nan")
        print(f"{' / '.join(map(str, key)):48} {len(vals):5d} {sum(vals):+7.0f} "
              f"{statistics.fmean(vals):+7.2f} {se:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", default="strong")
    parser.add_argument("--reference", default="efficiency")
    parser.add_argument("--seeds", default="100:150", help="match seeds, START:STOP")
    parser.add_argument("--log", type=Path, help="append each departure (JSON lines)")
    parser.add_argument("--report", type=Path, nargs="+", metavar="FILE",
                        help="summarise logs instead of playing")
    parser.add_argument("--by", default="kind",
                        help="comma-separated features to group the report by")
    args = parser.parse_args()
    if args.report:
        lines = [json.loads(line) for p in args.report for line in p.read_text().splitlines()]
        rows = [r for r in lines if "value" in r]
        hands = sum(r["hands"] for r in lines if "hands" in r)
        total = sum(r["value"] for r in rows)
        print(f"{len(rows)} departures in {hands} hands: {total:+d} points "
              f"({total / max(1, hands):+.3f} a hand)")
        report(rows, tuple(args.by.split(",")))
        return
    start, _, stop = args.seeds.partition(":")

    def log(row: dict[str, object]) -> None:
        line = json.dumps(row)
        if args.log is None:
            print(line)
            return
        with args.log.open("a") as f:
            f.write(line + "\n")

    departures(args.bot, args.reference, range(int(start), int(stop)), log)


if __name__ == "__main__":
    sys.exit(main())
