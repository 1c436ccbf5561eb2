"""Reinforcement-learning adapters: a PettingZoo AEC env (all seats), a Gymnasium env
(one seat against bots) and a Gymnasium vector env (many tables, one policy), all driving
the engine only through the engine's state, views and actions (docs/rl.md).

They need the ``rl`` extra (``pip install 'hzmj[rl]'``, or ``uv sync --extra rl``):
importing ``hzmj.env`` or any of its modules without it is an ``ImportError`` that says
so.  The three envs are also names of this package, imported when first used::

    from hzmj.env import HzmjAECEnv, HzmjSeatEnv, HzmjVectorEnv
"""

import importlib
import importlib.util
import operator
from typing import TYPE_CHECKING

from hzmj.rules import Rules
from hzmj.shown import shown

if TYPE_CHECKING:
    from hzmj.env.gym_env import HzmjSeatEnv
    from hzmj.env.pettingzoo_env import HzmjAECEnv
    from hzmj.env.vector import HzmjVectorEnv

RL_EXTRA = ("numpy", "gymnasium", "pettingzoo")  # pyproject.toml's rl extra
_missing = [name for name in RL_EXTRA if importlib.util.find_spec(name) is None]
if _missing:  # a bare "No module named 'gymnasium'" says nothing of the extra
    raise ImportError(f"hzmj.env needs {', '.join(_missing)} (the rl extra): "
                      f"pip install 'hzmj[rl]' (or uv sync --extra rl)", name=_missing[0])

_ENVS = {"HzmjAECEnv": "hzmj.env.pettingzoo_env", "HzmjSeatEnv": "hzmj.env.gym_env",
         "HzmjVectorEnv": "hzmj.env.vector"}
__all__ = ["HzmjAECEnv", "HzmjSeatEnv", "HzmjVectorEnv"]


def __getattr__(name: str) -> object:
    """The envs, imported on first use: ``import hzmj.env`` (which every env module does
    for the helpers below) stays light, and one env does not load the others."""
    if name not in _ENVS:
        raise AttributeError(f"module 'hzmj.env' has no attribute {name!r}")
    return getattr(importlib.import_module(_ENVS[name]), name)


def count_of(name: str, value: object, most: int | None = None) -> int:
    """``value`` as an ``int`` ≥ 1 (a numpy integer too), and ≤ ``most`` when given;
    ``ValueError`` naming ``name`` for anything else (0, a negative, too many, a float, a
    bool, a string)."""
    try:
        count = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        count = 0
    if isinstance(value, bool) or count < 1 or (most is not None and count > most):
        bounds = "≥ 1" if most is None else f"from 1 to {most:,}"
        raise ValueError(f"{name} must be a whole number {bounds}, got {shown(value)}")
    return count


def action_of(action: object) -> int:
    """An action index passed to ``step``: an ``int`` or a numpy integer, whether legal or
    not; ``ValueError`` for anything else (a float, whose ``int`` would play another
    action, a bool, a string)."""
    try:
        if not isinstance(action, bool):
            return operator.index(action)  # type: ignore[arg-type]
    except TypeError:
        pass
    raise ValueError(f"an action must be an integer index, got {action!r}")


def rules_of(rules: object) -> Rules:
    """``rules`` if they are a :class:`~hzmj.rules.Rules`, the defaults for ``None``;
    ``TypeError`` for anything else (a dict failed later, as an AttributeError, or in the
    vector env not until ``reset``)."""
    if rules is None:
        return Rules()
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a hzmj.rules.Rules (Rules.from_dict for a dict), "
                        f"got {type(rules).__name__}")
    return rules


def seed_of(seed: object) -> int | None:
    """A ``reset`` seed: ``None``, or an ``int`` (a numpy integer too); ``ValueError`` for
    anything else (a float, a bool, a string, a list of seeds)."""
    if seed is None:
        return None
    try:
        if not isinstance(seed, bool):
            return operator.index(seed)  # type: ignore[arg-type]
    except TypeError:
        pass
    raise ValueError(f"seed must be an integer or None, got {shown(seed)}")
