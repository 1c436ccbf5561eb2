"""Many tables stepped at once, for batch learners (self-play: one policy plays every seat).

>>> import numpy as np
>>> venv = HzmjVectorEnv(8)
>>> obs, mask, seats = venv.reset(seed=1)
>>> obs.shape, mask.shape, seats.shape
((8, 14, 34), (8, 74), (8,))
>>> actions = np.array([np.flatnonzero(m)[-1] for m in mask])
>>> obs, mask, seats, rewards, dones = venv.step(actions)

Each of ``num_tables`` tables is a :class:`~hzmj.game.Match` (``log=False``) whose seat to
move is the table's agent at each step; observations and action indices are those of
:mod:`hzmj.env.encoding` (read from the engine state), ``seats[i]`` says whose turn it is
at table ``i``.  ``step(actions)`` applies one action per table and returns the next
``(obs, mask, seats, rewards, dones)``: ``rewards[i]`` (shape ``(num_tables, players)``,
points) holds the settlement deltas (RULES §10) of every hand that ended at table ``i``
during the step, per seat; ``dones[i]`` is true when the table's episode (a match, or
``max_hands`` hands) ended, in which case the table was reset and ``obs[i]`` is the first
observation of the next episode.  Episode ``k`` of table ``i`` uses a match seed derived
from the ``reset`` seed, so a run replays exactly.  An action outside a table's mask
raises ``ValueError`` before any table moves.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from hzmj.env import action_of, count_of
from hzmj.env.encoding import action_masks, encode_matches, match_index_map
from hzmj.events import Action
from hzmj.game import Match
from hzmj.rules import Rules

_SEED_BITS = 63


class HzmjVectorEnv:
    """See the module docstring.  ``ValueError`` unless ``num_tables`` and ``max_hands``
    (or ``None``: whole matches) are whole numbers ≥ 1; ``step`` before ``reset`` is a
    ``RuntimeError``."""

    def __init__(self, num_tables: int, rules: Rules | None = None,
                 max_hands: int | None = None) -> None:
        self.num_tables = count_of("num_tables", num_tables)
        self.rules = rules or Rules()
        self.max_hands = None if max_hands is None else count_of("max_hands", max_hands)
        self.matches: list[Match] = []
        self._legal: list[dict[int, Action]] = []
        self._rng = random.Random()

    def reset(self, seed: int | None = None) -> tuple[npt.NDArray[np.float32],
                                                       npt.NDArray[np.int8],
                                                       npt.NDArray[np.int64]]:
        """Start a new episode at every table; return ``(obs, mask, seats)``."""
        self._rng.seed(seed)
        self.matches = [self._new_match() for _ in range(self.num_tables)]
        return self._observe()

    def step(self, actions: Sequence[int] | npt.NDArray[Any]) -> tuple[
            npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int64],
            npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Apply ``actions[i]`` at table ``i``; see the module docstring."""
        if not self.matches:
            raise RuntimeError("no episodes: call reset() first")
        if len(actions) != self.num_tables:
            raise ValueError(f"need {self.num_tables} actions, got {len(actions)}")
        chosen = [action_of(a) for a in actions]
        for i, a in enumerate(chosen):
            if a not in self._legal[i]:
                raise ValueError(f"action {a} is not legal at table {i} "
                                 f"(legal: {sorted(self._legal[i])})")
        rewards = np.zeros((self.num_tables, self.rules.players), dtype=np.float32)
        dones = np.zeros(self.num_tables, dtype=np.bool_)
        for i, a in enumerate(chosen):
            m = self.matches[i]
            before = len(m.results)
            m.apply(self._legal[i][a])
            for result in m.results[before:]:
                if result.settlement is not None:
                    rewards[i] += result.settlement.deltas
            if m.over or (self.max_hands is not None and len(m.results) >= self.max_hands):
                dones[i] = True
                self.matches[i] = self._new_match()
        obs, mask, seats = self._observe()
        return obs, mask, seats, rewards, dones

    def _new_match(self) -> Match:
        return Match(self.rules, self._rng.getrandbits(_SEED_BITS), log=False)

    def _observe(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8],
                                npt.NDArray[np.int64]]:
        """Every table's ``(obs, mask, seats)`` now (fresh arrays, the caller's to keep)."""
        seats = [m.to_move()[0] for m in self.matches]
        self._legal = [match_index_map(m, s) for m, s in zip(self.matches, seats, strict=True)]
        return (encode_matches(self.matches, seats), action_masks(self._legal),
                np.array(seats, dtype=np.int64))
