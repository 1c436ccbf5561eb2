"""Behaviour cloning on the RL encoding: a small policy learned from a bot's decisions.

    uv run python examples/imitation.py --matches 100 --epochs 8 --seed 1

A starting point for learning agents (docs/rl.md), numpy only (the ``rl`` extra):

1. **Collect.** The teacher bot (``--teacher``, default ``efficiency``) plays every seat of
   ``--matches`` matches.  Each decision with more than one legal action gives one
   sample: the deciding seat's observation (:func:`hzmj.env.encoding.encode_match`,
   ``float32`` (14, 34), only what that seat may see, RULES §13), its action mask (74
   ``int8``) and the index of the teacher's action.
2. **Train.** A one-hidden-layer network (476 → ``--hidden`` ReLU → 74 logits; the illegal
   actions' logits masked out before the softmax) is fitted by Adam on the masked
   cross-entropy, on the samples of the first 90 % of the matches; the last 10 % are held
   out (whole matches, so no hand is in both).  Prints the held-out accuracy, beside
   that of a uniform choice among the legal actions.
3. **Play.** The learned policy sits as :class:`PolicyBot` (an ordinary bot: a view and
   the legal actions in, an action out) in seat 0 of ``--eval-matches`` matches against
   three random bots, then against three teacher bots; prints its points a hand beside
   the teacher's own on the same deals (same match seeds, so the same walls).

Everything is seeded from ``--seed``: a run repeats exactly.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from hzmj.bots.base import Bot, Candidate
from hzmj.bots.registry import make_bot
from hzmj.env.encoding import ACTION_SIZE, OBS_SHAPE, action_mask, encode_match, match_index_map
from hzmj.events import Action
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.simulate import derive_seed

FloatArray = npt.NDArray[np.float32]
IN_SIZE = OBS_SHAPE[0] * OBS_SHAPE[1]


@dataclass
class Samples:
    """``obs`` (n, 476) ``float32``, ``mask`` (n, 74) ``bool``, ``target`` (n,) ``int64``
    action indices (each legal in its row's mask)."""

    obs: FloatArray
    mask: npt.NDArray[np.bool_]
    target: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.target)


def collect(rules: Rules, matches: int, seed: int, teacher: str = "efficiency") -> list[Samples]:
    """One :class:`Samples` per match: the teacher plays every seat; decisions with a
    single legal action are left out (nothing to learn)."""
    out = []
    for m in range(matches):
        match_seed = derive_seed(seed, m)
        match = Match(rules, match_seed, log=False)
        bots = [make_bot(teacher, derive_seed(match_seed, s)) for s in range(rules.players)]
        obs: list[FloatArray] = []
        masks: list[npt.NDArray[np.int8]] = []
        targets: list[int] = []
        while not match.over:
            seat = match.to_move()[0]
            legal = match.legal_actions(seat)
            action = bots[seat].choose(match.view(seat), legal)
            if len(legal) > 1:
                index = {a: i for i, a in match_index_map(match, seat).items()}[action]
                obs.append(encode_match(match, seat).reshape(-1))
                masks.append(action_mask(match_index_map(match, seat)))
                targets.append(index)
            match.apply(action)
        out.append(Samples(np.array(obs, dtype=np.float32), np.array(masks, dtype=bool),
                           np.array(targets, dtype=np.int64)))
    return out


def join(parts: Sequence[Samples]) -> Samples:
    """The samples of ``parts`` in one :class:`Samples`."""
    return Samples(np.concatenate([p.obs for p in parts]),
                   np.concatenate([p.mask for p in parts]),
                   np.concatenate([p.target for p in parts]))


class Policy:
    """476 → ``hidden`` (ReLU) → 74 logits; illegal actions are masked out (−inf) before
    the softmax.  Weights from ``np.random.default_rng(seed)`` (He initialisation)."""

    def __init__(self, hidden: int = 256, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.params: dict[str, FloatArray] = {
            "w1": (rng.standard_normal((IN_SIZE, hidden)) * np.sqrt(2 / IN_SIZE)).astype(np.float32),
            "b1": np.zeros(hidden, dtype=np.float32),
            "w2": (rng.standard_normal((hidden, ACTION_SIZE)) * np.sqrt(2 / hidden)).astype(np.float32),
            "b2": np.zeros(ACTION_SIZE, dtype=np.float32),
        }

    def logits(self, obs: FloatArray, mask: npt.NDArray[np.bool_]) -> tuple[FloatArray, FloatArray]:
        """Masked logits (n, 74) and the hidden activations (n, hidden)."""
        p = self.params
        hidden = np.maximum(obs @ p["w1"] + p["b1"], 0)
        z = hidden @ p["w2"] + p["b2"]
        return np.where(mask, z, -np.inf).astype(np.float32), hidden

    def act(self, obs: FloatArray, mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        """The most likely legal action index of each row."""
        return np.argmax(self.logits(obs, mask)[0], axis=1)

    def accuracy(self, data: Samples) -> float:
        """Share of ``data``'s rows where :meth:`act` picks the teacher's action."""
        return float(np.mean(self.act(data.obs, data.mask) == data.target)) if len(data) else 0.0


def train(policy: Policy, data: Samples, epochs: int, seed: int, batch: int = 256,
          lr: float = 1e-3) -> list[float]:
    """Adam on the masked cross-entropy, ``epochs`` passes over ``data`` in a seeded
    order; returns each epoch's mean loss (nats)."""
    rng = np.random.default_rng(seed)
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in policy.params.items()}
    b1, b2, eps, step = 0.9, 0.999, 1e-8, 0
    losses = []
    for _ in range(epochs):
        order = rng.permutation(len(data))
        total = 0.0
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            x, mask, y = data.obs[rows], data.mask[rows], data.target[rows]
            z, hidden = policy.logits(x, mask)
            z = z - z.max(axis=1, keepdims=True)
            prob = np.exp(z)
            prob /= prob.sum(axis=1, keepdims=True)
            n = len(rows)
            total += float(-np.log(prob[np.arange(n), y] + 1e-12).sum())
            dz = prob
            dz[np.arange(n), y] -= 1
            dz /= n
            p = policy.params
            dhidden = (dz @ p["w2"].T) * (hidden > 0)
            grads = {"w2": hidden.T @ dz, "b2": dz.sum(axis=0),
                     "w1": x.T @ dhidden, "b1": dhidden.sum(axis=0)}
            step += 1
            for k, g in grads.items():
                m, v = moments[k]
                m *= b1
                m += (1 - b1) * g
                v *= b2
                v += (1 - b2) * g * g
                m_hat = m / (1 - b1 ** step)
                v_hat = v / (1 - b2 ** step)
                p[k] -= (lr * m_hat / (np.sqrt(v_hat) + eps)).astype(np.float32)
        losses.append(total / len(data))
    return losses


class PolicyBot:
    """A :class:`Policy` as a bot (:class:`hzmj.bots.base.Bot`): reads only the view it
    is given (RULES §13)."""

    name = "policy"

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        """The policy's most likely legal action (the only one, if there is one)."""
        from hzmj.env.encoding import encode_view, legal_index_map
        if len(legal) == 1:
            return legal[0]
        index = legal_index_map(legal, view)
        mask = action_mask(index).astype(bool)[None, :]
        chosen = int(self.policy.act(encode_view(view).reshape(1, -1), mask)[0])
        return index[chosen]

    def explain(self, view: dict[str, Any], legal: Sequence[Action],
                include: Action | None = None) -> list[Candidate]:
        """The chosen action alone, valued 1 (the policy ranks nothing else)."""
        return [Candidate(self.choose(view, legal), 1.0, "learned policy")]


def points_per_hand(rules: Rules, seat0: Bot, others: str, matches: int, seed: int) -> float:
    """Seat 0's mean points a hand over ``matches`` matches (match seeds from ``seed``),
    the other seats played by ``others`` bots."""
    per_match = []
    for m in range(matches):
        match_seed = derive_seed(seed, 10_000 + m)
        match = Match(rules, match_seed, log=False)
        start = match.points()[0]  # 0 in hands mode, start_points in points mode
        bots = [seat0] + [make_bot(others, derive_seed(match_seed, s))
                          for s in range(1, rules.players)]
        while not match.over:
            seat = match.to_move()[0]
            match.apply(bots[seat].choose(match.view(seat), match.legal_actions(seat)))
        per_match.append((match.points()[0] - start) / len(match.results))
    return statistics.fmean(per_match)


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=100, help="matches the teacher plays")
    ap.add_argument("--teacher", default="efficiency")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--eval-matches", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rules = Rules()
    games = collect(rules, args.matches, args.seed, args.teacher)
    cut = max(1, len(games) * 9 // 10)
    fit, held = join(games[:cut]), join(games[cut:] or games[-1:])
    uniform = float(np.mean(1 / held.mask.sum(axis=1)))
    print(f"samples: {len(fit)} to fit, {len(held)} held out "
          f"(uniform legal choice would agree {uniform:.1%})")
    policy = Policy(args.hidden, args.seed)
    losses = train(policy, fit, args.epochs, args.seed)
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f} nats; agreement with {args.teacher}: "
          f"{policy.accuracy(fit):.1%} fitted, {policy.accuracy(held):.1%} held out")
    bot = PolicyBot(policy)
    for others in ("random", args.teacher):
        learned = points_per_hand(rules, bot, others, args.eval_matches, args.seed)
        teacher = points_per_hand(rules, make_bot(args.teacher, args.seed), others,
                                  args.eval_matches, args.seed)
        print(f"seat 0 against three {others} bots, {args.eval_matches} matches: policy "
              f"{learned:+.2f} points a hand, {args.teacher} {teacher:+.2f}")


if __name__ == "__main__":
    main()
