"""The authoritative game: a match of hands as a deterministic, event-emitting state machine.

>>> from hzmj.rules import Rules
>>> m = Match(Rules(), seed=7)
>>> seat = m.to_move()[0]
>>> events = m.apply(m.legal_actions(seat)[-1])

``Match(rules, seed)`` deals the first hand at once (its events are in ``match.log``).
Drivers (bots, the server, the CLI, the RL env) loop on :meth:`Match.to_move`,
:meth:`Match.legal_actions` and :meth:`Match.apply`, and show :meth:`Match.view`.
Every random choice comes from ``seed`` (RULES §4), so ``(rules, seed, actions)`` — the
record — rebuilds the match exactly (:mod:`hzmj.record`).
"""

from __future__ import annotations

import hashlib
import operator
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from hzmj.events import (
    Action,
    Chow,
    Discard,
    Escape,
    Event,
    IllegalActionError,
    Kong,
    Pass,
    Pong,
    Win,
    new_event,
)
from hzmj.hand import is_win_keys, key_units, plays_as
from hzmj.rules import Rules
from hzmj.scoring import (
    HandScore,
    Settlement,
    discard_win_allowed,
    escape_penalty,
    score_hand,
    settle,
    tan_limit,
)
from hzmj.tiles import (
    NUM_KINDS,
    WHITE,
    Hand,
    Meld,
    MeldKind,
    Tile,
    full_set,
    tile_name,
)

DEAD_WALL: Final = 20  # RULES §4.6: ten stacks are never drawn

# claim priority (RULES §6.3): win > pong = exposed kong > chow
_RANK_WIN: Final = 3
_RANK_PONG: Final = 2
_RANK_CHOW: Final = 1
_RANK_PASS: Final = 0


def _rank(action: Action) -> int:
    if isinstance(action, Win):
        return _RANK_WIN
    if isinstance(action, (Pong, Kong)):
        return _RANK_PONG
    if isinstance(action, Chow):
        return _RANK_CHOW
    return _RANK_PASS


TILE_NAMES: Final = tuple(tile_name(t) for t in range(NUM_KINDS))
"""``tile_name`` of every kind, by kind (a fast lookup for events and views)."""
_NAMES: Final = TILE_NAMES

# Actions are immutable values: the engine offers these shared instances instead of
# building new ones on every turn (drivers may still pass equal new instances).
_MAX_SEATS: Final = 4
_DISCARDS: Final = tuple(tuple(Discard(s, t) for t in range(NUM_KINDS)) for s in range(_MAX_SEATS))
_WINS: Final = tuple(Win(s) for s in range(_MAX_SEATS))
_PONGS: Final = tuple(Pong(s) for s in range(_MAX_SEATS))
_PASSES: Final = tuple(Pass(s) for s in range(_MAX_SEATS))


def shuffle_wall(rng: random.Random, wall: list[Tile]) -> None:
    """``rng.shuffle(wall)``: the same permutation, leaving ``rng`` in the same state
    (CPython's Fisher–Yates on ``getrandbits``; tests/test_game.py checks both), without
    a method call per place: a third of the cost."""
    getrandbits = rng.getrandbits
    top = len(wall) - 1
    while top > 0:
        k = (top + 1).bit_length()  # the same for every place down to 2 ** (k - 1) - 1
        stop = max((1 << (k - 1)) - 2, 0)
        for i in range(top, stop, -1):
            j = getrandbits(k)
            while j > i:
                j = getrandbits(k)
            wall[i], wall[j] = wall[j], wall[i]
        top = stop


def _names(tiles: Sequence[Tile]) -> list[str]:
    return [_NAMES[t] for t in tiles]


@dataclass
class SeatState:
    """One seat's state within a hand (plus its match points)."""

    concealed: list[Tile] = field(default_factory=list)
    melds: list[Meld] = field(default_factory=list)
    hidden_kongs: set[int] = field(default_factory=set)  # meld indices not yet shown (§6.7)
    discards: list[tuple[Tile, int | None]] = field(default_factory=list)  # (tile, claimed by)
    chain: list[str] = field(default_factory=list)  # RULES §8.2
    feeders: set[int] = field(default_factory=set)  # 后半场承包 (RULES §10.4)
    missed_pong: set[Tile] = field(default_factory=set)  # 失碰 (RULES §6.6)
    missed_win: set[Tile] = field(default_factory=set)  # 过胡 (RULES §6.6)
    points: int = 0
    auto: bool = False  # played by a bot after an escape (RULES §8.5)
    # kept up to date with ``concealed`` by take/drop (the fast win test and claims read them)
    counts: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)  # by physical kind
    keys: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # hand.group_keys of naturals
    wilds: int = 0  # 财神 tiles held

    def copy(self) -> SeatState:
        """An independent copy (melds are immutable and shared)."""
        return SeatState(list(self.concealed), list(self.melds), set(self.hidden_kongs),
                         list(self.discards), list(self.chain), set(self.feeders),
                         set(self.missed_pong), set(self.missed_win), self.points, self.auto,
                         list(self.counts), list(self.keys), self.wilds)

    def __deepcopy__(self, memo: dict[int, Any]) -> SeatState:
        return self.copy()

    def hold(self, tiles: list[Tile], units: _Units) -> None:
        """Make ``tiles`` the concealed hand (``units``: :func:`hzmj.hand.key_units`)."""
        counts = [0] * NUM_KINDS
        keys = [0, 0, 0, 0]
        wilds = 0
        for t in tiles:
            counts[t] += 1
            u = units[t]
            if u is None:
                wilds += 1
            else:
                keys[u[0]] += u[1]
        self.concealed = tiles
        self.counts = counts
        self.keys = keys
        self.wilds = wilds

    def take(self, t: Tile, units: _Units) -> None:
        """One tile joins the concealed hand."""
        self.concealed.append(t)
        self.counts[t] += 1
        u = units[t]
        if u is None:
            self.wilds += 1
        else:
            self.keys[u[0]] += u[1]

    def drop(self, t: Tile, units: _Units, copies: int = 1) -> None:
        """``copies`` tiles of kind ``t`` leave the concealed hand."""
        for _ in range(copies):
            self.concealed.remove(t)
        self.counts[t] -= copies
        u = units[t]
        if u is None:
            self.wilds -= copies
        else:
            self.keys[u[0]] -= u[1] * copies


_Units = tuple[tuple[int, int] | None, ...]

# how a from_wall match began: wall, dice, dealer, level, points (for logged_replay)
_Origin = tuple[tuple[Tile, ...], tuple[int, int], int, int | None, tuple[int, ...] | None]


@dataclass(frozen=True)
class HandResult:
    """How a hand ended: ``winner`` (or ``None`` for a draw), the score and settlement."""

    hand_no: int
    dealer: int
    level: int
    winner: int | None
    discarder: int | None
    score: HandScore | None
    settlement: Settlement | None



def seat_index(seat: object, players: int) -> int:
    """``seat`` as an ``int`` in ``0..players-1`` (a numpy integer too); ``ValueError``
    for anything else: a bool, a float, a string, a seat outside the table."""
    try:
        index = operator.index(seat)  # type: ignore[arg-type]
    except TypeError:
        index = -1
    if isinstance(seat, bool) or not 0 <= index < players:
        raise ValueError(f"no seat {seat!r} at a {players}-player table (None: a spectator)")
    return index

class Match:
    """A whole match (RULES §4, §6, §8, §11, §12).  See the module docstring."""

    _turn_cache: list[Action] | None  # the turn's legal actions, listed once per state
    _self_draw: tuple[HandScore, Tile] | None  # the turn's best self-draw, if any

    def __init__(self, rules: Rules, seed: int, *, log: bool = True, _deal: bool = True) -> None:
        """Deal the first hand of a match from ``seed`` (RULES §4).

        ``log=False`` builds no events (for simulations and search): :attr:`log` stays
        empty and :meth:`apply` returns ``[]``; everything else — state, legal actions,
        views, results, :meth:`record` (its digest comes from a logged replay) — is the
        same as with the log.  ``ValueError`` for a seed that is not a Python ``int``
        (``int(seed)`` for a numpy integer); ``TypeError`` for ``rules`` that are no
        :class:`~hzmj.rules.Rules` (``Rules.from_dict`` makes them from a dict).
        (``_deal=False`` is private: an empty shell that :meth:`clone` and
        :meth:`from_wall` fill, since compiled classes cannot be made by ``__new__``.)
        """
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer (a Python int: int(seed) for a numpy "
                             f"integer), got {seed!r}")
        if not isinstance(rules, Rules):  # a dict had no attribute 'players'
            raise TypeError(f"rules must be a Rules (Rules.from_dict for a dict), got "
                            f"{type(rules).__name__}")
        if not _deal:
            return
        self._setup(rules, seed, random.Random(seed).randrange(rules.players), log=log)
        self._start_hand()

    @classmethod
    def from_wall(cls, rules: Rules, wall: Sequence[Tile], dice: tuple[int, int], *,
                  dealer: int = 0, level: int | None = None,
                  points: Sequence[int] | None = None, log: bool = True) -> Match:
        """A match whose first hand is dealt from ``wall`` (head first, RULES §4.3–4.6) with
        ``dice``, instead of from the seed: an exact position for tests and puzzles.
        ``log`` as for :class:`Match`.

        ``wall`` must hold every tile in play once; ``level`` defaults to
        ``dealer_start_level``, ``points`` to the usual start.  Later hands are dealt
        from seed 0.  Its record does not replay (seed 0 does not make this wall).
        ``ValueError`` for a bad wall, dice, dealer, level or points.
        """
        if sorted(wall) != full_set(rules.drop_bamboo):
            raise ValueError("the wall must hold every tile in play exactly once")
        if len(dice) != 2 or not all(1 <= d <= 6 for d in dice):
            raise ValueError(f"dice must be two numbers 1..6, got {dice!r}")
        if not (0 <= dealer < rules.players):
            raise ValueError(f"dealer must be a seat 0..{rules.players - 1}, got {dealer}")
        if level is not None and level not in (1, 2, 3):
            raise ValueError(f"level must be 1, 2 or 3, got {level}")
        if points is not None and len(points) != rules.players:
            raise ValueError(f"points needs one entry per seat, got {len(points)}")
        match = cls(rules, 0, log=log, _deal=False)
        match._setup(rules, 0, dealer, level, points, log=log)
        match._origin = (tuple(wall), (dice[0], dice[1]), dealer, level,
                         None if points is None else tuple(points))
        match._deal(list(wall), (dice[0], dice[1]))
        return match

    def clone(self, *, hand_only: bool = False) -> Match:
        """An exact, independent copy (for search): same state, same future for the same
        actions, logging or not like this match.  Shares only immutable values (rules,
        actions, melds, events); a few tens of µs, where ``copy.deepcopy`` takes ~1 ms.

        ``hand_only=True`` (for rollouts to the hand's end): the copy stops when its
        current hand ends, with that hand's result, points and dealer succession, but
        without dealing the next hand: ``over`` turns true (no ``match_end`` event).
        Clones of it keep this."""
        new = Match(self.rules, self.seed, log=self.logged, _deal=False)
        new._hand_only = hand_only or self._hand_only
        new.rules = self.rules
        new.seed = self.seed
        new.n = self.n
        new._after = self._after
        new.logged = self.logged
        new._origin = self._origin
        new._replayable = self._replayable
        new.log = list(self.log)
        new.actions = list(self.actions)
        new.results = list(self.results)
        new.seats = [st.copy() for st in self.seats]
        new.state_id = self.state_id
        new.step = self.step
        new.event_steps = list(self.event_steps)
        new.hand_no = self.hand_no
        new.dealer = self.dealer
        new.level = self.level
        new.over = self.over
        new._turn_cache = self._turn_cache  # never mutated once listed
        new._self_draw = self._self_draw
        new.wall = list(self.wall)
        new.head = self.head
        new.live_end = self.live_end
        new.burned = list(self.burned)
        new.dice = self.dice
        new.indicator = self.indicator
        new._caishen = self._caishen
        new._units = self._units
        new.turn = self.turn
        new.phase = self.phase
        new.drew = self.drew
        new.replaced = self.replaced
        new.last_draw = self.last_draw
        new.lock = self.lock
        new.tan = dict(self.tan)
        new._winners_on = self._winners_on
        new.claim_tile = self.claim_tile
        new.claim_from = self.claim_from
        new.claim_options = dict(self.claim_options)  # the option lists are never mutated
        new.claim_responses = dict(self.claim_responses)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> Match:
        """``copy.deepcopy`` is :meth:`clone` (also for the compiled build, whose classes
        ``copyreg`` cannot rebuild)."""
        return self.clone()

    def logged_replay(self) -> Match:
        """The same match rebuilt with the log from its start (seed or wall) and actions:
        how a ``log=False`` match gets its events.  ``ValueError`` for a determinized
        position (:mod:`hzmj.determinize`), which has no start to replay from."""
        if not self._replayable:
            raise ValueError("a determinized position has no start of match to replay")
        if self._origin is None:
            twin = Match(self.rules, self.seed)
        else:
            wall, dice, dealer, level, points = self._origin
            twin = Match.from_wall(self.rules, wall, dice, dealer=dealer, level=level,
                                   points=points)
        for action in self.actions:
            twin.apply(action)
        return twin

    # ------------------------------------------------------------------ public API

    def to_move(self) -> list[int]:
        """Seats that must act now: the seat in turn, or the seats still to answer a claim
        window (in turn order after the discarder).  Empty once the match is over."""
        if self.over:
            return []
        if self.phase == "turn":
            return [self.turn]
        return [s for s in self._claim_order() if s in self.claim_options
                and s not in self.claim_responses]

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, in a stable order; the last one is the
        default (RULES §8.7: discard the drawn tile / pass).  Escape is not listed.
        ``ValueError`` for a seat not at the table (seat 4 of 4 had none: ``[]``)."""
        if not (type(seat) is int and 0 <= seat < self.n):
            seat = seat_index(seat, self.n)
        return list(self._legal(seat))

    def default_action(self, seat: int) -> Action | None:
        """The action the clock takes for ``seat`` (RULES §8.7), or ``None``."""
        actions = self.legal_actions(seat)
        return actions[-1] if actions else None

    def apply(self, action: Action) -> list[Event]:
        """Validate and apply ``action``; return the events it caused (full form).

        Raises :class:`IllegalActionError` naming why, leaving the state untouched, for an
        action of a seat that is not to move, or one not offered by :meth:`legal_actions`.
        """
        if not isinstance(action, Action):
            raise IllegalActionError(f"not an action: {action!r}")
        if self.over:
            raise IllegalActionError("the match is over")
        if not (0 <= action.seat < self.n):
            raise IllegalActionError(f"no seat {action.seat} at a {self.n}-player table")
        before = len(self.log)
        if isinstance(action, Escape):
            if self.seats[action.seat].auto:
                raise IllegalActionError(f"seat {action.seat} has already left")
            self.actions.append(action)
            self.step += 1
            self._escape(action.seat)
        else:
            legal = self._legal(action.seat)
            for offered in legal:  # offered instances match by identity (the fast path)
                if offered is action:
                    break
            else:
                if action not in legal:  # equal new instances match by value
                    raise IllegalActionError(self._why_illegal(action, legal))
            self.actions.append(action)
            if self.phase == "turn":
                self.step += 1
                self._apply_turn(action)
            else:
                self._apply_claim(action)
            self._turn_cache = None
        self.state_id += 1
        return self.log[before:]

    def _legal(self, seat: int) -> Sequence[Action]:
        """:meth:`legal_actions` without the defensive copy."""
        if self.over or not (0 <= seat < self.n):
            return ()
        if self.phase == "turn":
            if seat != self.turn:
                return ()
            if self._turn_cache is None:  # computed once per state (apply reuses it)
                self._turn_cache = self._turn_actions(seat)
            return self._turn_cache
        if seat in self.claim_options and seat not in self.claim_responses:
            return self.claim_options[seat]
        return ()

    def is_auto(self, seat: int) -> bool:
        """Whether a bot must play ``seat`` (it escaped, RULES §8.5); ``ValueError`` for a
        seat not at the table."""
        return self.seats[seat_index(seat, self.n)].auto

    @property
    def caishen(self) -> Tile:
        """This hand's 财神 kind (0–33; ``31``, the white dragon, in white mode, RULES
        §4.5)."""
        return self._caishen

    @property
    def live_count(self) -> int:
        """Live tiles left (RULES §4.6)."""
        return self.live_end - self.head

    def points(self) -> list[int]:
        """Each seat's points now, seat 0 first (a fresh list)."""
        return [s.points for s in self.seats]

    def hand_of(self, seat: int) -> Hand:
        """``seat``'s hand now: concealed tiles (sorted) and melds.  ``ValueError`` for
        anything but a seat of this table (``-1`` is no seat, not the last one)."""
        s = self.seats[seat_index(seat, self.n)]
        return Hand(tuple(sorted(s.concealed)), tuple(s.melds))

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see now (RULES §13); ``None`` is a spectator.  JSON-ready."""
        from hzmj.view import build_view

        return build_view(self, seat)

    def record(self) -> dict[str, Any]:
        """The JSON record: format version, rules, seed and every action (see record.py).
        ``ValueError`` for a determinized position or a hand-only clone: no replay of a
        record gives them."""
        from hzmj.record import make_record

        return make_record(self)

    def no_record_reason(self) -> str | None:
        """Why :meth:`record` cannot write this match (a determinized position has no start
        to replay; a hand-only clone stopped before its rules' end), or ``None``."""
        if not self._replayable:
            return "a determinized position has no start of match to replay"
        if self._hand_only:
            return "a hand-only clone stops at its hand's end, which no replay does"
        return None

    # ------------------------------------------------------------------ set-up (§4)

    def _hand_rng(self) -> random.Random:
        digest = hashlib.sha256(f"hzmj:{self.seed}:{self.hand_no}".encode()).digest()
        return random.Random(int.from_bytes(digest[:16], "big"))

    def _setup(self, rules: Rules, seed: int, dealer: int, level: int | None = None,
               points: Sequence[int] | None = None, *, log: bool = True) -> None:
        self.rules = rules
        self.seed = seed
        self.n = rules.players
        self.logged = log
        self._origin: _Origin | None = None
        self._replayable = True  # False for a determinized position (hzmj.determinize)
        self._hand_only = False  # see clone(hand_only=True)
        # the other seats in turn order after each seat (claim order, RULES §6.3)
        self._after = [tuple((d + i) % self.n for i in range(1, self.n)) for d in range(self.n)]
        self.log: list[Event] = []
        self.actions: list[Action] = []
        self.results: list[HandResult] = []
        start = rules.start_points if rules.match_mode == "points" else 0
        self.seats = [SeatState(points=start if points is None else points[i])
                      for i in range(self.n)]
        self.state_id = 0  # one more per applied action
        # The public step (RULES §13): one more per turn action or escape, and one more
        # when a discard's outcome is decided, at once or when its claim window closes.
        # Answers inside a window add nothing, so an observer counting steps learns
        # nothing about who could claim; event_steps[i] is the step of log[i].
        self.step = 0
        self.event_steps: list[int] = []
        self.hand_no = 0
        self.dealer = dealer
        self.level = rules.dealer_start_level if level is None else level
        self.over = False
        self._turn_cache = None
        self._self_draw = None
        if log:
            self._emit({"type": "match_start", "rules": rules.to_dict(), "players": self.n,
                        "first_dealer": self.dealer, "points": self.points()})

    def _start_hand(self) -> None:
        rng = self._hand_rng()
        wall = full_set(self.rules.drop_bamboo)
        shuffle_wall(rng, wall)  # RULES §4.3
        dice = (rng.randint(1, 6), rng.randint(1, 6))  # RULES §4.2
        self._deal(wall, dice)

    def _deal(self, wall: list[Tile], dice: tuple[int, int]) -> None:
        """RULES §4.3–4.8: deal ``wall`` from its head and find the 财神."""
        self.wall = wall
        self.head = 0
        self.live_end = len(wall) - DEAD_WALL
        self.burned: list[Tile] = []
        self.dice = dice
        # RULES §4.8: everything per hand starts fresh
        self.seats = [SeatState(points=s.points, auto=s.auto) for s in self.seats]
        # RULES §4.5: the 财神
        self.indicator: Tile | None = None
        if self.rules.caishen_mode == "flip":
            d = dice[0] + dice[1]
            stack = d - 10 if d > 10 else d  # counted from the tail, RULES §14.1
            self.indicator = wall[len(wall) - 2 * stack]  # upper tile of that stack
            self._caishen = self.indicator
        else:
            self._caishen = WHITE
        self._units = key_units(self._caishen)
        # RULES §4.4: deal from the head, dealer 14, others 13
        for i in range(self.n):
            seat = (self.dealer + i) % self.n
            take = 14 if i == 0 else 13
            self.seats[seat].hold(wall[self.head:self.head + take], self._units)
            self.head += take
        self.turn = self.dealer
        self.phase = "turn"
        self.drew = True
        self.replaced = False  # the tile just drawn is a kong replacement (RULES §5.5)
        self.last_draw: Tile | None = None  # None with drew=True: the dealer's dealt 14 (§4.7)
        self.lock: int | None = None  # RULES §5.5
        self.tan: dict[tuple[int, int], int] = {}
        self._winners_on = self._list_discard_winners()
        self.claim_tile: Tile | None = None
        self.claim_from = -1
        self.claim_options: dict[int, list[Action]] = {}
        self.claim_responses: dict[int, Action] = {}
        self._turn_cache = None
        self.hand_no += 1
        if self.logged:
            self._emit(
                {"type": "hand_start", "hand_no": self.hand_no, "dealer": self.dealer,
                 "level": self.level, "dice": list(dice), "caishen": _NAMES[self._caishen],
                 "indicator": _NAMES[self.indicator] if self.indicator is not None else None,
                 "hands": [_names(sorted(s.concealed)) for s in self.seats],
                 "live": self.live_count, "points": self.points()},
                {"hands": Event.PER_SEAT},
            )

    # ------------------------------------------------------------------ helpers

    def _emit(self, data: dict[str, Any], secrets: dict[str, int] | None = None) -> None:
        self.log.append(new_event(data, secrets))
        self.event_steps.append(self.step)

    def _next(self, seat: int) -> int:
        return (seat + 1) % self.n

    def _claim_order(self) -> tuple[int, ...]:
        return self._after[self.claim_from]

    def _locked(self, seat: int) -> bool:
        """RULES §5.5: another player's 财神 lock binds ``seat``."""
        return self.lock is not None and self.lock != seat

    def _tan_allowed(self, taker: int, giver: int, is_chow: bool) -> bool:
        """RULES §6.5: may ``taker`` take one more 摊 from ``giver``?"""
        if not is_chow and not self.rules.pong_counts_as_tan:
            return True
        limit = tan_limit(self.rules, taker=taker, giver=giver, dealer=self.dealer,
                          level=self.level)
        return limit is None or self.tan.get((taker, giver), 0) < limit

    def _why_illegal(self, action: Action, legal: Sequence[Action]) -> str:
        if self.phase == "turn" and action.seat != self.turn:
            return f"it is seat {self.turn}'s turn, not seat {action.seat}'s"
        if self.phase == "claim" and action.seat not in self.to_move():
            return f"seat {action.seat} has no claim to answer now"
        same = [a for a in legal if a.type == action.type]
        if not same:
            offered = ", ".join(sorted({a.type for a in legal}))
            return f"{action.type} is not legal for seat {action.seat} now (legal: {offered})"
        if isinstance(action, Discard) and action.tile not in self.seats[action.seat].concealed:
            return f"seat {action.seat} holds no {tile_name(action.tile)} to discard"
        if isinstance(action, Discard) and self._locked(action.seat):
            return (f"seat {action.seat} must discard the tile it just drew while seat "
                    f"{self.lock}'s 财神 lock holds (RULES §5.5)")
        shown = sorted({str({k: v for k, v in a.to_json().items() if k not in ("type", "seat")})
                        for a in same})
        more = f" and {len(shown) - 6} more" if len(shown) > 6 else ""
        return (f"this {action.type} is not one seat {action.seat} may make now (it may: "
                f"{'; '.join(shown[:6])}{more})")

    # ------------------------------------------------------------------ own turn (§6.2)

    def _turn_actions(self, seat: int) -> list[Action]:
        st = self.seats[seat]
        cs = self._caishen
        drawn = self.last_draw if self.drew else None
        locked = drawn is not None and self.lock is not None and self.lock != seat
        held = set(st.concealed)
        kinds = sorted(held)
        out: list[Action] = []
        self._self_draw = self._self_draw_win(seat) if self.drew else None
        if self._self_draw is not None:
            out.append(_WINS[seat])
        if self.live_count >= 2:  # RULES §6.4
            if len(st.concealed) - len(kinds) >= 3:  # some kind may be held four times
                counts = st.counts
                for k in kinds:
                    # RULES §5.5, §14.12: a locked player may kong once, with the tile just drawn;
                    # never again on the replacement
                    if counts[k] == 4 and k != cs and (
                            not locked or (k == drawn and not self.replaced)):
                        out.append(Kong(seat, k, "concealed"))  # RULES §5.3
            if not locked:  # RULES §14.3: no added kong under the lock
                for m in st.melds:
                    if m.kind is MeldKind.PONG and m.tiles[0] in held:
                        out.append(Kong(seat, m.tiles[0], "added"))
        row = _DISCARDS[seat]
        if locked:  # 摸打 (RULES §5.5)
            assert drawn is not None
            out.append(row[drawn])
        else:
            default = drawn if drawn is not None else kinds[-1]
            out += [row[k] for k in kinds if k != default]
            out.append(row[default])  # the default comes last (RULES §8.7)
        return out

    def _wins(self, seat: int, extra: Tile | None) -> bool:
        """Fast shape test of ``seat``'s concealed tiles plus ``extra`` (RULES §7.1–7.2)."""
        st = self.seats[seat]
        seven_pairs = not st.melds and len(st.concealed) + (extra is not None) == 14
        if extra is None:
            return is_win_keys(st.keys, st.wilds, seven_pairs)
        u = self._units[extra]
        if u is None:
            return is_win_keys(st.keys, st.wilds + 1, seven_pairs)
        keys = st.keys  # the tile joins for the test only (no copy of the list)
        keys[u[0]] += u[1]
        win = is_win_keys(keys, st.wilds, seven_pairs)
        keys[u[0]] -= u[1]
        return win

    def _self_draw_win(self, seat: int) -> tuple[HandScore, Tile] | None:
        """Best self-draw score of ``seat``'s 14 tiles and its winning tile, or ``None``
        (RULES §7, §8.1)."""
        if not self._wins(seat, None):
            return None
        st = self.seats[seat]
        candidates = [self.last_draw] if self.last_draw is not None else sorted(set(st.concealed))
        best: tuple[HandScore, Tile] | None = None
        for win_tile in candidates:  # the dealer's dealt hand: any tile may be the winner (§4.7)
            rest = list(st.concealed)
            rest.remove(win_tile)
            sc = score_hand(Hand(tuple(rest), tuple(st.melds)), win_tile, self._caishen,
                            st.chain, self.rules)
            if sc.win and (best is None or sc.multiplier > best[0].multiplier):
                best = (sc, win_tile)
        return best

    def _apply_turn(self, action: Action) -> None:
        seat = action.seat
        if isinstance(action, Win):
            won = self._self_draw  # scored when the turn's actions were listed
            assert won is not None
            self._finish_win(seat, won[0], won[1], discarder=None)
        elif isinstance(action, Kong):
            self._declare_kong(seat, action)
        elif isinstance(action, Discard):
            self._discard(seat, action.tile)
        else:  # pragma: no cover - legal_actions offers nothing else on a turn
            raise IllegalActionError(f"{action.type} is not a turn action")

    def _declare_kong(self, seat: int, action: Kong) -> None:
        st = self.seats[seat]
        k = action.tile
        if action.kind == "concealed":
            st.drop(k, self._units, 4)
            st.melds.append(Meld(MeldKind.CONCEALED_KONG, (k,) * 4))
            st.hidden_kongs.add(len(st.melds) - 1)
            if self.logged:
                self._emit({"type": "kong", "seat": seat, "kind": "concealed", "tile": _NAMES[k],
                            "from": None}, {"tile": seat})
        else:  # added kong (补杠); robbing a kong is not allowed (RULES §8.4); it turns a
            # pong already counted into a kong and adds no 摊 (RULES §14.11)
            idx = next(i for i, m in enumerate(st.melds)
                       if m.kind is MeldKind.PONG and m.tiles[0] == k)
            old = st.melds[idx]
            st.drop(k, self._units)
            st.melds[idx] = Meld(MeldKind.ADDED_KONG, (k,) * 4, old.source, old.claimed)
            if self.logged:
                self._emit({"type": "kong", "seat": seat, "kind": "added", "tile": _NAMES[k],
                            "from": old.source})
        st.chain.append("kong")  # RULES §8.2
        self._replacement(seat)

    def _replacement(self, seat: int) -> None:
        """RULES §6.4: draw the lower tile of the last live stack, burn the upper one."""
        drawn = self.wall[self.live_end - 1]
        self.burned.append(self.wall[self.live_end - 2])
        self.live_end -= 2
        self._give(seat, drawn, replacement=True)

    def _give(self, seat: int, t: Tile, *, replacement: bool) -> None:
        st = self.seats[seat]
        st.take(t, self._units)
        st.missed_pong.clear()  # RULES §6.6: cleared when the player takes a tile
        st.missed_win.clear()
        self.turn = seat
        self.phase = "turn"
        self.drew = True
        self.replaced = replacement
        self.last_draw = t
        if self.logged:
            self._emit({"type": "draw", "seat": seat, "tile": _NAMES[t],
                        "replacement": replacement, "live": self.live_count}, {"tile": seat})

    def _draw(self, seat: int) -> None:
        """RULES §6.1: draw from the head, or end the hand as a draw (§8.6)."""
        if self.live_count <= 0:
            self._finish_draw()
            return
        t = self.wall[self.head]
        self.head += 1
        if self.seats[seat].hidden_kongs:  # RULES §6.7, §14.12: the go-around has passed
            self._show_kongs(seat)
        self._give(seat, t, replacement=False)

    def _show_kongs(self, seat: int) -> None:
        """RULES §6.7: a concealed kong is shown once a go-around has passed, i.e. when
        play comes back to its owner (a draw from the wall or a claim, not a
        replacement within the same turn; RULES §14.12, docs/rules-decisions.md #2)."""
        st = self.seats[seat]
        for idx in sorted(st.hidden_kongs):
            if self.logged:
                self._emit({"type": "kong_shown", "seat": seat,
                            "tile": _NAMES[st.melds[idx].tiles[0]]})
        st.hidden_kongs.clear()

    def _discard(self, seat: int, t: Tile) -> None:
        st = self.seats[seat]
        st.drop(t, self._units)
        st.discards.append((t, None))
        self.drew = False
        self.last_draw = None
        is_caishen = t == self._caishen
        if is_caishen:  # RULES §5.5, §8.2
            self.lock = seat
            st.chain.append("piao")
        else:
            if self.lock == seat:
                self.lock = None  # this discard is already free
            st.chain.clear()
            st.feeders.clear()
        if self.logged:
            self._emit({"type": "discard", "seat": seat, "tile": _NAMES[t],
                        "caishen": is_caishen, "lock": self.lock})
        self.claim_tile = t
        self.claim_from = seat
        self.claim_options = {} if is_caishen else self._claim_options(seat, t)  # RULES §5.4
        self.claim_responses = {}
        if self.claim_options:
            self.phase = "claim"
        else:
            self.step += 1  # the discard's outcome: a step of its own, window or not
            self._draw(self._next(seat))

    # ------------------------------------------------------------------ claims (§6.3)

    def _claim_options(self, discarder: int, t: Tile) -> dict[int, list[Action]]:
        t_nat = plays_as(t, self._caishen)
        chower = self._next(discarder) if t_nat is not None and t_nat < 27 else -1
        winners = self._discard_winners(discarder)
        lock = self.lock
        options: dict[int, list[Action]] = {}
        for seat in self._after[discarder]:
            if lock is not None and lock != seat:  # RULES §5.5
                continue
            st = self.seats[seat]
            same = st.counts[t]
            may_win = seat in winners
            if same < 2 and seat != chower and not may_win:
                continue  # the common case: nothing to check
            acts: list[Action] = []
            if may_win and self._discard_win_allowed(seat, discarder, t):
                acts.append(_WINS[seat])
            if same >= 2 and t not in st.missed_pong and self._tan_allowed(seat, discarder, False):
                acts.append(_PONGS[seat])
                if same >= 3 and self.live_count >= 2:  # RULES §6.4
                    acts.append(Kong(seat, t, "exposed"))
            if seat == chower and t_nat is not None:
                pairs = self._chow_pairs(st.counts, t_nat)
                if pairs and self._tan_allowed(seat, discarder, True):
                    acts += [Chow(seat, pair) for pair in pairs]
            if acts:
                acts.append(_PASSES[seat])
                options[seat] = acts
        return options

    def _chow_pairs(self, counts: list[int], t_nat: Tile) -> list[tuple[Tile, Tile]]:
        """Physical tile pairs of the hand that make a run with a tile playing as ``t_nat``
        (RULES §6.3, §5.2: a white dragon plays as the 财神 kind; a 财神 never melds)."""
        cs = self._caishen
        r = t_nat % 9
        pairs = []
        for lo, hi in ((-2, -1), (-1, 1), (1, 2)):
            if r + lo >= 0 and r + hi <= 8:
                a = WHITE if t_nat + lo == cs else t_nat + lo  # a real 财神-kind tile is wild
                b = WHITE if t_nat + hi == cs else t_nat + hi
                if counts[a] and counts[b]:
                    pairs.append((a, b) if a <= b else (b, a))
        return sorted(pairs)

    def _discard_winners(self, discarder: int) -> tuple[int, ...]:
        """RULES §8.4: the seats that may win on ``discarder``'s discard at all: only with
        the option, at dealer level 3, and between the dealer and a non-dealer (fixed for
        the hand, so listed once per hand)."""
        return self._winners_on[discarder]

    def _list_discard_winners(self) -> list[tuple[int, ...]]:
        return [tuple(s for s in self._after[d]
                      if discard_win_allowed(self.rules, winner=s, discarder=d,
                                             dealer=self.dealer, level=self.level))
                for d in range(self.n)]

    def _discard_win_allowed(self, seat: int, discarder: int, t: Tile) -> bool:
        """RULES §8.4: a discard win by ``seat`` on ``t``: the option, level and pairing,
        not on a 财神, not under another's lock, not after 过胡 of this tile."""
        if seat not in self._discard_winners(discarder):
            return False
        if t == self._caishen or self._locked(seat) or t in self.seats[seat].missed_win:
            return False
        return self._discard_win_score(seat, t) is not None

    def _discard_win_score(self, seat: int, t: Tile) -> HandScore | None:
        if not self._wins(seat, t):
            return None
        st = self.seats[seat]
        sc = score_hand(Hand(tuple(st.concealed), tuple(st.melds)), t, self._caishen, (),
                        self.rules, discard=True)
        return sc if sc.win else None

    def _apply_claim(self, action: Action) -> None:
        seat = action.seat
        t = self.claim_tile
        assert t is not None
        opts = self.claim_options[seat]
        st = self.seats[seat]
        # RULES §6.6: passing on a possible pong or discard win of this tile
        if any(isinstance(a, Pong) for a in opts) and not isinstance(action, (Pong, Kong)):
            st.missed_pong.add(t)
        if any(isinstance(a, Win) for a in opts) and not isinstance(action, Win):
            st.missed_win.add(t)
        self.claim_responses[seat] = action
        self._resolve_claims_if_decided()

    def _resolve_claims_if_decided(self) -> None:
        order = self._claim_order()
        best: Action | None = None
        for s in order:  # first in turn order wins ties (截胡, RULES §6.3)
            a = self.claim_responses.get(s)
            if a is not None and _rank(a) > (_rank(best) if best else _RANK_PASS):
                best = a
        best_rank = _rank(best) if best else _RANK_PASS
        for s in order:
            if s in self.claim_options and s not in self.claim_responses:
                could = max(_rank(a) for a in self.claim_options[s])
                # a pending seat still matters if it could outrank, or tie a win ahead in order
                if could > best_rank or (could == best_rank == _RANK_WIN and best is not None
                                         and order.index(s) < order.index(best.seat)):
                    return
        self.claim_options = {}
        self.claim_responses = {}
        self.step += 1  # the discard's outcome (see _discard)
        if best is None:
            self._draw(self._next(self.claim_from))
        else:
            self._take_discard(best)

    def _take_discard(self, action: Action) -> None:
        seat, giver, t = action.seat, self.claim_from, self.claim_tile
        assert t is not None
        st = self.seats[seat]
        gst = self.seats[giver]
        gst.discards[-1] = (t, seat)
        if isinstance(action, Win):
            sc = self._discard_win_score(seat, t)
            assert sc is not None
            st.take(t, self._units)
            self._finish_win(seat, sc, t, discarder=giver)
            return
        st.missed_pong.clear()
        st.missed_win.clear()
        if st.hidden_kongs:  # RULES §6.7, §14.12: a claim also ends the go-around
            self._show_kongs(seat)
        if st.chain.count("piao") >= 1:  # RULES §10.4 后半场承包
            st.feeders.add(giver)
        if isinstance(action, Chow):
            a, b = action.tiles
            st.drop(a, self._units)
            st.drop(b, self._units)
            meld = Meld.of(MeldKind.CHOW, (a, b, t), self._caishen, giver, t)  # RULES §5.2
            kind_name, is_chow = "chow", True
        else:
            n = 3 if isinstance(action, Kong) else 2
            st.drop(t, self._units, n)
            kind = MeldKind.EXPOSED_KONG if isinstance(action, Kong) else MeldKind.PONG
            meld = Meld(kind, (t,) * (n + 1), giver, t)
            kind_name, is_chow = ("kong" if isinstance(action, Kong) else "pong"), False
        if is_chow or self.rules.pong_counts_as_tan:  # RULES §6.5, counted per ordered pair (§14.11)
            self.tan[(seat, giver)] = self.tan.get((seat, giver), 0) + 1
        st.melds.append(meld)
        if self.logged:
            data: dict[str, Any] = {"type": kind_name, "seat": seat, "from": giver,
                                    "tile": _NAMES[t], "tiles": _names(meld.physical_tiles)}
            if isinstance(action, Kong):
                data["kind"] = "exposed"
            self._emit(data)
        if isinstance(action, Kong):
            st.chain.append("kong")
            self._replacement(seat)
        else:
            self.turn = seat
            self.phase = "turn"
            self.drew = False
            self.last_draw = None

    # ------------------------------------------------------------------ hand end (§8, §10–§12)

    def _finish_win(self, seat: int, sc: HandScore, win_tile: Tile, discarder: int | None) -> None:
        st = self.seats[seat]
        stats_p = st.chain.count("piao") if discarder is None else 0
        settlement = settle(self.rules, winner=seat, multiplier=sc.multiplier, dealer=self.dealer,
                            level=self.level, discarder=discarder, tan=self.tan,
                            piao_feeders=st.feeders if stats_p else ())
        if self.logged:
            self._emit({"type": "win", "seat": seat, "from": discarder,
                        "tile": _NAMES[win_tile],
                        "self_draw": discarder is None, "chain": list(st.chain),
                        "score": sc.to_dict()})
        self._end_hand(HandResult(self.hand_no, self.dealer, self.level, seat, discarder, sc,
                                  settlement))

    def _finish_draw(self) -> None:
        self._end_hand(HandResult(self.hand_no, self.dealer, self.level, None, None, None, None))

    def _end_hand(self, result: HandResult) -> None:
        self.results.append(result)
        deltas = result.settlement.deltas if result.settlement else (0,) * self.n
        for s, d in zip(self.seats, deltas, strict=True):
            s.points += d
            s.hidden_kongs.clear()  # RULES §6.7: every concealed kong is shown at the hand's end
        self.phase = "over"
        if self.logged:
            self._emit({
                "type": "hand_end", "hand_no": self.hand_no, "result": "win" if result.winner is not
                None else "draw", "winner": result.winner, "from": result.discarder,
                "dealer": self.dealer, "level": self.level, "deltas": list(deltas),
                "payments": [p.to_dict() for p in result.settlement.payments]
                if result.settlement else [],
                "notes": list(result.settlement.notes) if result.settlement else [],
                "hands": [self._reveal(i) for i in range(self.n)], "points": self.points(),
            })
        # RULES §11: dealer succession
        dealer_won = result.winner == self.dealer
        if result.winner is None or dealer_won:
            self.level = min(3, self.level + 1)
        else:
            self.dealer = result.winner
            self.level = self.rules.dealer_start_level
        if self._match_over(dealer_won):
            self.over = True
            order = sorted(range(self.n), key=lambda i: (-self.seats[i].points, i))
            if self.logged:
                self._emit({"type": "match_end", "points": self.points(), "ranking": order,
                            "hands": self.hand_no})
        elif self._hand_only:
            self.over = True  # a rollout's copy: the next hand would be dealt for nothing
        else:
            self._start_hand()

    def _reveal(self, seat: int) -> dict[str, Any]:
        st = self.seats[seat]
        return {"concealed": _names(sorted(st.concealed)),
                "melds": [m.notation() for m in st.melds]}

    def _match_over(self, dealer_won: bool) -> bool:
        """RULES §12."""
        if self.rules.match_mode == "hands":
            return self.hand_no >= self.rules.hands
        return not dealer_won and any(s.points <= 0 for s in self.seats)

    def _escape(self, seat: int) -> None:
        """RULES §8.5: the escape penalty (none below dealer level 3); a bot takes over."""
        self.seats[seat].auto = True
        pen = escape_penalty(self.rules, escaper=seat, dealer=self.dealer, level=self.level)
        for s, d in zip(self.seats, pen.deltas, strict=True):
            s.points += d
        if self.logged:
            self._emit({"type": "escape", "seat": seat, "deltas": list(pen.deltas),
                        "payments": [p.to_dict() for p in pen.payments], "points": self.points()})

