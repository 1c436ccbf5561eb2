"""The HTTP API in-process (FastAPI's TestClient): rooms, seats, owners, bots, start,
records, the browser pages, and the protocol schema kept in docs/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hzmj.server.app import _qr_svg, create_app
from hzmj.server.config import ServerConfig, database_url
from hzmj.server.protocol import protocol_schema
from test_server_support import bots_play_to_the_end

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    web = tmp_path / "web"
    web.mkdir()
    (web / "index.html").write_text("<h1>hzmj</h1>")
    (web / "app.js").write_text("// js")
    cfg = ServerConfig(db=str(tmp_path / "api.db"), bot_delay=0, hand_pause=0,
                       web_dir=str(web), bot_workers=0, claim_pause_scale=0,
                       allow_fixed_seed=True)
    with TestClient(create_app(cfg)) as c:
        yield c


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_health(client: TestClient) -> None:
    assert client.get("/api/health").json() == {
        "ok": True, "status": "ok", "problems": [], "rooms": 0, "max_rooms": 2000,
        "bot_workers": 0, "bot_worker_restarts": 0, "quarantined": 0}
    head = client.head("/api/health")  # uptime monitors ask with HEAD (was 405)
    assert head.status_code == 200 and head.content == b""


@pytest.mark.parametrize("rules, option", [
    ({"cap": 63}, "cap"),
    ({"players": 5}, "players"),
    ({"drop_bamboo": True}, "drop_bamboo"),
    ({"colour": "red"}, "colour"),
])
def test_invalid_options_are_422_naming_the_option(client: TestClient, rules: dict[str, object],
                                                   option: str) -> None:
    r = client.post("/api/rooms", json={"rules": rules, "name": "x"})
    assert r.status_code == 422
    assert r.json()["option"] == option and option in r.json()["detail"]


def test_room_lifecycle(client: TestClient) -> None:
    room = client.post("/api/rooms", json={"rules": {"players": 3, "cap": 64},
                                           "name": "three"}).json()["room_id"]
    listed = client.get("/api/rooms").json()["rooms"]
    mine = next(r for r in listed if r["room_id"] == room)
    assert mine["rules"]["cap"] == 64 and mine["free_seats"] == [0, 1, 2]
    owner = client.post(f"/api/rooms/{room}/seats", json={"name": "ann"}).json()
    assert owner["seat"] == 0 and len(owner["token"]) >= 32
    guest = client.post(f"/api/rooms/{room}/seats", json={"name": "bob", "seat": 2}).json()
    assert guest["seat"] == 2
    r = client.post(f"/api/rooms/{room}/seats", json={"name": "cat", "seat": 2})
    assert r.status_code == 409
    # only the owner adds bots and starts
    r = client.post(f"/api/rooms/{room}/bots", json={"seat": 1, "bot": "efficiency"})
    assert r.status_code == 401
    r = client.post(f"/api/rooms/{room}/bots", json={"seat": 1}, headers=bearer(guest["token"]))
    assert r.status_code == 403
    r = client.post(f"/api/rooms/{room}/bots", json={"seat": 1, "bot": "nonsense"},
                    headers=bearer(owner["token"]))
    assert r.status_code == 422 and "nonsense" in r.json()["detail"]
    r = client.post(f"/api/rooms/{room}/start", headers=bearer(owner["token"]))
    assert r.status_code == 409 and "[1]" in r.json()["detail"]
    r = client.post(f"/api/rooms/{room}/bots", json={"seat": 2},
                    headers=bearer(owner["token"]))
    assert r.status_code == 409  # a player sits there
    r = client.post(f"/api/rooms/{room}/bots", json={"seat": 1, "bot": "random"},
                    headers=bearer(owner["token"]))
    assert r.json() == {"seat": 1, "bot": "random"}
    info = client.get(f"/api/rooms/{room}").json()
    assert [s["name"] for s in info["seats"]] == ["ann", "random bot", "bob"]
    assert info["seats"][0]["owner"] and not info["seats"][2]["owner"]
    assert "token" not in json.dumps(info)
    assert client.get(f"/api/matches/{room}/record").status_code == 409
    r = client.post(f"/api/rooms/{room}/start", headers=bearer(guest["token"]))
    assert r.status_code == 403
    r = client.post(f"/api/rooms/{room}/start", headers=bearer(owner["token"]))
    assert r.json() == {"ok": True, "state_id": 0}
    assert client.get(f"/api/rooms/{room}").json()["status"] == "running"
    assert room not in [r["room_id"] for r in client.get("/api/rooms").json()["rooms"]]
    assert room in [r["room_id"] for r in client.get("/api/rooms?all=true").json()["rooms"]]
    assert client.post(f"/api/rooms/{room}/seats", json={"name": "late"}).status_code == 409
    assert client.get("/api/rooms/nope").status_code == 404


def test_leaving_before_the_start_frees_the_seat_and_passes_ownership(
        client: TestClient) -> None:
    room = client.post("/api/rooms", json={"rules": {"players": 2}}).json()["room_id"]
    a = client.post(f"/api/rooms/{room}/seats", json={"name": "a"}).json()
    b = client.post(f"/api/rooms/{room}/seats", json={"name": "b"}).json()
    r = client.post(f"/api/rooms/{room}/leave", headers=bearer(a["token"]))
    assert r.json() == {"ok": True, "escaped": False}
    info = client.get(f"/api/rooms/{room}").json()
    assert info["free_seats"] == [0] and info["seats"][1]["owner"]
    assert client.post(f"/api/rooms/{room}/leave", headers=bearer(a["token"])).status_code == 401
    r = client.post(f"/api/rooms/{room}/bots", json={"seat": 0}, headers=bearer(b["token"]))
    assert r.status_code == 200


def test_all_bot_room_plays_to_the_end_and_keeps_its_record(client: TestClient) -> None:
    room = client.post("/api/rooms", json={"rules": {"players": 2}, "seed": 9}).json()["room_id"]
    owner = client.post(f"/api/rooms/{room}/seats", json={"name": "a"}).json()
    for seat in (1, 0):  # the owner hands their own seat to a bot too
        client.post(f"/api/rooms/{room}/bots", json={"seat": seat, "bot": "random"},
                    headers=bearer(owner["token"]))
    # the owner's socket runs it: a table nobody is at would stand still
    with client.websocket_connect(f"/ws/rooms/{room}",
                                  subprotocols=["hzmj", f"token.{owner['token']}"]) as ws:
        client.post(f"/api/rooms/{room}/start", headers=bearer(owner["token"]))
        while True:
            msg = ws.receive_json()
            if msg["type"] == "event" and msg["event"]["type"] == "match_end":
                break
    record = client.get(f"/api/matches/{room}/record").json()
    assert record["over"] and record["seed"] == 9


def test_websocket_to_unknown_room_closes_with_reason(client: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    with client.websocket_connect("/ws/rooms/nope") as ws, \
            pytest.raises(WebSocketDisconnect) as info:
        ws.receive_json()
    assert info.value.code == 4404


@pytest.mark.parametrize("room_id", ["x" * 200, "房" * 100])
def test_a_long_unknown_room_id_is_named_cut_in_the_close_frame_and_the_404(
        client: TestClient, room_id: str) -> None:
    """A close frame's reason holds 123 bytes at most (RFC 6455 §5.5): a long room id is
    cut (and escaped to ASCII) so the server can still close with 4404; the HTTP 404
    names it cut as well, never echoing the whole path."""
    from starlette.websockets import WebSocketDisconnect

    with client.websocket_connect(f"/ws/rooms/{room_id}") as ws, \
            pytest.raises(WebSocketDisconnect) as info:
        ws.receive_json()
    assert info.value.code == 4404
    assert len(info.value.reason.encode()) <= 123 and info.value.reason.startswith("no room ")
    r = client.get(f"/api/rooms/{room_id}")
    assert r.status_code == 404 and len(r.content) < 200 and "…" in r.json()["detail"]


def test_browser_pages(client: TestClient) -> None:
    assert client.get("/").text == "<h1>hzmj</h1>"
    assert client.get("/room/abc").text == "<h1>hzmj</h1>"
    assert client.get("/static/app.js").text == "// js"
    assert client.get("/replay/abc").status_code == 404  # not installed: no crash
    assert client.get("/static/missing.js").status_code == 404


def test_database_urls() -> None:
    assert database_url("x.db").startswith("sqlite+aiosqlite:////")
    assert database_url("postgresql://u:p@h/db") == "postgresql+asyncpg://u:p@h/db"
    assert database_url("sqlite:///a.db") == "sqlite+aiosqlite:///a.db"


def test_schema_in_docs_is_current() -> None:
    stored = json.loads((DOCS / "protocol.schema.json").read_text())
    assert stored == protocol_schema(), "run: uv run python -m hzmj.server.protocol"


def test_rules_page_serves_the_rule_book_with_anchors(client: TestClient) -> None:
    page = client.get("/rules")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'id="s6.5"' in page.text and 'id="s3"' in page.text and "三摊承包" in page.text


ZH_65 = '<h3 id="s6.5"><a class="anchor" href="#s6.5">§6.5</a> 吃碰限制（摊）</h3>'
EN_65 = '<h3 id="s6.5"><a class="anchor" href="#s6.5">§6.5</a> Claim limits (摊)</h3>'


def test_rules_page_in_chinese_links_to_the_english_book(client: TestClient) -> None:
    page = client.get("/rules?lang=zh")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert ZH_65 in page.text and EN_65 not in page.text
    assert '<html lang="zh-CN">' in page.text and "<title>规则 · 杭州麻将</title>" in page.text
    assert '<a class="book-lang" href="/rules?lang=en" hreflang="en" lang="en">English</a>' in page.text
    english = client.get("/rules?lang=en", headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    assert EN_65 in english.text and ZH_65 not in english.text  # ?lang= wins over the header
    assert '<a class="book-lang" href="/rules?lang=zh" hreflang="zh" lang="zh">中文</a>' in english.text
    unknown = client.get("/rules?lang=fr")
    assert unknown.status_code == 404
    assert unknown.text == "no rule book in language 'fr' (languages: en, zh)"
    for regional in ("zh-CN", "zh_TW", "ZH"):  # a regional tag reads as its language (was 404)
        assert ZH_65 in client.get(f"/rules?lang={regional}").text
    assert EN_65 in client.get("/rules?lang=en-GB").text
    assert client.get("/rules?lang=fr-FR").status_code == 404


@pytest.mark.parametrize(("accept", "book"), [
    (None, EN_65),  # no header: the English book, as before the Chinese one
    ("zh-CN,zh;q=0.9,en;q=0.8", ZH_65),
    ("zh-TW", ZH_65),
    ("en-US,en;q=0.9,zh-CN;q=0.8", EN_65),
    ("fr-FR,zh;q=0.5,en;q=0.4", ZH_65),
    ("en;q=0.3, zh;q=0.7", ZH_65),
    ("zh;q=0.8, en;q=0.8", ZH_65),  # a tie: the first listed
    ("zh;q=0, en;q=0.1", EN_65),  # q=0: not wanted
    ("zh;q=x", EN_65),
    ("de, fr", EN_65),
])
def test_rules_page_without_lang_follows_accept_language(
        client: TestClient, accept: str | None, book: str) -> None:
    page = client.get("/rules", headers={"Accept-Language": accept} if accept else {})
    assert page.status_code == 200 and book in page.text
    assert page.headers["vary"] == "Accept-Language"


def _share(client: TestClient, headers: dict[str, str] | None = None) -> dict[str, str]:
    room = client.post("/api/rooms", json={"name": "x"}).json()["room_id"]
    r = client.get(f"/api/rooms/{room}/share", headers=headers or {})
    assert r.status_code == 200, r.text
    data: dict[str, str] = r.json()
    assert data["url"].endswith(f"/room/{room}")
    assert data["qr_svg"].lstrip().startswith("<svg") and "<path" in data["qr_svg"]
    return data


def test_share_link_uses_the_address_the_visitor_used(client: TestClient) -> None:
    data = _share(client, {"host": "192.168.1.20:8000"})
    assert data["url"].startswith("http://192.168.1.20:8000/room/")
    assert client.get("/api/rooms/nope/share").status_code == 404


def test_share_link_prefers_public_url_then_lan_for_local_visitors(tmp_path: Path) -> None:
    cfg = ServerConfig(db=str(tmp_path / "a.db"), public_url="https://mj.example.org/")
    with TestClient(create_app(cfg)) as c:
        assert _share(c)["url"].startswith("https://mj.example.org/room/")
    cfg = ServerConfig(db=str(tmp_path / "b.db"), lan_url="http://10.0.0.5:8000")
    with TestClient(create_app(cfg)) as c:
        assert _share(c, {"host": "127.0.0.1:8000"})["url"].startswith("http://10.0.0.5:8000/")
        # a friend who came by the LAN address keeps it
        assert _share(c, {"host": "10.0.0.5:8000"})["url"].startswith("http://10.0.0.5:8000/")


def test_a_share_link_s_qr_code_is_drawn_once_and_the_same_as_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the QR code was drawn on the event loop at every request (~8 ms of pure Python),
    # with no limit: a client asking in a loop stalled every table
    import asyncio
    import hashlib

    import segno

    drawn: list[bool] = []  # for each QR code drawn: whether on an event loop
    real = segno.make

    def counting(*args: object, **kwargs: object) -> object:
        try:
            drawn.append(asyncio.get_running_loop() is not None)
        except RuntimeError:  # no loop runs in this thread
            drawn.append(False)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(segno, "make", counting)
    cfg = ServerConfig(db=str(tmp_path / "a.db"), public_url="https://mj.example.org")
    with TestClient(create_app(cfg)) as c:
        room = c.post("/api/rooms", json={"name": "x"}).json()["room_id"]
        first = c.get(f"/api/rooms/{room}/share").json()
        again = c.get(f"/api/rooms/{room}/share").json()
    assert first == again and drawn == [False]  # drawn once, off the event loop
    # the SVG the server drew before its QR codes were kept, byte for byte
    assert first["url"] == f"https://mj.example.org/room/{room}"
    svg = _qr_svg("https://mj.example.org/room/AbC123")
    assert hashlib.sha256(svg.encode()).hexdigest() == (
        "c7f3ec9b079302734b66af0ba2827e6eb80ac73af86b9ef861af3290e10995f0")
    assert first["qr_svg"] == _qr_svg(first["url"])


def test_refusals_carry_a_code_to_translate(client: TestClient) -> None:
    r = client.get("/api/rooms/nope")
    assert r.status_code == 404 and r.json()["code"] == "no_room"
    room = client.post("/api/rooms", json={"name": "x"}).json()["room_id"]
    r = client.post(f"/api/rooms/{room}/start")
    assert r.status_code == 401 and r.json()["code"] == "token_needed"


# ------------------------------------------------------------------ metrics


def metric(text: str, name: str) -> float:
    """One sample's value in the Prometheus text format (0 when absent)."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return 0.0


def test_metrics_for_an_operator_count_rooms_moves_hands_and_refusals(tmp_path: Path) -> None:
    cfg = ServerConfig(db=str(tmp_path / "m.db"), bot_delay=0, hand_pause=0, bot_workers=0,
                       claim_pause_scale=0, allow_fixed_seed=True, metrics_token="s3cret")
    with TestClient(create_app(cfg)) as c:
        refused = c.get("/metrics")  # the test client is no loopback client, and no token
        assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
        assert c.get("/metrics", headers=bearer("wrong")).status_code == 403
        before = c.get("/metrics", headers=bearer("s3cret"))
        assert before.status_code == 200
        assert before.headers["content-type"].startswith("text/plain; version=0.0.4")
        start = before.text
        assert metric(start, 'hzmj_rooms{status="open"}') == 0
        assert metric(start, "hzmj_rooms_max") == 2000
        room = c.post("/api/rooms", json={"rules": {"players": 2}, "seed": 9}).json()["room_id"]
        me = c.post(f"/api/rooms/{room}/seats", json={"name": "op"}).json()
        now = c.get("/metrics", headers=bearer("s3cret")).text
        assert metric(now, 'hzmj_rooms{status="open"}') == 1
        assert c.get("/api/rooms/nope").status_code == 404
        bots_play_to_the_end(c, room, me["token"], 2)
        record = c.get(f"/api/matches/{room}/record").json()
        end = c.get("/metrics", headers=bearer("s3cret")).text

    def grew(name: str) -> float:
        return metric(end, name) - metric(start, name)
    assert grew("hzmj_matches_finished_total") == 1
    assert grew("hzmj_hands_finished_total") == 8  # hands mode, 8 hands (RULES §12.1)
    assert grew('hzmj_moves_total{by="bot"}') == len(record["actions"])
    assert grew('hzmj_bot_decision_seconds_count{bot="random"}') > 0
    assert grew('hzmj_refusals_total{code="no_room"}') == 1
    assert metric(end, 'hzmj_rooms{status="over"}') == 1
    assert metric(end, 'hzmj_rooms{status="open"}') == 0


@pytest.mark.parametrize("host, proxies, ok", [
    ("127.0.0.1", "", True), ("::1", "", True),
    ("::ffff:127.0.0.1", "", True),  # IPv4 loopback on a dual-stack socket (--host ::)
    ("::ffff:203.0.113.5", "", False), ("::", "", False), ("0.0.0.0", "", False),
    ("fe80::1%lo", "", False), ("203.0.113.5", "", False), ("testclient", "", False),
    # the loopback is a trusted proxy's address (the default): a local proxy that sends
    # no X-Forwarded-For would make every visitor the operator
    ("127.0.0.1", "127.0.0.1", False), ("::ffff:127.0.0.1", "127.0.0.1", False),
    ("127.0.0.1", "127.0.0.0/8", False), ("::1", "127.0.0.1", True),
    ("127.0.0.1", "172.30.0.10", True),  # the proxy elsewhere (deploy/compose.yaml)
    ("127.0.0.1", "*", False)])  # any client may name the loopback
def test_metrics_are_for_loopback_clients_that_are_no_proxy(host: str, proxies: str,
                                                            ok: bool) -> None:
    from starlette.requests import Request

    from hzmj.server.guard import TrustedProxies
    from hzmj.server.metrics import local

    request = Request({"type": "http", "client": (host, 5000), "headers": []})
    assert local(request, TrustedProxies(proxies)) is ok


@pytest.mark.parametrize("given, token, ok", [
    ("t0ken", "t0ken", True), ("t0ken", "other", False), ("t0ke", "t0ken", False),
    ("t0kenn", "t0ken", False), ("", "t0ken", False), ("t0ken", None, False),
    ("", None, False), ("", "", False), ("\u00fc", "\u00fc", True), ("\ud800", "x", False)])
def test_the_metrics_token_is_compared_whole(given: str, token: str | None, ok: bool) -> None:
    from hzmj.server.metrics import token_matches

    assert token_matches(given, token) is ok


def metrics_client(tmp_path: Path, host: str, **settings: object) -> TestClient:
    cfg = ServerConfig(db=str(tmp_path / "m.db"), bot_workers=0, **settings)  # type: ignore[arg-type]
    return TestClient(create_app(cfg), client=(host, 5000))


def test_wrong_metrics_tokens_lock_the_guessing_address_out(tmp_path: Path) -> None:
    """Guessing the token is limited like guessing a password: after login_failures
    wrong tokens an address gets 429 for the window, the right token included; other
    addresses keep reading."""
    settings = {"metrics_token": "s3cret", "login_failures": 3}
    with metrics_client(tmp_path, "203.0.113.5", **settings) as guesser:
        for guess in ("a", "b", "c"):
            assert guesser.get("/metrics", headers=bearer(guess)).status_code == 403
        locked = guesser.get("/metrics", headers=bearer("s3cret"))
        assert locked.status_code == 429 and locked.json()["code"] == "rate_limited"
        assert 890 <= int(locked.headers["retry-after"]) <= 900  # login_window 900 s
        assert guesser.get("/metrics", headers=bearer("d")).status_code == 429
        # no token: nothing guessed, nothing counted, the usual 403
        assert guesser.get("/metrics").status_code == 403
        scraper = TestClient(guesser.app, client=("203.0.113.6", 5000))  # same server
        assert scraper.get("/metrics", headers=bearer("s3cret")).status_code == 200


def test_an_ipv6_site_does_not_get_a_fresh_allowance_from_each_64(tmp_path: Path) -> None:
    from hzmj.server.guard import NETWORK_SHARE

    settings = {"metrics_token": "s3cret", "login_failures": 1}
    app = create_app(ServerConfig(db=str(tmp_path / "m6.db"), bot_workers=0, **settings))  # type: ignore[arg-type]
    def get(host: str, token: str) -> int:
        return TestClient(app, client=(host, 5000)).get("/metrics",
                                                        headers=bearer(token)).status_code
    with TestClient(app):
        for i in range(NETWORK_SHARE):  # one wrong guess from each of 8 /64s
            assert get(f"2001:db8:1:{i}::1", "guess") == 403
            assert get(f"2001:db8:1:{i}::1", "s3cret") == 429
        assert get("2001:db8:1:ff::1", "s3cret") == 429  # a fresh /64 of the same /48
        assert get("2001:db8:2::1", "s3cret") == 200  # another site


@pytest.mark.parametrize("proxies, ok", [("127.0.0.1", False), ("", True),
                                         ("172.30.0.10", True)])
def test_a_loopback_client_reads_the_metrics_unless_the_loopback_is_a_proxy(
        tmp_path: Path, proxies: str, ok: bool) -> None:
    """By default 127.0.0.1 is a trusted proxy (a TLS proxy on the same machine): its
    requests without X-Forwarded-For are visitors nobody named, not the operator."""
    with metrics_client(tmp_path, "127.0.0.1", forwarded_allow_ips=proxies) as c:
        assert (c.get("/metrics").status_code == 200) is ok
    with metrics_client(tmp_path, "127.0.0.1", forwarded_allow_ips=proxies,
                        metrics_token="s3cret") as c:
        assert c.get("/metrics", headers=bearer("s3cret")).status_code == 200


def test_a_proxy_that_names_no_visitor_is_told_once(tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("INFO", logger="hzmj.server"), \
            metrics_client(tmp_path, "127.0.0.1") as c:
        for _ in range(3):
            c.get("/api/health")
        c.get("/api/health", headers={"X-Forwarded-For": "203.0.113.5"})
    told = [r.getMessage() for r in caplog.records if "X-Forwarded-For" in r.getMessage()]
    assert len(told) == 1 and told[0].startswith("requests from 127.0.0.1, a trusted proxy")
    caplog.clear()
    with caplog.at_level("INFO", logger="hzmj.server"), \
            metrics_client(tmp_path, "203.0.113.5") as c:  # no proxy: nothing to say
        c.get("/api/health")
    assert not [r for r in caplog.records if "X-Forwarded-For" in r.getMessage()]


@pytest.mark.parametrize("spec, peer, forwarded, client", [
    ("127.0.0.1", "127.0.0.1", "203.0.113.5", "203.0.113.5"),
    # a proxy at 127.0.0.1 on a dual-stack socket (--host ::): uvicorn alone ignored its
    # header, and every visitor counted as the proxy
    ("127.0.0.1", "::ffff:127.0.0.1", "203.0.113.5", "203.0.113.5"),
    ("10.0.0.0/8", "::ffff:10.1.2.3", "203.0.113.5", "203.0.113.5"),
    ("127.0.0.1", "203.0.113.9", "127.0.0.1", "203.0.113.9"),  # not a proxy: not believed
    ("", "127.0.0.1", "203.0.113.5", "127.0.0.1"),
    ("*", "203.0.113.9", "198.51.100.1", "198.51.100.1")])
def test_uvicorn_believes_x_forwarded_for_from_the_trusted_proxies_only(
        spec: str, peer: str, forwarded: str, client: str) -> None:
    import asyncio

    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    from hzmj.server.guard import TrustedProxies

    seen = []

    async def app(scope: dict[str, object], receive: object, send: object) -> None:
        seen.append(scope["client"])

    middleware = ProxyHeadersMiddleware(app, TrustedProxies(spec).uvicorn_hosts())  # type: ignore[arg-type]
    scope = {"type": "http", "client": (peer, 5000),
             "headers": [(b"x-forwarded-for", forwarded.encode())]}
    asyncio.run(middleware(scope, None, None))  # type: ignore[arg-type]
    assert seen[0][0] == client  # type: ignore[index]


def test_serve_hands_uvicorn_the_trusted_proxies_with_their_mapped_forms(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from hzmj.server import app as app_module

    given: dict[str, object] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: given.update(kw))
    monkeypatch.setattr(app_module, "tune_gc", lambda gen0: None)
    monkeypatch.setenv("HZMJ_FORWARDED_ALLOW_IPS", "10.0.0.7")
    app_module.serve(db=str(tmp_path / "s.db"))
    assert given["forwarded_allow_ips"] == "10.0.0.7/32,::ffff:10.0.0.7/128"
    app_module.serve(db=str(tmp_path / "s.db"), forwarded_allow_ips="")
    assert given["forwarded_allow_ips"] == ""


def test_a_private_room_is_not_listed_but_joined_by_its_link_even_after_a_restart(
        tmp_path: Path) -> None:
    cfg = ServerConfig(db=str(tmp_path / "p.db"), bot_delay=0, hand_pause=0, bot_workers=0)
    with TestClient(create_app(cfg)) as c:
        hidden = c.post("/api/rooms", json={"name": "friends", "private": True}).json()["room_id"]
        shown_id = c.post("/api/rooms", json={"name": "anyone"}).json()["room_id"]
        assert c.post("/api/rooms", json={"private": "yes"}).status_code == 422
        listed = {r["room_id"] for r in c.get("/api/rooms").json()["rooms"]}
        assert listed == {shown_id}
        assert {r["room_id"] for r in c.get("/api/rooms?all=true").json()["rooms"]} == {shown_id}
        info = c.get(f"/api/rooms/{hidden}").json()  # the link still works
        assert info["private"] is True and info["name"] == "friends"
        assert c.post(f"/api/rooms/{hidden}/seats", json={"name": "ann"}).status_code == 200
    with TestClient(create_app(cfg)) as c:  # restored from the database: still private
        assert c.get(f"/api/rooms/{hidden}").json()["private"] is True
        assert {r["room_id"] for r in c.get("/api/rooms").json()["rooms"]} == {shown_id}


def test_cluster_channels_name_the_redis_database() -> None:
    """Redis pub/sub spans the databases of a server: two clusters on one Redis server
    (db 1 and db 2) must use different channels, or each answers the other's forwarded
    requests (a 404 from the wrong cluster's node)."""
    import redis.asyncio as aioredis

    from hzmj.server.cluster import channel, lobby_channel, redis_db

    one = aioredis.Redis.from_url("redis://127.0.0.1:6379/1")
    two = aioredis.Redis.from_url("redis://127.0.0.1:6379/2")
    default = aioredis.Redis.from_url("redis://127.0.0.1:6379")
    assert [redis_db(r) for r in (one, two, default)] == [1, 2, 0]
    assert channel(1, "n0") == "hzmj:1:cmd:n0" and channel(2, "n0") == "hzmj:2:cmd:n0"
    assert lobby_channel(1) != lobby_channel(2)
    assert lobby_channel(0) == "hzmj:0:lobby"
