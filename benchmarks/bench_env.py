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
import json
import random
import statistics
import time
from typing import Any

import numpy as np

from hzmj.env.pettingzoo_env import HzmjAECEnv
from hzmj.env.vector import HzmjVectorEnv
from hzmj.rules import Rules

VECTOR_TABLES = 64


def hzmj_steps_per_s(env: HzmjAECEnv, steps: int, rng: random.Random) -> float:
    """AEC steps per CPU second (see the module docstring)."""
    done = 0
    start = time.process_time()
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
    return done / (time.process_time() - start)


def vector_steps_per_s(venv: HzmjVectorEnv, steps: int, rng: random.Random) -> float:
    """Table-steps per CPU second of the vectorised helper."""
    _, mask, _ = venv.reset(seed=rng.getrandbits(32))
    done = 0
    start = time.process_time()
    while done < steps:
        actions = [int(np.flatnonzero(row)[-1]) if rng.random() < 0.5 else
                   int(rng.choice(np.flatnonzero(row))) for row in mask]
        _, mask, _, _, _ = venv.step(actions)
        done += venv.num_tables
    return done / (time.process_time() - start)


def rlcard_env(seed: int) -> Any:
    import rlcard

    return rlcard.make("mahjong", config={"seed": seed})


def rlcard_steps_per_s(env: Any, steps: int, rng: random.Random) -> float:
    """RLCard steps per CPU second (see the module docstring)."""
    done = 0
    start = time.process_time()
    state, _ = env.reset()
    while done < steps:
        legal = list(state["legal_actions"])
        state, _ = env.step(legal[int(rng.random() * len(legal))])
        done += 1
        if env.is_over():
            state, _ = env.reset()
    return done / (time.process_time() - start)


def compiled() -> bool:
    import hzmj.game

    return not hzmj.game.__file__.endswith(".py")


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
    hzmj_steps_per_s(env, 2000, rng)  # warm the hand-analysis memo
    ours, vec, theirs = [], [], []
    for _ in range(args.rounds):  # interleaved: a slow spell hits every side alike
        ours.append(hzmj_steps_per_s(env, args.steps, rng))
        vec.append(vector_steps_per_s(venv, args.steps, rng))
        theirs.append(rlcard_steps_per_s(theirs_env, args.rlcard_steps, rng))
    result = {
        "compiled": compiled(),
        "steps_per_s": round(statistics.median(ours)),
        "vector_steps_per_s": round(statistics.median(vec)),
        "rlcard_steps_per_s": round(statistics.median(theirs)),
        "ratio": round(statistics.median(o / t for o, t in zip(ours, theirs, strict=True)), 2),
        "vector_ratio": round(statistics.median(v / t for v, t in zip(vec, theirs, strict=True)),
                              2),
        "steps": args.steps,
        "rlcard_steps": args.rlcard_steps,
        "rounds": args.rounds,
        "timing": "CPU time; median over interleaved rounds",
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>20}: {value}")


if __name__ == "__main__":
    main()
