"""GET /api/matches/{id}/replay (a finished match step by step, rebuilt from its record)
and GET /api/rooms/{id}/hints (one seat's analysis from its own view), over HTTP and,
for the hints, on exact positions without HTTP."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hzmj.bots.registry import make_bot
from hzmj.events import Event, action_from_json
from hzmj.game import Match
from hzmj.hand import discard_options, shanten, waits
from hzmj.hints import hints
from hzmj.record import events_digest, replay
from hzmj.rules import Rules
from hzmj.server import storage
from hzmj.server.app import create_app
from hzmj.server.bots import hint_bot
from hzmj.server.config import ServerConfig
from hzmj.tiles import NUM_KINDS, counts_of, tile, tile_name
from scenario import deal, play


def server_config(tmp_path: Path) -> ServerConfig:
    # human clocks slowed down a hundredfold: nothing moves unless a test acts
    return ServerConfig(db=str(tmp_path / "hints.db"), bot_delay=0, hand_pause=0,
                        time_scale=100, bot_workers=0, claim_pause_scale=0,
                        allow_fixed_seed=True)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(server_config(tmp_path))) as c:
        yield c


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def room_with(client: TestClient, rules: dict[str, Any], seed: int,
              names: list[str]) -> tuple[str, list[str]]:
    """A room whose seats 0.. are taken by ``names``; their tokens."""
    room = client.post("/api/rooms", json={"rules": rules, "seed": seed}).json()["room_id"]
    tokens = [client.post(f"/api/rooms/{room}/seats", json={"name": n}).json()["token"]
              for n in names]
    return room, tokens


def play_bots_to_the_end(client: TestClient, seed: int) -> str:
    room, (owner,) = room_with(client, {"players": 2}, seed, ["ann"])
    for seat in (1, 0):
        client.post(f"/api/rooms/{room}/bots", json={"seat": seat, "bot": "random"},
                    headers=bearer(owner))
    assert client.get(f"/api/matches/{room}/replay").status_code == 409  # not started
    # the owner's socket runs the table (one nobody is at stands still)
    with client.websocket_connect(f"/ws/rooms/{room}",
                                  subprotocols=["hzmj", f"token.{owner}"]) as ws:
        client.post(f"/api/rooms/{room}/start", headers=bearer(owner))
        while True:
            msg = ws.receive_json()
            if msg["type"] == "event" and msg["event"]["type"] == "match_end":
                return room


# ------------------------------------------------------------------ replay


def check_replay(body: dict[str, Any], record: dict[str, Any]) -> None:
    steps = body["steps"]
    assert len(steps) == 1 + len(record["actions"])
    assert steps[0]["action"] is None
    assert [e["type"] for e in steps[0]["events"]] == ["match_start", "hand_start"]
    assert [s["action"] for s in steps[1:]] == record["actions"]
    marks = record.get("made_by", {})
    assert [s["by"] for s in steps] == [None] + [marks.get(str(i))
                                                 for i in range(len(record["actions"]))]
    events = [e for s in steps for e in s["events"]]
    assert events_digest(Event(e) for e in events) == record["events_digest"]
    assert events == [e.to_json() for e in replay(record).log]
    assert body["rules"] == record["rules"]
    # the deal is shown in full: every seat's hand, not only one
    assert all(h is not None for h in steps[0]["events"][1]["hands"])


def test_replay_is_the_record_step_by_step(tmp_path: Path) -> None:
    cfg = server_config(tmp_path)
    with TestClient(create_app(cfg)) as client:
        room = play_bots_to_the_end(client, seed=9)
        record = client.get(f"/api/matches/{room}/record").json()
        body = client.get(f"/api/matches/{room}/replay").json()
        check_replay(body, record)
        assert body["players"] == ["random bot", "random bot"]
        assert record["made_by"] == {}  # a bot's seat plays its own moves: none is marked
        assert client.get("/api/matches/nope/replay").status_code == 404
    with TestClient(create_app(cfg)) as client:  # a restarted server: from the database
        assert client.get(f"/api/matches/{room}/replay").json() == body


def test_a_replay_covers_the_match_s_first_hands_only(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    # a points match has no last hand (RULES §12.2): one of 3,067 hands took 11 s of the
    # server's CPU and 49 MB a request to replay, and four requests at once held 2.2 GB
    from hzmj.server import app

    monkeypatch.setattr(app, "REPLAY_MAX_HANDS", 3, raising=False)
    room = play_bots_to_the_end(client, seed=9)
    record = client.get(f"/api/matches/{room}/record").json()
    assert len(record["hands"]) == 8  # the record keeps them all
    body = client.get(f"/api/matches/{room}/replay").json()
    assert (body["hands"], body["hands_replayed"]) == (8, 3)
    events = [e for s in body["steps"] for e in s["events"]]
    full = [e.to_json() for e in replay(record).log]
    assert events == full[:len(events)]  # the log's beginning, up to hand 3's end
    assert [e["hand_no"] for e in events if e["type"] == "hand_end"] == [1, 2, 3]
    assert events[-1]["type"] == "hand_end"
    assert [s["action"] for s in body["steps"][1:]] == record["actions"][:len(body["steps"]) - 1]
    monkeypatch.setattr(app, "REPLAY_MAX_HANDS", 8)
    whole = client.get(f"/api/matches/{room}/replay").json()
    assert (whole["hands"], whole["hands_replayed"]) == (8, 8)
    check_replay(whole, record)  # a match of no more hands is replayed to its end


def test_a_finished_record_is_served_as_stored_and_parsed_only_when_needed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a points match of 3,067 hands has a 10 MB record: the room's page parsed it for its
    # commitment, and the record endpoint parsed and wrote it again, 0.8 s of the event
    # loop a request (16 requests: every table's answers 0.5 to 1.5 s late)
    cfg = server_config(tmp_path)
    with TestClient(create_app(cfg)) as client:
        room = play_bots_to_the_end(client, seed=9)
        live = client.get(f"/api/matches/{room}/record")
    with sqlite3.connect(tmp_path / "hints.db") as db:
        (text,) = db.execute("SELECT record FROM rooms WHERE id = ?", (room,)).fetchone()
    assert live.json() == json.loads(text)
    parsed: list[str] = []
    real = storage._json
    monkeypatch.setattr(storage, "_json", lambda t: parsed.append(t) or real(t))
    with TestClient(create_app(cfg)) as client:  # restarted: the room is in the database
        info = client.get(f"/api/rooms/{room}").json()
        assert info["status"] == "over"
        assert info["commitment"] == json.loads(text)["commitment"]
        r = client.get(f"/api/matches/{room}/record")
        assert r.status_code == 200 and r.headers["content-type"] == "application/json"
        assert r.content == text.encode()  # the stored text itself
        assert text not in parsed
        assert client.get(f"/api/matches/{room}/replay").json()["hands_replayed"] == 8


def test_replay_of_a_running_match_is_refused(client: TestClient) -> None:
    room, (owner, _) = room_with(client, {"players": 2}, 3, ["ann", "bob"])
    client.post(f"/api/rooms/{room}/start", headers=bearer(owner))
    r = client.get(f"/api/matches/{room}/replay")
    assert r.status_code == 409 and "not over" in r.json()["detail"]


# ------------------------------------------------------------------ hints over HTTP


def seed_with_dealer(dealer: int) -> int:
    return next(s for s in range(100) if Match(Rules(players=2), s).dealer == dealer)


def test_hints_are_the_hand_analysis_of_the_seat_s_own_view(client: TestClient) -> None:
    seed = seed_with_dealer(0)
    room, (ann, bob) = room_with(client, {"players": 2}, seed, ["ann", "bob"])
    assert client.get(f"/api/rooms/{room}/hints", headers=bearer(ann)).status_code == 409
    client.post(f"/api/rooms/{room}/start", headers=bearer(ann))
    expected = Match(Rules(players=2), seed)  # the same deal, nothing applied yet
    view = expected.view(0)
    caishen = tile(view["caishen"])
    hand = [tile(t) for t in view["hand"]]
    visible = [0] * NUM_KINDS
    visible[tile(view["indicator"])] += 1  # all a seat sees beyond its hand at the deal

    got = client.get(f"/api/rooms/{room}/hints", headers=bearer(ann)).json()
    assert got["shanten"] == shanten(hand, caishen)
    assert got["waits"] == []
    legal = expected.legal_actions(0)
    assert {d["tile"] for d in got["discards"]} == {a.to_json()["tile"] for a in legal}
    entries = {tile(d["tile"]): d for d in got["discards"]}
    for option in discard_options(hand, caishen, visible):
        d = option.discard
        entry = entries[d]
        after = list(hand)
        after.remove(d)
        own = counts_of(after)
        assert entry["tile"] == tile_name(d)
        assert entry["shanten"] == option.shanten == shanten(after, caishen)
        assert entry["useful"] == [
            {"tile": tile_name(w.tile),
             "left": max(0, 4 - own[w.tile] - visible[w.tile] - (w.tile == d))}
            for w in option.useful]
        assert entry["waits"] == []  # no discard is ready at this deal
    # the strongest bot's choice (hzmj.bots.registry.STRONGEST, within hint_ms)
    assert action_from_json(got["suggestion"]) == make_bot(hint_bot(300), 0).choose(
        expected.view(0), legal)
    assert got["discards"][0]["tile"] == got["suggestion"]["tile"]  # the one marked best
    assert got["candidates"][0]["action"] == got["suggestion"]

    bob_view = expected.view(1)
    bob_hand = [tile(t) for t in bob_view["hand"]]
    got = client.get(f"/api/rooms/{room}/hints", headers=bearer(bob)).json()
    assert got["shanten"] == shanten(bob_hand, caishen)
    assert got["waits"] == [w.to_dict() for w in waits(bob_hand, caishen, visible)]
    assert got["discards"] == [] and got["suggestion"] is None  # not bob's turn


def test_a_seat_gets_only_its_own_hints(client: TestClient) -> None:
    room, (ann, bob) = room_with(client, {"players": 2}, 5, ["ann", "bob"])
    client.post(f"/api/rooms/{room}/start", headers=bearer(ann))
    url = f"/api/rooms/{room}/hints"
    assert client.get(url).status_code == 401
    assert client.get(url, headers=bearer("not-a-token")).status_code == 401
    assert client.get(url + "?seat=1", headers=bearer(ann)).status_code == 403
    assert client.get(url + "?seat=0", headers=bearer(bob)).status_code == 403
    assert client.get(url + "?seat=1", headers=bearer(bob)).status_code == 200
    other, (carl, _) = room_with(client, {"players": 2}, 5, ["carl", "dan"])
    assert client.get(url, headers=bearer(carl)).status_code == 401  # another room's token
    assert client.get(f"/api/rooms/{other}/hints", headers=bearer(carl)).status_code == 409
    assert client.get("/api/rooms/nope/hints", headers=bearer(ann)).status_code == 404


# ------------------------------------------------------------------ hints on exact positions


def test_hints_waits_after_each_discard() -> None:
    m = deal("123456789m11p45p1z", "1z1z3p258m258s2479p", players=2)  # 白板财神 (5z)
    got = hints(m.view(0))
    assert got["shanten"] == 0
    best = got["discards"][0]
    assert best["tile"] == "1z" and best["shanten"] == 0
    assert best["waits"] == [{"tile": "3p", "left": 4}, {"tile": "6p", "left": 4},
                             {"tile": "5z", "left": 4}]
    four = next(d for d in got["discards"] if d["tile"] == "4p")
    # the 4p just discarded lies in sight: 3 left, not 4
    assert {w["tile"]: w["left"] for w in four["useful"]}["4p"] == 3


def test_hints_count_discards_melds_and_exclude_hidden_hands() -> None:
    m = deal("123456789m11p45p1z", "1z1z3p258m258s2479p", players=2)
    play(m, "0 discard 1z", "1 pong", "1 discard 3p")
    view = m.view(0)
    got = hints(view, make_bot("efficiency", 0))
    assert got["shanten"] == 0 and got["discards"] == []  # a claim window: 13 tiles
    # one 3p lies discarded; bob's pong shows three 1z; his concealed tiles stay unseen
    assert got["waits"] == [{"tile": "3p", "left": 3}, {"tile": "6p", "left": 4},
                            {"tile": "5z", "left": 4}]
    legal = [action_from_json(a) for a in view["legal_actions"]]
    assert action_from_json(got["suggestion"]) in legal
    play(m, "0 chow 4p5p")
    got = hints(m.view(0))
    nine = next(d for d in got["discards"] if d["tile"] == "9m")
    # 12345678m11p + [345p]: 3m, 6m or 9m, or a 财神; own 3m, 6m and the 9m just gone
    assert nine["shanten"] == 0
    assert nine["waits"] == [{"tile": "3m", "left": 3}, {"tile": "6m", "left": 3},
                             {"tile": "9m", "left": 3}, {"tile": "5z", "left": 4}]


def test_rules_3_hints_never_offer_bamboo_under_drop_bamboo() -> None:
    # 缺一门 removes all 36 bamboo tiles: no hint may wait on or count one
    m = deal("123456789m111p1zP", "147m147p1234567z", players=2, drop_bamboo=True)
    got = hints(m.view(0))
    for option in got["discards"]:
        for w in option["waits"] + option["useful"]:
            assert not w["tile"].endswith("s"), option
    one = next(d for d in got["discards"] if d["tile"] == "1z")  # 爆头-ready: any tile
    assert {w["tile"] for w in one["waits"]} == {tile_name(k) for k in range(NUM_KINDS)
                                                 if not 18 <= k < 27}
    m = deal("123456789m111p1zP", "147m147p1234567z", players=2, drop_bamboo=True)
    play(m, "0 discard 1z")
    got = hints(m.view(0))  # 13 tiles: the waits themselves
    assert got["waits"] and not any(w["tile"].endswith("s") for w in got["waits"])


def test_hints_without_bamboo_list_no_bamboo() -> None:
    # 缺一门 (RULES §3): a 爆头-ready hand waits on every kind in play; the hints listed
    # 1s–9s too, with 4 left each, in a game that holds no bamboo at all
    m = deal("123456789m11pPP1z", "147m258p1234567z", players=2, drop_bamboo=True)
    got = hints(m.view(0))
    after_1z = next(d for d in got["discards"] if d["tile"] == "1z")
    kinds = [w["tile"] for w in after_1z["waits"]]
    assert len(kinds) == 25 and not any(k.endswith("s") for k in kinds)
    assert {w["tile"]: w["left"] for w in after_1z["waits"]}["2p"] == 4
    for d in got["discards"]:
        assert not any(w["tile"].endswith("s") for w in d["useful"] + d["waits"])


def test_a_spectator_view_has_no_hints() -> None:
    with pytest.raises(ValueError):
        hints(Match(Rules(players=2), 1).view(None))


def test_an_adviser_that_is_no_bot_is_a_type_error() -> None:
    # the name "efficiency" failed as AttributeError: 'str' object has no attribute 'choose'
    with pytest.raises(TypeError, match=r"adviser must be a bot \(hzmj.bots.registry"
                                        r".make_bot\), got str"):
        hints(Match(Rules(players=2), 1).view(0), "efficiency")  # type: ignore[arg-type]
