"""`hzmj simulate` and `hzmj replay` (the game engine's CLI)."""

import json
from pathlib import Path

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
    assert "│ mean_multiplier │ –" in text and "wins by pattern" not in text
    with_wins = json.loads(runner.invoke(app, ["simulate", "--hands", "8", "--seed", "1",
                                               "--bot", "efficiency", "--json"]).stdout)
    assert with_wins["wins"] > 0 and with_wins["mean_multiplier"] >= 1


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
