"""Terminal table (issue 4): a session driven through text streams, no terminal needed."""

from __future__ import annotations

import io

from hzmj.rules import Rules
from hzmj.terminal import play


class Feeder(io.StringIO):
    """Answers ``first`` lines, then ``line`` until ``stop_after`` appears in the output,
    then ``q`` (quit)."""

    def __init__(self, out: io.StringIO, first: list[str], line: str, stop_after: str) -> None:
        super().__init__()
        self.out, self.first, self.line, self.stop_after = out, list(first), line, stop_after
        self.lines_read = 0

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        self.lines_read += 1
        if self.first:
            return self.first.pop(0) + "\n"
        if self.stop_after in self.out.getvalue():
            return "q\n"
        return self.line + "\n"


def test_session_plays_to_the_end_of_a_hand_with_hints_and_bad_input() -> None:
    out = io.StringIO()
    feeder = Feeder(out, ["h", "zz", "99", "9z", ""], "1", stop_after="deltas")
    assert play(Rules(), 3, 0, feeder, out, color=False) == 0
    text = out.getvalue()
    assert "you are seat 0" in text
    assert "── hand 1/8 · dealer seat 1 level 1 · 财神 *🀐1s" in text
    assert "live wall 60" in text
    assert "hint: discard" in text and "shanten" in text
    assert "not a tile or command" in text  # zz
    assert "index out of range: 1–14" in text  # 99
    assert "9z is not a tile" in text
    assert "type a tile to discard" in text  # the empty line
    assert "claim> " in text and "0 = pass" in text  # a claim was offered
    assert "deltas [" in text and "→ points" in text  # the first hand's settlement
    assert text.rstrip().endswith("Bye.")
    assert "hand 2 starts" not in text  # quit at the next-hand prompt


def test_a_whole_two_player_match_ends_with_the_ranking() -> None:
    out = io.StringIO()
    feeder = Feeder(out, [], "1", stop_after="match over")
    rules = Rules(players=2, drop_bamboo=True, caishen_mode="white")
    assert play(rules, 8, 1, feeder, out, color=False) == 0
    text = out.getvalue()
    assert "match over after 8 hands" in text
    assert "财神 *🀆5z" in text  # white-dragon mode: the 财神 is starred


def test_quit_and_end_of_input_never_crash() -> None:
    out = io.StringIO()
    assert play(Rules(), 1, 2, io.StringIO("q\n"), out, color=False) == 0
    assert out.getvalue().rstrip().endswith("Bye.")
    out2 = io.StringIO()
    assert play(Rules(), 1, 2, io.StringIO(""), out2, color=False) == 0
    assert "Bye." in out2.getvalue()


def test_a_white_dragon_standing_in_is_explained() -> None:
    """RULES §5.2: in 翻财神 mode the table says what a white dragon plays as, and marks it."""
    from hzmj.terminal import glyph, standin_note

    out = io.StringIO()
    feeder = Feeder(out, [], "1", stop_after="deltas")
    play(Rules(), 3, 0, feeder, out, color=False)  # 财神 1s (see the test above)
    text = out.getvalue()
    assert "白板 🀆5z=1s: a white dragon stands in for 1s (一条)" in text
    assert "it is not a 财神 (rule book §5.2: hzmj rules 5.2)" in text.replace("\n", " ")
    assert glyph("5z", "1s").endswith("5z=1s[/]") and glyph("5z", "5z").startswith("[bold yellow]*")
    assert standin_note("5z") == ""  # white dragons are the 财神 themselves: nothing stands in


def test_the_seat_rows_align_with_the_dealer_s_mark() -> None:
    # "seat 0 you    0 pts" over "seat 1 bot 庄    0 pts": the 庄 pushed the dealer's row
    out = io.StringIO()
    play(Rules(), 3, 0, Feeder(out, [], "1", stop_after="live wall"), out, color=False)
    rows = [line for line in out.getvalue().splitlines() if line.startswith("seat ")
            and " pts  hand" in line][:4]
    assert rows[0].startswith("seat 0 you       0 pts  hand 14")
    assert rows[1].startswith("seat 1 bot 庄    0 pts  hand 13")
    assert rows[2].startswith("seat 2 bot       0 pts  hand 13")
