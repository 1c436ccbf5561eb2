"""Full-hand speed of the engine (:mod:`hzmj.game`) against RLCard's mahjong environment.

    uv run --group bench python benchmarks/bench_game.py [--json] [--hands N] [--rlcard-hands N]

Both sides play whole hands with four uniform random players, single process, timed in
process CPU time (so other load on the machine disturbs the figures less):

* hzmj: default rules (4 players, 翻财神, every claim offered: chow, pong, kong, wins),
  four :class:`hzmj.bots.random_bot.RandomBot` seats driven through ``to_move`` /
  ``legal_actions`` / ``apply``; matches of 8 hands are played back to back.  The
  random bot ignores the view, so ``hzmj_hands_per_s`` leaves it out;
  ``hzmj_hands_per_s_with_views`` also builds ``view(seat)`` before every move, as a
  driver that shows the table (or a bot that reads it) does.
* RLCard 1.2.0: ``rlcard.make("mahjong")`` with its ``RandomAgent`` on every seat,
  ``env.run(is_training=False)`` per hand (RLCard builds each player's observation on
  every step).

Output: ``{"hzmj_hands_per_s", "rlcard_hands_per_s", "ratio", ...}`` with ``ratio`` =
hzmj / RLCard.  Also, for search and simulation:

* ``nolog_hands_per_s`` / ``nolog_ratio``: the same hands with ``Match(..., log=False)``,
  in the same interleaved rounds against RLCard;
* ``clone_us``: µs per ``Match.clone()`` of positions along random hands (median);
* ``rollouts_per_100ms``: from such positions, how many random rollouts (a
  ``clone(hand_only=True)``, then uniform random legal actions to the hand's end) fit in
  100 ms of CPU (median);
* ``compiled``: whether the engine runs as the mypyc build (docs/performance.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import time
from pathlib import Path
from typing import Any

from hzmj.bots.random_bot import RandomBot
from hzmj.game import Match
from hzmj.rules import Rules
from interleave import compiled, interleaved, median_ratio, report


def hzmj_hands(hands: int, seed: int, *, views: bool, log: bool = True) -> int:
    """Play whole matches of four random bots (default rules) from ``seed`` on until at
    least ``hands`` hands are played; return the hands played."""
    bots = [RandomBot(seed + i) for i in range(4)]
    played = 0
    match_seed = seed
    while played < hands:
        m = Match(Rules(), match_seed, log=log)
        while not m.over:
            seat = m.to_move()[0]
            view = m.view(seat) if views else {}
            m.apply(bots[seat].choose(view, m.legal_actions(seat)))
        played += m.hand_no
        match_seed += 1
    return played


def positions(count: int, seed: int) -> list[Match]:
    """``count`` unlogged positions spread over random hands (the search's inputs)."""
    rng = random.Random(seed)
    out: list[Match] = []
    while len(out) < count:
        m = Match(Rules(), rng.getrandbits(32), log=False)
        stop = rng.randrange(1, 120)
        while m.hand_no == 1 and m.state_id < stop:
            seat = m.to_move()[0]
            m.apply(rng.choice(m.legal_actions(seat)))
        if m.hand_no == 1:
            out.append(m)
    return out


def clone_us(matches: list[Match], repeats: int = 200) -> float:
    """Median µs per ``clone()`` over ``matches`` (CPU time)."""
    per = []
    for m in matches:
        start = time.process_time()
        for _ in range(repeats):
            m.clone()
        per.append((time.process_time() - start) / repeats * 1e6)
    return statistics.median(per)


def rollout(m: Match, rng: random.Random) -> None:
    """Uniform random legal actions on a clone of ``m`` until its hand ends (a
    ``hand_only`` clone, which stops there instead of dealing the next hand)."""
    sim = m.clone(hand_only=True)
    while not sim.over:
        seat = sim.to_move()[0]
        legal = sim.legal_actions(seat)
        sim.apply(legal[int(rng.random() * len(legal))])


def rollouts_per_100ms(matches: list[Match], seed: int, budget: float = 0.1) -> float:
    """Median over ``matches`` of the rollouts that fit in ``budget`` CPU seconds."""
    rng = random.Random(seed)
    counts = []
    for m in matches:
        done = 0
        start = time.process_time()
        while time.process_time() - start < budget:
            rollout(m, rng)
            done += 1
        counts.append(done * 0.1 / (time.process_time() - start))
    return statistics.median(counts)


def _rlcard_random_agent() -> Any:
    """RLCard's ``RandomAgent`` class.  ``rlcard.agents/__init__`` shells out to
    ``pip freeze``, which a uv environment lacks, so its module file is loaded alone."""
    import rlcard

    path = Path(rlcard.__file__).parent / "agents" / "random_agent.py"
    spec = importlib.util.spec_from_file_location("rlcard_random_agent", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.RandomAgent


def rlcard_env(seed: int) -> Any:
    """RLCard's mahjong with four random agents."""
    import numpy as np
    import rlcard

    np.random.seed(seed)  # RandomAgent draws from numpy's global generator
    env = rlcard.make("mahjong")
    agent = _rlcard_random_agent()
    env.set_agents([agent(num_actions=env.num_actions) for _ in range(env.num_players)])
    return env


def rlcard_hands(env: Any, hands: int) -> int:
    """Play ``hands`` hands of ``env`` (see :func:`rlcard_env`); return their number."""
    for _ in range(hands):
        env.run(is_training=False)
    return hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--hands", type=int, default=2000, help="hzmj hands to play")
    parser.add_argument("--rlcard-hands", type=int, default=100, help="RLCard hands to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--positions", type=int, default=20,
                        help="positions for clone_us and rollouts_per_100ms")
    parser.add_argument("--rounds", type=int, default=5,
                        help="interleaved rounds (each side plays hands/rounds per round)")
    args = parser.parse_args()
    random.seed(args.seed)
    per_round = args.hands // args.rounds
    # warm the hand-analysis memo (filled on first use) on the very hands timed below, so
    # that the logged run, timed first in each round, does not fill it for the quiet one
    for r in range(args.rounds):
        hzmj_hands(per_round, args.seed + 1000 * r, views=False, log=False)
    env = rlcard_env(args.seed)
    # the logged and the quiet run of a round deal the same hands
    rates = interleaved({
        "ours": lambda r: hzmj_hands(per_round, args.seed + 1000 * r, views=False),
        "quiet": lambda r: hzmj_hands(per_round, args.seed + 1000 * r, views=False, log=False),
        "theirs": lambda r: rlcard_hands(env, max(1, args.rlcard_hands // args.rounds)),
    }, args.rounds)
    ours, quiet, theirs = rates["ours"], rates["quiet"], rates["theirs"]
    start = time.process_time()
    viewed = hzmj_hands(args.hands // 4, args.seed, views=True)
    ours_viewed = viewed / (time.process_time() - start)
    starts = positions(args.positions, args.seed)
    result = {
        "compiled": compiled(),
        "hzmj_hands_per_s": round(statistics.median(ours), 1),
        "rlcard_hands_per_s": round(statistics.median(theirs), 1),
        "ratio": round(median_ratio(ours, theirs), 2),
        "nolog_hands_per_s": round(statistics.median(quiet), 1),
        "nolog_ratio": round(median_ratio(quiet, theirs), 2),
        "clone_us": round(clone_us(starts), 2),
        "rollouts_per_100ms": round(rollouts_per_100ms(starts, args.seed), 1),
        "hzmj_hands_per_s_with_views": round(ours_viewed, 1),
        "hzmj_hands": args.hands,
        "rlcard_hands": args.rlcard_hands,
        "rounds": args.rounds,
        "timing": "CPU time; median over interleaved rounds",
    }
    report(result, args.json)


if __name__ == "__main__":
    main()
