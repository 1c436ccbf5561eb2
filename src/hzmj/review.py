"""AI review of one seat's play in a recorded match (``hzmj review``, the replay page).

The record is replayed action by action; at every decision of the seat that offered a
choice, the reviewing bot is shown exactly what the seat saw then (``Match.view(seat)``,
RULES §13, never another hand or the wall) and values its top choices and the move
played.  ``loss`` is how much less the bot valued the move played than its choice (0
when they agree: the same move, or one valued at least as high), in the bot's own unit
(the expert's: expected points of the hand).

Only the seat's own decisions are valued: an action the record's ``made_by`` marks as the
server bot's (托管, away, left) or the clock's (a timeout, RULES §8.7), and every action
of a seat that has left the match (``Match.is_auto``, RULES §8.5), are counted in
``skipped`` instead.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from hzmj.bots.base import Bot
from hzmj.bots.registry import BOT_NAMES, make_bot, sees_all
from hzmj.events import Action
from hzmj.record import MADE_BY, RecordError, Step, replay_steps
from hzmj.shown import shown

if TYPE_CHECKING:
    from hzmj.game import Match

DEFAULT_BOT: Final = "expert"
COSTLIEST: Final = 5
TOP: Final = 3

UNITS: Final = {"expert": "expected points of the hand", "strong": "expected multiplier M",
                "efficiency": "efficiency score"}
"""The reviewing bots and the unit of their values.  The random bot is none: it values
every legal move alike (1/n), so every move played would "agree" with it."""


def review(record: Mapping[str, Any], seat: int, bot: str = DEFAULT_BOT,
           progress: Callable[[int, int], None] | None = None,
           max_hands: int | None = None,
           replayed: tuple[Match, list[Step]] | None = None) -> dict[str, Any]:
    """Review ``seat``'s decisions in ``record`` with the bot called ``bot``; with
    ``max_hands``, those of the match's first ``max_hands`` hands only (a points match
    may last hundreds of hands: the server bounds what one review costs).
    ``replayed``: what :func:`~hzmj.record.replay_steps` already made of ``record``
    (then not replayed again for it).

    Returns ``{"seat", "bot", "unit", "hands", "hands_reviewed", "hands_played",
    "decisions": [...], "reviewed", "skipped", "agreement", "loss_total", "loss_per_hand",
    "costliest": [...]}`` (``skipped``: ``{"bot": n, "clock": n}``, the decisions with a
    choice the bot or the clock made for the seat, not reviewed; ``hands_played``: the
    reviewed hands where the player made a move itself, ``loss_per_hand`` is
    ``loss_total`` over them); a decision is
    ``{"index", "hand_no", "played", "best", "agree", "loss", "top"}`` (``index``: the
    action's place in the record; ``top``: the bot's best choices with their values;
    ``loss``: ``None`` when the bot did not value the move played; ``agree``: the move
    played is the bot's choice or valued at least as high, and then ``loss`` is 0).
    ``ValueError`` for a seat not at the table, a bot that sees hidden tiles, or one whose
    values do not rank the moves (the random bot: not one of :data:`UNITS`), an unknown
    bot; :class:`RecordError` for a record that does not replay.
    """
    if sees_all(bot):
        raise ValueError(f"{bot} sees every tile: a review uses the seat's view only")
    base = bot.partition(":")[0].partition("@")[0]
    if base in BOT_NAMES and base not in UNITS:
        raise ValueError(f"{bot} values every legal move alike: it cannot review (every "
                         f"move would agree with it); review with {', '.join(UNITS)}")
    if base not in UNITS:
        raise ValueError(f"unknown bot {shown(bot)}: review with {', '.join(UNITS)} "
                         "(expert:MS, expert@N)")
    reviewer = make_bot(bot, 0)  # ValueError for a bad budget or sample count
    match, steps = replay_steps(record) if replayed is None else replayed
    if not (isinstance(seat, int) and 0 <= seat < match.n):
        raise ValueError(f"seat {shown(seat)} is not at this table: its seats are "
                         f"{seat_list(range(match.n), 'and')}")
    from hzmj.game import Match  # replayed again, stopping at each decision

    live = Match(match.rules, match.seed)
    if max_hands is not None and max_hands < len(match.results):
        ended = 0  # the review stops at the step that ends hand max_hands
        for last, step in enumerate(steps):
            ended += sum(e.type == "hand_end" for e in step.events)
            if ended >= max_hands:
                steps = steps[:last + 1]
                break
    reviewed_hands = len(match.results) if max_hands is None else min(max_hands,
                                                                      len(match.results))
    total_mine = sum(1 for s in steps[1:] if s.action is not None and s.action.seat == seat)
    done = 0
    decisions = []
    skipped = dict.fromkeys(MADE_BY, 0)
    played_in: set[int] = set()  # hands where the player made a move of its own
    ended = 0  # hands ended so far in the replay
    unfinished = False  # the record stops inside a hand where the seat decided
    for i, step in enumerate(steps[1:]):
        action = step.action
        assert action is not None
        if action.seat == seat and action.type != "escape":
            by = step.by or ("bot" if live.is_auto(seat) else None)
            legal = live.legal_actions(seat)
            if by is None:
                played_in.add(live.hand_no)
            if len(legal) > 1 and by is not None:
                skipped[by] += 1
            elif len(legal) > 1:
                unfinished = ended == reviewed_hands
                decisions.append(_decision(i, live.hand_no, reviewer,
                                           live.view(seat), legal, action))
            done += 1
            if progress:
                progress(done, total_mine)
        try:
            live.apply(action)
        except ValueError as exc:  # pragma: no cover - replay_steps applied it already
            raise RecordError(f"action {i} does not apply: {exc}") from None
        ended += sum(e.type == "hand_end" for e in step.events)
    if unfinished:  # a record cut inside a hand: that hand counts as reviewed
        reviewed_hands += 1
    valued = [d["loss"] for d in decisions if d["loss"] is not None]
    # per hand the player played: hands left to 托管 or the clock whole are no hands of
    # theirs (5 hands, all 4 decisions in the first: 160 was shown as 32 a hand)
    hands = len(played_in) or 1
    total = sum(valued)
    return {
        "seat": seat, "bot": bot, "unit": UNITS[base],
        "hands": len(match.results), "hands_reviewed": reviewed_hands,
        "hands_played": len(played_in),
        "decisions": decisions, "reviewed": len(decisions), "skipped": skipped,
        "agreement": round(statistics.fmean(d["agree"] for d in decisions), 4)
        if decisions else None,
        "loss_total": round(total, 4), "loss_per_hand": round(total / hands, 4),
        "costliest": sorted((d for d in decisions if d["loss"]),
                            key=lambda d: -d["loss"])[:COSTLIEST],
    }


def seat_list(seats: Iterable[int], last: str) -> str:
    """``"0, 1, 2 and 3"`` (``last`` "and") or ``"0 or 1"`` (``last`` "or")."""
    names = [str(s) for s in seats]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


def _decision(index: int, hand_no: int, bot: Bot, view: dict[str, Any],
              legal: list[Action], played: Action) -> dict[str, Any]:
    ranked = bot.explain(view, legal, include=played)
    best = ranked[0]
    mine = next((c for c in ranked if c.action == played), None)
    # the expert keeps the strong bot's pick first unless another move beats it by two
    # paired standard errors, so a move it values as high as its pick is no mistake
    agree = best.action == played or (mine is not None and mine.value >= best.value)
    loss = 0.0 if agree else (best.value - mine.value if mine is not None else None)
    top = ranked[:TOP] + ([mine] if mine is not None and mine not in ranked[:TOP] else [])
    return {"index": index, "hand_no": hand_no, "played": played.to_json(),
            "best": best.action.to_json(), "agree": agree,
            "loss": round(loss, 4) if loss is not None else None,
            "top": [c.to_json() for c in top]}
