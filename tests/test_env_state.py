"""The RL encoder that reads the engine state equals the view encoder (RULES §13: both
show a seat exactly what its view shows), on well over 100k observations of random
matches under several room options (RULES §3), every seat at every step."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hzmj.env.encoding import encode_match, encode_view, legal_index_map, match_index_map
from hzmj.env.vector import HzmjVectorEnv
from hzmj.events import Escape
from hzmj.game import Match
from hzmj.rules import Rules

CONFIGS = [
    Rules(),
    Rules(caishen_mode="white", discard_win=True, dealer_start_level=3),
    Rules(players=3, discard_win=True, dealer_start_level=3),
    Rules(players=2, drop_bamboo=True),
    Rules(match_mode="points", start_points=40, must_baotou_with_caishen=True),
]
OBSERVATIONS = 100_000


def test_state_encoder_equals_view_encoder_on_100k_observations() -> None:
    compared = 0
    seed = 0
    while compared < OBSERVATIONS:
        rules = CONFIGS[seed % len(CONFIGS)]
        m = Match(rules, seed, log=False)
        rng = random.Random(seed)
        while True:
            for s in range(m.n):  # every seat, also those not to move (and the spectator-
                view = m.view(s)  # hidden faces of others' concealed kongs)
                got = encode_match(m, s)
                assert got.dtype == np.float32
                assert np.array_equal(got, encode_view(view)), (seed, m.state_id, s)
                assert match_index_map(m, s) == legal_index_map(m.legal_actions(s), view)
                compared += 1
            if m.over:
                break
            seat = m.to_move()[0]
            if rng.random() < 0.001 and not m.is_auto(seat):
                m.apply(Escape(seat))
            else:
                m.apply(rng.choice(m.legal_actions(seat)))
        seed += 1
    assert compared >= OBSERVATIONS


def run_vector(seed: int, steps: int, rules: Rules) -> list[tuple[object, ...]]:
    venv = HzmjVectorEnv(6, rules, max_hands=2)
    obs, infos = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out: list[tuple[object, ...]] = []
    for _ in range(steps):
        # random, but always win when a win (index 34) is offered
        actions = [34 if row[34] else int(rng.choice(np.flatnonzero(row)))
                   for row in obs["action_mask"]]
        for i, m in enumerate(venv.matches):  # each table shows its seat to move
            seat = infos["seat"][i]
            assert seat == m.to_move()[0]
            assert np.array_equal(obs["observation"][i], encode_match(m, seat))
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        assert (rewards.sum(axis=1) == 0).all()  # RULES §10.6: zero-sum
        out.append((obs["observation"].tobytes(), obs["action_mask"].tobytes(),
                    infos["seat"].tolist(), rewards.tolist(), terminated.tolist(),
                    truncated.tolist()))
    return out


def test_vector_env_steps_every_table_and_replays_from_its_seed() -> None:
    rules = Rules(players=3)
    first = run_vector(4, 700, rules)
    assert first == run_vector(4, 700, rules)
    assert any(any(t) for *_, t in first)  # some episodes were cut short (and reset)
    assert any(any(any(r) for r in rs) for *_, rs, _, _ in first)  # and paid out


def test_vector_env_rejects_an_illegal_action_before_moving_any_table() -> None:
    venv = HzmjVectorEnv(2)
    obs, _ = venv.reset(seed=0)
    mask = obs["action_mask"]
    ids = [m.state_id for m in venv.matches]
    bad = int(np.flatnonzero(mask[1] == 0)[0])
    with pytest.raises(ValueError, match="table 1"):
        venv.step([int(np.flatnonzero(mask[0])[0]), bad])
    assert [m.state_id for m in venv.matches] == ids
    with pytest.raises(ValueError, match="need 2 actions"):
        venv.step([0])
