"""Kill -9 a real server at any moment, restart it on the same database: every room is
rebuilt by replaying its stored actions and goes on; no client sees a different past."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import httpx

from hzmj.record import verify
from test_server_support import (
    Client,
    ServerProcess,
    check_against_record,
    is_event,
    post,
    room_with_bots,
)


def test_kill_and_restart_loses_nothing(tmp_path: Path) -> None:
    db = tmp_path / "recovery.db"
    # bots think in a worker process here (the default), which must die with the server
    # a short gate between hands: this scripted player never presses ready (继续)
    server = ServerProcess(db, {"HZMJ_AWAY_GRACE": "60", "HZMJ_BOT_WORKERS": "1",
                                "HZMJ_READY_SECONDS": "0.5"}).start()
    rng = random.Random(5)
    seen: list[dict[str, Any]] = []
    try:
        room, token = room_with_bots(server.base, {"hands": 8}, seed=21)
        bots_room, bots_token = room_with_bots(server.base, {"hands": 16}, seed=22)
        # the owner hands their own seat to a bot: a table of bots, paused during the
        # kills (its owner is not connected: each restart brings it back paused)
        post(server.base, f"/api/rooms/{bots_room}/bots", {"seat": 0, "bot": "random"},
             bots_token)

        async def play_until_kill(first: bool, quiet: bool) -> None:
            """Play some actions; kill the server right after sending one (``quiet``:
            while it waits for us, comparing snapshots across the restart)."""
            async with Client(server.ws_base, room, token) as me:
                snap = await me.until(lambda m: m["type"] == "snapshot")
                if first:
                    assert post(server.base, f"/api/rooms/{room}/start",
                                token=token).status_code == 200
                    assert post(server.base, f"/api/rooms/{bots_room}/start",
                                token=bots_token).status_code == 200
                else:
                    assert snap["state_id"] >= max(m.get("state_id", 0) for m in seen)
                for _ in range(rng.randint(2, 12)):
                    prompt = await me.until(lambda m: m["type"] == "prompt"
                                            or is_event("match_end")(m))
                    if prompt["type"] != "prompt":
                        break
                    await me.send({"type": "action", "state_id": prompt["state_id"],
                                   "action": rng.choice(prompt["actions"])})
                if quiet:
                    await me.until(lambda m: m["type"] == "prompt")
                    await me.send({"type": "snapshot"})
                    before = await me.until(lambda m: m["type"] == "snapshot")
                seen.extend(me.messages)
                workers = server.children()
                server.kill()
            server.start()
            for _ in range(100):
                if not any(Path(f"/proc/{pid}").exists() for pid in workers):
                    break
                await asyncio.sleep(0.1)
            assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
            if quiet:
                async with Client(server.ws_base, room, token) as again:
                    after = await again.until(lambda m: m["type"] == "snapshot")
                    assert after == before
                    seen.extend(again.messages)

        async def run() -> None:
            for i in range(3):
                await play_until_kill(i == 0, quiet=i % 2 == 1)
            async with Client(server.ws_base, room, token) as me:
                await me.play(timeout=120)
                seen.extend(me.messages)
            async with Client(server.ws_base, bots_room, bots_token) as owner:
                snap = await owner.until(lambda m: m["type"] == "snapshot")
                assert snap["view"]["hand_no"] == 1  # it never moved on without its owner
                await owner.until(is_event("match_end"), timeout=120)

        asyncio.run(run())
        record = httpx.get(f"{server.base}/api/matches/{room}/record").json()
        assert record["over"]
        assert check_against_record(seen, 0, record) > 300
        assert verify(record) == []
        for _ in range(300):
            r = httpx.get(f"{server.base}/api/matches/{bots_room}/record")
            if r.status_code == 200:
                break
            time.sleep(0.1)
        assert r.status_code == 200 and verify(r.json()) == []
    finally:
        server.stop()
