"""The ``hzmj`` command line: JSON contract of score / settle / waits and exit code 2 with
one line on stderr for bad input (RULES §15 examples)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest
from typer.testing import CliRunner

from hzmj.bots.efficiency import HandValue
from hzmj.cli import app
from hzmj.record import verify
from hzmj.shown import counted

runner = CliRunner()


def run_json(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def run_error(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


# --------------------------------------------------------------------------------------
# hzmj score


@pytest.mark.parametrize(("args", "m", "zh", "shape", "baotou"), [
    pytest.param(["111m234m567m789p1z", "--win", "1z"], 1, "平胡", "standard", False,
                 id="E1-pinghu"),
    pytest.param(["123456789m111pP", "--win", "1z"], 2, "爆头", "standard", True,
                 id="E2-baotou"),
    pytest.param(["11m22m33p44s55s11zP", "--win", "2z"], 4, "七客", "seven_pairs", True,
                 id="E6-qike"),
    pytest.param(["1111m22m33p44s55s1z", "--win", "1z"], 8, "豪华清七对", "seven_pairs",
                 False, id="E8-haohua-qing-qidui"),
    pytest.param(["123456789m111pP", "--win", "1z", "--chain", "piao"], 4, "财飘",
                 "standard", True, id="E9-caipiao"),
    pytest.param(["123m456m789pP[9999s]", "--win", "1z", "--chain", "piao,kong"], 8, "飘杠",
                 "standard", True, id="E12-piao-gang"),
    pytest.param(["4mP6m111p222s333s1z", "--win", "1z", "--caishen", "5m", "--rule",
                  "must_baotou_with_caishen=true"], 1, "平胡", "standard", False,
                 id="E13-flip-must-baotou"),
    pytest.param(["123456789m111pP", "--win", "1z", "--chain", "piao", "--discard",
                  "--rule", "discard_win=true"], 2,
                 "爆头", "standard", True, id="8.4-discard-ignores-chain"),
])
def test_score_json_rules_15(args: list[str], m: int, zh: str, shape: str,
                             baotou: bool) -> None:
    out = run_json("score", *args)
    assert out["win"] is True
    assert (out["multiplier"], out["names"]["zh"], out["shape"], out["baotou"]) == (
        m, zh, shape, baotou)
    assert out["names"]["en"] and out["explanation"]
    assert out["win_tile"] == args[2]


def test_score_and_waits_rules_5_2_white_dragon_stand_in_chow() -> None:
    # flip mode, 财神 5p: the engine prints a chow of 4p 白 6p as [4pP6p] (RULES §1.2)
    out = run_json("score", "123m789s11z22z[4pP6p]", "--win", "2z", "--caishen", "5p")
    assert (out["hand"], out["win"], out["multiplier"]) == ("123m789s1122z[4pP6p]", True, 1)
    assert out["reading"].endswith("| 4p 5p 6p")
    out = run_json("waits", "123m789s11z22z[4pP6p]", "--caishen", "5p")
    assert [w["tile"] for w in out["waits"]] == ["5p", "1z", "2z"]
    assert "a 财神 (5p) cannot be part of a meld (RULES §5.3)" in run_error(
        "score", "123m789s11z22z[456p]", "--win", "2z", "--caishen", "5p")


def test_score_json_no_win_rules_15_e14_must_baotou() -> None:
    out = run_json("score", "4m5m6m111p222s333s1z", "--win", "1z", "--caishen", "5m",
                   "--rule", "must_baotou_with_caishen=true")
    assert (out["win"], out["multiplier"], out["shape"], out["baotou"]) == (False, 0, None,
                                                                           False)
    assert out["names"] == {"zh": None, "en": None}
    assert out["caishen"] == "5m" and out["hand"] == "456m111p222333s1z"


def test_score_rules_4_5_flip_mode_with_a_white_dragon_indicator_has_three_caishen() -> None:
    # the indicator is a white dragon: the other three are the 财神, nothing stands in
    flip = ["--caishen", "5z", "--rule", "caishen_mode=flip"]
    out = run_json("score", "123456789m111p5z", "--win", "5z", "--chain", "piao", *flip)
    assert (out["multiplier"], out["names"]["zh"]) == (4, "财飘")  # 2^(1+0+1), RULES §9.1
    assert "only 3 财神" in run_error("score", "123456789m1p555z", "--win", "5z", *flip)
    assert "only 0 财神 tile(s)" in run_error("score", "123456789m11p55z", "--win", "5z",
                                             "--chain", "piao", *flip)
    # white mode (the default with --caishen 5z) has four: the same hands are fine there
    assert run_json("score", "123456789m1p555z", "--win", "5z")["multiplier"] == 2
    assert run_json("score", "123456789m11p55z", "--win", "5z", "--chain", "piao",
                    "--caishen", "5z")["multiplier"] == 4


def test_score_json_no_win_rules_15_e15() -> None:
    out = run_json("score", "11m22m33p44s55s11z2z", "--win", "3z")
    assert (out["win"], out["multiplier"]) == (False, 0)
    assert out["explanation"]


def test_score_readable_output_shows_glyphs_names_and_explanation() -> None:
    result = runner.invoke(app, ["score", "123456789m111pP", "--win", "1z", "--chain",
                                 "piao"])
    assert result.exit_code == 0
    for text in ("\U0001f007", "1m", "财飘", "caipiao", "M = 4", "RULES §9.1", "white-dragon"):
        assert text in result.stdout


def test_score_real_subprocess() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "hzmj", "score", "123m456m789pP[9999s]", "--win", "1z",
         "--chain", "kong", "--json"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["multiplier"], out["names"]["zh"]) == (4, "杠暴")  # RULES §15 E11
    proc = subprocess.run([sys.executable, "-m", "hzmj", "score", "12x", "--win", "1z"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert proc.stderr == "error: unknown character 'x' at position 2 in '12x'\n"


def test_a_long_explanation_line_goes_on_under_its_text_not_under_the_bullet() -> None:
    # at 80 columns "(RULES §8.2)" was wrapped to the start of the next line
    result = runner.invoke(app, ["score", "123456789m111pP", "--win", "1z", "--chain", "piao"],
                           env={"COLUMNS": "80"})
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    at = lines.index("  • chain ['piao']: k=0 kongs, p=1 财神 discards, t=0 kongs after the last 飘")
    assert lines[at + 1] == "    (RULES §8.2)"
    settle = runner.invoke(app, ["settle", "--winner", "1", "--multiplier", "1", "--tan",
                                 "1:0:3"], env={"COLUMNS": "60"})
    assert [line.rstrip() for line in settle.stdout.splitlines()][-3:] == [
        "  • T = 2 + 1 + 1 = 4",
        "  • a contract applies: players who are not liable pay",
        "    nothing (RULES §10.4)"]


# --------------------------------------------------------------------------------------
# hzmj settle


@pytest.mark.parametrize(("args", "vector"), [
    pytest.param(["--winner", "0", "--multiplier", "1"], [6, -2, -2, -2], id="P1"),
    pytest.param(["--winner", "1", "--multiplier", "1"], [-2, 4, -1, -1], id="P2"),
    pytest.param(["--winner", "1", "--multiplier", "2", "--level", "2"], [-8, 12, -2, -2],
                 id="P3"),
    pytest.param(["--winner", "1", "--multiplier", "1", "--tan", "1:0:3"], [-4, 4, 0, 0],
                 id="P4-chengbao"),
    pytest.param(["--winner", "0", "--multiplier", "1", "--tan", "1:0:3"], [12, -12, 0, 0],
                 id="P5-fan-chengbao"),
    pytest.param(["--winner", "0", "--multiplier", "1", "--level", "3", "--discarder", "1",
                  "--rule", "discard_win=true"], [24, -24, 0, 0], id="P6-discard-win"),
])
def test_settle_json_rules_15_vectors(args: list[str], vector: list[int]) -> None:
    out = run_json("settle", *args)
    assert out["deltas"] == vector
    received = sum(p["amount"] for p in out["payments"])
    assert received == max(vector)
    assert {"from", "to", "amount", "reason"} <= set(out["payments"][0])


def test_settle_json_rules_10_5_example_and_options() -> None:
    out = run_json("settle", "--winner", "0", "--multiplier", "1", "--level", "3",
                   "--discarder", "2", "--tan", "0:1:3", "--rule", "discard_win=true")
    assert out["deltas"] == [48, -24, -24, 0]
    assert [p["reason"] for p in out["payments"]] == ["discard_win", "chengbao"]
    out = run_json("settle", "--winner", "1", "--multiplier", "4", "--piao-feeder", "2",
                   "--players", "3")
    assert out["deltas"] == [0, 12, -12]  # T = 8 + 4, 后半场承包
    out = run_json("settle", "--winner", "1", "--multiplier", "64", "--level", "3",
                   "--rule", "cap=64", "--rule", "base_score=2")
    assert out["deltas"] == [-128, 384, -128, -128]


def test_settle_readable_output_lists_payments() -> None:
    result = runner.invoke(app, ["settle", "--winner", "1", "--multiplier", "1", "--tan",
                                 "1:0:3"])
    assert result.exit_code == 0
    for text in ("承包", "contract", "+4", "-4"):
        assert text in result.stdout


# --------------------------------------------------------------------------------------
# hzmj waits


def test_waits_13_tiles_baotou_ready_waits_everything() -> None:
    out = run_json("waits", "123456789m11pPP")
    assert (out["shanten"], out["baotou_ready"]) == (0, True)
    assert len(out["waits"]) == 34
    left = {w["tile"]: w["left"] for w in out["waits"]}
    assert (left["1m"], left["1p"], left["5z"], left["2p"]) == (3, 2, 2, 4)


def test_waits_13_tiles_with_left_counts() -> None:
    out = run_json("waits", "123m456m789p11z33s")
    assert (out["shanten"], out["baotou_ready"]) == (0, False)
    assert out["waits"] == [{"tile": "3s", "left": 2}, {"tile": "1z", "left": 2},
                            {"tile": "5z", "left": 4}]  # 5z: a drawn 财神 fills the gap


def test_waits_13_tiles_not_ready() -> None:
    out = run_json("waits", "13579m13579p135s")
    assert out["shanten"] == 4 and out["waits"] == [] and out["baotou_ready"] is False


def test_waits_14_tiles_lists_each_discard() -> None:
    out = run_json("waits", "123m456m789p11z233s")
    assert (out["shanten"], out["win"]) == (0, False)
    by_discard = {d["discard"]: d for d in out["discards"]}
    assert out["discards"][0]["discard"] == "3s"  # best first: 12 tiles left
    assert by_discard["3s"]["waits"] == [{"tile": "1s", "left": 4}, {"tile": "4s", "left": 4},
                                        {"tile": "5z", "left": 4}]
    assert by_discard["2s"]["waits"] == [{"tile": "3s", "left": 2}, {"tile": "1z", "left": 2},
                                        {"tile": "5z", "left": 4}]
    assert by_discard["1m"]["shanten"] == 1 and by_discard["1m"]["waits"] == []
    assert by_discard["1m"]["useful"]


def test_waits_14_tiles_the_discarded_copy_is_not_left() -> None:
    # discarding 1m from 123456789m111p11z waits on 1m 4m 7m: the discarded 1m lies on the
    # pile, so 3 copies are left, not 4 (useful_left was 14 for 13 drawable tiles)
    out = run_json("waits", "123456789m111p1z1z")
    by_discard = {d["discard"]: d for d in out["discards"]}
    one_m = by_discard["1m"]
    assert one_m["waits"] == [{"tile": "1m", "left": 3}, {"tile": "4m", "left": 3},
                              {"tile": "7m", "left": 3}, {"tile": "5z", "left": 4}]
    assert one_m["useful"] == one_m["waits"] and one_m["useful_left"] == 13
    assert by_discard["9m"]["useful_left"] == 13  # 3m 6m 9m 5z: 3 + 3 + 3 + 4


def test_waits_14_tiles_complete_hand_keeps_baotou_ready_discard() -> None:
    out = run_json("waits", "123456789m111p1zP")
    assert (out["shanten"], out["win"], out["baotou_ready"]) == (-1, True, True)
    by_discard = {d["discard"]: d for d in out["discards"]}
    assert by_discard["1z"]["baotou_ready"] is True
    assert len(by_discard["1z"]["waits"]) == 34


def test_waits_flip_mode_white_stands_in() -> None:
    # RULES §5.2: with 财神 5m, 4m 白 6m is a chow; the hand waits on 1z only plus the 财神;
    # RULES §4.5: the face-up indicator is a 5m, so only 3 财神 can still be drawn
    out = run_json("waits", "4mP6m111p222s333s1z", "--caishen", "5m")
    assert out["waits"] == [{"tile": "5m", "left": 3}, {"tile": "1z", "left": 3}]


def test_waits_readable_output() -> None:
    result = runner.invoke(app, ["waits", "123m456m789p11z33s"])
    assert result.exit_code == 0
    for text in ("向听", "\U0001f012", "3s", "三条", "1z"):
        assert text in result.stdout


# --------------------------------------------------------------------------------------
# bad input: exit code 2, one line on stderr


@pytest.mark.parametrize(("args", "needle"), [
    pytest.param(["score", "12x", "--win", "1z"], "unknown character 'x' at position 2",
                 id="malformed-hand"),
    pytest.param(["score", "123m", "--win", "1z"], "13 tiles", id="wrong-tile-count"),
    pytest.param(["waits", "123m"], "13 or 14 tiles", id="waits-wrong-tile-count"),
    pytest.param(["score", "123456789m111pP", "--win", "8z"], "--win", id="bad-win-tile"),
    pytest.param(["score", "123456789m111pP", "--win", "1z", "--caishen", "55m"], "--caishen",
                 id="bad-caishen"),
    # white mode's 财神 is the white dragon: --caishen 5m scored as flip mode silently
    pytest.param(["score", "123456789m111pP", "--win", "1z", "--caishen", "5m", "--rule",
                  "caishen_mode=white"], "--caishen 5m is flip mode", id="caishen-vs-white-mode"),
    pytest.param(["score", "123456789m111pP", "--win", "1z", "--rule", "colour=red"],
                 "colour: unknown option", id="unknown-rule-key"),
    pytest.param(["score", "123456789m111pP", "--win", "1z", "--rule", "cap=7"],
                 "cap: must be one of", id="bad-rule-value"),
    pytest.param(["settle", "--winner", "1", "--multiplier", "1", "--rule", "discard_win=maybe"],
                 "discard_win", id="bad-rule-bool"),
    pytest.param(["settle", "--winner", "1", "--multiplier", "1", "--rule", "cap"],
                 "KEY=VALUE", id="rule-without-value"),
    pytest.param(["settle", "--winner", "4", "--multiplier", "1"], "winner must be a seat",
                 id="bad-seat"),
    pytest.param(["settle", "--winner", "3", "--multiplier", "1", "--players", "3"],
                 "winner must be a seat 0..2", id="seat-outside-players"),
    pytest.param(["settle", "--winner", "1", "--multiplier", "1", "--piao-feeder", "x"],
                 "--piao-feeder", id="bad-feeder"),
    pytest.param(["score", "123456789m111pP", "--win", "1z", "--chain", "piao,chow"],
                 "'chow'", id="bad-chain-item"),
    pytest.param(["settle", "--winner", "1", "--multiplier", "1", "--tan", "1-0-3"],
                 "TAKER:GIVER:COUNT", id="bad-tan-format"),
    pytest.param(["settle", "--winner", "1", "--multiplier", "1", "--tan", "1:1:3"],
                 "摊", id="tan-from-self"),
    pytest.param(["settle", "--winner", "1", "--multiplier", "1", "--level", "4"],
                 "level must be 1, 2 or 3", id="level-4"),
    pytest.param(["settle", "--winner", "1", "--multiplier", "3"], "power of two",
                 id="bad-multiplier"),
    pytest.param(["settle", "--winner", "1", "--multiplier", "1", "--players", "5"],
                 "error: --players: a table seats 2, 3 or 4 players, got 5 (RULES §2.1)",
                 id="bad-players"),  # was "rule players: must be one of …": no --rule given
    pytest.param(["simulate", "--players", "1"],
                 "error: --players: a table seats 2, 3 or 4 players, got 1 (RULES §2.1)",
                 id="simulate-bad-players"),
    pytest.param(["settle", "--winner", "1", "--multiplier", "1", "--discarder", "2",
                  "--level", "3", "--rule", "discard_win=true"], "§8.4",
                 id="discard-win-between-non-dealers"),
    pytest.param(["settle", "--winner", "0", "--multiplier", "1", "--discarder", "2"], "§8.4",
                 id="discard-win-off"),
    pytest.param(["score", "123456789m11pPP", "--win", "P", "--discard",
                  "--rule", "discard_win=true"], "cannot be on a 财神",
                 id="discard-win-on-caishen"),
    pytest.param(["score", "123456789m111pP", "--win", "1z", "--discard"], "discard_win=true",
                 id="discard-without-the-option"),
    pytest.param(["score", "123456789m111sP", "--win", "1z", "--rule", "players=2",
                  "--rule", "drop_bamboo=true"], "缺一门", id="bamboo-with-drop-bamboo"),
    pytest.param(["settle", "--winner", "1", "--multiplier", "1", "--level", "2",
                  "--tan", "1:2:3"], "§6.5", id="third-tan-between-non-dealers"),
    pytest.param(["settle", "--winner", "1", "--multiplier", "1", "--tan", "1:0:3",
                  "--rule", "three_tan_contract=false"], "§6.5", id="third-tan-contract-off"),
    pytest.param(["score", "123456789m1p[PPP]", "--win", "1z"], "§5.3", id="caishen-in-meld"),
    pytest.param(["score", "1111m23456789m1p", "--win", "1m"], "copies of 1m",
                 id="fifth-copy-with-win-tile"),
    pytest.param(["score", "4m555m6m111p222s11z", "--win", "5m", "--caishen", "5m"], "§4.5",
                 id="four-caishen-in-flip-mode"),
    pytest.param(["score", "123456789m111pP"], "--win", id="usage-missing-option"),
    pytest.param(["score", "--win", "1z"], "HAND", id="usage-missing-argument"),
    pytest.param(["score", "123456789m111pP", "--win", "1z", "--nope"], "--nope",
                 id="usage-unknown-option"),
    pytest.param(["settle", "--winner", "x", "--multiplier", "1"], "--winner",
                 id="usage-not-an-integer"),
    pytest.param(["bogus"], "bogus", id="usage-unknown-command"),
])
def test_bad_input_exits_2_with_one_line(args: list[str], needle: str) -> None:
    assert needle in run_error(*args)


def test_no_arguments_prints_help() -> None:
    result = runner.invoke(app, [])
    assert result.exit_code == 0
    assert "score" in result.stdout and "settle" in result.stdout and "waits" in result.stdout


def test_settle_players_option_validates_with_drop_bamboo() -> None:
    # RULES §3: 缺一门 needs 2 players; --players must count before the rules are checked
    out = run_json("settle", "--winner", "1", "--multiplier", "1", "--players", "2",
                   "--rule", "drop_bamboo=true")
    assert out["deltas"] == [-2, 2]
    assert out["notes"][0] == "T = 2"


# --------------------------------------------------------------------------------------
# input a hostile or careless user gives (helper-22's attack, 2026-12-03)


@pytest.mark.parametrize(("hand", "chain", "says"), [
    pytest.param("123456789m111pP", "piao," * 5 + "piao", "6 财神 discard(s)", id="six-piao"),
    pytest.param("123456789m111pP", ",".join(["piao"] * 15000), "15000 财神 discard(s)",
                 id="15000-piao-no-traceback"),
    pytest.param("123456789m111pP", "kong", "1 kong(s) but the hand shows 0", id="kong-no-meld"),
    pytest.param("123m456m789pP[9999s]", "kong,kong", "2 kong(s) but the hand shows 1",
                 id="two-kongs-one-meld"),
])
def test_score_refuses_a_chain_the_hand_cannot_have_rules_8_2(hand: str, chain: str,
                                                               says: str) -> None:
    line = run_error("score", hand, "--win", "1z", "--chain", chain)
    assert says in line and len(line) < 200


def test_score_takes_every_piao_the_tiles_allow_rules_8_2() -> None:
    # white-dragon 财神: 4 tiles, one in the hand, so three 财神 discards fit (三财飘 ×16)
    out = run_json("score", "123456789m111pP", "--win", "1z", "--chain", "piao,piao,piao")
    assert (out["multiplier"], out["names"]["zh"]) == (16, "三财飘")
    # flipped 财神 (3 tiles in play): one held, so a third 财神 discard cannot have happened
    assert "2 财神 tile(s)" in run_error("score", "123456789m111p3s", "--win", "1z",
                                         "--caishen", "3s", "--chain", "piao,piao,piao")


@pytest.mark.parametrize(("args", "says"), [
    pytest.param(["--port", "99999"], "--port", id="port-too-big"),
    pytest.param(["--port", "-1"], "--port", id="port-negative"),
    pytest.param(["--log-level", "bogus"], "--log-level", id="log-level"),
    pytest.param(["--public-url", "not a url"], "--public-url", id="public-url"),
])
def test_serve_refuses_bad_options_before_it_starts(args: list[str], says: str) -> None:
    assert says in run_error("serve", *args)


@pytest.mark.parametrize("db", ["{tmp}", "{tmp}/not-a-db", "/nonexistent/dir/x.db", "bogus://x"])
def test_serve_with_a_database_it_cannot_open_says_so_in_one_line(db: str, tmp_path: Any) -> None:
    (tmp_path / "not-a-db").write_bytes(bytes(range(256)) * 8)
    result = runner.invoke(app, ["serve", "--db", db.format(tmp=tmp_path), "--port", "1"])
    assert result.exit_code == 1
    assert "cannot open the database" in str(result.exception) or \
        "cannot open the database" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", [["simulate"], ["arena", "--bots", "random,random"]])
def test_hands_beyond_a_million_are_refused(command: list[str]) -> None:
    # arena --hands 10**20 built a list of 1.25e19 matches before playing one: it ate the
    # machine's memory without a word (simulate --ray likewise)
    line = run_error(*command, "--hands", "99999999999999999999")
    assert "--hands" in line and "1000000" in line
    assert "--hands" in run_error(*command, "--hands", "1000001")


def test_arena_rate_refuses_the_oracle(tmp_path: Any) -> None:
    line = run_error("arena", "--bots", "oracle,random,random,random", "--hands", "1",
                     "--rate", "--db", str(tmp_path / "r.db"))
    assert "oracle" in line
    assert not (tmp_path / "r.db").exists()


@pytest.mark.parametrize(("bots", "rule", "says"), [
    # the bots' count set the table: --rule players=2 was dropped and 4 seats played
    pytest.param("random,random,random,random", ["--rule", "players=2"],
                 "--rule players=2 but --bots lists 4 bots", id="rule-players-differs"),
    # 5 bots said "rule players: ... (got 5)", naming an option nobody gave
    pytest.param("random,random,random,random,random", [],
                 "--bots lists 5 bots: a table seats 2, 3 or 4", id="five-bots"),
])
def test_arena_seats_are_the_bots_listed(bots: str, rule: list[str], says: str) -> None:
    assert says in run_error("arena", "--bots", bots, "--hands", "1", *rule)


@pytest.mark.parametrize(("args", "says"), [
    pytest.param(["--tan", "1:0:999"], "at most 4 sets", id="tan-count"),
    pytest.param(["--tan", "1:0:٣"], "TAKER:GIVER:COUNT", id="tan-non-ascii-digit"),
    pytest.param(["--tan", "1:0:3", "--tan", "1:2:2"], "5 摊", id="tan-total"),
    pytest.param(["--piao-feeder", "1"], "own piao feeder", id="winner-as-feeder"),
])
def test_settle_refuses_what_no_hand_can_have_rules_10_4(args: list[str], says: str) -> None:
    assert says in run_error("settle", "--winner", "1", "--multiplier", "2", *args)


@pytest.mark.parametrize("m", [512, 2 ** 300])
def test_settle_refuses_a_multiplier_no_hand_scores_rules_9(m: int) -> None:
    # 2^10000 was settled and printed: shares of 3,000 digits for a hand that cannot be
    assert "no hand scores more than M = 256" in run_error(
        "settle", "--winner", "0", "--multiplier", str(m))
    # the largest M there is (RULES §9.3: 双飘四杠 ×128, one 飘 more) still settles
    top = run_json("score", "[1111m][2222m][3333m][4444m]P", "--win", "9p",
                   "--chain", "piao,piao,piao,kong,kong,kong,kong")
    assert top["multiplier"] == 256
    assert run_json("settle", "--winner", "0", "--multiplier", "256")["deltas"] == [
        1536, -512, -512, -512]


HELP_PAGES = [[], *([name] for name in ("score", "settle", "waits", "simulate", "replay",
                                        "review", "serve", "rules", "arena", "play",
                                        "node")), ["node", "list"], ["node", "drain"]]


def help_page(*command: str) -> str:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0 and result.stderr == "", result.stderr
    return result.stdout


def test_every_help_page_is_listed() -> None:
    import typer.main

    group = typer.main.get_command(app)
    assert sorted(group.commands) == sorted(c[0] for c in HELP_PAGES if len(c) == 1)


@pytest.mark.parametrize("command", HELP_PAGES, ids=" ".join)
def test_help_shows_no_types_of_typer_s_own(command: list[str]) -> None:
    # Typer 0.29 printed "<bool>" beside every flag (which takes no value), "<str>" beside
    # every argument and option without a metavar, and "{HAND}" in the usage line
    page = help_page(*command)
    assert re.search(r"<[a-z]", page) is None, page
    assert "{" not in page.partition("Usage:")[2].splitlines()[0]
    assert re.search(r"--help\s+Show this message and exit\.", page)


def test_help_names_each_value_and_leaves_flags_bare() -> None:
    score = help_page("score")
    assert "Usage: hzmj score [OPTIONS] HAND " in score
    assert re.search(r"│ \*    HAND\s+13 tiles before the win, melds in brackets\. \[required\]",
                     score)
    assert re.search(r"--discard\s+A discard win: the chain is ignored \(RULES §8\.4\)\.", score)
    assert re.search(r"--json\s+Print one JSON object\.", score)
    serve = help_page("serve")
    assert re.search(r"--port\s+PORT \[1<=x<=65535\]\s+TCP port\. \[default: 8000\]", serve)
    assert re.search(r"--log-level\s+LEVEL\s+How much the server logs: critical, error,", serve)
    assert "Usage: hzmj rules [OPTIONS] [§N.N] " in help_page("rules")
    assert "Usage: hzmj node drain [OPTIONS] NODE " in help_page("node", "drain")
    arena = help_page("arena")
    assert re.search(r"--hands\s+N \[1<=x<=1000000\]\s+Hands per rotation", arena)
    assert re.search(r"--duplicate\s+Replay every deal", arena)


def test_help_paragraphs_are_reflowed_not_broken_where_the_source_breaks() -> None:
    # "…for a server's record, that" ended a line of its own: Typer kept the docstring's
    # line breaks in every paragraph but the first
    lines = [line.strip() for line in help_page("replay").splitlines()]
    at = lines.index("Usage: hzmj replay [OPTIONS] RECORD.json") + 2
    assert lines[at:at + 5] == [
        "Print a recorded match event by event: the deal, every move, each hand's result and its",
        "explanation.", "",
        "--verify also checks every figure the record stores and, for a server's record, that the seed",
        "opens the commitment published at the start."]


def test_node_alone_prints_its_help_like_hzmj_alone() -> None:
    result = runner.invoke(app, ["node"])
    assert result.exit_code == 0 and "drain" in result.stdout and result.stderr == ""


def test_a_long_unknown_rule_section_is_cut() -> None:
    line = run_error("rules", "9" * 5000)
    assert "no section" in line and len(line) < 200


# helper-23's second look (2026-12-03)


@pytest.mark.parametrize(("args", "says"), [
    pytest.param(["--db", "://"], "cannot open the database", id="unparsable-db-url"),
    pytest.param(["--db", "postgresql://u:secret@host:notaport/db"], "cannot open the database",
                 id="db-port-not-a-number"),
])
def test_serve_with_an_unreadable_database_url_says_so_without_the_password(
        args: list[str], says: str) -> None:
    result = runner.invoke(app, ["serve", *args, "--port", "1"])
    assert result.exit_code == 1 and says in str(result.exception)
    assert "secret" not in str(result.exception).split(":", 2)[1]  # the URL is not echoed


@pytest.mark.parametrize(("args", "says"), [
    pytest.param(["--public-url", "http://[::1"], "--public-url", id="bad-ipv6"),
    pytest.param(["--public-url", "http://x:99999"], "--public-url", id="port-out-of-range"),
    pytest.param(["--host", " "], "--host", id="empty-host"),
    # an address no interface has printed "open http://999.1.1.1:8000/", opened the
    # database, then failed inside uvicorn with exit 3
    pytest.param(["--host", "999.1.1.1"], "--host: cannot listen on '999.1.1.1'", id="bad-ip"),
    pytest.param(["--host", "no such host"], "--host", id="unresolvable-host"),
])
def test_serve_refuses_more_bad_addresses(args: list[str], says: str) -> None:
    assert says in run_error("serve", *args)


def test_serve_reads_its_settings_from_the_environment_and_checks_them(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("HZMJ_PUBLIC_URL", "garbage")
    result = runner.invoke(app, ["serve", "--port", "1"])
    assert result.exit_code == 1 and "HZMJ_PUBLIC_URL" in str(result.exception)
    monkeypatch.delenv("HZMJ_PUBLIC_URL")
    monkeypatch.setenv("HZMJ_DB", str(tmp_path))  # a directory: was ignored for ./hzmj.db
    result = runner.invoke(app, ["serve", "--port", "1"])
    assert result.exit_code == 1 and str(tmp_path) in str(result.exception)


def test_score_joins_repeated_chain_options_rules_8_2() -> None:
    out = run_json("score", "123m456m789pP[9999s]", "--win", "1z", "--chain", "piao",
                   "--chain", "kong")
    assert (out["multiplier"], out["names"]["zh"]) == (8, "飘杠")


@pytest.mark.parametrize(("args", "says"), [
    pytest.param(["--discarder", "1", "--rule", "discard_win=true", "--level", "3",
                  "--piao-feeder", "2"], "on a discard win", id="feeder-on-a-discard-win"),
    pytest.param(["--tan", "1:1:3"], "from itself", id="tan-from-itself"),
    pytest.param(["--tan", "1:0:" + "9" * 5000], "TAKER:GIVER:COUNT", id="tan-huge-count"),
])
def test_settle_refuses_inconsistent_input_rules_8_4_10_4(args: list[str], says: str) -> None:
    line = run_error("settle", "--winner", "0", "--multiplier", "4", *args)
    assert says in line and len(line) < 200


def test_rules_with_an_empty_section_lists_the_sections() -> None:
    result = runner.invoke(app, ["rules", ""])
    assert result.exit_code == 0 and "§6 " in result.stdout


def test_arena_title_counts_in_the_singular_too() -> None:
    # "8 hands (1 matches, 1 deals), …"
    out = runner.invoke(app, ["arena", "--bots", "random,random,random,random", "--hands",
                              "8", "--seed", "1", "--workers", "1"])
    assert out.exit_code == 0, out.stderr
    assert "8 hands (1 match, 1 deal), seed 1, " in out.stdout


def test_play_writes_the_record_for_replay_and_review(tmp_path: Any) -> None:
    # a terminal match could not be replayed or reviewed: nothing wrote its record
    path = tmp_path / "mine.json"
    out = runner.invoke(app, ["play", "--seed", "3", "--record", str(path)], input="1\n1\nq\n")
    assert out.exit_code == 0, out.stderr
    assert out.stdout.endswith(f"record written to {path}: hzmj replay {path} --verify; "
                               f"hzmj review {path} --seat 0\n")
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["seed"] == 3 and record["over"] is False
    assert record["actions"][0] == {"type": "discard", "seat": 1, "tile": "7z"}
    assert verify(record) == []
    mine = [a for a in record["actions"] if a["seat"] == 0]
    assert mine[0] == {"type": "discard", "seat": 0, "tile": "2m"}  # index 1 of the hand


def test_play_refuses_a_record_path_without_a_directory_before_the_match(
        tmp_path: Any) -> None:
    line = run_error("play", "--record", str(tmp_path / "no" / "mine.json"))
    assert line == f"error: --record: no directory for {tmp_path / 'no' / 'mine.json'}"


# --------------------------------------------------------------------------------------
# counts in the singular ("1 bots", "1 hands")


@pytest.mark.parametrize(("n", "one", "many", "says"), [
    (0, "hand", None, "0 hands"), (1, "hand", None, "1 hand"), (2, "match", "matches",
                                                                "2 matches"),
    (1, "match", "matches", "1 match"), (3, "useful tile", None, "3 useful tiles"),
])
def test_counted_says_one_noun_in_the_singular(n: int, one: str, many: str | None,
                                               says: str) -> None:
    assert counted(n, one, many) == says


def test_one_bot_for_an_arena_is_one_bot_not_one_bots() -> None:
    assert run_error("arena", "--bots", "strong") == (
        "error: --bots lists 1 bot: a table seats 2, 3 or 4 (one bot per seat)")


def test_simulate_of_one_hand_titles_it_one_hand() -> None:
    out = runner.invoke(app, ["simulate", "--hands", "1", "--seed", "1"])
    assert out.exit_code == 0, out.stderr
    assert out.stdout.split("\n", 1)[0].strip() == "1 hand, seed 1, bots random,random,random,random"


def test_a_bot_s_hint_counts_one_tile_in_the_singular() -> None:
    assert HandValue(shanten=0, weighted=2.0, tiles=1).describe() == (
        "shanten 0, 1 winning tile unseen")
    assert HandValue(shanten=1, weighted=2.0, tiles=5).describe() == (
        "shanten 1, 5 useful tiles unseen")


def test_play_names_the_table_s_seats_for_a_bad_seat() -> None:
    assert run_error("play", "--seat", "7") == (
        "error: --seat 7: the table has 4 seats, 0, 1, 2 and 3")
    assert run_error("play", "--seat", "2", "--rule", "players=2") == (
        "error: --seat 2: the table has 2 seats, 0 and 1")


def test_unknown_bots_are_named_with_the_oracle_only_where_it_may_play() -> None:
    # play listed the oracle among its choices, then refused it
    assert run_error("play", "--bot", "nobody") == (
        "error: unknown bot 'nobody' (known: random, efficiency, strong, expert)")
    assert run_error("simulate", "--bot", "nobody") == (
        "error: unknown bot 'nobody' (known: random, efficiency, strong, expert; for "
        "measurement only: oracle, which sees every tile)")


SERVE_WITHOUT_LISTENING = ("import sys, uvicorn; uvicorn.run = lambda *a, **k: None; "
                           "from hzmj.cli import main; sys.argv[0] = 'hzmj'; main()")


def test_serve_warns_of_an_hzmj_variable_that_is_no_setting(tmp_path: Any) -> None:
    # HZMJ_REVEIW_WORKERS=4 was silently ignored: the server ran with 1 review worker
    env = {"PATH": "/usr/bin:/bin", "HZMJ_REVEIW_WORKERS": "4", "HZMJ_ZZZ": "1", "hzmj_bot_delay": "0",
           "HZMJ_BOT_WORKERS": "0", "HZMJ_GC_GEN0": "0", "HZMJ_TEST_POSTGRES_URL": "x",
           "HZMJ_PG_DB": "hzmj_x"}
    done = subprocess.run([sys.executable, "-c", SERVE_WITHOUT_LISTENING, "serve", "--db",
                           str(tmp_path / "x.db"), "--port", "1"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("WARNING")]
    assert warnings == [
        "WARNING hzmj.server: HZMJ_REVEIW_WORKERS is not a setting of the server and is "
        "ignored: did you mean HZMJ_REVIEW_WORKERS?",
        "WARNING hzmj.server: HZMJ_ZZZ is not a setting of the server and is ignored (the "
        "settings: docs/protocol.md, \"Settings\")",
        "WARNING hzmj.server: hzmj_bot_delay is not a setting of the server and is ignored: "
        "did you mean HZMJ_BOT_DELAY?"]


# --------------------------------------------------------------------------------------
# a new user's mistakes: one plain line each


@pytest.mark.parametrize(("args", "says"), [
    # Typer converts with pydantic: "Invalid value for '--hands': Input should be a valid
    # integer, unable to parse string as an integer"
    (["simulate", "--hands", "x"], "error: --hands: expected a whole number, got 'x' "
                                   "(see 'hzmj simulate --help')"),
    (["simulate", "--hands", "1.5"], "error: --hands: expected a whole number, got '1.5' "
                                     "(see 'hzmj simulate --help')"),
    (["simulate", "--hands", "0"], "error: --hands: expected at least 1, got '0' "
                                   "(see 'hzmj simulate --help')"),
    (["serve", "--port", "70000"], "error: --port: expected at most 65535, got '70000' "
                                   "(see 'hzmj serve --help')"),
    (["settle", "--winner", "x", "--multiplier", "1"],
     "error: --winner: expected a whole number, got 'x' (see 'hzmj settle --help')"),
    (["serve", "--log-level", "loud"],
     "error: --log-level: 'loud' is not one of 'critical', 'error', 'warning', 'info', "
     "'debug', 'trace'. (see 'hzmj serve --help')"),
    (["simulate", "--bot", "random,random,random,"],
     "error: --bot: a bot name is missing in 'random,random,random,'"),
    (["arena", "--bots", "random,,random"], "error: --bots: a bot name is missing in "
                                            "'random,,random'"),
])
def test_a_bad_value_is_one_plain_line(args: list[str], says: str) -> None:
    assert run_error(*args) == says


@pytest.mark.parametrize(("content", "says"), [
    (None, "no such file"),
    ("dir", "it is a directory, not a file"),
    (b"\xff\xfe\x00bad", "not UTF-8 text (byte 0xff at position 0): a record is JSON"),
    (b'{"format": "hzmj-record", "ver', "not JSON: Unterminated string starting at: line 1 "
                                        "column 27 (char 26)"),
])
@pytest.mark.parametrize("command", [["replay"], ["review", "--seat", "0"]])
def test_a_record_file_that_cannot_be_read_is_named_with_what_is_wrong(
        tmp_path: Any, content: bytes | str | None, says: str, command: list[str]) -> None:
    # "[Errno 21] Is a directory: '…'", "'utf-8' codec can't decode byte 0xff in
    # position 0: invalid start byte", "[Errno 2] No such file or directory: '…'"
    path = tmp_path / "record.json"
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    assert run_error(command[0], str(path), *command[1:]) == f"error: cannot read {path}: {says}"


def test_a_json_file_that_is_no_record_is_named(tmp_path: Any) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"a": 1}')
    assert run_error("replay", str(path)) == f"error: {path}: not an hzmj-record object"


def test_play_refuses_a_directory_as_its_record_before_the_match(tmp_path: Any) -> None:
    # the whole match was played, then "--record: cannot write …: [Errno 21] Is a directory"
    assert run_error("play", "--record", str(tmp_path)) == (
        f"error: --record: {tmp_path} is a directory: name a file, e.g. "
        f"{tmp_path / 'match.json'}")
