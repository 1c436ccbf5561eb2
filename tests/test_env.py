"""RL adapters: PettingZoo AEC (every seat) and Gymnasium (one seat vs bots)."""

import numpy as np
import pytest
from pettingzoo.test import api_test

from hzmj.env.encoding import ACTION_SIZE, OBS_SHAPE, action_index, encode_view
from hzmj.env.gym_env import HzmjSeatEnv
from hzmj.env.pettingzoo_env import HzmjAECEnv
from hzmj.events import Chow, Discard, Kong, Pass
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.tiles import tile


def test_action_index_table() -> None:
    cs = tile("5m")
    assert action_index(Discard(0, tile("3p")), cs, None) == tile("3p")
    assert action_index(Kong(0, tile("9s"), "concealed"), cs, None) == 35 + tile("9s")
    assert action_index(Pass(1), cs, tile("4m")) == 73
    # RULES §5.2: a white dragon plays as 5m; 4m 白 + claimed 6m → the claimed tile is highest
    assert action_index(Chow(1, (tile("4m"), tile("P"))), cs, tile("6m")) == 72
    assert action_index(Chow(1, (tile("7m"), tile("8m"))), cs, tile("6m")) == 70


def test_observation_uses_only_the_seat_view() -> None:
    match = Match(Rules(), seed=3)
    seat = match.to_move()[0]
    obs = encode_view(match.view(seat))
    assert obs.shape == OBS_SHAPE
    assert obs[0].sum() == 14  # the dealer's own 14 tiles (RULES §4.4)
    other = (seat + 1) % 4
    assert encode_view(match.view(other))[0].sum() == 13


def test_pettingzoo_api_and_a_full_random_episode() -> None:
    env = HzmjAECEnv(Rules(), max_hands=2)
    api_test(env, num_cycles=200)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    total = {a: 0.0 for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter(max_iter=100_000):
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
        steps += 1
    assert steps > 50
    assert sum(total.values()) == 0  # settlements are zero-sum (RULES §10.6)


def test_pettingzoo_rejects_masked_action() -> None:
    env = HzmjAECEnv(Rules())
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(bad)


def test_gym_env_plays_one_seat_against_bots() -> None:
    env = HzmjSeatEnv(Rules(), seat=2, opponents="random", max_hands=1)
    obs, info = env.reset(seed=5)
    assert obs["action_mask"].shape == (ACTION_SIZE,)
    done = False
    rewards = 0.0
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, done, _, info = env.step(int(legal[-1]))
        rewards += reward
    assert info["hands"] == 1
    assert rewards == info["points"][2]
