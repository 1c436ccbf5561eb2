"""Many tables stepped at once, for batch learners (self-play: one policy plays every seat).

>>> import numpy as np
>>> venv = HzmjVectorEnv(8)
>>> obs, infos = venv.reset(seed=1)
>>> obs["observation"].shape, obs["action_mask"].shape, infos["seat"].shape
((8, 14, 34), (8, 74), (8,))
>>> actions = np.array([np.flatnonzero(m)[-1] for m in obs["action_mask"]])
>>> obs, rewards, terminations, truncations, infos = venv.step(actions)
>>> rewards.shape, terminations.shape, truncations.shape
((8, 4), (8,), (8,))

A Gymnasium vector env (``gymnasium.vector.VectorEnv``) in the ``SAME_STEP`` autoreset
mode (``metadata["autoreset_mode"]``).  Each of ``num_tables`` tables (``num_envs``) is a
:class:`~hzmj.game.Match` (``log=False``) whose seat to move is the table's agent at each
step; observations are those of :class:`~hzmj.env.gym_env.HzmjSeatEnv`
(``{"observation": float32 (14, 34), "action_mask": int8 (74,)}``, batched: a dict of
arrays with a first axis of ``num_tables``) for the seat to move, ``infos["seat"][i]``
says which seat that is at table ``i``, and action indices are those of
:mod:`hzmj.env.encoding` (read from the engine state).

``step(actions)`` applies one action per table and returns ``(obs, rewards, terminations,
truncations, infos)``.  ``rewards[i]`` (shape ``(num_tables, players)``, points: every
seat's, as one policy plays them all) holds the settlement deltas (RULES §10) of every
hand that ended at table ``i`` during the step.  ``terminations[i]`` is true when the
table's match is over (its hands, or a player broke, RULES §12); ``truncations[i]`` when
``max_hands`` cut it short, a time limit: the match would go on, so a learner bootstraps
from the final observation.  A table whose episode ended is reset in the same step:
``obs[i]`` is the next episode's first observation, the ended episode's last is
``infos["final_obs"][i]`` (``infos["_final_obs"][i]`` true) as seen by the seat
``infos["final_info"]["seat"][i]`` (the seat to move next when truncated, the seat that
acted when terminated, its mask then all zero), with ``infos["final_info"]["points"][i]``
and ``["hands"][i]``.  Episode ``k`` of table ``i`` uses a match seed derived from the
``reset`` seed, so a run replays exactly.  An action outside a table's mask raises
``ValueError`` before any table moves.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from hzmj.env import action_of, count_of, rules_of, seed_of
from hzmj.env.encoding import (
    ACTION_SIZE,
    OBS_SHAPE,
    action_mask,
    action_masks,
    encode_match,
    encode_matches,
    match_index_map,
)
from hzmj.events import Action
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.shown import shown

_SEED_BITS = 63
MAX_TABLES = 65_536
"""Tables one env holds at most: each takes about 18 kB (its match, its rows of the
batched spaces), so this many is about 1.2 GB, and a step of them all a second or more of
Python; a learner wanting more runs several envs in several processes."""

Obs = dict[str, npt.NDArray[Any]]


class HzmjVectorEnv(VectorEnv[Obs, npt.NDArray[np.int64], npt.NDArray[Any]]):
    """See the module docstring.  ``ValueError`` unless ``num_tables`` is a whole number
    from 1 to :data:`MAX_TABLES` and ``max_hands`` one ≥ 1 (or ``None``: whole matches);
    ``TypeError`` for ``rules`` that are no :class:`~hzmj.rules.Rules`; ``step`` before
    ``reset`` is a ``RuntimeError``."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_tables: int, rules: Rules | None = None,
                 max_hands: int | None = None) -> None:
        self.num_tables = self.num_envs = count_of("num_tables", num_tables, MAX_TABLES)
        self.rules = rules_of(rules)
        self.max_hands = None if max_hands is None else count_of("max_hands", max_hands)
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 4.0, OBS_SHAPE, dtype=np.float32),
            "action_mask": spaces.MultiBinary(ACTION_SIZE),
        })
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space = spaces.Discrete(ACTION_SIZE)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.matches: list[Match] = []
        self._legal: list[dict[int, Action]] = []
        self._rng = random.Random()

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        """Start a new episode at every table; return ``(obs, infos)`` (``infos["seat"]``:
        the seat to move at each table).  ``seed``: one integer for every table (each
        table's match seed is derived from it) or ``None``; ``options`` must be empty
        (``ValueError``: a ``reset_mask`` has no use, every ended table is reset at once)."""
        seed = seed_of(seed)  # one for every table: a list of seeds is refused
        if options:
            raise ValueError(f"reset takes no options, got {sorted(options)}")
        self._rng.seed(seed)
        self.matches = [self._new_match() for _ in range(self.num_tables)]
        obs, seats = self._observe()
        return obs, self._seat_info(seats)

    def step(self, actions: Sequence[int] | npt.NDArray[Any]) -> tuple[
            Obs, npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.bool_],
            dict[str, Any]]:
        """Apply ``actions[i]`` at table ``i``; see the module docstring."""
        if not self.matches:
            raise RuntimeError("no episodes: call reset() first")
        if not hasattr(actions, "__len__") or len(actions) != self.num_tables:
            raise ValueError(f"need {self.num_tables} actions, one per table, got "
                             f"{shown(actions)}")
        chosen = [action_of(a) for a in actions]
        for i, a in enumerate(chosen):
            if a not in self._legal[i]:
                raise ValueError(f"action {a} is not legal at table {i} "
                                 f"(legal: {sorted(self._legal[i])})")
        rewards = np.zeros((self.num_tables, self.rules.players), dtype=np.float32)
        terminations = np.zeros(self.num_tables, dtype=np.bool_)
        truncations = np.zeros(self.num_tables, dtype=np.bool_)
        ended: dict[str, Any] = {}
        for i, a in enumerate(chosen):
            m = self.matches[i]
            before = len(m.results)
            action = self._legal[i][a]
            m.apply(action)
            for result in m.results[before:]:
                if result.settlement is not None:
                    rewards[i] += result.settlement.deltas
            if m.over:
                terminations[i] = True
            elif self.max_hands is not None and len(m.results) >= self.max_hands:
                truncations[i] = True  # a time limit: the match itself goes on
            else:
                continue
            ended = self._add_info(ended, self._final(m, action.seat), i)
            self.matches[i] = self._new_match()
        obs, seats = self._observe()
        return obs, rewards, terminations, truncations, {**self._seat_info(seats), **ended}

    @staticmethod
    def _final(match: Match, acted: int) -> dict[str, Any]:
        """An ended episode's last observation and info: the seat to move next in a match
        cut short (its value is what a learner bootstraps from), else the seat that
        acted, with an all-zero mask (nothing follows a match's end)."""
        seat = match.to_move()[0] if not match.over else acted
        legal = {} if match.over else match_index_map(match, seat)
        return {"final_obs": {"observation": encode_match(match, seat),
                              "action_mask": action_mask(legal)},
                "final_info": {"seat": seat,
                               "points": np.array(match.points(), dtype=np.int64),
                               "hands": len(match.results)}}

    def _seat_info(self, seats: npt.NDArray[np.int64]) -> dict[str, Any]:
        return {"seat": seats, "_seat": np.ones(self.num_tables, dtype=np.bool_)}

    def _new_match(self) -> Match:
        return Match(self.rules, self._rng.getrandbits(_SEED_BITS), log=False)

    def _observe(self) -> tuple[Obs, npt.NDArray[np.int64]]:
        """Every table's observation and seat to move now (fresh arrays, the caller's to
        keep)."""
        seats = [m.to_move()[0] for m in self.matches]
        self._legal = [match_index_map(m, s) for m, s in zip(self.matches, seats, strict=True)]
        return ({"observation": encode_matches(self.matches, seats),
                 "action_mask": action_masks(self._legal)},
                np.array(seats, dtype=np.int64))
