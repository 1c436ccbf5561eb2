"""AI review (issue 15): ``hzmj review`` and ``GET /api/matches/{id}/review`` value each
decision of one seat from that seat's view only (RULES §13)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import hzmj.review as review_module
from hzmj.bots.registry import make_bot
from hzmj.cli import app
from hzmj.events import Escape
from hzmj.game import Match
from hzmj.record import RecordError
from hzmj.review import review
from hzmj.rules import Rules
from hzmj.server.app import create_app
from test_server_replay_hints import bearer, play_bots_to_the_end, room_with, server_config


def _record(seed: int = 9, players: int = 2) -> dict[str, Any]:
    m = Match(Rules(players=players), seed)
    bots = [make_bot("random", 1), make_bot("efficiency", 2)] + \
        [make_bot("efficiency", 3)] * (players - 2)
    while not m.over:
        s = m.to_move()[0]
        m.apply(bots[s].choose(m.view(s), m.legal_actions(s)))
    return m.record()


def test_review_summary_and_decisions() -> None:
    record = _record()
    report = review(record, 0, "efficiency")
    decisions = report["decisions"]
    assert report["reviewed"] == len(decisions) > 20
    # the random seat disagrees with the efficiency bot often; agreement is the share
    agree = sum(d["agree"] for d in decisions)
    assert report["agreement"] == round(agree / len(decisions), 4) < 0.9
    assert report["loss_total"] == pytest.approx(sum(d["loss"] or 0 for d in decisions), abs=1e-3)
    assert report["loss_per_hand"] == pytest.approx(report["loss_total"] / report["hands"],
                                                    abs=1e-3)
    ties = 0
    for d in decisions:
        # agree: the bot's choice, or a move it values at least as high (a tie)
        mine = next((c["value"] for c in d["top"] if c["action"] == d["played"]), None)
        best_value = d["top"][0]["value"]
        if d["played"] == d["best"] or (mine is not None and mine > best_value):
            assert d["agree"]
        elif mine is None or mine < best_value:
            assert not d["agree"]
        ties += d["agree"] and d["played"] != d["best"]
        assert d["top"][0]["action"] == d["best"]
        assert d["played"] in [c["action"] for c in d["top"]] or d["loss"] is None
        assert (d["loss"] == 0) if d["agree"] else (d["loss"] is None or d["loss"] >= 0)
        assert record["actions"][d["index"]] == d["played"]
    losses = [d["loss"] for d in report["costliest"]]
    assert len(losses) == min(5, sum(1 for d in decisions if d["loss"]))
    assert losses == sorted(losses, reverse=True)
    top = max((d["loss"] or 0) for d in decisions)
    assert losses[0] == top
    assert ties > 0  # the random seat's record holds discards the bot values equally
    # the efficiency seat reviewed by the efficiency bot agrees with itself every time
    assert review(record, 1, "efficiency")["agreement"] == 1.0


def test_review_of_the_first_hands_only_is_the_full_review_s_start() -> None:
    """``max_hands`` (the server's bound on a review's cost): the decisions of the first
    hands, valued exactly as in the whole review, and the per-hand loss over those."""
    record = _record()
    full = review(record, 0, "efficiency")
    assert full["hands"] == full["hands_reviewed"] == 8
    first = review(record, 0, "efficiency", max_hands=3)
    assert (first["hands"], first["hands_reviewed"]) == (8, 3)
    assert first["decisions"] == [d for d in full["decisions"] if d["hand_no"] <= 3]  # 1-based
    assert 0 < first["reviewed"] < full["reviewed"]
    assert first["loss_per_hand"] == pytest.approx(first["loss_total"] / 3, abs=1e-3)
    assert review(record, 0, "efficiency", max_hands=8) == full


def test_a_record_cut_inside_a_hand_counts_that_hand() -> None:
    """A record saved mid-hand: "9 decisions over 0 hands" (helper-23); the hand the
    seat decided in counts, and the per-hand loss is over the hands reviewed."""
    record = _record()
    actions = record["actions"]
    full = review(record, 0, "efficiency")
    first_two = [d for d in full["decisions"] if d["hand_no"] <= 2]
    cut_at = first_two[-1]["index"] + 1  # right after seat 0's last decision of hand 2
    cut = review({**record, "actions": actions[:cut_at]}, 0, "efficiency")
    assert cut["decisions"] == first_two
    assert (cut["hands"], cut["hands_reviewed"]) == (1, 2)
    assert cut["loss_per_hand"] == pytest.approx(cut["loss_total"] / 2, abs=1e-3)


def test_moves_the_bot_or_the_clock_made_are_skipped_and_counted() -> None:
    """The record's ``made_by`` marks moves seat 0's player did not choose (托管, a
    timeout): the review values the others exactly as before and counts these."""
    record = _record()
    full = review(record, 0, "efficiency")
    indices = [d["index"] for d in full["decisions"]]
    marks = {str(i): "bot" for i in indices[4:9]} | {str(indices[12]): "clock"}
    # a pass with no choice and another seat's move, marked too, are not counted
    other = next(i for i, a in enumerate(record["actions"]) if a["seat"] == 1)
    marks[str(other)] = "bot"
    marked = review({**record, "made_by": marks}, 0, "efficiency")
    assert full["skipped"] == {"bot": 0, "clock": 0}
    assert marked["skipped"] == {"bot": 5, "clock": 1}
    assert marked["reviewed"] == full["reviewed"] - 6
    assert [d["index"] for d in marked["decisions"]] == [
        i for i in indices if str(i) not in marks]
    assert marked["decisions"] == [d for d in full["decisions"] if str(d["index"]) not in marks]


def test_the_loss_per_hand_counts_only_the_hands_the_player_played() -> None:
    """Hands left whole to 托管 are not the player's: all decisions in hand 1 of 8 and
    the rest made by the bot gave the loss divided by 8 (a fresh player's report)."""
    record = _record()
    full = review(record, 0, "efficiency")
    assert full["hands_played"] == full["hands_reviewed"] == 8
    assert full["loss_per_hand"] == round(full["loss_total"] / 8, 4)
    mine = [i for i, a in enumerate(record["actions"]) if a["seat"] == 0]
    first = min(d["hand_no"] for d in full["decisions"])
    first_hand = {d["index"] for d in full["decisions"] if d["hand_no"] == first}
    marks = {str(i): "bot" for i in mine if i not in first_hand}
    only_first = review({**record, "made_by": marks}, 0, "efficiency")
    assert only_first["hands_played"] == 1 and only_first["hands_reviewed"] == 8
    assert only_first["decisions"] == [d for d in full["decisions"] if d["hand_no"] == first]
    assert only_first["decisions"] and only_first["loss_total"] > 0
    assert only_first["loss_per_hand"] == only_first["loss_total"]


def test_the_moves_after_an_escape_are_the_bot_s() -> None:
    m = Match(Rules(players=2), 9)
    bots = [make_bot("efficiency", 1), make_bot("efficiency", 2)]
    for _ in range(30):
        s = m.to_move()[0]
        m.apply(bots[s].choose(m.view(s), m.legal_actions(s)))
    m.apply(Escape(0))
    while not m.over:
        s = m.to_move()[0]
        m.apply(bots[s].choose(m.view(s), m.legal_actions(s)))
    report = review(m.record(), 0, "efficiency")
    last = max(i for i, a in enumerate(m.actions) if a.type == "escape")
    assert report["skipped"]["bot"] > 20 and report["skipped"]["clock"] == 0
    assert all(d["index"] < last for d in report["decisions"])


def test_review_sees_only_the_seat_s_view(monkeypatch: pytest.MonkeyPatch) -> None:
    record = _record(4)
    seen: list[dict[str, Any]] = []

    class Spy:
        name = "spy"

        def explain(self, view: dict[str, Any], legal: Any, include: Any = None) -> Any:
            seen.append(view)
            return make_bot("efficiency", 0).explain(view, legal, include)

    monkeypatch.setattr(review_module, "make_bot", lambda name, seed: Spy())
    review(record, 1, "efficiency")
    assert seen
    for view in seen:  # RULES §13: its own hand only, never the wall or another hand
        assert view["seat"] == 1 and view["hand"] is not None
        assert "wall" not in view and "hands" not in view
        assert set(view["players"][0]) == {"seat", "points", "dealer", "concealed_count",
                                           "melds", "discards", "chain", "auto"}


def test_review_refuses_bad_input() -> None:
    record = _record()
    with pytest.raises(ValueError, match="seat"):
        review(record, 2, "efficiency")
    with pytest.raises(ValueError, match="sees every tile"):
        review(record, 0, "oracle")
    with pytest.raises(RecordError):
        review({**record, "actions": [{"type": "pass", "seat": 0}]}, 0, "efficiency")


def test_review_refuses_the_random_bot_whose_values_rank_nothing(tmp_path: Path) -> None:
    # the random bot lists every legal move at 1/n, so every move played "agreed":
    # `hzmj review --bot random` reported 100 % agreement and no loss
    record, bot = _record(), "random"
    with pytest.raises(ValueError, match="values every legal move alike"):
        review(record, 0, bot)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    out = CliRunner().invoke(app, ["review", str(path), "--seat", "0", "--bot", bot])
    assert out.exit_code == 2 and out.stdout == ""
    assert out.stderr.startswith("error: ") and "review with expert, strong, efficiency" \
        in out.stderr


def test_review_cli_json_and_table(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record()))
    runner = CliRunner()
    out = runner.invoke(app, ["review", str(path), "--seat", "0", "--bot", "expert@1",
                              "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert {"agreement", "loss_total", "decisions"} <= set(data)
    assert all({"played", "best", "loss"} <= set(d) for d in data["decisions"])
    assert data["unit"] == "expected points of the hand"
    text = runner.invoke(app, ["review", str(path), "--seat", "0", "--bot", "efficiency"])
    assert text.exit_code == 0 and "agreed with" in text.stdout and "costliest" in text.stdout
    assert "not reviewed" not in text.stdout  # every move was the seat's own
    record = json.loads(path.read_text())
    first = next(i for i, a in enumerate(record["actions"]) if a["seat"] == 0
                 and a["type"] == "discard")
    path.write_text(json.dumps({**record, "made_by": {str(first): "clock"}}))
    text = runner.invoke(app, ["review", str(path), "--seat", "0", "--bot", "efficiency"])
    assert "not reviewed, made for seat 0: 1 by the clock (timeout)" \
        in " ".join(text.stdout.split())
    for args in (["--seat", "7"], ["--seat", "0", "--bot", "oracle"],
                 ["--seat", "0", "--bot", "nobody"]):
        bad = runner.invoke(app, ["review", str(path), *args])
        assert bad.exit_code == 2, (args, bad.output)
    assert runner.invoke(app, ["review", str(tmp_path / "none.json"), "--seat", "0"]
                         ).exit_code == 2


def test_review_endpoint_after_the_match_only(tmp_path: Path) -> None:
    with TestClient(create_app(server_config(tmp_path))) as client:
        room, (owner, _) = room_with(client, {"players": 2}, 3, ["ann", "bob"])
        client.post(f"/api/rooms/{room}/start", headers=bearer(owner))
        assert client.get(f"/api/matches/{room}/review?seat=0").status_code == 409
        done = play_bots_to_the_end(client, seed=9)
        url = f"/api/matches/{done}/review"
        body = client.get(url + "?seat=1&bot=efficiency").json()
        record = client.get(f"/api/matches/{done}/record").json()
        assert body == review(record, 1, "efficiency")
        assert client.get(url + "?seat=1&bot=efficiency").json() == body  # cached
        bad_seat = client.get(url + "?seat=5&bot=efficiency")  # refused before the queue
        assert bad_seat.status_code == 422 and "seat must be 0..1" in bad_seat.text
        refused = client.get(url + "?seat=0&bot=oracle")
        assert refused.status_code == 422 and "sees every tile" in refused.text
        # a client never sets a review's cost: no budgets, no sample counts
        for costly in ("expert:2000", "expert@64", "strong:2000", "random"):
            r = client.get(url + f"?seat=0&bot={costly}")
            assert r.status_code == 422 and "must be one of" in r.text, costly
        assert client.get("/api/matches/nope/review?seat=0").status_code == 404


def test_a_seat_in_a_url_is_its_digits_only(tmp_path: Path) -> None:
    """``seat=1.0``, ``+1``, `` 1`` and ``1_0`` (lax integer parsing: 1, 1, 1 and 10) are
    refused with 422 on the review, the hints and a seat's removal; ``seat=1`` works."""
    with TestClient(create_app(server_config(tmp_path))) as client:
        done = play_bots_to_the_end(client, seed=9)
        room, (owner, _) = room_with(client, {"players": 2}, 3, ["ann", "bob"])
        for bad in ("1.0", "+1", " 1", "1_0", "１", "-0"):
            for r in (client.get(f"/api/matches/{done}/review", params={"seat": bad}),
                      client.get(f"/api/rooms/{room}/hints", params={"seat": bad},
                                 headers=bearer(owner)),
                      client.delete(f"/api/rooms/{room}/seats/{bad}", headers=bearer(owner))):
                assert r.status_code == 422, (bad, r.request.url, r.text)
                assert "a seat is written as a number" in r.text
        ok = client.get(f"/api/matches/{done}/review", params={"seat": "1", "bot": "efficiency"})
        assert ok.status_code == 200 and ok.json()["seat"] == 1
        assert client.get(f"/api/matches/{done}/review", params={"seat": "7"}).status_code == 422


def test_review_endpoint_answers_503_when_its_workers_keep_dying(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hzmj.server.bots import Thinker

    async def dying(self: Thinker, job: Any, *args: Any) -> Any:
        raise RuntimeError(f"the {self.kind} workers keep dying")

    with TestClient(create_app(server_config(tmp_path))) as client:
        done = play_bots_to_the_end(client, seed=9)
        monkeypatch.setattr(Thinker, "run", dying)
        r = client.get(f"/api/matches/{done}/review?seat=1&bot=efficiency")
        assert r.status_code == 503 and r.json()["code"] == "busy"
        monkeypatch.undo()  # nothing was cached: the next ask makes the review
        import hzmj.server.app as server_app

        monkeypatch.setattr(server_app, "REVIEW_MAX_HANDS", 1)  # the server's bound
        ok = client.get(f"/api/matches/{done}/review?seat=1&bot=efficiency").json()
        assert (ok["hands_reviewed"], ok["hands"]) == (1, 8)
        assert {d["hand_no"] for d in ok["decisions"]} == {1}


def test_the_server_never_seats_the_oracle(tmp_path: Path) -> None:
    with TestClient(create_app(server_config(tmp_path))) as client:
        room, (owner,) = room_with(client, {"players": 2}, 3, ["ann"])
        r = client.post(f"/api/rooms/{room}/bots", json={"seat": 1, "bot": "oracle"},
                        headers=bearer(owner))
        assert r.status_code == 422 and "sees every tile" in r.text
        unknown = client.post(f"/api/rooms/{room}/bots", json={"seat": 1, "bot": "nobody"},
                              headers=bearer(owner))  # it named the oracle among the bots
        assert unknown.status_code == 422 and "unknown bot 'nobody' (known: random, " \
            "efficiency, strong, expert)" in unknown.text and "oracle" not in unknown.text
        ok = client.post(f"/api/rooms/{room}/bots", json={"seat": 1, "bot": "expert"},
                         headers=bearer(owner))
        assert ok.status_code == 200


def test_the_terminal_table_refuses_the_oracle() -> None:
    out = CliRunner().invoke(app, ["play", "--bot", "oracle"], input="q\n")
    assert out.exit_code == 2 and "sees every tile" in out.output


def test_a_win_is_valued_at_its_real_points_and_a_declined_win_is_the_bot_s_advice() -> None:
    """helper-27: "winning (自摸) cost points" is not a win valued 0.  Seed 3 (four
    efficiency seats), hand 3: seat 0 self-draws a plain win (+4) holding two 财神; the
    strong bot, which the expert defers to when a win is on offer, would discard 3p and
    wait for 爆头 instead.  The win is valued at exactly what it paid (+4, in every
    world), the pick at its simulated mean, and the loss is their difference, in one unit."""
    m = Match(Rules(players=4), 3)
    bots = [make_bot("efficiency", i) for i in range(4)]
    while not m.over:
        s = m.to_move()[0]
        m.apply(bots[s].choose(m.view(s), m.legal_actions(s)))
    record = m.record()
    report = review(record, 0, "expert@4", max_hands=3)
    win = next(d for d in report["decisions"] if d["played"]["type"] == "win"
               and d["best"]["type"] != "win")
    paid = next(r for r in m.results if r.hand_no == win["hand_no"]).settlement.deltas[0]
    assert paid == 4
    values = {json.dumps(c["action"], sort_keys=True): c["value"] for c in win["top"]}
    assert values[json.dumps(win["played"], sort_keys=True)] == paid  # not 0
    best = values[json.dumps(win["best"], sort_keys=True)]
    assert best == 8.0 and win["best"] == {"type": "discard", "seat": 0, "tile": "3p"}
    assert not win["agree"] and win["loss"] == best - paid == 4.0
    # the values of one decision are all in the review's unit (points of the hand): the
    # costliest list is sorted by them, largest first
    assert [d["loss"] for d in report["costliest"]] == sorted(
        (d["loss"] for d in report["costliest"]), reverse=True)


def test_a_lone_choice_is_valued_in_points_like_the_others() -> None:
    """helper-27: where the strong bot puts forward one move only, the expert returned its
    value unsearched, an expected multiplier M shown as points.  Seed 3, hands 1–2: every
    decision's value is a play-out mean over the review's 4 worlds (points of the hand)."""
    m = Match(Rules(players=4), 3)
    bots = [make_bot("efficiency", i) for i in range(4)]
    while not m.over:
        s = m.to_move()[0]
        m.apply(bots[s].choose(m.view(s), m.legal_actions(s)))
    report = review(m.record(), 0, "expert@4", max_hands=2)
    lone = [d for d in report["decisions"] if len(d["top"]) == 1]
    assert len(lone) == 2
    for d in report["decisions"]:
        for c in d["top"]:
            assert "points over 4 worlds" in c["detail"], c
            assert (c["value"] * 4).is_integer()  # a mean of 4 whole-point hands


@pytest.mark.parametrize(("seat", "says"), [
    ("7", "error: --seat 7: this record's table has 2 seats, 0 and 1"),
    ("x", "error: --seat: expected a seat number (0 or 1 at this record's table), got 'x'"),
    ("-1", "error: --seat: expected a seat number (0 or 1 at this record's table), got '-1'"),
    ("1.5", "error: --seat: expected a seat number (0 or 1 at this record's table), "
            "got '1.5'"),
])
def test_review_names_the_record_s_seats_for_a_bad_seat(tmp_path: Path, seat: str,
                                                         says: str) -> None:
    # 'x' was Typer's "Input should be a valid integer, unable to parse string as an
    # integer", 7 "seat must be 0..1, got 7"
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record()))
    out = CliRunner().invoke(app, ["review", str(path), "--seat", seat, "--bot", "efficiency"])
    assert (out.exit_code, out.stdout, out.stderr) == (2, "", says + "\n")


def test_review_refuses_a_seat_that_made_no_move_naming_those_that_did(
        tmp_path: Path) -> None:
    # the record stops after two moves, by seats 3 and 0: seat 2 never played and its
    # review was an empty table ("0 decisions over 0 hands")
    record = _record(players=4)
    cut = {**record, "actions": record["actions"][:2], "over": False}
    assert [a["seat"] for a in cut["actions"]] == [3, 0]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(cut))
    out = CliRunner().invoke(app, ["review", str(path), "--seat", "2", "--bot", "efficiency"])
    assert (out.exit_code, out.stdout) == (2, "")
    assert out.stderr == ("error: --seat 2: that seat made no move in this record; review "
                          "seat 0 or 3\n")
    path.write_text(json.dumps({**record, "actions": [], "over": False}))
    out = CliRunner().invoke(app, ["review", str(path), "--seat", "0", "--bot", "efficiency"])
    assert out.exit_code == 2 and out.stderr == (
        "error: --seat 0: that seat made no move in this record (nor did any other): "
        "nothing to review\n")


def test_review_names_its_reviewing_bots_for_an_unknown_one(tmp_path: Path) -> None:
    # it listed the registry's every bot, the random bot and the oracle included, which
    # cannot review
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record()))
    out = CliRunner().invoke(app, ["review", str(path), "--seat", "0", "--bot", "nobody"])
    assert out.exit_code == 2 and out.stderr == (
        "error: unknown bot 'nobody': review with expert, strong, efficiency "
        "(expert:MS, expert@N)\n")
    with pytest.raises(ValueError, match="seat 2 is not at this table: its seats are 0 and 1"):
        review(_record(), 2, "efficiency")


def test_review_text_reads_as_a_player_s_lesson(tmp_path: Path) -> None:
    """The text review named tiles in notation only (a 财神 discard looked like any
    other), listed a claim without its tile ("pong"), wrapped the top choices into one
    comma-run, left the loss blank where the player agreed, said "1 decisions" and gave
    the loss without its unit.  Seed 9, seat 0 (a random bot) reviewed by efficiency."""
    path = tmp_path / "record.json"
    record = _record()
    path.write_text(json.dumps(record))
    out = CliRunner().invoke(app, ["review", str(path), "--seat", "0", "--bot", "efficiency"],
                             env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.stderr
    lines = [line.rstrip() for line in out.stdout.splitlines()]
    data = review(record, 0, "efficiency")
    assert lines[0] == "seat 0 reviewed by efficiency; values and losses in efficiency score"
    first = [line for line in lines if line.startswith("│   1 │")][0]
    assert [c.strip() for c in first.split("│")[1:-1]] == [
        "1", "1", "discard 5m 五万", "12.00", "discard 4z 北   -3918.00"]
    rows = "\n".join(lines)
    assert "│ discard 5m 五万 -3930.00 ◀" in rows  # the move played, among the values
    # a pass names the discard it let go; a 财神 discard says so; an unvalued move is ?
    assert "│  16 │    1 │ pass 1s 一条         │  993.50 │ chow 1s (1s 2s 3s) -1956.50" in rows
    assert "│  49 │    2 │ discard 3m 三万 财神 │       ? │ discard 3z 西 -1970.00" in rows
    assert "│  11 │    1 │ discard 2m 二万      │       ✓ │" in rows  # agreed: ✓, not blank
    agreed = sum(d["agree"] for d in data["decisions"])
    assert (agreed, data["reviewed"]) == (42, 186)
    assert (f"186 decisions in 8 hands; agreed with efficiency on 42 (23%); loss "
            f"{data['loss_total']:.2f} in total, {data['loss_per_hand']:.2f} a hand over the "
            f"8 hands seat 0 played") in lines
    costliest = lines[lines.index("costliest decisions:") + 1:]
    assert costliest[0] == "  #106, hand 3: discard 3p 三筒 instead of discard 7z 中, loss 1081.00"
    assert len(costliest) == 5


def test_review_text_of_one_decision_says_it_in_the_singular(tmp_path: Path) -> None:
    record = _record(players=4)
    path = tmp_path / "record.json"
    path.write_text(json.dumps({**record, "actions": record["actions"][:2], "over": False}))
    out = CliRunner().invoke(app, ["review", str(path), "--seat", "0", "--bot", "efficiency"],
                             env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.stderr
    assert "1 decision in 1 hand; agreed with efficiency on " in out.stdout


def test_review_text_without_a_decision_says_so_instead_of_an_empty_table(
        tmp_path: Path) -> None:
    record = _record()
    bot_made = {str(i): "bot" for i, a in enumerate(record["actions"]) if a["seat"] == 0}
    path = tmp_path / "record.json"
    path.write_text(json.dumps({**record, "made_by": bot_made}))
    out = CliRunner().invoke(app, ["review", str(path), "--seat", "0", "--bot", "efficiency"],
                             env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1] == ("no decision with a choice to review: every move of this seat was "
                        "forced or made for it")
    assert "┏" not in out.stdout and "costliest" not in out.stdout
    assert lines[2] == "0 decisions in 8 hands"
    assert lines[3].startswith("not reviewed, made for seat 0: ") and "by the bot (托管)" in lines[3]
