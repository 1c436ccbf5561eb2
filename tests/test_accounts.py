"""Accounts, sessions, guests, match history and ratings through the HTTP API
(in-process), on SQLite and, when ``HZMJ_TEST_POSTGRES_URL`` names a throwaway
database, on PostgreSQL too."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from hzmj.server import accounts as accounts_module
from hzmj.server.app import create_app
from hzmj.server.config import ServerConfig, database_url
from hzmj.server.storage import make_engine
from test_server_support import attended, bots_play_to_the_end

PG_URL = os.environ.get("HZMJ_TEST_POSTGRES_URL", "")
HZMJ_TABLES = "match_players, ratings, sessions, accounts, actions, seats, rooms, alembic_version"
JSON = {"Content-Type": "application/json"}


def reset_postgres(url: str) -> None:
    """Drop every hzmj table of a throwaway PostgreSQL database."""
    async def run() -> None:
        engine = make_engine(database_url(url))
        try:
            async with engine.begin() as conn:
                await conn.execute(text(f"DROP TABLE IF EXISTS {HZMJ_TABLES} CASCADE"))
        finally:
            await engine.dispose()
    asyncio.run(run())


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "accounts.db")
    if not PG_URL:
        pytest.skip("HZMJ_TEST_POSTGRES_URL is not set (a throwaway PostgreSQL database)")
    reset_postgres(PG_URL)
    return PG_URL


def make_client(db: str, **config: Any) -> TestClient:
    # no discard pause: the matches here are played out by bots as fast as they go
    cfg = ServerConfig(db=db, bot_delay=0, hand_pause=0, away_grace=0, bot_workers=0,
                       claim_pause_scale=0, **config)
    return TestClient(create_app(cfg))


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with make_client(db) as c:
        yield c


def register(c: TestClient, username: str = "alice", display: str = "Alice",
             password: str = "correct horse", **extra: Any) -> dict[str, Any]:
    r = c.post("/api/auth/register", json={"username": username, "password": password,
                                           "display_name": display, **extra})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def login(c: TestClient, username: str = "alice", password: str = "correct horse",
          **extra: Any) -> Any:
    return c.post("/api/auth/login", json={"username": username, "password": password,
                                           **extra})


def csrf(c: TestClient) -> dict[str, str]:
    return {"X-CSRF-Token": c.get("/api/me").json()["csrf"]}


@contextmanager
def other_browser(c: TestClient) -> Iterator[TestClient]:
    """The same server seen from another browser: its own (empty) cookie jar."""
    saved = list(c.cookies.jar)
    c.cookies.clear()
    try:
        yield c
    finally:
        c.cookies.clear()
        for cookie in saved:
            c.cookies.jar.set_cookie(cookie)


@contextmanager
def from_address(c: TestClient, host: str) -> Iterator[TestClient]:
    """The same client seen as coming from another address."""
    transport: Any = c._transport
    saved = transport.client
    transport.client = (host, 40000)
    try:
        yield c
    finally:
        transport.client = saved


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_vs_bots(c: TestClient, players: int = 2, seed: int = 5,
                 headers: dict[str, str] | None = None) -> tuple[str, int]:
    """Take a seat (as whoever ``c`` is), fill the rest with bots, start, and wait until
    the match is over (the player, connected, hands the seat to the 托管 bot); (room,
    seat)."""
    room = c.post("/api/rooms", json={"rules": {"players": players}, "seed": seed,
                                      "name": "evening"}).json()["room_id"]
    r = c.post(f"/api/rooms/{room}/seats", json={"name": "typed name"}, headers=headers or {})
    assert r.status_code == 200, r.text
    me = r.json()
    for seat in range(players):
        if seat != me["seat"]:
            r = c.post(f"/api/rooms/{room}/bots", json={"seat": seat, "bot": "random"},
                       headers=bearer(me["token"]))
            assert r.status_code == 200, r.text
    # connected (a table nobody is at stands still), under 托管
    with c.websocket_connect(f"/ws/rooms/{room}",
                             subprotocols=["hzmj", f"token.{me['token']}"]) as ws:
        ws.send_json({"type": "auto", "on": True})
        assert c.post(f"/api/rooms/{room}/start",
                      headers=bearer(me["token"])).status_code == 200
        deadline = time.monotonic() + 120
        while c.get(f"/api/rooms/{room}").json()["status"] != "over":
            assert time.monotonic() < deadline, "the match did not end"
            time.sleep(0.1)
    # the history is written right after the match is stored
    while not c.get("/api/me/matches").json()["matches"] and time.monotonic() < deadline:
        time.sleep(0.05)
    return room, me["seat"]


# ------------------------------------------------------------------ sign-up and sessions


def test_register_login_logout(client: TestClient) -> None:
    body = register(client)
    assert body["account"]["display_name"] == "Alice" and body["account"]["rating"] == 1500
    assert body["csrf"] and body["token"] is None
    cookie = client.cookies.get(accounts_module.SESSION_COOKIE)
    assert cookie
    me = client.get("/api/me").json()
    assert me["account"]["username"] == "alice" and me["csrf"] == body["csrf"]
    assert client.post("/api/auth/logout", headers=csrf(client)).json() == {"ok": True}
    assert client.get("/api/me").json()["account"] is None
    # the old cookie is dead on the server too, not just forgotten by the browser
    client.cookies.set(accounts_module.SESSION_COOKIE, cookie)
    assert client.get("/api/me").json()["account"] is None
    client.cookies.clear()
    r = login(client, "ALICE")  # user names ignore case
    assert r.status_code == 200 and r.json()["account"]["display_name"] == "Alice"
    assert client.get("/api/me").json()["account"]["id"] == body["account"]["id"]


def test_cookie_flags_and_password_stored_only_as_argon2(client: TestClient, db: str) -> None:
    r = client.post("/api/auth/register", json={"username": "bob", "password": "pa55word!x",
                                                "display_name": "Bob"})
    header = r.headers["set-cookie"].lower()
    assert "httponly" in header and "samesite=lax" in header and "max-age=" in header

    async def stored() -> str:
        engine = make_engine(database_url(db))
        async with engine.connect() as conn:
            value = (await conn.execute(text("SELECT password_hash FROM accounts"))).scalar_one()
        await engine.dispose()
        return str(value)
    hashed = asyncio.run(stored())
    assert hashed.startswith("$argon2id$") and "pa55word!x" not in hashed


def test_wrong_password_and_unknown_user_get_the_same_answer(client: TestClient) -> None:
    register(client)
    client.cookies.clear()
    wrong, unknown = login(client, password="wrong password"), login(client, "nobody")
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"detail": "wrong user name or password",
                                              "code": "refused"}
    assert client.get("/api/me").json()["account"] is None


def test_login_throttling(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    register(client)
    client.cookies.clear()
    clock = [time.time()]
    monkeypatch.setattr(accounts_module, "now", lambda: clock[0])
    for _ in range(5):
        assert login(client, password="guess guess").status_code == 401
    r = login(client)  # even the right password waits now
    assert r.status_code == 429 and "try again" in r.json()["detail"]
    assert login(client, "someone", "x" * 8).status_code == 401  # other names are not locked
    clock[0] += 901  # the window has passed
    assert login(client).status_code == 200


def test_guesses_from_elsewhere_never_lock_the_owner_out(client: TestClient) -> None:
    """The failed log-in lock is per account *and* client address (issue 11)."""
    register(client)
    client.cookies.clear()
    with from_address(client, "203.0.113.9"):
        for _ in range(5):
            assert login(client, password="guess guess").status_code == 401
        assert login(client).status_code == 429  # the guessing address is locked out
    assert login(client).status_code == 200  # the owner, from her own address, is not


def test_one_address_guessing_many_accounts_meets_its_own_limit(client: TestClient) -> None:
    with from_address(client, "203.0.113.9"):
        for i in range(30):  # 6 × the per-account limit, spread over many names
            assert login(client, f"user{i}", "guess guess").status_code == 401
        assert login(client, "user99", "guess guess").status_code == 429


def test_log_ins_are_rate_limited_per_address_and_sessions_per_account(db: str) -> None:
    from hzmj.server.accounts import MAX_SESSIONS

    with make_client(db, login_burst=MAX_SESSIONS + 2, login_per_minute=1) as c:
        register(c)
        c.cookies.clear()
        tokens = [login(c, bearer=True).json()["token"] for _ in range(MAX_SESSIONS + 1)]
        # each right log-in stored a session; the account keeps its newest MAX_SESSIONS
        assert c.get("/api/me", headers={"Authorization": f"Bearer {tokens[0]}"}
                     ).json()["account"] is None
        for token in tokens[1:]:
            me = c.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()
            assert me["account"]["username"] == "alice"
        assert login(c, bearer=True).status_code == 200  # the burst's last one
        r = login(c, bearer=True)
        assert r.status_code == 429 and r.json()["code"] == "rate_limited", r.text
        with from_address(c, "198.51.100.7"):  # another address is not held back
            assert login(c, bearer=True).status_code == 200


def test_sign_ups_are_rate_limited_per_address(db: str) -> None:
    with make_client(db, signup_burst=3) as c:
        for i in range(3):
            register(c, f"user{i}", f"User {i}")
            c.cookies.clear()
        r = c.post("/api/auth/register", json={"username": "user9", "password": "x" * 12,
                                               "display_name": "U"})
        assert r.status_code == 429 and r.json()["code"] == "rate_limited", r.text
        with from_address(c, "198.51.100.7"):  # another address is not held back
            register(c, "other", "Other")
        c.cookies.clear()
        assert login(c, "user9", "x" * 12).status_code == 401  # the refused one is not stored


def test_login_failures_are_counted_before_the_password_check(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst of parallel guesses cannot all pass the limit while their hashes run."""
    register(client)
    client.cookies.clear()
    seen: list[int] = []
    real = accounts_module.Accounts.check_password

    async def spy(self: accounts_module.Accounts, stored: str, given: str) -> bool:
        seen.append(len(self.user_throttle.failures[accounts_module.login_key(
            "alice", "testclient")]))
        return await real(self, stored, given)

    monkeypatch.setattr(accounts_module.Accounts, "check_password", spy)
    assert login(client, password="guess guess").status_code == 401
    assert login(client).status_code == 200
    assert seen == [1, 2]  # each attempt held its place in the count while it was checked
    for _ in range(4):  # the right password cleared the count: five more guesses to the limit
        assert login(client, password="guess guess").status_code == 401
    assert login(client, password="guess guess").status_code == 401
    assert login(client).status_code == 429


def test_bad_text_is_a_422_that_echoes_nothing(client: TestClient) -> None:
    register(client)
    for body in ({"username": "\ud800abc", "password": "correct horse"},
                 {"username": "alice", "password": "\udfffsecret-guess"},
                 # long, though under the server's 64 KiB body limit (413 above it)
                 {"username": "x" * 60_000, "password": "hunter2 secret"}):
        # json.dumps escapes a lone surrogate, as a hostile client can send it
        r = client.post("/api/auth/login", content=json.dumps(body), headers=JSON)
        assert r.status_code == 422, r.text
        assert "secret" not in r.text and "x" * 300 not in r.text and len(r.text) < 2000
        assert r.json()["detail"][0]["loc"][0] == "body"
    r = client.post("/api/rooms", content=json.dumps({"name": "\ud83d", "rules": {}}),
                    headers=JSON)
    assert r.status_code == 422, r.text


def test_session_expiry(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [time.time()]
    monkeypatch.setattr(accounts_module, "now", lambda: clock[0])
    with make_client(db, session_days=1.0) as c:
        token = register(c, bearer=True)["token"]
        login(c)
        assert c.get("/api/me").json()["account"] is not None
        assert c.get("/api/me", headers=bearer(token)).json()["account"] is not None
        clock[0] += 86400 + 1
        assert c.get("/api/me").json()["account"] is None
        assert c.get("/api/me", headers=bearer(token)).json()["account"] is None
        assert c.get("/api/me/matches", headers=bearer(token)).json() == {"matches": []}


def test_csrf_refusals(client: TestClient) -> None:
    register(client)
    r = client.post("/api/auth/logout")
    assert r.status_code == 403 and "X-CSRF-Token" in r.json()["detail"]
    r = client.post("/api/auth/logout", headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403
    assert client.get("/api/me").json()["account"] is not None  # still signed in
    r = client.request("DELETE", "/api/me", json={"password": "correct horse"})
    assert r.status_code == 403
    room = client.post("/api/rooms", json={}).json()["room_id"]
    assert client.post(f"/api/rooms/{room}/seats", json={"name": "x"}).status_code == 403
    # sign-up and log-in: a cross-site page or a plain form post is refused
    r = client.post("/api/auth/login", headers={"Origin": "https://evil.example", **JSON},
                    content=json.dumps({"username": "alice", "password": "correct horse"}))
    assert r.status_code == 403
    r = client.post("/api/auth/login", data={"username": "alice", "password": "correct horse"})
    assert r.status_code in (415, 422) and "set-cookie" not in r.headers
    r = client.post("/api/auth/login", content=json.dumps(
        {"username": "alice", "password": "correct horse"}),
        headers={"Content-Type": "text/plain"})
    assert r.status_code in (415, 422) and "set-cookie" not in r.headers


def test_bearer_sessions_need_no_csrf(client: TestClient) -> None:
    register(client)
    client.cookies.clear()
    r = login(client, bearer=True)
    token = r.json()["token"]
    assert token.startswith("hzs_") and r.json()["csrf"] is None
    assert accounts_module.SESSION_COOKIE not in r.headers.get("set-cookie", "")
    me = client.get("/api/me", headers=bearer(token)).json()
    assert me["account"]["username"] == "alice" and me["csrf"] is None
    assert client.post("/api/auth/logout", headers=bearer(token)).status_code == 200
    assert client.get("/api/me", headers=bearer(token)).json()["account"] is None


@pytest.mark.parametrize("body, where", [
    ({"username": "al", "password": "long enough", "display_name": "A"}, "username"),
    ({"username": "al ice", "password": "long enough", "display_name": "A"}, "username"),
    ({"username": "alice", "password": "short", "display_name": "A"}, "password"),
    ({"username": "alice", "password": "long enough", "display_name": "A\u0007b"}, "display_name"),
    ({"username": "alice", "password": "long enough", "display_name": "a\u202eb"},
     "display_name"),
    ({"username": "alice", "password": "long enough", "display_name": "   "}, "display_name"),
    ({"username": "alice", "password": "long enough", "display_name": "x" * 25},
     "display_name"),
    ({"username": "alice", "password": "long enough", "display_name": "Deleted Player"},
     "display_name"),
    # look-alikes of the reserved name, blank-looking and stacked names, lone surrogates
    ({"username": "alice", "password": "long enough", "display_name": "deleted\u00a0player"},
     "display_name"),
    ({"username": "alice", "password": "long enough", "display_name": "deleted  player"},
     "display_name"),
    ({"username": "alice", "password": "long enough",
      "display_name": "\uff44\uff45\uff4c\uff45\uff54\uff45\uff44 player"}, "display_name"),
    ({"username": "alice", "password": "long enough", "display_name": "\u3164"}, "display_name"),
    ({"username": "alice", "password": "long enough", "display_name": "a\u2028b"},
     "display_name"),
    ({"username": "alice", "password": "long enough", "display_name": "\u2800\u2800"},
     "display_name"),
    ({"username": "alice", "password": "long enough", "display_name": "a\u034fb"},
     "display_name"),
    ({"username": "alice", "password": "long enough", "display_name": "a" + "\u0301" * 5},
     "display_name"),
    ({"username": "alice", "password": "long enough", "display_name": "A\ud800"},
     "display_name"),
    ({"username": "alice", "password": "\ud800abcdefgh", "display_name": "A"}, "password"),
])
def test_names_are_validated(client: TestClient, body: dict[str, str], where: str) -> None:
    r = client.post("/api/auth/register", content=json.dumps(body), headers=JSON)
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"][-1] == where


def test_user_names_are_unique_without_case(client: TestClient) -> None:
    register(client)
    r = client.post("/api/auth/register", json={"username": "Alice", "password": "other one",
                                                "display_name": "Alice 2"})
    assert r.status_code == 409 and "taken" in r.json()["detail"]


# ------------------------------------------------------------------ history and ratings


def test_a_guest_upgraded_keeps_its_matches(client: TestClient) -> None:
    room, seat = play_vs_bots(client)
    assert client.cookies.get(accounts_module.GUEST_COOKIE)
    assert client.get("/api/me").json() == {"account": None, "guest": True, "csrf": None}
    [guest_match] = client.get("/api/me/matches").json()["matches"]
    assert guest_match["room_id"] == room and guest_match["seat"] == seat
    assert guest_match["rating_before"] is None  # guests are not rated
    body = register(client, "gina", "Gina")
    assert body["claimed_matches"] == 1
    [mine] = client.get("/api/me/matches").json()["matches"]
    assert mine["room_id"] == room and mine["place"] == guest_match["place"]
    assert mine["points"] == guest_match["points"] and mine["replay"] == f"/replay/{room}#end"
    # another browser (no cookies) sees nothing
    with other_browser(client) as other:
        assert other.get("/api/me/matches").json() == {"matches": []}
    assert client.get("/api/me/matches").json()["matches"][0]["room_id"] == room


def test_a_deal_the_client_chose_is_rated_for_nobody(client: TestClient) -> None:
    # an all-bot room keeps the seed its creator gave (docs/rules-decisions.md #21), so it
    # could pick deals a bot loses: the match is stored, no rating moves
    room = client.post("/api/rooms", json={"rules": {"players": 2}, "seed": 5}).json()["room_id"]
    me = client.post(f"/api/rooms/{room}/seats", json={"name": "host"}).json()
    bots_play_to_the_end(client, room, me["token"], 2)
    assert client.get(f"/api/rooms/{room}").json()["seed"] == 5
    bot = client.get("/api/players/bot:random")
    assert bot.status_code == 404 or bot.json()["rated_matches"] == 0, bot.text


def test_history_ratings_and_profile_after_a_match(client: TestClient) -> None:
    account = register(client)["account"]
    room, seat = play_vs_bots(client, players=4, seed=11, headers=csrf(client))
    info = client.get(f"/api/rooms/{room}").json()
    assert info["seats"][seat]["name"] == "Alice"  # the display name, not the typed one
    [m] = client.get("/api/me/matches").json()["matches"]
    record = client.get(f"/api/matches/{room}/record").json()
    points = record["points"]
    assert m["points"] == points[seat] and m["delta"] == points[seat]
    assert m["place"] == 1 + sum(p > points[seat] for p in points)
    assert m["players"] == 4 and m["rules"]["players"] == 4 and len(m["seats"]) == 4
    assert [s["points"] for s in m["seats"]] == points
    assert m["rating_before"] == 1500
    moved = m["rating_after"] - m["rating_before"]
    if m["place"] == 1:
        assert moved > 0
    elif m["place"] == 4:
        assert moved < 0
    profile = client.get(f"/api/players/{account['id']}").json()
    assert profile["display_name"] == "Alice" and "username" not in json.dumps(profile)
    assert "alice" not in json.dumps(profile)
    assert profile["rating"] == m["rating_after"] and profile["rated_matches"] == 1
    assert profile["rating_history"][0]["before"] == 1500
    s = profile["summary"]
    assert s["matches"] == 1 and s["hands"] == 8
    assert s["points_per_hand"] == pytest.approx(points[seat] / 8, abs=1e-3)
    assert 0 <= s["self_draws"] <= s["hands_won"] <= 8 and s["caipiao"] <= s["baotou"]
    # the random bot level is rated too, and shown at the table and on the board
    seat_ratings = client.get(f"/api/rooms/{room}/ratings").json()["ratings"]
    assert seat_ratings[seat] == m["rating_after"]
    assert client.get(f"/api/rooms/{room}/ratings").json()["signed_in"] == [
        i == seat for i in range(4)]  # bots are rated, not signed in
    bot = client.get("/api/players/bot:random").json()
    assert bot["kind"] == "bot" and bot["rated_matches"] == 1
    assert all(r == bot["rating"] for i, r in enumerate(seat_ratings) if i != seat)
    board = client.get("/api/leaderboard").json()["entries"]
    assert {e["id"] for e in board} == {account["id"], "bot:random"}
    me = client.get("/api/me").json()["account"]
    assert me["rating"] == m["rating_after"]


def test_leaderboard_order(client: TestClient, db: str) -> None:
    from hzmj.server import ratings

    ids = {}
    for name, display in (("ann", "Ann"), ("ben", "Ben"), ("cyd", "Cy")):
        ids[display] = register(client, name, display)["account"]["id"]

    async def seed_ratings() -> None:
        db_engine = make_engine(database_url(db))
        async with db_engine.begin() as conn:
            rows = (await conn.execute(text("SELECT id, display_name FROM accounts"))).all()
            by_name = {n: i for i, n in rows}
            await ratings.save(conn, {
                ratings.account_subject(by_name["Ann"]): ratings.Rating(1610, 120, 9),
                ratings.account_subject(by_name["Ben"]): ratings.Rating(1490, 100, 30),
                ratings.account_subject(by_name["Cy"]): ratings.Rating(1500, 400, 0),
                ratings.bot_subject("strong"): ratings.Rating(1580, 60, 400),
                ratings.bot_subject("random"): ratings.Rating(1205, 60, 400),
            })
        await db_engine.dispose()
    asyncio.run(seed_ratings())
    board = client.get("/api/leaderboard").json()["entries"]
    # Cy has no rated match yet: not on the board
    assert [(e["rank"], e["display_name"], e["rating"]) for e in board] == [
        (1, "Ann", 1610), (2, "strong bot", 1580), (3, "Ben", 1490), (4, "random bot", 1205)]
    assert board[0]["id"] == ids["Ann"] and board[1]["kind"] == "bot"
    assert client.get("/api/leaderboard?limit=2").json()["entries"][-1]["rating"] == 1580


def test_account_deletion(client: TestClient) -> None:
    account = register(client)["account"]
    room, seat = play_vs_bots(client, headers=csrf(client))
    assert client.get(f"/api/players/{account['id']}").status_code == 200
    r = client.request("DELETE", "/api/me", json={"password": "wrong password"},
                       headers=csrf(client))
    assert r.status_code == 401
    r = client.request("DELETE", "/api/me", json={"password": "correct horse"},
                       headers=csrf(client))
    assert r.json() == {"ok": True}
    assert client.get("/api/me").json()["account"] is None
    assert client.get(f"/api/players/{account['id']}").status_code == 404
    assert account["id"] not in {e["id"] for e in client.get("/api/leaderboard").json()["entries"]}
    assert login(client).status_code == 401
    replay = client.get(f"/api/matches/{room}/replay").json()
    assert replay["players"][seat] == "deleted player"
    assert client.get(f"/api/rooms/{room}").json()["seats"][seat]["name"] == "deleted player"
    # the user name is free again
    register(client)


@pytest.mark.parametrize("name, ok", [
    ("  张三  ", "张三"), ("Ann", "Ann"), ("a\u0007b", None), ("a\u200bb", None),
    ("Deleted player", None), ("x" * 41, None), ("  ", None),
    ("deIeted player", None), ("d\u0435leted player", None),  # capital I, Cyrillic е
    ("Alice\ufffc", None), ("Al\ufffcice", None),  # drawn as nothing: "Alice" twice
])
def test_guest_seat_names_are_validated_too(client: TestClient, name: str,
                                            ok: str | None) -> None:
    room = client.post("/api/rooms", json={}).json()["room_id"]
    r = client.post(f"/api/rooms/{room}/seats", json={"name": name})
    if ok is None:
        assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == "name"
    else:
        assert r.status_code == 200
        assert client.get(f"/api/rooms/{room}").json()["seats"][0]["name"] == ok


@pytest.mark.parametrize("second", ["Alice", "ALICE", "\u0410lice", "\uff21\uff4c\uff49\uff43\uff45",
                                    "Al\u0456ce", " Alice "])
def test_a_name_that_looks_like_a_seated_players_is_refused_at_that_table(
        client: TestClient, second: str) -> None:
    # a Cyrillic А, full width or case gave the table two "Alice"s: one could pose as the
    # other in the seat list, the log and the chat
    room = client.post("/api/rooms", json={}).json()["room_id"]
    assert client.post(f"/api/rooms/{room}/seats", json={"name": "Alice"}).status_code == 200
    r = client.post(f"/api/rooms/{room}/seats", json={"name": second})
    assert r.status_code == 409 and r.json()["code"] == "name_taken"
    assert "Alice" in r.json()["detail"]
    assert [s["name"] for s in client.get(f"/api/rooms/{room}").json()["seats"]][:2] == \
        ["Alice", None]
    assert client.post(f"/api/rooms/{room}/seats", json={"name": "Alicia"}).status_code == 200
    elsewhere = client.post("/api/rooms", json={}).json()["room_id"]  # other tables: free
    assert client.post(f"/api/rooms/{elsewhere}/seats", json={"name": second}).status_code == 200


@pytest.mark.parametrize("first, second", [
    ("Kim", "Kirn"),                   # m reads as rn: a prototype that is a sequence
    ("Bill", "Bi\u0627\u0627"),        # Arabic alefs for ll: the data wraps right-to-left
    ("Lee", "\u05d5ee"),               # letters in marks, and they were all dropped
    ("Bob\u2764", "Bob\u2764\ufe0f"),  # an emoji variation selector: same pixels
    ("张三", "张\U000e0100三"),          # an ideographic variation selector: same pixels
    ("Alice", "Ali\u0307ce"),          # a dot above an i takes the place of its own
])
def test_look_alikes_of_sequences_rtl_letters_and_selectors_are_refused_too(
        client: TestClient, first: str, second: str) -> None:
    room = client.post("/api/rooms", json={}).json()["room_id"]
    assert client.post(f"/api/rooms/{room}/seats", json={"name": first}).status_code == 200
    r = client.post(f"/api/rooms/{room}/seats", json={"name": second})
    assert r.status_code == 409 and r.json()["code"] == "name_taken", r.text


@pytest.mark.parametrize("a, b", [("Kim", "Tim"), ("Anna", "Arma"), ("张三", "李四"),
                                  ("Alice", "Alicia"), ("Li", "Lu"), ("王石", "王右")])
def test_names_that_differ_to_the_eye_are_not_alike(a: str, b: str) -> None:
    from hzmj.server.account_protocol import names_alike

    assert not names_alike(a, b)


def test_a_signed_in_player_whose_name_a_guest_took_first_is_told_the_way_out(
        client: TestClient) -> None:
    # she sits under her display name whatever she types: "choose another name" sent her
    # round in circles while a guest posing as her held the table
    with other_browser(client):  # the host is somebody else (its own cookies)
        room = client.post("/api/rooms", json={}).json()["room_id"]
        owner = client.post(f"/api/rooms/{room}/seats", json={"name": "host"}).json()
    with from_address(client, "198.51.100.9"), other_browser(client):
        posing = client.post(f"/api/rooms/{room}/seats", json={"name": "\u0410lice"})
    assert posing.status_code == 200
    register(client)  # Alice
    for typed in ("Alice", "Someone else"):
        r = client.post(f"/api/rooms/{room}/seats", json={"name": typed}, headers=csrf(client))
        assert r.status_code == 409 and r.json()["code"] == "display_name_taken"
        assert "owner can free that seat" in r.json()["detail"]
    assert client.delete(f"/api/rooms/{room}/seats/{posing.json()['seat']}",
                         headers=bearer(owner["token"])).status_code == 200
    r = client.post(f"/api/rooms/{room}/seats", json={"name": "x"}, headers=csrf(client))
    assert r.status_code == 200
    assert client.get(f"/api/rooms/{room}").json()["seats"][r.json()["seat"]]["name"] == "Alice"
    # the table marks the signed-in account (✓), never a guest, whatever its name
    marks = client.get(f"/api/rooms/{room}/ratings").json()
    assert marks["signed_in"] == [i == r.json()["seat"] for i in range(4)]
    assert marks["ratings"][r.json()["seat"]] == 1500 and marks["ratings"][owner["seat"]] is None


def test_a_guest_who_signs_up_at_the_table_is_not_marked_under_its_typed_name(
        client: TestClient) -> None:
    # a sign-up claims the browser's guest seats, live ones too: a guest seated as
    # "Alice" (no such account) who then registered as "Zed" showed "Alice ✓ ≈1500", the
    # mark a signed-in account's own display name gets
    room = client.post("/api/rooms", json={}).json()["room_id"]
    seat = client.post(f"/api/rooms/{room}/seats", json={"name": "Alice"}).json()["seat"]
    register(client, "zed", "Zed")
    marks = client.get(f"/api/rooms/{room}/ratings").json()
    assert client.get(f"/api/rooms/{room}").json()["seats"][seat]["name"] == "Alice"
    assert marks["signed_in"] == [False] * 4
    assert marks["ratings"][seat] == 1500  # the account's rating, as before
    # a seat the account takes signed in, under its display name: marked
    again = client.post(f"/api/rooms/{room}/seats", json={"name": "x"}, headers=csrf(client))
    assert again.status_code == 200, again.text
    marks = client.get(f"/api/rooms/{room}/ratings").json()
    assert marks["signed_in"] == [i == again.json()["seat"] for i in range(4)]


def test_a_name_like_a_bot_seats_is_refused_too(client: TestClient) -> None:
    room = client.post("/api/rooms", json={}).json()["room_id"]
    owner = client.post(f"/api/rooms/{room}/seats", json={"name": "ann"}).json()
    assert client.post(f"/api/rooms/{room}/bots", json={"seat": 1, "bot": "strong"},
                       headers=bearer(owner["token"])).status_code == 200
    bot_name = client.get(f"/api/rooms/{room}").json()["seats"][1]["name"]
    r = client.post(f"/api/rooms/{room}/seats", json={"name": bot_name.upper()})
    assert r.status_code == 409 and r.json()["code"] == "name_taken"


def test_a_seat_left_before_the_start_is_linked_to_whoever_takes_it_next(
        client: TestClient) -> None:
    room = client.post("/api/rooms", json={"rules": {"players": 2}, "seed": 3}).json()["room_id"]
    first = client.post(f"/api/rooms/{room}/seats", json={"name": "first", "seat": 1}).json()
    client.post(f"/api/rooms/{room}/leave", headers=bearer(first["token"]))
    with other_browser(client) as other:
        account = register(other, "otto", "Otto")["account"]
        taken = other.post(f"/api/rooms/{room}/seats", json={"name": "x", "seat": 1},
                           headers=csrf(other)).json()
        assert taken["seat"] == 1
        r = other.post(f"/api/rooms/{room}/bots", json={"seat": 0, "bot": "random"},
                       headers=bearer(taken["token"]))
        assert r.status_code == 200, r.text
        with attended(other, room, taken["token"], auto=True):  # its bot plays for otto
            assert other.post(f"/api/rooms/{room}/start",
                              headers=bearer(taken["token"])).status_code == 200
            deadline = time.monotonic() + 120
            while not other.get("/api/me/matches").json()["matches"]:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        [m] = other.get("/api/me/matches").json()["matches"]
        assert m["seat"] == 1 and other.get(f"/api/players/{account['id']}").json()[
            "rated_matches"] == 1
    assert client.get("/api/me/matches").json() == {"matches": []}

