"""The table server over real HTTP and WebSocket: full hands and matches, illegal
actions, reconnection, clocks and 托管, leaving, and the leak scan."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from hzmj.events import action_from_json
from hzmj.game import Match
from hzmj.record import verify
from hzmj.rules import Rules
from test_server_support import (
    Client,
    ServerProcess,
    check_against_record,
    check_no_leak,
    is_event,
    post,
    room_with_bots,
)

SHORT = {"hands": 8}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("play") / "play.db"
    proc = ServerProcess(db, {"HZMJ_AWAY_GRACE": "1"}).start()
    yield proc
    proc.stop()


def record_of(server: ServerProcess, room: str) -> dict[str, Any]:
    r = httpx.get(f"{server.base}/api/matches/{room}/record")
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def test_full_match_over_the_protocol_and_nothing_leaks(server: ServerProcess) -> None:
    room, token = room_with_bots(server.base, SHORT, seed=11)

    async def run() -> tuple[Client, Client]:
        async with Client(server.ws_base, room, token) as me, \
                Client(server.ws_base, room) as watcher:
            await me.until(lambda m: m["type"] == "snapshot")
            assert httpx.get(f"{server.base}/api/matches/{room}/record").status_code == 409
            assert post(server.base, f"/api/rooms/{room}/start", token=token).status_code == 200
            end = await me.play(timeout=90)
            await watcher.until(is_event("match_end"), timeout=30)
            assert end["event"]["hands"] == 8
            return me, watcher

    me, watcher = asyncio.run(run())
    record = record_of(server, room)
    assert record["over"] and sum(record["points"]) == 0
    kinds = {m["type"] for m in me.messages}
    assert {"room", "snapshot", "event", "prompt", "ack"} <= kinds
    # a prompt can be overtaken (a bot's pong closes the claim window): only "stale"
    assert all("stale" in m["reason"] for m in me.messages if m["type"] == "error")
    check_no_leak(me.messages, 0)
    check_no_leak(watcher.messages, None)
    assert check_against_record(me.messages, 0, record) > 500
    assert check_against_record(watcher.messages, None, record) > 500
    info = httpx.get(f"{server.base}/api/rooms/{room}").json()
    assert info["status"] == "over"


def test_leak_scan_over_many_bot_games(server: ServerProcess) -> None:
    """All-bot tables run on their own; every seat's and a spectator's messages are
    scanned and compared with the engine's redacted output."""
    async def one(seed: int, players: int) -> None:
        r = post(server.base, "/api/rooms", {"rules": {"players": players}, "seed": seed})
        room = r.json()["room_id"]
        tokens = [post(server.base, f"/api/rooms/{room}/seats", {"name": f"p{i}"}).json()
                  ["token"] for i in range(players)]
        clients = [Client(server.ws_base, room, t) for t in tokens]
        clients.append(Client(server.ws_base, room))
        for c in clients:
            await c.__aenter__()
        for c in clients[:players]:
            await c.send({"type": "auto", "on": True})  # 托管: the server's bot plays
        await asyncio.sleep(0.1)
        assert post(server.base, f"/api/rooms/{room}/start", token=tokens[0]).status_code == 200
        await asyncio.gather(*(c.until(is_event("match_end"), 90) for c in clients))
        for c in clients:
            await c.__aexit__()
        record = record_of(server, room)
        for seat, c in enumerate(clients):
            who = seat if seat < players else None
            check_no_leak(c.messages, who)
            check_against_record(c.messages, who, record)

    async def run() -> None:
        await asyncio.gather(*(one(seed, players) for seed, players in
                               ((1, 4), (2, 4), (3, 3), (4, 2))))

    asyncio.run(run())


def test_illegal_stale_foreign_and_malformed_messages(server: ServerProcess) -> None:
    room, token = room_with_bots(server.base, SHORT, seed=3)

    async def run() -> None:
        async with Client(server.ws_base, room, token) as me:
            await me.until(lambda m: m["type"] == "snapshot")
            post(server.base, f"/api/rooms/{room}/start", token=token)
            prompt = await me.until(lambda m: m["type"] == "prompt")
            sid = prompt["state_id"]
            legal = prompt["actions"]
            errors = [
                ({"type": "action", "state_id": sid + 5, "action": legal[-1]}, "stale"),
                ({"type": "action", "state_id": sid, "action": {**legal[-1], "seat": 2}},
                 "seat mismatch"),
                ({"type": "action", "state_id": sid, "action": {**legal[-1], "note": 1}},
                 "unknown key 'note'"),
                ({"type": "action", "state_id": sid, "action": {"type": "pong"}}, "legal"),
                ({"type": "action", "state_id": sid, "action": {"type": "discard",
                                                                "tile": "9x"}}, ""),
                ({"type": "action", "state_id": sid, "action": {"type": "escape"}}, "leave"),
                ({"type": "dance"}, "unknown message type"),
                ({"type": "action"}, "bad action message"),
                ("{not json", "malformed JSON"),
                ("[1, 2]", "JSON object"),
                (json.dumps({"type": "snapshot", "pad": "x" * 5000}), "too large"),
            ]
            for i, (bad, reason) in enumerate(errors):
                await me.send(bad)
                err = await me.until(lambda m: m["type"] in ("error", "event"))
                assert err["type"] == "error" and reason in err["reason"], (bad, err)
                if i < 6:  # a refused action: the prompt the client dropped comes again
                    again = await me.until(lambda m: m["type"] != "clock")
                    assert again["type"] == "prompt" and again["state_id"] == sid, (bad, again)
                    assert again["actions"] == legal
            await me.send({"type": "snapshot"})
            snap = await me.until(lambda m: m["type"] == "snapshot")
            assert snap["state_id"] == sid  # nothing changed
            await me.send({"type": "action", "state_id": sid, "action": legal[0]})
            ack = await me.until(lambda m: m["type"] in ("ack", "error"))
            assert ack == {"type": "ack", "state_id": sid + 1} or ack["state_id"] > sid

    asyncio.run(run())


def test_spectator_cannot_act_and_bad_token_is_refused(server: ServerProcess) -> None:
    room, token = room_with_bots(server.base, SHORT, seed=4)

    async def run() -> None:
        async with Client(server.ws_base, room) as watcher:
            await watcher.until(lambda m: m["type"] == "snapshot")
            await watcher.send({"type": "action", "state_id": 0,
                                "action": {"type": "pass", "seat": 0}})
            err = await watcher.until(lambda m: m["type"] == "error")
            assert "spectators" in err["reason"]
        bad = Client(server.ws_base, room, "not-a-token")
        async with bad:
            with pytest.raises(Exception) as info:
                await bad.recv(5)
            assert "invalid token" in str(info.value)

    asyncio.run(run())


def test_flood_is_refused_then_closed(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path / "flood.db", {"HZMJ_RATE_PER_SECOND": "5",
                                                 "HZMJ_RATE_BURST": "5",
                                                 "HZMJ_FLOOD_STRIKES": "20"}).start()
    try:
        room, token = room_with_bots(proc.base)

        async def run() -> None:
            async with Client(proc.ws_base, room, token) as me:
                for _ in range(40):
                    await me.send({"type": "snapshot"})
                with pytest.raises(Exception) as info:
                    while True:
                        await me.recv(5)
                assert "flood" in str(info.value)
                reasons = [m["reason"] for m in me.messages if m["type"] == "error"]
                assert any("rate limit" in r for r in reasons)
            # the room is unharmed
            assert httpx.get(f"{proc.base}/api/rooms/{room}").json()["status"] == "open"

        asyncio.run(run())
    finally:
        proc.stop()


def test_reconnect_restores_the_seat(server: ServerProcess) -> None:
    room, token = room_with_bots(server.base, SHORT, seed=5)

    async def run() -> None:
        async with Client(server.ws_base, room, token) as me:
            await me.until(lambda m: m["type"] == "snapshot")
            post(server.base, f"/api/rooms/{room}/start", token=token)
            prompt = await me.until(lambda m: m["type"] == "prompt")
        left_at = time.time()  # nobody at the table from here: it stands still
        async with Client(server.ws_base, room, token) as again:
            snap = await again.until(lambda m: m["type"] == "snapshot")
            assert snap["seat"] == 0 and snap["view"]["hand"]
            assert snap["state_id"] == prompt["state_id"]
            # the table's log comes back: the hand's events as they were sent
            sent = [m["event"] for m in me.messages if m["type"] == "event"]
            start = max(i for i, e in enumerate(sent) if e["type"] == "hand_start")
            assert snap["hand_events"] == sent[start:] and len(sent[start:]) > 1
            prompt2 = await again.until(lambda m: m["type"] == "prompt")
            assert prompt2["state_id"] == prompt["state_id"]
            # the clock moved on by the time the table stood still, no more
            moved = prompt2["deadline_ms"] - prompt["deadline_ms"]
            assert -2 <= moved <= (time.time() - left_at) * 1000 + 5, moved
            await again.send({"type": "action", "state_id": prompt2["state_id"],
                              "action": prompt2["actions"][-1]})
            await again.until(lambda m: m["type"] == "ack")
            await again.until(lambda m: m["type"] == "event")

    asyncio.run(run())


def test_clock_expiry_applies_default_then_auto_play(server: ServerProcess) -> None:
    rules = {**SHORT, "turn_seconds": 1, "claim_seconds": 1}
    room, token = room_with_bots(server.base, rules, seed=6)

    async def run() -> None:
        async with Client(server.ws_base, room, token) as me:
            await me.until(lambda m: m["type"] == "snapshot")
            post(server.base, f"/api/rooms/{room}/start", token=token)
            expired = 0
            while expired < 2:  # never answer: the clock plays the default
                prompt = await me.until(lambda m: m["type"] == "prompt")
                default = prompt["actions"][-1]
                if default["type"] == "discard":
                    ev = await me.until(lambda m: m["type"] == "event"
                                        and m["event"]["type"] == "discard")
                    assert ev["event"]["tile"] == default["tile"]
                expired += 1
            def auto_on(m: dict[str, Any]) -> bool:
                return m["type"] == "room" and bool(m["room"]["seats"][0]["auto"])

            if not any(auto_on(m) for m in me.messages):
                await me.until(auto_on, timeout=20)
            # 托管: the bot plays seat 0 without prompts until the player takes over
            at = next(i for i, m in enumerate(me.messages) if auto_on(m))
            before = len([m for m in me.messages if m["type"] == "prompt"])

            def bot_discard(m: dict[str, Any]) -> bool:
                return is_event("discard")(m) and m["event"]["seat"] == 0

            if not any(bot_discard(m) for m in me.messages[at:]):
                await me.until(bot_discard, timeout=10)
            assert len([m for m in me.messages if m["type"] == "prompt"]) == before
            await me.send({"type": "auto", "on": False})
            msg = await me.until(lambda m: m["type"] == "prompt" or is_event("match_end")(m))
            assert msg["type"] == "prompt"

    asyncio.run(run())


def test_leaving_a_running_match_escapes_and_a_bot_plays_on(server: ServerProcess) -> None:
    room, token = room_with_bots(server.base, SHORT, seed=7)

    async def run() -> None:
        async with Client(server.ws_base, room, token) as me:
            await me.until(lambda m: m["type"] == "snapshot")
            post(server.base, f"/api/rooms/{room}/start", token=token)
            await me.until(lambda m: m["type"] == "prompt")
            r = post(server.base, f"/api/rooms/{room}/leave", token=token)
            assert r.json() == {"ok": True, "escaped": True}
            esc = await me.until(is_event("escape"))
            assert esc["event"]["seat"] == 0
            await me.until(is_event("match_end"), timeout=60)
        assert post(server.base, f"/api/rooms/{room}/leave", token=token).status_code == 409
        record = record_of(server, room)
        assert {"type": "escape", "seat": 0} in record["actions"]

    asyncio.run(run())


def _until_hand_end(me: Client) -> Any:
    """Play the last legal action at every prompt until the hand ends; its event."""
    async def run() -> Any:
        while True:
            msg = await me.recv(60)
            if msg["type"] == "prompt":
                await me.send({"type": "action", "state_id": msg["state_id"],
                               "action": msg["actions"][-1]})
            elif is_event("hand_end")(msg):
                return msg
    return run()


def test_gate_between_hands_waits_for_ready_and_answers_actions_clearly(
        server: ServerProcess) -> None:
    """The next hand is held until the player presses ready (bots are ready at once); no
    prompt, clock or deal before that, and an action in the pause gets a coded error."""
    room, token = room_with_bots(server.base, SHORT, seed=11)

    async def run() -> None:
        async with Client(server.ws_base, room, token) as me:
            await me.until(lambda m: m["type"] == "snapshot")
            assert post(server.base, f"/api/rooms/{room}/start", token=token).status_code == 200
            await _until_hand_end(me)
            gate = await me.until(lambda m: m["type"] == "room" and m["room"]["gate"])
            info = gate["room"]["gate"]
            assert info["hand_no"] == 2 and info["ready"] == [1, 2, 3]
            assert info["deadline_ms"] > time.time() * 1000 + 10_000  # ~20 s by default
            seen = len(me.messages)
            await me.send({"type": "action", "state_id": 0,
                           "action": {"type": "discard", "tile": "1m"}})
            err = await me.until(lambda m: m["type"] == "error")
            assert err["code"] == "between_hands" and "ready" in err["reason"]
            await asyncio.sleep(0.5)
            held = [m for m in me.messages[seen:] if m["type"] in ("prompt", "clock")
                    or is_event("hand_start")(m)]
            assert held == [], "the next hand started before the player was ready"
            await me.send({"type": "ready"})
            start = await me.until(is_event("hand_start"))
            assert start["event"]["hand_no"] == 2
            lifted = await me.until(lambda m: m["type"] == "room")
            assert lifted["room"]["gate"] is None
            await me.until(lambda m: m["type"] == "clock")

    asyncio.run(run())


def test_gate_countdown_starts_the_next_hand_by_itself(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path / "gate.db", {"HZMJ_READY_SECONDS": "1.5"}).start()
    try:
        room, token = room_with_bots(proc.base, SHORT, seed=11)

        async def run() -> None:
            async with Client(proc.ws_base, room, token) as me:
                await me.until(lambda m: m["type"] == "snapshot")
                post(proc.base, f"/api/rooms/{room}/start", token=token)
                await _until_hand_end(me)
                t0 = time.monotonic()
                start = await me.until(is_event("hand_start"), timeout=10)
                assert start["event"]["hand_no"] == 2
                assert 1.0 <= time.monotonic() - t0 < 5

        asyncio.run(run())
    finally:
        proc.stop()


def test_between_hands_a_snapshot_shows_the_hand_that_ended_not_the_next(
        tmp_path: Path) -> None:
    # the engine deals hand 2 at once; until the gate lifts nothing may show it, not even
    # to its own seat (its tiles were an unclocked head start): RULES §13, protocol.md
    proc = ServerProcess(tmp_path / "gate.db", {"HZMJ_READY_SECONDS": "60"}).start()
    try:
        room, token = room_with_bots(proc.base, SHORT, seed=11)

        async def run() -> None:
            async with Client(proc.ws_base, room, token) as me:
                await me.until(lambda m: m["type"] == "snapshot")
                post(proc.base, f"/api/rooms/{room}/start", token=token)
                end = await _until_hand_end(me)
                await me.send({"type": "snapshot"})
                snap = await me.until(lambda m: m["type"] == "snapshot")
                view = snap["view"]
                assert (view["hand_no"], view["phase"], view["over"]) == (1, "over", False)
                assert sorted(view["hand"]) == sorted(end["event"]["hands"][0]["concealed"])
                hints = httpx.get(f"{proc.base}/api/rooms/{room}/hints",
                                  headers={"authorization": f"Bearer {token}"})
                assert hints.status_code == 409 and hints.json()["code"] == "between_hands"
                await me.send({"type": "ready"})
                start = await me.until(is_event("hand_start"), timeout=10)
                assert start["event"]["hand_no"] == 2
                await me.send({"type": "snapshot"})
                snap = await me.until(lambda m: m["type"] == "snapshot")
                assert snap["view"]["hand_no"] == 2 and snap["view"]["phase"] != "over"

        asyncio.run(run())
    finally:
        proc.stop()


def test_a_restart_between_hands_opens_the_gate_again(tmp_path: Path) -> None:
    # killed while the gate waited: the restored room waits again, shows the hand that
    # ended (never the next one, RULES §13) and deals on when the player is ready
    proc = ServerProcess(tmp_path / "gate.db", {"HZMJ_READY_SECONDS": "60"}).start()
    try:
        room, token = room_with_bots(proc.base, SHORT, seed=11)

        async def first() -> dict[str, Any]:
            async with Client(proc.ws_base, room, token) as me:
                await me.until(lambda m: m["type"] == "snapshot")
                post(proc.base, f"/api/rooms/{room}/start", token=token)
                end = await _until_hand_end(me)
                await me.until(lambda m: m["type"] == "room" and m["room"]["gate"])
                return end

        end = asyncio.run(first())
        proc.kill()
        proc.start()

        async def again() -> None:
            async with Client(proc.ws_base, room, token) as me:
                info = await me.until(lambda m: m["type"] == "room")
                assert info["room"]["gate"] is not None and info["room"]["gate"]["hand_no"] == 2
                snap = await me.until(lambda m: m["type"] == "snapshot")
                view = snap["view"]
                assert (view["hand_no"], view["phase"]) == (1, "over")
                log = snap["hand_events"]  # the hand that ended, never the next one's deal
                assert (log[0]["type"], log[0]["hand_no"]) == ("hand_start", 1)
                assert log[-1] == end["event"]
                assert sorted(view["hand"]) == sorted(end["event"]["hands"][0]["concealed"])
                await asyncio.sleep(0.5)
                assert not any(is_event("hand_start")(m) or m["type"] == "prompt"
                               for m in me.messages)
                await me.send({"type": "ready"})
                start = await me.until(is_event("hand_start"), timeout=10)
                assert start["event"]["hand_no"] == 2
                await me.until(lambda m: m["type"] == "clock")

        asyncio.run(again())
    finally:
        proc.stop()


def test_a_restart_keeps_a_seat_under_auto_play(tmp_path: Path) -> None:
    """托管 asked for before a restart stays on after it (it was forgotten: the player was
    prompted again, and away past the grace their clock ran out twice more)."""
    # bots at a human pace: under 托管 the whole match must not end before the restart
    proc = ServerProcess(tmp_path / "auto.db", {"HZMJ_AWAY_GRACE": "60",
                                                "HZMJ_BOT_DELAY": "0.3"}).start()
    try:
        room, token = room_with_bots(proc.base, {"hands": 8, "turn_seconds": 60,
                                                 "claim_seconds": 60}, seed=13)

        async def before() -> None:
            async with Client(proc.ws_base, room, token) as me:
                await me.until(lambda m: m["type"] == "snapshot")
                post(proc.base, f"/api/rooms/{room}/start", token=token)
                await me.until(lambda m: m["type"] == "prompt", timeout=30)
                await me.send({"type": "auto", "on": True})
                await me.until(lambda m: m["type"] == "room" and m["room"]["seats"][0]["auto"])
                await asyncio.sleep(0.5)  # the actor stores it after the job

        asyncio.run(before())
        proc.kill()
        proc.start()
        seats = httpx.get(f"{proc.base}/api/rooms/{room}").json()["seats"]
        assert seats[0]["auto"] is True  # not away yet (grace 60 s): 托管 itself

        async def after() -> None:
            async with Client(proc.ws_base, room, token) as me:
                await me.until(lambda m: m["type"] == "snapshot")
                # the bot plays seat 0 at once: its discards come without a prompt
                await me.until(lambda m: is_event("discard")(m) and m["event"]["seat"] == 0,
                               timeout=30)
                assert not any(m["type"] == "prompt" for m in me.messages)
                await me.send({"type": "auto", "on": False})
                await me.until(lambda m: m["type"] == "prompt", timeout=60)

        asyncio.run(after())
        seats = httpx.get(f"{proc.base}/api/rooms/{room}").json()["seats"]
        assert seats[0]["auto"] is False
    finally:
        proc.stop()


def test_waiting_room_ready_marks_and_the_owner_removes_a_seat(server: ServerProcess) -> None:
    r = post(server.base, "/api/rooms", {"rules": {"players": 3}, "seed": 5})
    room = r.json()["room_id"]
    owner = post(server.base, f"/api/rooms/{room}/seats", {"name": "a"}).json()["token"]
    guest = post(server.base, f"/api/rooms/{room}/seats", {"name": "b"}).json()
    assert post(server.base, f"/api/rooms/{room}/bots", {"seat": 2, "bot": "random"},
                owner).status_code == 200
    # swap the bot's level
    assert post(server.base, f"/api/rooms/{room}/bots", {"seat": 2, "bot": "strong"},
                owner).status_code == 200

    async def run() -> None:
        async with Client(server.ws_base, room, guest["token"]) as me:
            await me.until(lambda m: m["type"] == "snapshot")
            await me.send({"type": "ready"})
            msg = await me.until(lambda m: m["type"] == "room" and m["room"]["seats"][1]["ready"])
            assert [s["ready"] for s in msg["room"]["seats"]] == [False, True, True]
            assert msg["room"]["seats"][2]["bot"] == "strong"
            # only the owner removes, and not their own seat
            r = httpx.delete(f"{server.base}/api/rooms/{room}/seats/2",
                             headers={"authorization": f"Bearer {guest['token']}"})
            assert r.status_code == 403 and r.json()["code"] == "owner_only"
            r = httpx.delete(f"{server.base}/api/rooms/{room}/seats/0",
                             headers={"authorization": f"Bearer {owner}"})
            assert r.status_code == 409
            for seat in (2, 1):
                r = httpx.delete(f"{server.base}/api/rooms/{room}/seats/{seat}",
                                 headers={"authorization": f"Bearer {owner}"})
                assert r.status_code == 200, r.text
            with pytest.raises(ConnectionClosed) as closed:
                await me.until(lambda m: False, timeout=5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        info = httpx.get(f"{server.base}/api/rooms/{room}").json()
        assert info["free_seats"] == [1, 2]

    asyncio.run(run())


def test_the_record_marks_the_moves_the_bot_and_the_clock_made_for_the_player(
        tmp_path: Path) -> None:
    """The player answers some prompts, goes 托管 for a few turns, lets one clock run
    out, answers again; the server is killed and restarted; after more answers 托管 plays
    to the end.  The record's ``made_by`` names exactly the player's moves it did not
    make (the ones before the kill too), and the review skips exactly those."""
    proc = ServerProcess(tmp_path / "marks.db", {"HZMJ_AWAY_GRACE": "60"}).start()
    # a clock long enough that the restart and the reconnection never let it run out
    rules = {"hands": 8, "turn_seconds": 6, "claim_seconds": 6}
    answered: set[tuple[int, str]] = set()  # (prompt state_id, action) the server acked
    ignored: list[int] = []  # the state_id of the prompt left to the clock

    async def answer(me: Client, count: int) -> None:
        """Answer ``count`` prompts with their default action (ready between hands)."""
        done = 0
        while done < count:
            msg = await me.until(lambda m: m["type"] == "prompt" or is_event("hand_end")(m),
                                 timeout=30)
            if msg["type"] != "prompt":
                await me.send({"type": "ready"})
                continue
            if msg["state_id"] in ignored:
                continue
            action = msg["actions"][-1]
            await me.send({"type": "action", "state_id": msg["state_id"], "action": action})
            reply = await me.until(lambda m: m["type"] in ("ack", "error"))
            if reply["type"] == "ack":  # else overtaken (a claim won elsewhere): not ours
                answered.add((msg["state_id"], json.dumps(action, sort_keys=True)))
                done += 1

    def seat0_discards(me: Client) -> int:
        return sum(1 for m in me.messages if is_event("discard")(m) and m["event"]["seat"] == 0)

    try:
        room, token = room_with_bots(proc.base, rules, seed=13)

        async def before_the_kill() -> None:
            async with Client(proc.ws_base, room, token) as me:
                await me.until(lambda m: m["type"] == "snapshot")
                post(proc.base, f"/api/rooms/{room}/start", token=token)
                await answer(me, 3)
                await me.send({"type": "auto", "on": True})  # 托管 for three discards
                goal = seat0_discards(me) + 3
                while seat0_discards(me) < goal:
                    await me.recv()
                await me.send({"type": "auto", "on": False})
                while True:  # the next prompt is left to the clock (RULES §8.7)
                    msg = await me.until(lambda m: m["type"] == "prompt"
                                         or is_event("hand_end")(m), timeout=30)
                    if msg["type"] == "prompt":
                        break
                    await me.send({"type": "ready"})
                ignored.append(msg["state_id"])
                await answer(me, 2)  # after the clock made that move

        asyncio.run(before_the_kill())
        proc.kill()
        proc.start()

        async def after_the_restart() -> None:
            async with Client(proc.ws_base, room, token) as me:
                await me.until(lambda m: m["type"] == "snapshot")
                await answer(me, 2)
                await me.send({"type": "auto", "on": True})  # the bot plays to the end
                await me.until(is_event("match_end"), timeout=120)

        asyncio.run(after_the_restart())
        record = record_of(proc, room)
        review = httpx.get(f"{proc.base}/api/matches/{room}/review",
                           params={"seat": 0, "bot": "efficiency"}, timeout=120).json()
    finally:
        proc.stop()
    # who made each of seat 0's moves, from what this player did
    match = Match(Rules.from_dict(record["rules"]), record["seed"])
    expected: dict[str, str] = {}
    choices = {"bot": 0, "clock": 0, "player": 0}
    for i, raw in enumerate(record["actions"]):
        if raw["seat"] == 0:
            mine = (match.step, json.dumps(raw, sort_keys=True)) in answered
            by = "player" if mine else "clock" if match.step in ignored else "bot"
            if by != "player":
                expected[str(i)] = by
            choices[by] += len(match.legal_actions(0)) > 1
        match.apply(action_from_json(raw))
    assert record["made_by"] == expected
    assert list(expected.values()).count("clock") == 1
    assert len(answered) == 7  # every answer is the player's, unmarked
    killed_at = max(int(i) for i, by in expected.items() if by == "clock")
    assert sum(1 for i in expected if int(i) < killed_at) >= 3  # 托管 before the kill kept
    assert verify(record) == []
    assert review["skipped"] == {"bot": choices["bot"], "clock": choices["clock"]}
    assert review["skipped"]["bot"] >= 3 and review["skipped"]["clock"] == 1
    assert review["reviewed"] == choices["player"] > 0
    assert {d["index"] for d in review["decisions"]}.isdisjoint(int(i) for i in expected)
