"""A PettingZoo AEC environment: every seat of a Hangzhou Mahjong match is an agent.

Agents are ``"seat_0"`` … ``"seat_{n-1}"``.  Each observation is a dict with
``"observation"`` (``float32`` array, shape :data:`~hzmj.env.encoding.OBS_SHAPE`) and
``"action_mask"`` (``int8``, length :data:`~hzmj.env.encoding.ACTION_SIZE`); actions are
indices of :mod:`hzmj.env.encoding`.  Rewards are each hand's settlement deltas in points
(RULES §10), given when the hand ends.  An episode is one match (``rules.hands`` hands or a
points match, RULES §12: the agents' ``terminations``), or ``max_hands`` hands if given
(cut short: ``truncations``).  ``reset(seed=S)`` makes the
match's seed ``S`` (random from the env's RNG when omitted), so episodes replay exactly.
Claims are asked one seat at a time in turn order; the engine collects them all before
resolving (RULES §6.3).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from hzmj.env import action_of, count_of, rules_of, seed_of
from hzmj.env.encoding import ACTION_SIZE, OBS_SHAPE, action_mask, encode_match, match_index_map
from hzmj.events import Action
from hzmj.game import Match
from hzmj.rules import Rules


class HzmjAECEnv(AECEnv):  # type: ignore[misc]
    """See the module docstring.  ``step`` with an index not in the mask raises
    ``ValueError`` (the state is unchanged)."""

    metadata = {"name": "hzmj_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, rules: Rules | None = None, max_hands: int | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.rules = rules_of(rules)
        self.max_hands = None if max_hands is None else count_of("max_hands", max_hands)
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{i}" for i in range(self.rules.players)]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 4.0, OBS_SHAPE, dtype=np.float32),
            "action_mask": spaces.MultiBinary(ACTION_SIZE),
        })
        self._act_space = spaces.Discrete(ACTION_SIZE)
        self._rng = random.Random()
        self.match: Match | None = None
        self._legal: dict[int, Action] = {}
        self._rewarded = False

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """Every agent's: ``Dict(observation=Box(0, 4, (14, 34), float32),
        action_mask=MultiBinary(74))``."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Every agent's: ``Discrete(74)``, the indices of :mod:`hzmj.env.encoding`."""
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a match with seed ``seed`` (drawn from the env's RNG when ``None``); the
        first agent to act is ``agent_selection``.  ``options`` is ignored.  ``ValueError``
        for a seed that is no integer (a numpy integer is one)."""
        seed = seed_of(seed)
        if seed is not None:
            self._rng.seed(seed)
        match_seed = seed if seed is not None else self._rng.getrandbits(63)
        self.match = Match(self.rules, match_seed, log=False)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._rewarded = False  # whether ``rewards`` holds a nonzero entry
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        assert self.match is not None
        seat = self.match.to_move()[0]
        self.agent_selection = self.possible_agents[seat]
        self._legal = match_index_map(self.match, seat)

    def observe(self, agent: str) -> dict[str, Any]:
        """``{"observation": float32 (14, 34), "action_mask": int8 (74,)}`` of ``agent``'s
        seat (RULES §13); the mask is all zero unless ``agent`` is to act.
        ``RuntimeError`` before ``reset``, ``KeyError`` for an agent not at the table."""
        if self.match is None:
            raise RuntimeError("no episode: call reset() first")
        seat = self._seat_of.get(agent)
        if seat is None:  # a bare KeyError named only the agent
            raise KeyError(f"no agent {agent!r} (agents: {', '.join(self.possible_agents)})")
        legal = self._legal if agent == self.agent_selection else {}
        return {"observation": encode_match(self.match, seat), "action_mask": action_mask(legal)}

    def step(self, action: int | None) -> None:
        """Play action index ``action`` for ``agent_selection`` (``None`` for an agent whose
        episode is over); the rewards (points, RULES §10) of a hand that ends go to every
        agent.  ``ValueError`` for an action that is no integer or not in the mask (the
        state unchanged); ``RuntimeError`` before ``reset``."""
        if self.match is None:
            raise RuntimeError("no episode: call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = None if action is None else action_of(action)
        if index is None or index not in self._legal:
            raise ValueError(f"action {action} is not legal for {agent} "
                             f"(legal: {sorted(self._legal)})")
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        if self._rewarded:  # the last step's rewards go back to 0
            for a in rewards:
                rewards[a] = 0.0
            self._rewarded = False
        match = self.match
        hands_before = len(match.results)
        match.apply(self._legal[index])
        if len(match.results) > hands_before:  # a hand ended: its settlement (RULES §10)
            for result in match.results[hands_before:]:
                if result.settlement:
                    for a, d in zip(self.possible_agents, result.settlement.deltas, strict=True):
                        rewards[a] += float(d)
            self._accumulate_rewards()  # (a step that ends no hand has nothing to add)
            self._rewarded = True
        if match.over or (self.max_hands is not None and len(match.results) >= self.max_hands):
            # the match over: terminated (RULES §12); cut by max_hands: truncated (it
            # would go on; PettingZoo's and Gymnasium's time limit)
            ended = self.terminations if match.over else self.truncations
            for a in self.agents:
                ended[a] = True
                self.infos[a] = {"points": match.points(), "hands": len(match.results)}
        else:
            self._select()

    def render(self) -> str | None:
        """One line of text (``"ansi"``): hand number, dealer, level, live tiles and
        points; ``None`` before ``reset`` or after ``close``."""
        if self.match is None:
            return None
        lines = [f"hand {self.match.hand_no} dealer {self.match.dealer} level {self.match.level}"
                 f" live {self.match.live_count} points {self.match.points()}"]
        return "\n".join(lines)

    def close(self) -> None:
        """Drop the match; ``reset`` starts a new one."""
        self.match = None


def env(**kwargs: Any) -> HzmjAECEnv:
    """PettingZoo-style constructor."""
    return HzmjAECEnv(**kwargs)
