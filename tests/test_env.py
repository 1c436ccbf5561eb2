"""RL adapters: PettingZoo AEC (every seat) and Gymnasium (one seat vs bots)."""

import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv
from pettingzoo.test import api_test

import hzmj.env
from hzmj.env.encoding import ACTION_SIZE, OBS_SHAPE, action_index, encode_match, encode_view
from hzmj.env.gym_env import HzmjSeatEnv
from hzmj.env.pettingzoo_env import HzmjAECEnv
from hzmj.env.vector import MAX_TABLES, HzmjVectorEnv
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


@pytest.mark.parametrize("max_hands, rules", [(2, Rules()), (None, Rules(players=2))])
def test_pettingzoo_a_match_over_is_terminated_and_one_cut_short_truncated(
        max_hands: int | None, rules: Rules) -> None:
    # RULES §12: the match's own end terminates; max_hands is a time limit (truncation)
    env = HzmjAECEnv(rules, max_hands=max_hands)
    env.reset(seed=7)
    ended: dict[str, tuple[bool, bool]] = {}
    for agent in env.agent_iter(max_iter=100_000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            ended[agent] = (term, trunc)
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.match is not None and len(env.match.results) == (max_hands or rules.hands)
    over = max_hands is None
    assert env.match.over is over
    assert ended == {a: (over, not over) for a in env.possible_agents}


def test_pettingzoo_rewards_are_the_settlements_of_the_step() -> None:
    # RULES §10: each step's rewards are the deltas of the hands it ended, else zeros
    env = HzmjAECEnv(Rules(), max_hands=3)
    env.reset(seed=5)
    rng = np.random.default_rng(1)
    ended = 0
    for agent in env.agent_iter(max_iter=100_000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert env.match is not None
        before = len(env.match.results)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        want = [0.0] * 4
        for result in env.match.results[before:]:
            if result.settlement:
                want = [w + d for w, d in zip(want, result.settlement.deltas, strict=True)]
        assert [env.rewards[a] for a in env.possible_agents if a in env.rewards] == want
        ended += len(env.match.results) > before
        del agent
    assert ended == 3


def test_pettingzoo_rejects_masked_action() -> None:
    env = HzmjAECEnv(Rules())
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(bad)


ENVS = {"aec": lambda **kw: HzmjAECEnv(**kw), "gym": lambda **kw: HzmjSeatEnv(**kw),
        "vector": lambda **kw: HzmjVectorEnv(2, **kw)}


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("max_hands", [0, -3, 1.5, True, "8"])
def test_envs_refuse_a_max_hands_that_is_no_count_of_hands(env: str, max_hands: Any) -> None:
    # 0 was taken: the vector env reset every table after every step, the gym env's episode
    # was over at reset, the AEC env ended after one action
    with pytest.raises(ValueError, match="max_hands"):
        ENVS[env](max_hands=max_hands)
    assert ENVS[env](max_hands=1).max_hands == 1 and ENVS[env](max_hands=None).max_hands is None


def test_envs_stepped_before_reset_say_so() -> None:
    # an AssertionError (AEC) and an IndexError (vector) said nothing of the cause
    with pytest.raises(RuntimeError, match="reset"):
        HzmjAECEnv().step(0)
    with pytest.raises(RuntimeError, match="reset"):
        HzmjAECEnv().observe("seat_0")
    with pytest.raises(RuntimeError, match="reset"):
        HzmjVectorEnv(2).step([0, 0])
    with pytest.raises(RuntimeError, match="reset"):
        HzmjSeatEnv().step(0)


@pytest.mark.parametrize("kind", [float, str, lambda i: i + 0.9])
def test_envs_refuse_an_action_that_is_no_integer_index(kind: Any) -> None:
    # int() made 5.9 the action 5 and "5" the action 5: a policy's float output played
    aec = HzmjAECEnv(max_hands=1)
    aec.reset(seed=1)
    legal = int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0])
    before = aec.observe(aec.agent_selection)["observation"].copy()
    with pytest.raises(ValueError, match="integer"):
        aec.step(kind(legal))
    assert np.array_equal(aec.observe(aec.agent_selection)["observation"], before)
    gym = HzmjSeatEnv(max_hands=1, illegal_action="penalize")
    obs, _ = gym.reset(seed=1)
    with pytest.raises(ValueError, match="integer"):
        gym.step(kind(int(np.flatnonzero(obs["action_mask"])[0])))
    venv = HzmjVectorEnv(1)
    vobs, _ = venv.reset(seed=1)
    with pytest.raises(ValueError, match="integer"):
        venv.step([kind(int(np.flatnonzero(vobs["action_mask"][0])[0]))])
    aec.step(np.int64(legal))  # numpy integers are indices


@pytest.mark.parametrize(("kwargs", "says"), [
    ({"seat": True}, "seat"), ({"seat": 1.0}, "seat"), ({"seat": -1}, "seat"),
    # a NaN or infinite penalty was taken: every illegal step then returned reward nan
    ({"illegal_penalty": float("nan")}, "illegal_penalty"),
    ({"illegal_penalty": float("inf")}, "illegal_penalty"),
    ({"illegal_penalty": "1"}, "illegal_penalty"),
])
def test_gym_env_refuses_a_bad_seat_or_penalty(kwargs: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        HzmjSeatEnv(**kwargs)


@pytest.mark.parametrize(("rules", "max_hands"), [(Rules(players=2), None),
                                                   (Rules(players=3), 1)])
def test_vector_env_tells_a_match_over_from_one_cut_short(rules: Rules,
                                                          max_hands: int | None) -> None:
    # RULES §12: the match's own end terminates; max_hands is a time limit (truncation).
    # One `dones` flag said both, and the ended episode's last observation was lost, so
    # a learner could not bootstrap past a time limit
    venv = HzmjVectorEnv(3, rules, max_hands=max_hands)
    assert isinstance(venv, VectorEnv) and venv.num_envs == 3
    assert venv.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    obs, infos = venv.reset(seed=2)
    assert venv.observation_space.contains(obs) and infos["seat"].dtype == np.int64
    rng = np.random.default_rng(2)
    ended = 0
    while ended < 3:
        before = list(venv.matches)
        actions = [int(rng.choice(np.flatnonzero(row))) for row in obs["action_mask"]]
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        assert rewards.shape == (3, rules.players) and not (terminated & truncated).any()
        done = terminated | truncated
        assert np.array_equal(infos.get("_final_obs", np.zeros(3, bool)), done)
        for i in np.flatnonzero(done):
            m = before[i]  # the ended match, whose table now plays a new one
            assert venv.matches[i] is not m and terminated[i] == m.over
            final, info = infos["final_obs"][i], infos["final_info"]
            assert info["hands"][i] == len(m.results) == (max_hands or rules.hands)
            assert list(info["points"][i]) == m.points()
            seat = info["seat"][i]
            assert np.array_equal(final["observation"], encode_match(m, seat))
            if m.over:  # nothing follows: the seat that acted, no legal move
                assert seat == m.actions[-1].seat and not final["action_mask"].any()
            else:  # truncated: the next state, as its seat to move sees it
                assert seat == m.to_move()[0] and final["action_mask"].any()
            ended += 1
        assert venv.observation_space.contains(obs)


@pytest.mark.parametrize(("kwargs", "says"), [
    ({"seed": 1.5}, "seed"), ({"seed": True}, "seed"), ({"seed": [1, 2]}, "seed"),
    ({"options": {"reset_mask": [True, False]}}, "no options"),
])
def test_vector_env_reset_refuses_what_it_cannot_use(kwargs: dict[str, Any],
                                                     says: str) -> None:
    with pytest.raises(ValueError, match=says):
        HzmjVectorEnv(2).reset(**kwargs)
    obs, _ = HzmjVectorEnv(2).reset(seed=np.int64(3), options={})
    assert np.array_equal(obs["observation"], HzmjVectorEnv(2).reset(seed=3)[0]["observation"])


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("rules", [{"players": 2}, "players=2"])
def test_envs_refuse_rules_that_are_no_rules(env: str, rules: Any) -> None:
    # a dict was an AttributeError ('dict' object has no attribute 'players'), and the
    # vector env took it until reset
    with pytest.raises(TypeError, match="Rules.from_dict"):
        ENVS[env](rules=rules)
    assert ENVS[env](rules=Rules.from_dict(rules) if isinstance(rules, dict)
                     else None).rules.players == (2 if isinstance(rules, dict) else 4)


@pytest.mark.parametrize(("opponents", "says"), [
    ("nobody", "unknown bot"), ("strong:0", "budget"), ("oracle", "sees every tile"),
    (None, "bot name"),
])
def test_gym_env_refuses_opponents_it_cannot_seat_when_made(opponents: Any,
                                                             says: str) -> None:
    # an unknown bot failed only at reset, the oracle with a RuntimeError there
    with pytest.raises(ValueError, match=says):
        HzmjSeatEnv(opponents=opponents)


def test_gym_env_names_only_the_bots_it_may_seat_for_an_unknown_one() -> None:
    # the list offered the oracle, which it refuses (it sees every tile)
    with pytest.raises(ValueError) as unknown:
        HzmjSeatEnv(opponents="nobody")
    assert str(unknown.value) == "unknown bot 'nobody' (known: random, efficiency, strong, expert)"
    with pytest.raises(ValueError) as oracle:
        HzmjSeatEnv(opponents="oracle")
    assert str(oracle.value) == (
        "oracle sees every tile: it is for measurement only (hzmj arena, hzmj simulate; "
        "docs/bots.md); choose one of random, efficiency, strong, expert")


def test_gym_env_takes_a_numpy_seed_and_refuses_others_as_value_errors() -> None:
    # np.int64(3), 1.5 and -1 were gymnasium.error.Error ("Seed must be a python
    # integer"), no ValueError, and a numpy seed was refused unlike the other envs'
    env, again = HzmjSeatEnv(max_hands=1), HzmjSeatEnv(max_hands=1)
    obs, info = env.reset(seed=np.int64(3))
    assert info["seed"] == 3 and type(info["seed"]) is int
    assert np.array_equal(obs["observation"], again.reset(seed=3)[0]["observation"])
    for seed, says in ((1.5, "seed must be an integer or None, got 1.5"),
                       (True, "seed must be an integer or None, got True"),
                       ("3", "seed must be an integer or None, got '3'"),
                       (-1, "seed must be ≥ 0 or None, got -1")):
        with pytest.raises(ValueError) as info_:
            env.reset(seed=seed)  # type: ignore[arg-type]
        assert str(info_.value) == says


def test_gym_env_stepped_before_reset_says_there_is_no_episode() -> None:
    # it said "the episode is over" of an episode never started
    with pytest.raises(RuntimeError, match="^no episode: call reset"):
        HzmjSeatEnv().step(0)


def test_aec_env_takes_a_numpy_seed_and_names_an_unknown_agent() -> None:
    # np.int64(3) was a TypeError from random.seed ("The only supported seed types…");
    # observe("seat_9") a bare KeyError 'seat_9'
    env, again = HzmjAECEnv(max_hands=1), HzmjAECEnv(max_hands=1)
    env.reset(seed=np.int64(3))
    again.reset(seed=3)
    assert np.array_equal(env.observe("seat_0")["observation"],
                          again.observe("seat_0")["observation"])
    for seed in (1.5, True, "3"):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="no agent 'seat_9'"):
        env.observe("seat_9")


@pytest.mark.parametrize("actions", [None, 5, np.int64(5)])
def test_vector_env_step_wants_one_action_per_table(actions: Any) -> None:
    # None or a scalar said "object of type 'NoneType' has no len()" (TypeError)
    venv = HzmjVectorEnv(2)
    venv.reset(seed=1)
    with pytest.raises(ValueError, match="need 2 actions, one per table"):
        venv.step(actions)


@pytest.mark.parametrize("tables", [0, 2.5, True, "4", MAX_TABLES + 1, 10**12,
                                    np.int64(10**12)])
def test_vector_env_refuses_a_table_count_that_is_no_count(tables: Any) -> None:
    # 10**12 was a MemoryError from numpy (a (10**12, 74) mask space)
    with pytest.raises(ValueError) as info:
        HzmjVectorEnv(tables)
    assert str(info.value) == (f"num_tables must be a whole number from 1 to 65,536, got "
                               f"{tables!r}")


def test_vector_env_takes_up_to_max_tables() -> None:
    assert MAX_TABLES == 65_536
    assert HzmjVectorEnv(np.int64(3)).num_envs == 3
    assert HzmjVectorEnv(max_hands=10**12, num_tables=1).max_hands == 10**12


def test_gym_env_plays_one_seat_against_bots() -> None:
    env = HzmjSeatEnv(Rules(), seat=2, opponents="random", max_hands=1)
    obs, info = env.reset(seed=5)
    assert obs["action_mask"].shape == (ACTION_SIZE,)
    done = False
    rewards = 0.0
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, term, trunc, info = env.step(int(legal[-1]))
        done = term or trunc
        rewards += reward
    assert info["hands"] == 1
    assert rewards == info["points"][2]


def _play_gym(env: HzmjSeatEnv, seed: int) -> tuple[float, dict[str, object], int]:
    """Play one episode with the last legal index; (sum of rewards, last info, steps)."""
    obs, info = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size or info.get("terminated") or info.get("truncated"), \
            "an all-zero mask must mean the episode ended"
        obs, reward, term, trunc, info = env.step(int(legal[-1]) if legal.size else 0)
        # RULES §12: the match over is terminated; cut by max_hands, truncated
        assert not (term and trunc) and (not (term or trunc) or term == env.match.over)
        done = term or trunc
        total += reward
        steps += 1
    return total, info, steps


def test_gym_env_pays_a_hand_the_bots_finish_before_the_learners_first_decision() -> None:
    # RULES §10: white mode, seed 4210: seat 3 self-draws before seat 0 has a decision
    env = HzmjSeatEnv(Rules(caishen_mode="white"), seat=0, max_hands=2)
    obs, info = env.reset(seed=4210)
    assert info["hands"] == 1 and info["points"][0] == -1
    assert not info["terminated"] and not info["truncated"]
    total, info, _ = _play_gym(env, 4210)
    assert info["hands"] == 2 and total == info["points"][0]  # the -1 is not lost


def test_gym_env_episode_over_at_reset_says_truncated() -> None:
    env = HzmjSeatEnv(Rules(caishen_mode="white"), seat=0, max_hands=1)
    obs, info = env.reset(seed=4210)
    # max_hands cut the match after its first hand: truncated, not terminated
    assert info["truncated"] and not info["terminated"] and not obs["action_mask"].any()
    obs, reward, term, trunc, info = env.step(0)
    assert (reward, term, trunc, info["hands"]) == (-1.0, False, True, 1)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_gym_env_rejects_an_action_outside_the_mask_by_default() -> None:
    env = HzmjSeatEnv(Rules(), seat=0, max_hands=1)
    obs, _ = env.reset(seed=3)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(bad)
    with pytest.raises(ValueError, match="illegal_action"):
        HzmjSeatEnv(illegal_action="ignore")


def test_gym_env_penalize_mode_changes_nothing_but_the_reward() -> None:
    env = HzmjSeatEnv(Rules(), seat=0, max_hands=1, illegal_action="penalize",
                      illegal_penalty=2.5)
    obs, _ = env.reset(seed=3)
    assert env.match is not None
    before = env.match.view(0)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs2, reward, term, trunc, info = env.step(bad)
    assert (reward, term, trunc, info["illegal"]) == (-2.5, False, False, True)
    assert env.match.view(0) == before
    assert np.array_equal(obs2["observation"], obs["observation"])
    assert np.array_equal(obs2["action_mask"], obs["action_mask"])
    with pytest.raises(ValueError, match="not legal"):
        env.step(ACTION_SIZE)  # outside the action space: always an error
    # a new episode with legal actions only: its rewards are exactly the points
    total, info, _ = _play_gym(env, 3)
    assert total == info["points"][0]


def test_gym_env_passes_gymnasiums_checker_in_penalize_mode() -> None:
    from gymnasium.utils.env_checker import check_env

    check_env(HzmjSeatEnv(Rules(), seat=1, illegal_action="penalize"),
              skip_render_check=True)


@pytest.mark.parametrize("max_hands", [1, 2, None])
def test_gym_env_rewards_add_up_to_the_final_points(max_hands: int | None) -> None:
    # the seeds include 4210, where a bot wins before seat 0's first decision
    rules = Rules(caishen_mode="white", hands=8)
    for seed in range(4200, 4200 + (30 if max_hands else 3)):
        seat = seed % 4 if max_hands is None else 0
        env = HzmjSeatEnv(rules, seat=seat, max_hands=max_hands)
        total, info, _ = _play_gym(env, seed)
        points = info["points"]
        assert isinstance(points, list)
        assert total == points[seat], seed
        assert info["hands"] == (max_hands or 8)


@pytest.mark.parametrize("mode", ["white", "flip"])
def test_pettingzoo_rewards_add_up_to_the_final_points(mode: str) -> None:
    for seed in range(20):
        env = HzmjAECEnv(Rules(caishen_mode=mode), max_hands=1 + seed % 3)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total = {a: 0.0 for a in env.possible_agents}
        assert env.match is not None
        match = env.match
        for agent in env.agent_iter(max_iter=100_000):
            obs, reward, term, trunc, _ = env.last()
            total[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert not env.agents  # every agent saw its termination
        assert len(match.results) == 1 + seed % 3
        assert [total[f"seat_{i}"] for i in range(4)] == match.points(), seed


def test_the_envs_are_names_of_the_package() -> None:
    assert hzmj.env.HzmjAECEnv is HzmjAECEnv and hzmj.env.HzmjSeatEnv is HzmjSeatEnv
    assert hzmj.env.HzmjVectorEnv is HzmjVectorEnv
    with pytest.raises(AttributeError, match="no attribute 'HzmjEnv'"):
        hzmj.env.HzmjEnv  # noqa: B018


MISSING_EXTRA = """
import sys
sys.modules["gymnasium"] = None  # as if the rl extra were not installed
for module in ("hzmj.env.gym_env", "hzmj.env.pettingzoo_env", "hzmj.env.vector",
               "hzmj.env.encoding", "hzmj.env"):
    try:
        __import__(module)
    except ImportError as exc:
        print(module, exc.name, exc, sep=" | ")
"""


def test_without_the_rl_extra_every_env_module_says_how_to_install_it() -> None:
    # was "No module named 'gymnasium'", naming no extra (the rl packages were dev-only)
    out = subprocess.run([sys.executable, "-c", MISSING_EXTRA], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    says = ("gymnasium | hzmj.env needs gymnasium (the rl extra): pip install 'hzmj[rl]' "
            "(or uv sync --extra rl)")
    assert out == [f"{m} | {says}" for m in ("hzmj.env.gym_env", "hzmj.env.pettingzoo_env",
                                             "hzmj.env.vector", "hzmj.env.encoding",
                                             "hzmj.env")]
