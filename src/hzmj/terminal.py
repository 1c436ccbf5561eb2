"""The terminal table (``hzmj play``): one person plays a whole match against bots.

Everything shown comes from the person's own view (RULES §13) and the events of the
match redacted for that seat.  Input is read line by line from any text stream, so the
session runs the same in a terminal and in a test fed from a string:

* own turn: a discard by index (``3``) or by tile (``5m``, ``P``, ``白``), ``w`` to win,
  ``k`` (or ``k2``…) for the listed kongs;
* claim window: the number of a listed claim, ``0`` to pass;
* anywhere: ``h`` for hints (shanten, waits, the efficiency bot's top candidates),
  ``q`` to quit.  Bad input gets a message and a new prompt, never a crash; the end of
  the input stream quits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape

from hzmj.bots import analysis as an
from hzmj.bots.efficiency import EfficiencyBot, hand_state, value_of
from hzmj.bots.registry import make_bot
from hzmj.bots.seat import read_seat
from hzmj.events import Action, Chow, Discard, Kong, Pass, Win
from hzmj.game import Match
from hzmj.narration import Narrator, glyph, standin_note, tiles
from hzmj.rules import Rules
from hzmj.tiles import Tile, TileParseError, tile, tile_name, tile_name_zh

QUIT = ("q", "quit", "exit")


class Quit(Exception):
    """The person asked to stop (or the input ended)."""


def _action_text(a: Action) -> str:
    if isinstance(a, Chow):
        return f"chow with {tiles([tile_name(t) for t in a.tiles])}"
    if isinstance(a, Kong):
        return f"kong {tiles([tile_name(a.tile)])} ({a.kind})"
    if isinstance(a, Discard):
        return f"discard {tiles([tile_name(a.tile)])}"
    return a.type


class TerminalTable:
    """A match between the person at ``seat`` and ``bot`` players (see the module doc)."""

    def __init__(self, rules: Rules, seed: int, seat: int, inp: TextIO, out: TextIO, *,
                 bot: str = "efficiency", color: bool | None = None) -> None:
        if not 0 <= seat < rules.players:
            raise ValueError(f"seat must be 0..{rules.players - 1}, got {seat}")
        self.match = Match(rules, seed)
        self.seat = seat
        self.inp = inp
        self.out = Console(file=out, highlight=False, force_terminal=color,
                           no_color=color is False, width=100)
        self.bots = {s: make_bot(bot, seed * 31 + s) for s in range(rules.players) if s != seat}
        self.hinter = EfficiencyBot()
        self.narrator = Narrator(me=seat)

    # ------------------------------------------------------------------ main loop

    def run(self) -> int:
        """Play until the match ends or the person quits; 0 in both cases."""
        m = self.match
        self._say(f"Hangzhou mahjong: you are seat {self.seat}. Type h for hints, q to quit.")
        try:
            self._show_events(m.log)
            while not m.over:
                seat = m.to_move()[0]
                if seat == self.seat and not m.is_auto(seat):
                    action = self._ask()
                else:
                    player = self.bots.get(seat) or self.hinter
                    action = player.choose(m.view(seat), m.legal_actions(seat))
                self._show_events(m.apply(action))
        except Quit:
            self._say("Bye.")
            return 0
        return 0

    # ------------------------------------------------------------------ input

    def _read(self, prompt: str) -> str:
        self.out.print(prompt, end="")
        line = self.inp.readline()
        if not line:
            self.out.print()
            raise Quit
        text = line.strip()
        if text.lower() in QUIT:
            raise Quit
        return text

    def _ask(self) -> Action:
        m = self.match
        view = m.view(self.seat)
        legal = m.legal_actions(self.seat)
        self._show_table(view)
        while True:
            if view["phase"] == "claim":
                options = [a for a in legal if not isinstance(a, Pass)]
                self._say(self._claim_prompt(view, options))
                text = self._read("claim> ")
                picked = self._parse_claim(text, options, legal)
            else:
                self._say(self._turn_prompt(view, legal))
                text = self._read("play> ")
                picked = self._parse_turn(text, view, legal)
            if isinstance(picked, Action):
                return picked
            if picked == "hints":
                self._show_hints(view, legal)
            else:
                self._say(f"[red]{escape(picked)}[/]")

    def _parse_claim(self, text: str, options: list[Action],
                     legal: list[Action]) -> Action | str:
        low = text.lower()
        if low in ("h", "hint", "hints"):
            return "hints"
        if low in ("0", "pass", "p"):
            return next(a for a in legal if isinstance(a, Pass))
        if low in ("w", "win") and Win(self.seat) in legal:
            return Win(self.seat)
        if low.isdigit() and 1 <= int(low) <= len(options):
            return options[int(low) - 1]
        return f"not a choice: {text!r} (type a number 0–{len(options)}, h or q)"

    def _parse_turn(self, text: str, view: dict[str, Any], legal: list[Action]) -> Action | str:
        low = text.lower()
        hand: list[str] = view["hand"]
        kongs = [a for a in legal if isinstance(a, Kong)]
        if low in ("h", "hint", "hints"):
            return "hints"
        if not low:
            return "type a tile to discard (index or name), h for hints, q to quit"
        if low in ("w", "win"):
            return Win(self.seat) if Win(self.seat) in legal else "you cannot win now"
        if low == "k" or (low[:1] == "k" and low[1:].isdigit()):
            i = int(low[1:] or 1)
            if 1 <= i <= len(kongs):
                return kongs[i - 1]
            return "no such kong" if kongs else "no kong is possible now"
        if low.isdigit():
            i = int(low)
            if not 1 <= i <= len(hand):
                return f"index out of range: 1–{len(hand)}"
            t: Tile = tile(hand[i - 1])
        else:
            try:
                t = tile(text)
            except TileParseError as exc:
                return f"not a tile or command: {exc}"
        action = Discard(self.seat, t)
        if action in legal:
            return action
        if tile_name(t) not in hand:
            return f"{tile_name(t)} is not in your hand"
        only = [a for a in legal if isinstance(a, Discard)]
        return (f"you must discard {_plain(only[0])} (RULES §5.5: 摸打 under another's "
                "财神 lock)" if len(only) == 1 else f"{tile_name(t)} cannot be discarded now")

    # ------------------------------------------------------------------ output

    def _say(self, text: str) -> None:
        self.out.print(text)

    def _show_table(self, view: dict[str, Any]) -> None:
        cs = view["caishen"]
        total = view["hands_total"] or "?"
        indicator = f" (indicator {glyph(view['indicator'])})" if view["indicator"] else ""
        if view["rules"]["caishen_mode"] == "white":
            cs_note = ""
        else:
            cs_note = standin_note(cs)
        self._say(f"\n── hand {view['hand_no']}/{total} · dealer seat {view['dealer']} "
                  f"level {view['level']} · 财神 {glyph(cs, cs)} {tile_name_zh(tile(cs))}"
                  f"{indicator} · live wall {view['live']}"
                  + (f" · 财神 lock: seat {view['lock']}" if view["lock"] is not None else "")
                  + " ──")
        for p in view["players"]:
            who = "you" if p["seat"] == self.seat else "bot"
            melds = " ".join("[" + (tiles(md["tiles"]) if md["tiles"] else "face-down kong")
                             + "]" for md in p["melds"])
            discards = " ".join(glyph(d["tile"], cs) + ("↗" if d["claimed_by"] is not None
                                                         else "") for d in p["discards"])
            dealer = " 庄" if p["dealer"] else "   "  # 庄 is two columns wide: rows align
            self._say(f"seat {p['seat']} {who}{dealer} "
                      f"{p['points']:>4} pts  hand {p['concealed_count']:>2}  "
                      f"melds {melds or '–'}  discards {discards or '–'}")
        if cs_note and "5z" in view["hand"]:
            self._say(cs_note)
        hand = view["hand"]
        shown = "  ".join(f"{i}:{glyph(n, cs)}" for i, n in enumerate(hand, 1))
        drawn = f"   drawn {glyph(view['last_draw'], cs)}" if view["last_draw"] else ""
        self._say(f"your hand  {shown}{drawn}")

    def _turn_prompt(self, view: dict[str, Any], legal: list[Action]) -> str:
        extra = []
        if Win(self.seat) in legal:
            extra.append("w = win (胡)")
        kongs = [a for a in legal if isinstance(a, Kong)]
        for i, k in enumerate(kongs, 1):
            extra.append(f"k{i if len(kongs) > 1 else ''} = {_action_text(k)}")
        discards = [a for a in legal if isinstance(a, Discard)]
        must = (f" — you must discard {_action_text(discards[0])[8:]} (摸打)"
                if len(discards) == 1 else "")
        return ("your turn: discard by index or tile (e.g. 1 or 5m)" + must
                + ("; " + ", ".join(extra) if extra else "") + "; h = hints, q = quit")

    def _claim_prompt(self, view: dict[str, Any], options: list[Action]) -> str:
        claim = view["claim"]
        listed = ", ".join(f"{i} = {_action_text(a)}" for i, a in enumerate(options, 1))
        return (f"seat {claim['from']} discarded {glyph(claim['tile'])}: {listed}, 0 = pass; "
                "h = hints, q = quit")

    def _show_hints(self, view: dict[str, Any], legal: list[Action]) -> None:
        info = read_seat(view)
        cs = view["caishen"]
        if view["phase"] == "claim" or len(info.concealed) % 3 == 1:
            v = value_of(hand_state(info), info)
            self._say(f"hint: shanten {v.shanten}")
            if v.shanten == 0:
                state = hand_state(info)
                waits = [f"{glyph(tile_name(an.physical(d, info.caishen)), cs)}"
                         f"×{info.unseen[an.physical(d, info.caishen)]}"
                         for d in an.useful(state)]
                ready = " (爆头-ready: any tile wins)" if an.baotou_ready(state) else ""
                self._say(f"hint: waits {' '.join(waits)}{ready}")
        for c in self.hinter.explain(view, legal):
            self._say(f"hint: {_action_text(c.action)} — {escape(c.detail)}")

    def _show_events(self, events: Sequence[Any]) -> None:
        """What the player learns from ``events``: the others' moves, not the player's
        own (typed a moment ago) nor anybody's draw (the hand shows the player's)."""
        for e in events:
            data = e.for_seat(self.seat)
            kind = data["type"]
            mine = data.get("seat") == self.seat
            if kind in ("draw", "kong_shown") or (kind in ("discard", "kong") and mine):
                continue
            for line in self.narrator.lines(data):
                self._say(line)
            if kind == "hand_start":
                note = standin_note(data["caishen"]) if data.get("indicator") else ""
                if note:
                    self._say(note)
            elif kind == "hand_end" and not self.match.over:
                self._read("press Enter for the next hand (q to quit) ")


def _plain(a: Action) -> str:
    return tile_name(a.tile) if isinstance(a, Discard) else a.type


def play(rules: Rules, seed: int, seat: int, inp: TextIO, out: TextIO, *,
         bot: str = "efficiency", color: bool | None = None) -> int:
    """Run one terminal session (``hzmj play``); returns the exit code."""
    return TerminalTable(rules, seed, seat, inp, out, bot=bot, color=color).run()
