"""A long duplicate arena that survives interruption: `hzmj arena` match by match, saved.

    uv run python benchmarks/arena_resumable.py --bots expert@8,strong,efficiency,efficiency \\
        --hands 400 --seed 1 --out /tmp/expert.jsonl [--workers 2]
    uv run python benchmarks/arena_resumable.py --bots … --hands 400 --seed 1 \\
        --out /tmp/expert.jsonl --report        # summarise what has finished

The same plan as ``hzmj arena --bots … --hands N --seed S --duplicate`` (the same match
seeds and bot seeds, :func:`hzmj.arena.plan`), played on a process pool; every finished
match is appended to ``--out`` at once, and a rerun skips the matches already there.
``--report`` prints ``hzmj arena --json``'s summary over the deals whose every rotation
has finished, so a run cut short on a loaded machine still gives paired figures over
its first deals; once all have finished it equals the ``hzmj arena`` run.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from hzmj.arena import Game, GameResult, SeatResult, plan, play_game, summarise
from hzmj.rules import Rules


def _dump(result: GameResult) -> str:
    g = result.game
    return json.dumps({"deal": g.deal, "seed": g.seed, "rotation": g.rotation,
                       "seats": [[s.name, s.hand_points, s.multipliers, s.decision_seconds]
                                 for s in result.seats]})


def _load(line: str) -> GameResult:
    d: dict[str, Any] = json.loads(line)
    seats = tuple(SeatResult(n, tuple(p), tuple(m), tuple(t)) for n, p, m, t in d["seats"])
    return GameResult(Game(d["deal"], d["seed"], d["rotation"], tuple(s.name for s in seats)),
                      seats)


def _one(args: tuple[Rules, Game]) -> GameResult:
    return play_game(*args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", required=True)
    parser.add_argument("--hands", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    rules = Rules()
    games = plan(args.bots.split(","), rules, args.hands, args.seed, duplicate=True)
    lines = args.out.read_text().splitlines() if args.out.exists() else []
    done = [_load(line) for line in lines]
    have = {(r.game.deal, r.game.rotation) for r in done}
    if args.report:
        per_deal = {g.deal for g in games}
        complete = {d for d in per_deal
                    if all((d, g.rotation) in have for g in games if g.deal == d)}
        kept = sorted((r for r in done if r.game.deal in complete),
                      key=lambda r: (r.game.deal, r.game.rotation))
        report = summarise(kept) if kept else {}
        report.update({"planned_deals": len(per_deal), "complete_deals": len(complete),
                       "bots_by_seat": args.bots.split(","), "seed": args.seed})
        print(json.dumps(report))
        return
    todo = [g for g in games if (g.deal, g.rotation) not in have]
    with ProcessPoolExecutor(max_workers=args.workers) as pool, args.out.open("a") as out:
        futures = [pool.submit(_one, (rules, g)) for g in todo]  # in deal order
        for fut in as_completed(futures):
            out.write(_dump(fut.result()) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
