"""A Gymnasium single-agent environment: the learner plays one seat against bots.

Observation: ``{"observation": float32 (14, 34), "action_mask": int8 (74,)}`` as in
:mod:`hzmj.env.encoding`; action: an index of that module.  The other seats are played by
bots from :mod:`hzmj.bots.registry` (``opponents``, default ``efficiency``), seeded from
the episode seed (so an episode replays exactly, except against ``expert`` or
``expert:MS``, whose deadline reads the clock: ``expert@N`` does not).  Reward: the learner's settlement delta in points when a hand ends
(RULES §10); the rewards of an episode always add up to the learner's final points minus
its starting points.  A hand the bots finish before the learner's first decision is paid
with the first ``step``'s reward (``reset`` cannot return one).  An episode is one match,
or ``max_hands`` hands.

An action outside the mask raises ``ValueError`` (``illegal_action="raise"``, the
default).  With ``illegal_action="penalize"`` (for learners without action masking, and
Gymnasium's ``check_env``, which steps random actions) it changes nothing in the match:
the step returns the same observation, a reward of ``-illegal_penalty`` points (default
1.0) and ``info["illegal"] = True``; the episode's rewards then add up to the final
points minus the starting points minus the penalties.

An episode ends *terminated* when the match is over (RULES §12) and *truncated* when
``max_hands`` hands cut it short (a time limit: the match itself would go on).  If the
episode is over before the learner ever acts (e.g. ``max_hands=1`` and a bot wins at
once), ``reset`` returns an all-zero mask and ``info["truncated"]`` (or
``info["terminated"]``) true; the next ``step`` (any index of the action space) returns
that reward with the same flags.  A ``step`` after the episode ended raises
``RuntimeError`` until ``reset``.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from hzmj.bots.base import Bot
from hzmj.env import action_of, count_of, rules_of, seed_of
from hzmj.env.encoding import ACTION_SIZE, OBS_SHAPE, action_mask, encode_match, match_index_map
from hzmj.events import Action
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.simulate import derive_seed


class HzmjSeatEnv(gym.Env[dict[str, Any], Any]):
    """See the module docstring."""

    metadata = {"render_modes": []}

    def __init__(self, rules: Rules | None = None, seat: int = 0,
                 opponents: str = "efficiency", max_hands: int | None = None,
                 illegal_action: str = "raise", illegal_penalty: float = 1.0) -> None:
        self.rules = rules_of(rules)
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or \
                not 0 <= seat < self.rules.players:
            raise ValueError(f"seat must be 0..{self.rules.players - 1}, got {seat!r}")
        seat = int(seat)
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalize', got "
                             f"{illegal_action!r}")
        if isinstance(illegal_penalty, bool) or not isinstance(illegal_penalty, (int, float)) \
                or not math.isfinite(illegal_penalty):
            raise ValueError(f"illegal_penalty must be a finite number of points, got "
                             f"{illegal_penalty!r}")
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        from hzmj.bots.registry import make_bot

        if not isinstance(opponents, str):
            raise ValueError(f"opponents must be a bot name, got {opponents!r}")
        # ValueError for an unknown name, a bad budget or the oracle, which failed at reset
        # (no driver here shows it the match), not at reset
        make_bot(opponents, 0, fair=True)
        self.seat = seat
        self.opponents = opponents
        self.max_hands = None if max_hands is None else count_of("max_hands", max_hands)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 4.0, OBS_SHAPE, dtype=np.float32),
            "action_mask": spaces.MultiBinary(ACTION_SIZE),
        })
        self.action_space = spaces.Discrete(ACTION_SIZE)
        self.match: Match | None = None
        self._bots: dict[int, Bot] = {}
        self._legal: dict[int, Action] = {}
        self._pending = 0.0  # reward earned while no step could return it (at reset)
        self._finished = True  # the last step returned terminated: reset before stepping

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a match with seed ``seed`` (drawn from the env's RNG when ``None``); the
        bots play until the learner's first decision.  Returns ``(obs, info)``: ``obs``
        ``{"observation": float32 (14, 34), "action_mask": int8 (74,)}``, ``info``
        ``{"seed", "terminated", "truncated", "points", "hands"}`` (both flags false
        unless the episode already ended at reset: then the next ``step`` returns them
        again, with the reward earned meanwhile); ``options`` is ignored.  ``ValueError``
        for a seed that is no whole number ≥ 0 (a numpy integer is fine)."""
        seed = seed_of(seed)  # Gymnasium's own check refused a numpy integer
        if seed is not None and seed < 0:  # Gymnasium seeds its RNG with it
            raise ValueError(f"seed must be ≥ 0 or None, got {seed}")
        super().reset(seed=seed)
        from hzmj.bots.registry import make_bot

        match_seed = seed if seed is not None else int(self.np_random.integers(0, 2**62))
        self.match = Match(self.rules, match_seed, log=False)
        self._bots = {s: make_bot(self.opponents, derive_seed(match_seed, s))
                      for s in range(self.rules.players) if s != self.seat}
        self._pending = self._advance(0)
        self._finished = False
        over = self._done()
        return self._obs(), {"seed": match_seed, "terminated": over and self.match.over,
                             "truncated": over and not self.match.over, **self._info()}

    def _advance(self, hands_before: int) -> float:
        """Let the bots play until the learner must act or the episode ends."""
        assert self.match is not None
        m = self.match
        while not self._done():
            seat = m.to_move()[0]
            if seat == self.seat:
                break
            m.apply(self._bots[seat].choose(m.view(seat), m.legal_actions(seat)))
        reward = 0.0
        for r in m.results[hands_before:]:
            if r.settlement:
                reward += r.settlement.deltas[self.seat]
        if not self._done():
            self._legal = match_index_map(m, self.seat)
        else:
            self._legal = {}
        return reward

    def _done(self) -> bool:
        assert self.match is not None
        return self.match.over or (self.max_hands is not None
                                   and len(self.match.results) >= self.max_hands)

    def _obs(self) -> dict[str, Any]:
        assert self.match is not None
        return {"observation": encode_match(self.match, self.seat),
                "action_mask": action_mask(self._legal)}

    def _info(self) -> dict[str, Any]:
        assert self.match is not None
        return {"points": self.match.points(), "hands": len(self.match.results)}

    def step(self, action: int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Play action index ``action`` (0–73), then let the bots play until the learner
        must act again or the episode ends.  Returns ``(obs, reward, terminated, truncated,
        info)``: ``terminated`` when the match is over (RULES §12), ``truncated`` when
        ``max_hands`` cut it short (Gymnasium's time limit: the match would go on, so a
        learner bootstraps from the last observation); ``reward`` in points (the learner's settlement deltas of the hands that
        ended, RULES §10; ``-illegal_penalty`` for an illegal action in penalize mode),
        ``info`` ``{"points", "hands"}`` (and ``"illegal": True``).  ``ValueError`` for
        an action that is no integer, or illegal in raise mode; ``RuntimeError`` before
        ``reset`` or after the episode ended."""
        if self.match is None:
            raise RuntimeError("no episode: call reset() first")
        if self._finished:
            raise RuntimeError("the episode is over: call reset() first")
        index = action_of(action)
        over = self._done()  # over before the learner's first decision: only pay out
        if over and not self.action_space.contains(index):
            raise ValueError(f"action {action} is not in the action space")
        if not over and index not in self._legal:
            if self.illegal_action == "raise" or not self.action_space.contains(index):
                raise ValueError(f"action {action} is not legal (legal: {sorted(self._legal)})")
            return self._obs(), -self.illegal_penalty, False, False, {**self._info(),
                                                                     "illegal": True}
        reward, self._pending = self._pending, 0.0
        if not over:
            hands_before = len(self.match.results)
            self.match.apply(self._legal[index])
            reward += self._advance(hands_before)
        done = self._done()
        self._finished = done
        over = self.match.over
        return self._obs(), reward, done and over, done and not over, self._info()
