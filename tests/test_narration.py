"""Events in words (``hzmj.narration``): one table row an event type, as ``hzmj replay``
prints it (markup stripped) and as the terminal table tells its player (``me``)."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text

from hzmj.narration import Narrator, event_lines, rules_text

PAYMENT = {"from": 0, "to": 2, "amount": 8, "reason": "share", "reason_zh": "自摸",
           "reason_en": "self-draw share", "detail": "M=2 × dealer factor 4 × base 1"}


def plain(lines: list[str]) -> list[str]:
    """The lines as a terminal shows them (a line may begin with a blank one)."""
    return Text.from_markup("\n".join(lines)).plain.split("\n")


@pytest.mark.parametrize(("event", "me", "said"), [
    ({"type": "draw", "seat": 1, "tile": "3s", "replacement": False, "live": 50}, None,
     ["seat 1 draws 🀒3s"]),
    ({"type": "draw", "seat": 1, "tile": "5z", "replacement": True, "live": 49}, None,
     ["seat 1 draws 🀆5z=7m, the kong's replacement (补牌)"]),  # RULES §5.2, §6.4
    ({"type": "draw", "seat": 1, "tile": None, "replacement": False, "live": 50}, 0,
     ["seat 1 draws a tile"]),  # another seat's draw, as seat 0 sees it
    ({"type": "discard", "seat": 2, "tile": "7m", "caishen": True, "lock": 2}, None,
     ["seat 2 discards *🀍7m — a 财神: the table is locked (RULES §5.5)"]),
    ({"type": "chow", "seat": 0, "from": 3, "tile": "6p", "tiles": ["5z", "6p", "8p"]}, 0,
     ["you chow 🀞6p from seat 3: 🀆5z=7m 🀞6p 🀠8p"]),
    ({"type": "pong", "seat": 3, "from": 0, "tile": "1z", "tiles": ["1z", "1z", "1z"]}, 0,
     ["seat 3 pongs 🀀1z from you"]),
    ({"type": "kong", "seat": 3, "kind": "exposed", "tile": "9s", "from": 1,
      "tiles": ["9s", "9s", "9s", "9s"]}, None, ["seat 3 kongs 🀘9s from seat 1 (明杠 exposed)"]),
    ({"type": "kong", "seat": 3, "kind": "added", "tile": "9s", "from": 1}, None,
     ["seat 3 kongs 🀘9s (补杠 added)"]),
    ({"type": "kong", "seat": 3, "kind": "concealed", "tile": None, "from": None}, 0,
     ["seat 3 kongs face down (暗杠 concealed)"]),  # RULES §6.7: the others see no tile
    ({"type": "kong_shown", "seat": 3, "tile": "2p"}, None,
     ["seat 3 shows the concealed kong 🀚2p (RULES §6.7)"]),
    ({"type": "escape", "seat": 1, "deltas": [-8, 24, -8, -8], "points": [-8, 24, -8, -8],
      "payments": [{**PAYMENT, "from": 1, "to": 0, "reason_zh": "逃跑",
                    "reason_en": "escape penalty", "detail": "as if seat 0 won M=4"}]}, 1,
     ["you escape (逃跑, RULES §8.5): a bot plays the seat from now on",
      "   you pay seat 0 8: 逃跑 (escape penalty) — as if seat 0 won M=4",
      "   deltas [-8, 24, -8, -8] → points [-8, 24, -8, -8]"]),
    ({"type": "match_end", "points": [5, -3, 0, -2], "ranking": [0, 2, 3, 1], "hands": 16},
     None, ["", "══ match over after 16 hands: seat 0 (5), seat 2 (0), seat 3 (-2), "
            "seat 1 (-3) ══"]),
    ({"type": "teleport", "seat": 1, "to": "moon", "why": None}, None,
     ["teleport seat=1 to=moon"]),  # a type this module does not know: its fields
])
def test_an_event_is_told_in_the_fields_words(event: dict[str, Any], me: int | None,
                                              said: list[str]) -> None:
    assert plain(event_lines(event, caishen="7m", me=me)) == said


def test_a_win_and_its_settlement_give_the_explanation_and_every_payment() -> None:
    narrator = Narrator(me=2)
    narrator.lines({"type": "hand_start", "hand_no": 3, "dealer": 0, "level": 2,
                    "dice": [6, 2], "caishen": "7m", "indicator": "7m",
                    "hands": [None, None, ["1m"] * 13, None], "live": 60,
                    "points": [0, 0, 0, 0]})
    win = {"type": "win", "seat": 2, "from": None, "tile": "7m", "self_draw": True,
           "chain": ["piao"], "score": {"names": {"zh": "财飘", "en": "caipiao [sic]"},
                                        "multiplier": 4, "explanation": ["line [b]one[/b]"]}}
    end = {"type": "hand_end", "hand_no": 3, "result": "win", "payments": [PAYMENT],
           "notes": ["T = 8"], "deltas": [-8, 0, 8, 0], "points": [-8, 0, 8, 0],
           "hands": [{"concealed": ["7m", "5z"], "melds": ["[123p]"]},
                     {"concealed": [], "melds": []}, {"concealed": ["1m"], "melds": []},
                     {"concealed": ["2m"], "melds": []}]}
    assert plain(narrator.lines(win)) == [
        "", "★ you win on *🀍7m (self-draw): 财飘 (caipiao [sic]), M = 4",
        "   line [b]one[/b]"]  # an event's text is never markup
    assert plain(narrator.lines(end)) == [
        "── hand 3 settled (RULES §10):",
        "   seat 0 pays you 8: 自摸 (self-draw share) — M=2 × dealer factor 4 × base 1",
        "   T = 8", "   seat 0: *🀍7m 🀆5z=7m [123p]", "   seat 1: –", "   you: 🀇1m",
        "   seat 3: 🀈2m", "   deltas [-8, 0, 8, 0] → points [-8, 0, 8, 0]"]


def test_a_hand_start_shows_the_hands_a_seat_may_see() -> None:
    start = {"type": "hand_start", "hand_no": 1, "dealer": 1, "level": 1, "dice": [3, 4],
             "caishen": "5z", "indicator": None, "live": 60, "points": [0, 0, 0],
             "hands": [None, ["5z", "1m", "9s"], None]}
    assert plain(Narrator(me=1).lines(start)) == [
        "", "══ hand 1 starts: dealer seat 1 (level 1), dice 3+4, 财神 *🀆5z 白 ══",
        "   you    庄 *🀆5z 🀇1m 🀘9s"]  # white-dragon mode: the 白 are the 财神


def test_rules_text_names_the_options_changed() -> None:
    assert rules_text({"players": 4, "hands": 8, "cap": None}) == "default"
    assert rules_text({"players": 3, "hands": 16, "cap": 64, "discard_win": True}) == (
        "players=3, hands=16, cap=64, discard_win=true")
