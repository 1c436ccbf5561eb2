"""RL environment speed: the PettingZoo AEC env (:mod:`hzmj.env.pettingzoo_env`) and the
vectorised helper (:mod:`hzmj.env.vector`) against RLCard's mahjong environment.

    uv run --group bench python benchmarks/bench_env.py [--json] [--steps N] [--rounds R]

A step is one agent's decision: read its observation and action mask, pick a uniformly
random legal action, apply it — the loop a learner runs.

* hzmj (``steps_per_s``): ``HzmjAECEnv(Rules())`` driven by ``agent_iter`` / ``last`` /
  ``step`` (``last`` builds the observation and mask of the agent to move), episodes of
  one match, reset on the fly.
* hzmj vectorised (``vector_steps_per_s``): ``HzmjVectorEnv(64)``; a step of 64 tables
  counts as 64 steps.
* RLCard 1.2.0 (``rlcard_steps_per_s``): ``rlcard.make("mahjong")``; ``env.step(a)`` with
  a random legal action of the returned state (RLCard builds the next player's
  observation on every step), ``env.reset()`` when the hand is over.

Timed in process CPU time, in interleaved rounds; ``ratio`` is the median of the
per-round ratios hzmj / RLCard.  ``compiled`` says whether the engine is the mypyc build.
"""

from __future__ import annotations

import argparse
import random
import statistics
from typing import Any

import numpy as np

from hzmj.env.pettingzoo_env import HzmjAECEnv
from hzmj.env.vector import HzmjVectorEnv
from hzmj.rules import Rules
from interleave import compiled, interleaved, median_ratio, report

VECTOR_TABLES = 64


def hzmj_steps(env: HzmjAECEnv, steps: int, rng: random.Random) -> int:
    """Take ``steps`` AEC steps (see the module docstring); return their number."""
    done = 0
    while done < steps:
        env.reset(seed=rng.getrandbits(32))
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
            done += 1
            del agent
            if done >= steps:
                break
    return done


def vector_steps(venv: HzmjVectorEnv, steps: int, rng: random.Random) -> int:
    """Step every table of ``venv`` until ``steps`` table-steps are done; return them."""
    obs, _ = venv.reset(seed=rng.getrandbits(32))
    done = 0
    while done < steps:
        actions = [int(np.flatnonzero(row)[-1]) if rng.random() < 0.5 else
                   int(rng.choice(np.flatnonzero(row))) for row in obs["action_mask"]]
        obs, *_ = venv.step(actions)
        done += venv.num_tables
    return done


def rlcard_env(seed: int) -> Any:
    import rlcard

    return rlcard.make("mahjong", config={"seed": seed})


def rlcard_steps(env: Any, steps: int, rng: random.Random) -> int:
    """Take ``steps`` RLCard steps (see the module docstring); return their number."""
    done = 0
    state, _ = env.reset()
    while done < steps:
        legal = list(state["legal_actions"])
        state, _ = env.step(legal[int(rng.random() * len(legal))])
        done += 1
        if env.is_over():
            state, _ = env.reset()
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--steps", type=int, default=20_000, help="hzmj steps per round")
    parser.add_argument("--rlcard-steps", type=int, default=4_000, help="RLCard steps per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    env = HzmjAECEnv(Rules())
    venv = HzmjVectorEnv(VECTOR_TABLES)
    theirs_env = rlcard_env(args.seed)
    hzmj_steps(env, 2000, rng)  # warm the hand-analysis memo
    rates = interleaved({
        "ours": lambda r: hzmj_steps(env, args.steps, rng),
        "vector": lambda r: vector_steps(venv, args.steps, rng),
        "theirs": lambda r: rlcard_steps(theirs_env, args.rlcard_steps, rng),
    }, args.rounds)
    ours, vec, theirs = rates["ours"], rates["vector"], rates["theirs"]
    result = {
        "compiled": compiled(),
        "steps_per_s": round(statistics.median(ours)),
        "vector_steps_per_s": round(statistics.median(vec)),
        "rlcard_steps_per_s": round(statistics.median(theirs)),
        "ratio": round(median_ratio(ours, theirs), 2),
        "vector_ratio": round(median_ratio(vec, theirs), 2),
        "steps": args.steps,
        "rlcard_steps": args.rlcard_steps,
        "rounds": args.rounds,
        "timing": "CPU time; median over interleaved rounds",
    }
    report(result, args.json)


if __name__ == "__main__":
    main()
