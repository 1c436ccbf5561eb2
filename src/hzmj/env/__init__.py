"""Reinforcement-learning adapters: a PettingZoo AEC env (all seats) and a Gymnasium env
(one seat against bots), both driving the engine only through views and actions.

They need the ``rl`` extra (numpy, Gymnasium, PettingZoo): ``pip install 'hzmj[rl]'``, or
``uv sync --extra rl`` (the development group has them too).  Importing any module of this
package without them raises :class:`ImportError` saying so (docs/rl.md)."""

import importlib.util
import operator

from hzmj.rules import Rules
from hzmj.shown import shown

RL_PACKAGES = ("numpy", "gymnasium", "pettingzoo")
"""What the ``rl`` extra installs (pyproject.toml), by import name."""


def require_rl() -> None:
    """``ImportError`` naming the missing packages and the ``rl`` extra, if any of
    :data:`RL_PACKAGES` cannot be imported; run when this package is imported, so it
    comes before any numpy or Gymnasium import of its modules."""
    missing = [name for name in RL_PACKAGES if not _importable(name)]
    if missing:
        raise ImportError(f"hzmj.env needs {', '.join(missing)}: install the rl extra, "
                          f"pip install 'hzmj[rl]' (or uv sync --extra rl)")


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a broken install, or one set to None in sys.modules
        return False


require_rl()


def count_of(name: str, value: object) -> int:
    """``value`` as an ``int`` ≥ 1 (a numpy integer too); ``ValueError`` naming ``name``
    for anything else (0, a negative, a float, a bool, a string)."""
    try:
        count = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        count = 0
    if isinstance(value, bool) or count < 1:
        raise ValueError(f"{name} must be a whole number ≥ 1, got {value!r}")
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
