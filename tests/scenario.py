"""Scenario builder for engine tests: one line sets up an exact position.

>>> m = deal("123456789m11p22p3z", "19m19p19s1234567z", draws="3z", caishen="5m")

builds a 2-player match (one hand string per seat, seat 0 first) whose first hand is
dealt by the real engine (:meth:`hzmj.game.Match.from_wall`) from a wall laid out so that

* each listed seat gets exactly its tiles (the dealer's string has 14, others 13; a seat
  given ``None`` gets filler),
* the live wall's head yields ``draws`` in order, its last tiles (the last head draws
  when there is no kong) are ``last_draws``, and kong replacements (the lower tile of
  the last live stack, RULES §6.4) yield ``replacements`` in order,
* in ``flip`` mode the indicator (the 财神 kind, RULES §4.5) sits on the upper tile of
  the dice's stack of the dead wall; ``caishen=None`` means ``white`` mode,
* every other position holds filler: the remaining tiles in a fixed shuffled order.

Actions are written as short strings, e.g. ``"1 pong"``, ``"0 discard 5m"``,
``"2 chow 4m6m"``, ``"3 kong 9s exposed"``, ``"0 win"``, ``"1 pass"``, ``"2 escape"``;
:func:`offered` lists a seat's legal actions in the same words (seat omitted).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from hzmj.events import Action, Chow, Discard, Escape, Event, Kong, Pass, Pong, Win
from hzmj.game import DEAD_WALL, Match
from hzmj.rules import Rules
from hzmj.tiles import Tile, counts_of, full_set, parse_tiles, tile, tile_name

__all__ = ["DEAD_WALL", "T", "act", "deal", "describe", "offered", "parse_action", "play",
           "run_until", "wall_layout"]


def T(name: str) -> Tile:  # noqa: N802 - reads like the notation it parses
    """One tile from its name (``"5m"``, ``"P"``)."""
    return tile(name)


def wall_layout(rules: Rules, hands: Sequence[str | None], *, draws: str = "",
                last_draws: str = "", replacements: str = "", caishen: str | None = None, dealer: int = 0,
                dice: tuple[int, int] = (3, 4), filler_seed: int = 0) -> list[Tile]:
    """The wall (head first) that deals the position described in the module docstring."""
    n = rules.players
    if len(hands) > n:
        raise ValueError(f"{len(hands)} hands for {n} seats")
    wanted: list[list[Tile] | None] = [
        parse_tiles(h) if h else None for h in (*hands, *([None] * (n - len(hands))))]
    for seat, tiles in enumerate(wanted):
        size = 14 if seat == dealer else 13
        if tiles is not None and len(tiles) != size:
            raise ValueError(f"seat {seat} needs {size} tiles, got {len(tiles)}")
    head = parse_tiles(draws)
    last = parse_tiles(last_draws)
    tail = parse_tiles(replacements)
    indicator = [tile(caishen)] if caishen else []
    used = [t for ts in wanted if ts for t in ts] + head + last + tail + indicator
    pool = counts_of(full_set(rules.drop_bamboo))
    for t in used:
        pool[t] -= 1
        if pool[t] < 0:
            raise ValueError(f"the scenario uses more {tile_name(t)} than the wall holds")
    filler = [t for t in range(len(pool)) for _ in range(pool[t])]
    random.Random(filler_seed).shuffle(filler)

    size = len(full_set(rules.drop_bamboo))
    wall: list[Tile | None] = [None] * size
    pos = 0
    for i in range(n):  # RULES §4.4: the dealer first, 14 tiles, then in turn order
        seat = (dealer + i) % n
        take = 14 if i == 0 else 13
        for t in wanted[seat] or [filler.pop() for _ in range(take)]:
            wall[pos] = t
            pos += 1
    for t in head:
        wall[pos] = t
        pos += 1
    live_end = size - DEAD_WALL
    for k, t in enumerate(last):
        wall[live_end - len(last) + k] = t
    for k, t in enumerate(tail):  # RULES §6.4: lower tile of the last live stack
        wall[live_end - 1 - 2 * k] = t
    if caishen:
        d = dice[0] + dice[1]
        wall[size - 2 * (d - 10 if d > 10 else d)] = tile(caishen)  # RULES §4.5
    return [t if t is not None else filler.pop() for t in wall]


def deal(*hands: str | None, draws: str = "", last_draws: str = "", replacements: str = "",
         caishen: str | None = None, dealer: int = 0, level: int | None = None,
         points: Sequence[int] | None = None, dice: tuple[int, int] = (3, 4),
         players: int | None = None, **options: Any) -> Match:
    """A match at the start of a hand with exactly these tiles (module docstring).

    ``players`` defaults to the number of hands given (at least 2); other keyword
    arguments are :class:`~hzmj.rules.Rules` options.
    """
    options.setdefault("caishen_mode", "flip" if caishen else "white")
    rules = Rules(players=players or max(2, len(hands)), **options)
    wall = wall_layout(rules, hands, draws=draws, last_draws=last_draws,
                       replacements=replacements, caishen=caishen, dealer=dealer, dice=dice)
    return Match.from_wall(rules, wall, dice, dealer=dealer, level=level, points=points)


# --------------------------------------------------------------------------------------
# actions as short strings


def describe(action: Action) -> str:
    """``"discard 5m"``, ``"kong 9s concealed"``, ``"chow 4m6m"``, ``"pong"`` …"""
    if isinstance(action, Discard):
        return f"discard {tile_name(action.tile)}"
    if isinstance(action, Kong):
        return f"kong {tile_name(action.tile)} {action.kind}"
    if isinstance(action, Chow):
        return f"chow {tile_name(action.tiles[0])}{tile_name(action.tiles[1])}"
    return action.type


def parse_action(text: str) -> Action:
    """The inverse of ``f"{seat} {describe(action)}"``."""
    seat_text, kind, *rest = text.split()
    seat = int(seat_text)
    simple: dict[str, Callable[[int], Action]] = {
        "win": Win, "pong": Pong, "pass": Pass, "escape": Escape}
    if kind in simple:
        return simple[kind](seat)
    if kind == "discard":
        return Discard(seat, tile(rest[0]))
    if kind == "kong":
        return Kong(seat, tile(rest[0]), rest[1])
    if kind == "chow":
        a, b = sorted(parse_tiles(rest[0]))
        return Chow(seat, (a, b))
    raise ValueError(f"unknown action {text!r}")


def offered(m: Match, seat: int) -> list[str]:
    """``seat``'s legal actions in :func:`describe` words, in the engine's order."""
    return [describe(a) for a in m.legal_actions(seat)]


def act(m: Match, text: str) -> list[Event]:
    """Apply one action written as ``"<seat> <action>"``; return its events."""
    return m.apply(parse_action(text))


def play(m: Match, *steps: str) -> list[Event]:
    """Apply several actions in order; return all their events."""
    events: list[Event] = []
    for step in steps:
        events += act(m, step)
    return events


def run_until(m: Match, stop: Callable[[Match], bool], limit: int = 2000) -> list[Event]:
    """Apply default actions (discard the drawn tile / pass, RULES §8.7) until ``stop``."""
    events: list[Event] = []
    for _ in range(limit):
        if stop(m) or m.over:
            return events
        seat = m.to_move()[0]
        default = m.default_action(seat)
        assert default is not None
        events += m.apply(default)
    raise AssertionError("run_until: the condition never held")
