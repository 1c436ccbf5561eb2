"""`hzmj simulate` and `hzmj replay` (the game engine's CLI)."""

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hzmj.bots.random_bot import RandomBot
from hzmj.cli import app
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.simulate import play_match

runner = CliRunner()


def test_simulate_json_is_deterministic() -> None:
    args = ["simulate", "--hands", "6", "--seed", "9", "--json"]
    a = json.loads(runner.invoke(app, args).stdout)
    b = json.loads(runner.invoke(app, args).stdout)
    assert a["hands"] == 6
    assert a["digest"] == b["digest"]
    assert a["zero_sum"] is True
    assert set(a) >= {"hands", "draws", "wins_by_name", "points", "hands_per_s", "zero_sum",
                      "digest"}


def test_simulate_without_a_win_has_no_mean_multiplier() -> None:
    # the mean of no multipliers was 0.0 (no hand scores M = 0), and an empty
    # "wins by pattern" table was printed
    args = ["simulate", "--hands", "8", "--seed", "1", "--bot", "random"]
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert data["wins"] == 0 and data["wins_by_name"] == {}
    assert data["mean_multiplier"] is None
    text = runner.invoke(app, args).stdout
    assert "│ mean M of a win │ –" in text and "wins by pattern" not in text
    with_wins = json.loads(runner.invoke(app, ["simulate", "--hands", "8", "--seed", "1",
                                               "--bot", "efficiency", "--json"]).stdout)
    assert with_wins["wins"] > 0 and with_wins["mean_multiplier"] >= 1


def test_simulate_s_table_reads_in_words_and_keeps_the_digest_whole() -> None:
    # the rows were the JSON keys ("zero_sum │ True", "hands_per_s"), the points a bare
    # list, and the digest was cut to fit 80 columns ("577cfe…"): no run could be compared
    args = ["simulate", "--hands", "16", "--seed", "1", "--bot", "efficiency"]
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    text = runner.invoke(app, args).stdout
    assert "│ points          │ seat 0 -22, seat 1 +24, seat 2 +12, seat 3 -14 │" in text
    assert data["points"] == [-22, 24, 12, -14]  # docs/cli.md's example
    assert "│ zero sum        │ yes " in text and "│ draws (荒庄)    │ 0 " in text
    assert "│ mean M of a win │ 1.00 " in text and data["mean_multiplier"] == 1.0
    assert f"\ndigest of every record: {data['digest']}\n" in text
    assert "_" not in text.partition("wins by pattern")[0]  # no JSON key shows


def test_simulate_rejects_bad_rule_and_bot() -> None:
    bad_rule = runner.invoke(app, ["simulate", "--rule", "hands=7"])
    assert bad_rule.exit_code == 2
    assert "hands" in bad_rule.stderr
    bad_bot = runner.invoke(app, ["simulate", "--bot", "nobody"])
    assert bad_bot.exit_code == 2
    assert "nobody" in bad_bot.stderr


def _finished_record(tmp_path: Path) -> Path:
    match = Match(Rules(hands=8), seed=11)
    play_match(match, [RandomBot(s) for s in range(4)])
    path = tmp_path / "record.json"
    path.write_text(json.dumps(match.record()))
    return path


def test_replay_verify_passes_on_an_untouched_record(tmp_path: Path) -> None:
    path = _finished_record(tmp_path)
    result = runner.invoke(app, ["replay", str(path), "--verify"])
    assert result.exit_code == 0, result.stderr
    assert "verified" in result.stdout
    assert "hand 8" in result.stdout


def test_replay_verify_fails_on_a_tampered_record(tmp_path: Path) -> None:
    path = _finished_record(tmp_path)
    record = json.loads(path.read_text())
    record["points"][0] += 1
    path.write_text(json.dumps(record))
    result = runner.invoke(app, ["replay", str(path), "--verify"])
    assert result.exit_code == 1
    assert "points" in result.stderr


def test_replay_verify_fails_on_points_edited_to_floats(tmp_path: Path) -> None:
    # the figures compared equal (1.0 == 1): the edited record printed "verified"
    path = _finished_record(tmp_path)
    record = json.loads(path.read_text())
    record["points"] = [float(p) for p in record["points"]]
    path.write_text(json.dumps(record))
    result = runner.invoke(app, ["replay", str(path), "--verify"])
    assert result.exit_code == 1 and "verified" not in result.stdout
    assert result.stderr.startswith("DIFFERENCE: points: record has [")


def test_replay_rejects_a_broken_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 2
    assert "cannot read" in result.stderr


@pytest.mark.parametrize(("text", "says"), [
    ("", "the file is empty"), (" \n", "the file is empty"),  # was "Expecting value: line 1"
    ('{"format": "hzmj-record", "ver', "Unterminated string"),
    ("[]", "not an hzmj-record object"),
])
@pytest.mark.parametrize("command", [["replay", "--verify"], ["review", "--seat", "0"]])
def test_replay_and_review_say_what_is_wrong_with_the_file(text: str, says: str,
                                                           command: list[str],
                                                           tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_text(text)
    result = runner.invoke(app, [command[0], str(path), *command[1:]])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: ") and says in result.stderr


def test_replay_rejects_a_record_with_bad_rules(tmp_path: Path) -> None:
    path = _finished_record(tmp_path)
    record = json.loads(path.read_text())
    record["rules"]["hands"] = 7
    path.write_text(json.dumps(record))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 2
    assert "hands" in result.stderr and "Traceback" not in result.stderr


def test_replay_verify_refuses_an_action_with_an_unknown_key(tmp_path: Path) -> None:
    # was "verified": the extra key was dropped without a word
    path = _finished_record(tmp_path)
    record = json.loads(path.read_text())
    record["actions"][3]["by"] = "me"
    path.write_text(json.dumps(record))
    result = runner.invoke(app, ["replay", str(path), "--verify"])
    assert result.exit_code == 2 and "verified" not in result.stdout
    assert result.stderr.startswith(f"error: {path}: action 3 (") and "unknown key 'by'" in result.stderr


def _efficiency_record(tmp_path: Path, actions: int | None = None,
                       made_by: dict[int, str] | None = None) -> Path:
    """Four efficiency bots, seed 11: its first hand is docs/cli.md's example; ``actions``
    cuts the match short."""
    from hzmj.bots.registry import make_bot
    from hzmj.record import fair_record

    match = Match(Rules(), seed=11)
    bots = [make_bot("efficiency", s) for s in range(4)]
    while not match.over and (actions is None or len(match.actions) < actions):
        seat = match.to_move()[0]
        match.apply(bots[seat].choose(match.view(seat), match.legal_actions(seat)))
    path = tmp_path / "record.json"
    record = match.record() if made_by is None else fair_record(match, "ab12", made_by)
    path.write_text(json.dumps(record))
    return path


def test_replay_tells_a_match_in_the_words_of_the_table(tmp_path: Path) -> None:
    # every event was a Python dict: "  discard seat=3 tile=8p caishen=False", and the
    # match_start's rules took five lines of {'players': 4, ...}
    result = runner.invoke(app, ["replay", str(_efficiency_record(tmp_path))])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == ["match: 4 seats, 8 hands, first dealer seat 3; rules: default", "",
                         "══ hand 1 starts: dealer seat 3 (level 1), dice 1+4, 财神 *🀙1p 一筒 ══"]
    assert lines[6] == ("   seat 3 庄 🀉3m 🀌6m 🀌6m *🀙1p 🀜4p 🀜4p 🀝5p 🀞6p 🀠8p 🀒3s 🀓4s 🀖7s "
                        "🀅6z 🀅6z")
    assert lines[7:11] == ["seat 3 discards 🀠8p", "seat 0 draws 🀑2s", "seat 0 discards 🀑2s",
                           "seat 1 chows 🀑2s from seat 0: 🀑2s 🀒3s 🀓4s"]
    assert lines.count("── hand 1 settled (RULES §10):") == 1
    assert "seat 1 kongs 🀗8s (补杠 added)" in lines
    assert lines[-1] == ("══ match over after 8 hands: seat 0 (13), seat 1 (2), seat 3 (-5), "
                         "seat 2 (-10) ══")
    assert not any("{'" in line or "=False" in line for line in lines)
    assert sum(line.startswith("★ seat ") for line in lines) == 8  # one win a hand
    # one line an event: hand_start and the win and settlement take more, never a wrap
    assert len(lines) > len(json.loads(Path(tmp_path / "record.json").read_text())["actions"])


def test_replay_json_is_every_event_one_object_a_line(tmp_path: Path) -> None:
    path = _efficiency_record(tmp_path)
    result = runner.invoke(app, ["replay", str(path), "--json", "--verify"])
    assert result.exit_code == 0, result.stderr
    from hzmj.record import replay

    expected = [e.to_json() for e in replay(json.loads(path.read_text())).log]
    assert [json.loads(line) for line in result.stdout.splitlines()] == expected
    assert expected[0]["type"] == "match_start" and expected[-1]["type"] == "match_end"
    record = json.loads(path.read_text())
    record["points"][0] += 1
    path.write_text(json.dumps(record))
    tampered = runner.invoke(app, ["replay", str(path), "--json", "--verify"])
    assert tampered.exit_code == 1 and tampered.stderr.startswith("DIFFERENCE: points: ")
    assert len(tampered.stdout.splitlines()) == len(expected)  # stdout: the events alone


def test_replay_marks_the_moves_the_bot_or_the_clock_made(tmp_path: Path) -> None:
    # a server's record says which moves 托管 or the clock made for a player; the replay
    # page marks them, the CLI did not; a pass has no line of its own to mark
    path = _efficiency_record(tmp_path, made_by={36: "bot", 37: "clock"})
    record = json.loads(path.read_text())
    assert record["actions"][36:38] == [{"type": "discard", "seat": 2, "tile": "2s"},
                                        {"type": "pass", "seat": 3}]
    result = runner.invoke(app, ["replay", str(path), "--verify"])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    at = lines.index("seat 2 discards 🀑2s  (托管: the bot played it)")
    assert lines[at + 1:at + 3] == ["seat 3 passes  (超时: the clock's default)",
                                    "seat 3 draws *🀏9m"]
    assert sum("(托管" in line or "(超时" in line for line in lines) == 2
    assert lines[-2:] == ["verified: 415 actions replayed identically",
                          f"fair: SHA-256 of the seed and salt is the commitment "
                          f"{record['commitment']} published at the start"]


def test_replay_of_an_unfinished_match_says_where_the_record_stops(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", str(_efficiency_record(tmp_path, actions=60))])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.endswith("\nthe record stops after 60 actions, in hand 2: the match "
                                  "is not over\n")
    assert "match over" not in result.stdout


def test_replay_and_review_replay_the_record_once(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # replay --verify replayed the record twice, review three times (the CLI for the
    # seats and the 财神, review() again before its own walk through the decisions)
    import hzmj.record
    import hzmj.review

    path = _efficiency_record(tmp_path)
    calls = []
    real = hzmj.record.replay_steps

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(hzmj.record, "replay_steps", counting)
    monkeypatch.setattr(hzmj.review, "replay_steps", counting)
    verified = runner.invoke(app, ["replay", str(path), "--verify"])
    assert verified.exit_code == 0 and "verified: 415 actions" in verified.stdout
    assert len(calls) == 1
    reviewed = runner.invoke(app, ["review", str(path), "--seat", "0", "--bot", "efficiency"])
    assert reviewed.exit_code == 0, reviewed.stderr
    assert reviewed.stdout.startswith("seat 0 reviewed by efficiency; values and losses in "
                                      "efficiency score\n")
    assert "decisions in 8 hands; agreed with efficiency on " in reviewed.stdout
    assert len(calls) == 2
