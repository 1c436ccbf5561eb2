"""Reinforcement-learning adapters: a PettingZoo AEC env (all seats) and a Gymnasium env
(one seat against bots), both driving the engine only through views and actions."""

import operator


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
