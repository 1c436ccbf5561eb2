"""Events in the field's words, one line each, as Rich markup: what the terminal table
(``hzmj play``) tells its player and what ``hzmj replay`` prints.

A tile is its glyph and notation (``🀋5m``); the hand's 财神 is starred (RULES §5.1) and
a white dragon standing in for the 财神 kind in flip mode says which tile it plays as
(``🀆5z=1s``, RULES §5.2).  A seat is ``seat N``, or ``you`` for the terminal's player.
Every text that comes from an event (names, explanations) is escaped: none is markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.markup import escape

from hzmj.rules import Rules
from hzmj.shown import counted
from hzmj.tiles import tile, tile_glyph, tile_name_zh

KONG_KINDS: dict[str, str] = {"concealed": "暗杠 concealed", "exposed": "明杠 exposed",
                              "added": "补杠 added"}
"""A kong's kind (the ``kind`` of a kong action or event) in the rule book's words."""


def glyph(name: str, caishen: str | None = None) -> str:
    """``🀋5m``; a 财神 is starred and highlighted (RULES §5.1); in 翻财神 mode a white
    dragon standing in for the 财神 kind says which tile it is (``🀆5z=5m``, RULES §5.2)."""
    t = tile(name)
    text = f"{tile_glyph(t)}{name}"
    if name == caishen:
        return f"[bold yellow]*{text}[/]"
    if name == "5z" and caishen is not None and caishen != "5z":
        return f"[cyan]{text}={caishen}[/]"
    return text


def tiles(names: Sequence[str], caishen: str | None = None) -> str:
    """:func:`glyph` of each tile, space-separated; ``–`` for none."""
    return " ".join(glyph(n, caishen) for n in names) or "–"


def standin_note(caishen: str) -> str:
    """One line explaining the white dragon in 翻财神 mode (RULES §5.2), or ""."""
    if caishen == "5z":
        return ""
    name = tile_name_zh(tile(caishen))
    return (f"白板 {glyph('5z', caishen)}: a white dragon stands in for {caishen} ({name}) — "
            f"it plays as a plain {caishen}, it is not a 财神 (rule book §5.2: hzmj rules 5.2)")


def rules_text(rules: Mapping[str, Any]) -> str:
    """The room options that differ from the defaults, as ``hzmj --rule`` writes them
    (``hands=16, cap=64``), or ``"default"``."""
    default = Rules().to_dict()
    changed = [f"{key}={_option(value)}" for key, value in rules.items()
               if default.get(key) != value]
    return ", ".join(changed) or "default"


def _option(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else str(value)


def event_lines(data: Mapping[str, Any], caishen: str | None = None,
                me: int | None = None) -> list[str]:
    """The lines of one event's JSON (full, or a seat's copy with hidden tiles
    ``None``): markup for a Rich console.  ``caishen`` is the hand's 财神 kind (from its
    ``hand_start``); ``me`` the seat told ``you``.  An event type this module does not
    know is shown as its fields."""
    kind = data["type"]
    seat = data.get("seat")
    who = _who(seat, me)
    s = "" if who == "you" else "s"
    if kind == "match_start":
        length = (f"{data['rules'].get('hands')} hands" if data["rules"].get("match_mode")
                  == "hands" else "played for points (打分, RULES §12.2)")
        return [f"match: {data['players']} seats, {length}, first dealer seat "
                f"{data['first_dealer']}; rules: {escape(rules_text(data['rules']))}"]
    if kind == "hand_start":
        cs = data["caishen"]
        dice = "+".join(str(d) for d in data["dice"])
        lines = [f"\n══ hand {data['hand_no']} starts: dealer seat {data['dealer']} (level "
                 f"{data['level']}), dice {dice}, 财神 {glyph(cs, cs)} "
                 f"{tile_name_zh(tile(cs))} ══"]
        for i, hand in enumerate(data["hands"]):
            if hand is not None:
                dealer = "庄" if i == data["dealer"] else "  "
                lines.append(f"   {_who(i, me):<6} {dealer} {tiles(hand, cs)}")
        return lines
    if kind == "draw":
        drawn = glyph(data["tile"], caishen) if data["tile"] else "a tile"
        return [f"{who} draw{s} {drawn}" + (", the kong's replacement (补牌)"
                                            if data["replacement"] else "")]
    if kind == "discard":
        lock = " — a 财神: the table is locked (RULES §5.5)" if data["caishen"] else ""
        return [f"{who} discard{s} {glyph(data['tile'], caishen)}{lock}"]
    if kind in ("chow", "pong"):
        meld = f": {tiles(data['tiles'], caishen)}" if kind == "chow" else ""
        return [f"{who} {kind}{s} {glyph(data['tile'], caishen)} from "
                f"{_who(data['from'], me)}{meld}"]
    if kind == "kong":
        shown = glyph(data["tile"], caishen) if data.get("tile") else "face down"
        giver = f" from {_who(data['from'], me)}" if data["kind"] == "exposed" else ""
        return [f"{who} kong{s} {shown}{giver} ({KONG_KINDS[data['kind']]})"]
    if kind == "kong_shown":
        return [f"{who} show{s} the concealed kong {glyph(data['tile'], caishen)} "
                "(RULES §6.7)"]
    if kind == "win":
        return _win_lines(data, who, caishen, me)
    if kind == "hand_end":
        return _settlement_lines(data, caishen, me)
    if kind == "escape":
        return [f"{who} escape{s} (逃跑, RULES §8.5): a bot plays the seat from now on",
                *_payment_lines(data["payments"], me),
                f"   deltas {data['deltas']} → points {data['points']}"]
    if kind == "match_end":
        ranking = ", ".join(f"{_who(r, me)} ({data['points'][r]})" for r in data["ranking"])
        return [f"\n══ match over after {counted(data['hands'], 'hand')}: {ranking} ══"]
    fields = " ".join(f"{k}={v}" for k, v in data.items() if k != "type" and v is not None)
    return [escape(f"{kind} {fields}")]


class Narrator:
    """:func:`event_lines` of a match's events in order, each with its hand's 财神 (which
    every ``hand_start`` names)."""

    def __init__(self, me: int | None = None) -> None:
        self.me = me
        self.caishen: str | None = None

    def lines(self, data: Mapping[str, Any]) -> list[str]:
        """The lines of the next event's JSON (see :func:`event_lines`)."""
        if data["type"] == "hand_start":
            self.caishen = data["caishen"]
        return event_lines(data, self.caishen, self.me)


def _who(seat: int | None, me: int | None) -> str:
    return "you" if seat is not None and seat == me else f"seat {seat}"


def _win_lines(data: Mapping[str, Any], who: str, caishen: str | None,
               me: int | None) -> list[str]:
    sc = data["score"]
    how = "self-draw" if data["self_draw"] else f"on {_who(data['from'], me)}'s discard"
    s = "" if who == "you" else "s"
    return [f"\n★ {who} win{s} on {glyph(data['tile'], caishen)} ({how}): "
            f"{sc['names']['zh']} ({escape(sc['names']['en'])}), M = {sc['multiplier']}",
            *(f"   {escape(line)}" for line in sc["explanation"])]


def _payment_lines(payments: Sequence[Mapping[str, Any]], me: int | None) -> list[str]:
    return [f"   {_who(p['from'], me)} pay{'' if p['from'] == me else 's'} "
            f"{_who(p['to'], me)} {p['amount']}: {p['reason_zh']} "
            f"({escape(p['reason_en'])}) — {escape(p['detail'])}" for p in payments]


def _settlement_lines(data: Mapping[str, Any], caishen: str | None,
                      me: int | None) -> list[str]:
    lines = [f"── hand {data['hand_no']} drawn (荒庄): nobody pays (RULES §8.6)"
             if data["result"] == "draw" else f"── hand {data['hand_no']} settled (RULES §10):"]
    lines += _payment_lines(data["payments"], me)
    lines += [f"   {escape(note)}" for note in data["notes"]]
    lines += [f"   {_who(i, me)}: {tiles(h['concealed'], caishen)} {' '.join(h['melds'])}".rstrip()
              for i, h in enumerate(data["hands"])]
    lines.append(f"   deltas {data['deltas']} → points {data['points']}")
    return lines
