"""The bot workers' batching (``hzmj.server.bots.Thinker``): while every worker is busy,
decisions wait and go together; each room still gets its own bot's answer, and one bot's
failure is its room's alone (issue 11, item 10: the loop's cost per bot decision)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hzmj.bots.registry import make_bot
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.server import bots as server_bots
from hzmj.server.app import create_app
from hzmj.server.bots import Thinker
from hzmj.server.config import ServerConfig
from hzmj.server.rooms import Room
from test_server_support import attended


def decisions(count: int) -> list[tuple[Any, dict[str, Any], list[Any], Any]]:
    """``count`` decisions from different matches: bot, view, legal, the bot's answer
    when asked directly in this process."""
    out = []
    for seed in range(count):
        m = Match(Rules(), seed)
        seat = m.turn
        view, legal = m.view(seat), m.legal_actions(seat)
        expected = make_bot("efficiency", seed).choose(view, legal)
        out.append((make_bot("efficiency", seed), view, legal, expected))
    return out


def test_decisions_made_together_are_batched_and_each_gets_its_own_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    jobs = decisions(12)
    sizes: list[int] = []
    real_run = Thinker.run

    async def counting_run(self: Thinker, job: Any, *args: Any) -> Any:
        if job is server_bots._choose_many:
            sizes.append(len(args[0]))
        return await real_run(self, job, *args)

    monkeypatch.setattr(Thinker, "run", counting_run)

    async def ask_all() -> list[Any]:
        thinker = Thinker(1)
        try:
            await thinker.run(int)  # the worker is up
            first = asyncio.ensure_future(thinker.choose(*jobs[0][:3]))
            for _ in range(3):
                await asyncio.sleep(0)  # asked, and sent to the only worker
            rest = [thinker.choose(bot, view, legal) for bot, view, legal, _ in jobs[1:]]
            return [await first, *await asyncio.gather(*rest)]
        finally:
            thinker.close()

    answers = asyncio.run(ask_all())
    assert [action for action, _ in answers] == [expected for *_, expected in jobs]
    assert all(type(bot).__name__ == "EfficiencyBot" for _, bot in answers)
    # one worker: the first decision went alone, the eleven asked while it was busy
    # waited and went together in one message
    assert sizes == [1, 11]


def test_a_failing_bot_fails_its_own_decision_only() -> None:
    jobs = decisions(3)

    async def ask() -> list[Any]:
        thinker = Thinker(2)
        try:
            calls = [thinker.choose(bot, view, legal) for bot, view, legal, _ in jobs]
            broken = thinker.choose(make_bot("efficiency", 9), jobs[0][1], [])  # no action
            return await asyncio.gather(*calls, broken, return_exceptions=True)
        finally:
            thinker.close()

    *good, bad = asyncio.run(ask())
    assert [a for a, _ in good] == [expected for *_, expected in jobs]
    assert isinstance(bad, RuntimeError)


def test_closing_cancels_waiting_decisions_instead_of_failing_them() -> None:
    """A server stopping must not answer bots' pending decisions with errors (each
    room would log a failure and play its default move): they are cancelled, and a
    decision asked after the close is cancelled at once."""
    jobs = decisions(6)

    async def ask_then_close() -> list[str]:
        thinker = Thinker(1)
        await thinker.run(int)  # the worker is up
        pending = [asyncio.ensure_future(thinker.choose(bot, view, legal))
                   for bot, view, legal, _ in jobs]
        await asyncio.sleep(0)  # the first batch is sent; the rest wait for the worker
        thinker.close()
        late = asyncio.ensure_future(thinker.choose(*jobs[0][:3]))
        outcomes = await asyncio.gather(*pending, late, return_exceptions=True)
        return [type(o).__name__ for o in outcomes]

    outcomes = asyncio.run(ask_then_close())
    assert "RuntimeError" not in outcomes, outcomes
    assert outcomes[-1] == "CancelledError"
    assert outcomes.count("CancelledError") >= len(jobs) - 1, outcomes


@contextmanager
def started_room(client: TestClient) -> Iterator[tuple[str, dict[str, str]]]:
    """A started room of seed 3 (seat 1 deals): one player in seat 0, connected while the
    block runs (a table nobody is at stands still), efficiency bots in seats 1-3; its id
    and the player's authorization header."""
    room = client.post("/api/rooms", json={"seed": 3}).json()["room_id"]
    token = client.post(f"/api/rooms/{room}/seats", json={"name": "p"}).json()["token"]
    auth = {"authorization": f"Bearer {token}"}
    for seat in (1, 2, 3):
        assert client.post(f"/api/rooms/{room}/bots", json={"seat": seat, "bot": "efficiency"},
                           headers=auth).status_code == 200
    with attended(client, room, token):
        assert client.post(f"/api/rooms/{room}/start", headers=auth).status_code == 200
        yield room, auth


def test_a_decision_queued_in_a_replaced_pool_is_asked_again_in_the_new_one() -> None:
    """A worker's death replaces the pool, and the old pool's shutdown cancels the jobs
    still queued in it.  Those decisions were never made: they must be made in the new
    pool, not dropped (a room whose bot's answer is dropped waits for it for ever: found
    when a pool could not start its workers, the table stalled at its first move)."""
    jobs = decisions(3)

    async def ask_then_replace() -> list[Any]:
        thinker = Thinker(1)
        try:
            await thinker.run(int)  # the worker is up
            old = thinker._pool
            busy = [asyncio.ensure_future(thinker.run(time.sleep, 0.5)) for _ in range(3)]
            await asyncio.sleep(0.1)  # one sleeps in the worker, two wait in its call queue
            asked = [asyncio.ensure_future(thinker.choose(bot, view, legal))
                     for bot, view, legal, _ in jobs]
            await asyncio.sleep(0.1)  # the decisions are queued behind the sleeps
            assert old is not None
            thinker._respawn(old)  # as the heartbeat does when it meets a dead worker
            assert thinker._pool is not old
            await asyncio.gather(*busy, return_exceptions=True)
            return await asyncio.wait_for(asyncio.gather(*asked), 30)
        finally:
            thinker.close()

    answers = asyncio.run(ask_then_replace())
    assert [a for a, _ in answers] == [expected for *_, expected in jobs]


def test_a_bot_answer_dropped_under_the_room_is_asked_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """If a bot's decision is cancelled under the room (not the room itself stopping),
    the room asks again instead of waiting for that answer for ever."""
    calls: list[int] = []
    real_choose = Thinker.choose

    async def choose(self: Thinker, bot: Any, view: Any, legal: Any) -> Any:
        calls.append(len(calls))
        if len(calls) == 1:
            dropped: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            dropped.cancel()
            return await dropped  # as a worker pool's shutdown cancels a queued job
        return await real_choose(self, bot, view, legal)

    monkeypatch.setattr(Thinker, "choose", choose)
    cfg = ServerConfig(db=str(tmp_path / "drop.db"), bot_delay=0, hand_pause=0,
                       bot_workers=0, claim_pause_scale=0, allow_fixed_seed=True)
    with TestClient(create_app(cfg)) as client, started_room(client) as (room, _):
        state = 0
        for _ in range(100):  # seat 1 deals (seed 3): its first answer is dropped
            state = client.get(f"/api/rooms/{room}").json()["state_id"]
            if state > 0:
                break
            time.sleep(0.05)
    assert len(calls) >= 2 and state > 0, (calls, state)


def test_bots_think_during_their_pause_and_act_once_it_is_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot seat starts thinking as soon as its decision comes, and its move is applied
    when the bots' pause is over: when the workers are busy, their queueing hides under
    the pause instead of adding to it (issue 11: per-table throughput at 500 tables)."""
    started: list[tuple[str, float, float]] = []  # (phase, due, when thinking began)
    applied: list[tuple[float, float]] = []  # (due, when the answer was applied)
    dues: dict[int, float] = {}
    real_think, real_answer = Room._think, Room._bot_answer

    def think(self: Room, seat: int, due: float) -> None:
        dues[seat] = due
        assert self.match is not None
        started.append((self.match.phase, due, time.monotonic()))
        real_think(self, seat, due)

    async def answer(self: Room, seat: int, step: int, action: Any, bot: Any) -> None:
        applied.append((dues[seat], time.monotonic()))
        await real_answer(self, seat, step, action, bot)

    monkeypatch.setattr(Room, "_think", think)
    monkeypatch.setattr(Room, "_bot_answer", answer)
    cfg = ServerConfig(db=str(tmp_path / "pace.db"), bot_delay=0.4, hand_pause=0,
                       bot_workers=0, claim_pause_scale=0, allow_fixed_seed=True)
    with TestClient(create_app(cfg)) as client, started_room(client) as (room, auth):
        assert client.post(f"/api/rooms/{room}/leave", headers=auth).status_code == 200
        for _ in range(200):  # every seat is a bot's now; a turn takes the 0.4 s pause
            if len(applied) >= 4:
                break
            time.sleep(0.05)
    turns = [(due, at) for phase, due, at in started if phase == "turn"]  # paused ones
    assert len(turns) >= 3, started
    assert all(at < due for due, at in turns)  # thinking began inside the pause
    assert all(at >= due for due, at in applied)  # and the move waited for its end


def test_reviews_have_a_worker_of_their_own_and_never_hold_a_table_s_bot(
        tmp_path: Path) -> None:
    """Issue 15 (AI review): a review searches a whole match for seconds; it runs in its
    own process, so a live table's bot is answered while a review is being made."""
    import os

    from hzmj.server.rooms import Lobby

    async def check() -> None:
        cfg = ServerConfig(db=str(tmp_path / "t.db"), bot_workers=1, review_workers=1)
        lobby = Lobby(None, cfg)  # type: ignore[arg-type]  # no store is touched here
        try:
            table = await lobby.thinker.run(os.getpid)
            assert lobby.reviewer is lobby.reviewer  # started once, at the first review
            reviewer = await lobby.reviewer.run(os.getpid)
            assert len({table, reviewer, os.getpid()}) == 3
            busy = asyncio.ensure_future(lobby.reviewer.run(time.sleep, 3))
            await asyncio.sleep(0.2)  # the review worker is asleep now
            assert await lobby.thinker.run(os.getpid) == table
            assert not busy.done()  # the table's bot did not wait for the review
            await busy
            assert not lobby.problems()
        finally:
            await lobby.close()
        for shared in (ServerConfig(db=cfg.db, bot_workers=1, review_workers=0),
                       ServerConfig(db=cfg.db, bot_workers=0, review_workers=1)):
            lobby = Lobby(None, shared)  # type: ignore[arg-type]
            try:
                assert lobby.reviewer is lobby.thinker
            finally:
                await lobby.close()

    asyncio.run(check())


def test_a_long_job_is_no_hung_worker_and_close_does_not_wait_for_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A review's worker is busy for seconds: its heartbeat waits instead of reporting
    the worker hung (a bot worker that busy is reported), and closing ends the job's
    worker at once instead of waiting for the review to finish."""
    monkeypatch.setattr(server_bots, "HEARTBEAT", 0.05)  # a timeout after 0.5 s

    async def busy_for_a_second(long_jobs: bool) -> list[str]:
        thinker = Thinker(1, kind="review" if long_jobs else "bot", long_jobs=long_jobs)
        thinker.start()
        try:
            await thinker.run(int)
            job = asyncio.ensure_future(thinker.run(time.sleep, 2.5))
            await asyncio.sleep(1.5)  # the job has run for over a heartbeat's timeout
            problems = thinker.problems()
            await job
            return problems
        finally:
            thinker.close()

    assert asyncio.run(busy_for_a_second(True)) == []
    assert asyncio.run(busy_for_a_second(False)) == ["bot workers do not answer"]

    async def close_during_a_long_job() -> float:
        thinker = Thinker(1, kind="review", long_jobs=True)
        await thinker.run(int)
        job = asyncio.ensure_future(thinker.run(time.sleep, 60))
        await asyncio.sleep(0.3)
        started = time.monotonic()
        thinker.close()
        with pytest.raises(asyncio.CancelledError):
            await job
        return time.monotonic() - started

    assert asyncio.run(close_during_a_long_job()) < 30  # not the job's 60 s
