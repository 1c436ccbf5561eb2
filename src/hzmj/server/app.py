"""The FastAPI application: HTTP API, the WebSocket endpoint, and the browser client.

``create_app(config)`` builds it; :func:`serve` runs it on uvicorn (``hzmj serve``).
Paths and messages are described in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import logging.config
import os
import re
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import FastAPI, Header, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from fastapi.staticfiles import StaticFiles
from prometheus_client import generate_latest
from pydantic import BeforeValidator, ValidationError
from pythonjsonlogger.core import RESERVED_ATTRS
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from starlette.websockets import WebSocketDisconnect, WebSocketState

from hzmj import rulebook
from hzmj.hints import hints as seat_hints
from hzmj.record import replay_steps, seed_commitment
from hzmj.review import review as review_seat
from hzmj.rules import Rules, RulesError
from hzmj.server import metrics
from hzmj.server.account_protocol import Ok, warm_names
from hzmj.server.account_routes import account_routes, seat_name, seat_taken
from hzmj.server.accounts import Accounts, Throttle
from hzmj.server.bots import REVIEW_BOT, REVIEW_BOTS, UnknownBotError, get_bot, hint_bot
from hzmj.server.config import ServerConfig, tune_gc, unknown_variables
from hzmj.server.guard import (
    CONNECT_COUNTED,
    NETWORK_SHARE,
    TOO_MANY_CONNECTS,
    Bucket,
    BucketsByKey,
    RequestGuard,
    Strikes,
    TokenFilter,
    TrustedProxies,
    UnnamedVisitors,
    client_address,
    network_key,
    strict_json,
    too_many_connects,
)
from hzmj.server.history import rated_for_an_account, record_finished, seat_stats
from hzmj.server.protocol import (
    AddBot,
    BotAdded,
    CreateRoom,
    Health,
    Hints,
    Joined,
    JoinRoom,
    Left,
    Replay,
    Review,
    RoomCreated,
    RoomInfo,
    RoomList,
    SeatInfo,
    Share,
    SnapshotRequest,
    Started,
    client_message,
)
from hzmj.server.rooms import MOVING, Connection, Lobby, Room, RoomError, dissolved_reason
from hzmj.server.rules_page import base_language, book_language, rules_page
from hzmj.server.slow import raise_file_limit, request_deadline
from hzmj.server.storage import (
    StaleOwnerError,
    Store,
    StoredRoom,
    check_database,
    open_store,
    writing,
)
from hzmj.shown import clip, shown

log = logging.getLogger("hzmj.server")
REVIEW_CACHE = 256  # reviews kept (the least recently asked for goes first)
REVIEW_CONCURRENCY = 1  # reviews made at once per review worker (Lobby.reviewer)
REVIEW_QUEUE = 8  # reviews being made or waiting (at least one per slot); one more: 503
GRACEFUL_SHUTDOWN = 10  # seconds a stopping server waits for requests still running (a
# review being made) before it cancels them and stops the rooms
REVIEW_MAX_HANDS = 16  # a review covers the match's first hands only: its cost is bounded
REVIEW_PER_ADDRESS = 2  # of those, asked for by one client address (one more: 503)
QR_CACHE = 256  # share links' QR codes kept (the least recently asked for goes first);
# one a room and address used, so a Host header made up per request only churns it
REPLAY_MAX_HANDS = 200  # a replay covers the match's first hands only (a points match has
# no last hand: 3,067 hands took 11 s of the server's CPU and 49 MB a request, and four at
# once held 2.2 GB); 200 hands: about 1 s and 3 MB
WEB_DIR = Path(__file__).resolve().parent.parent / "web"
WS_MAX_FRAME = 64 * 1024  # uvicorn closes the socket (1009) above this; 4 KB is refused politely
WS_PROTOCOL = "hzmj"  # the WebSocket subprotocol; a seat token comes as "token.<TOKEN>"
TOKEN_PROTOCOL = "token."
T = TypeVar("T")


def _bearer(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


Auth = Annotated[str | None, Header()]


def _seat_text(value: Any) -> Any:
    """A seat in a URL is written as its digits only: ``1.0``, ``+1``, `` 1`` or ``1_0``
    (which the lax integer parsing would read as 1 or 10) are refused (422)."""
    if isinstance(value, str) and not (value.isascii() and value.isdigit() and len(value) <= 2):
        raise ValueError("a seat is written as a number 0, 1, 2 or 3")
    return value


SeatParam = Annotated[int, BeforeValidator(_seat_text)]


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The server application; ``config`` defaults to :meth:`ServerConfig.from_env`."""
    cfg = config or ServerConfig.from_env()
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # the look-alike table of seat names (0.1 to 0.2 s), before any request: built at
        # the first name a client sent, it stalled every table's clock and bot meanwhile
        await asyncio.to_thread(warm_names)
        store = await open_store(cfg.db_url)
        lobby = cluster_lobby(store, cfg, app) if cfg.redis else Lobby(store, cfg)
        accounts = Accounts(store.engine, cfg.session_days * 86400,
                            Throttle(cfg.login_failures, cfg.login_window),
                            Throttle(cfg.login_failures * 6, cfg.login_window),
                            BucketsByKey(cfg.signup_per_minute / 60, cfg.signup_burst),
                            BucketsByKey(cfg.login_per_minute / 60, cfg.login_burst),
                            rename_seat=lambda room_id, seat, name: _rename(lobby, room_id,
                                                                            seat, name))
        store.finish_hooks.append(lambda room_id, record: _after_match(store, room_id, record))
        store.rated = lambda room_id: _rated(store, room_id)
        await lobby.restore()
        state["store"], state["lobby"], state["accounts"] = store, lobby, accounts
        app.state.lobby = lobby  # for operators' tools and tests in the same process
        try:
            yield
        finally:
            await lobby.close()
            await store.close()

    app = FastAPI(title="hzmj table server", version="1", lifespan=lifespan)
    if cfg.redis:  # one node of many (docs/scaling.md): rooms owned elsewhere are sent there
        from hzmj.server.cluster import ClusterRouter

        app.add_middleware(ClusterRouter, lobby=lambda: state.get("lobby"))
    app.add_middleware(RequestGuard, max_body_bytes=cfg.max_body_bytes)
    creations = BucketsByKey(cfg.create_per_minute / 60, cfg.create_burst)
    joins = BucketsByKey(cfg.join_per_minute / 60, cfg.join_burst)
    shares = BucketsByKey(cfg.share_per_minute / 60, cfg.share_burst)
    hint_calls = BucketsByKey(cfg.hints_per_second, cfg.hints_burst)
    review_calls = BucketsByKey(cfg.hints_per_second, cfg.hints_burst)  # per address
    proxies = TrustedProxies(cfg.forwarded_allow_ips)
    app.add_middleware(UnnamedVisitors, proxies=proxies)
    # a wrong metrics token is a failed log-in of its address: the same allowance
    metrics_gate = metrics.Gate(cfg.metrics_token, proxies,
                                Throttle(cfg.login_failures, cfg.login_window),
                                Throttle(cfg.login_failures * NETWORK_SHARE, cfg.login_window))

    def lobby() -> Lobby:
        result: Lobby = state["lobby"]
        return result

    def store() -> Store:
        result: Store = state["store"]
        return result

    def accounts() -> Accounts:
        result: Accounts = state["accounts"]
        return result

    @app.exception_handler(RoomError)
    async def room_error(_: Request, exc: RoomError) -> JSONResponse:
        metrics.refused(exc.code)
        return JSONResponse({"detail": str(exc), "code": exc.code}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        # where and why, never the input itself: it may be a password, megabytes long,
        # or text (a lone surrogate) that cannot even be written back as JSON
        def clean(text: object) -> str:
            return str(text).encode("utf-8", "backslashreplace").decode("utf-8")[:200]
        errors = [{"loc": [clean(part) for part in error.get("loc", ())],
                   "msg": clean(error.get("msg", "")), "type": clean(error.get("type", ""))}
                  for error in exc.errors()[:20]]
        return JSONResponse({"detail": errors}, status_code=422)

    @app.exception_handler(RulesError)
    async def rules_error(_: Request, exc: RulesError) -> JSONResponse:
        return JSONResponse({"detail": str(exc), "option": exc.key}, status_code=422)

    @app.exception_handler(StaleOwnerError)
    async def stale_owner(_: Request, exc: StaleOwnerError) -> JSONResponse:
        return JSONResponse({"detail": MOVING}, status_code=503, headers={"retry-after": "1"})

    @app.exception_handler(SQLAlchemyError)
    async def database_error(request: Request, exc: SQLAlchemyError) -> JSONResponse:
        # a database that is busy (another process holds SQLite's lock) or gone: nothing
        # was done; the client may try again (the details stay in the server's log)
        log.warning("%s %s: database error: %s", request.method, request.url.path,
                    getattr(exc, "orig", exc))
        metrics.refused("storage")
        return JSONResponse({"detail": "the server's database cannot take this request "
                             "now; nothing changed: try again", "code": "storage"},
                            status_code=503, headers={"retry-after": "1"})

    @app.exception_handler(UnknownBotError)
    async def bot_error(_: Request, exc: UnknownBotError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    # ------------------------------------------------------------------ HTTP API

    @app.api_route("/api/health", methods=["GET", "HEAD"])  # HEAD: uptime monitors
    async def health() -> Health:
        lob = lobby()
        problems = lob.problems()
        return Health(ok=not problems, status="degraded" if problems else "ok",
                      problems=problems, rooms=len(lob.rooms), max_rooms=cfg.max_rooms,
                      bot_workers=lob.thinker.workers,
                      bot_worker_restarts=lob.thinker.restarts,
                      quarantined=len(lob.quarantined))

    @app.get("/metrics", include_in_schema=False)
    async def metrics_page(request: Request) -> Response:
        """Prometheus metrics of this process (``hzmj.server.metrics``): with
        ``Authorization: Bearer`` and ``metrics_token``, or to a loopback client that is
        no trusted proxy; 403 for anyone else, 429 for an address that sent too many
        wrong tokens (any token, until its failures age out)."""
        status, wait = metrics_gate.verdict(request)
        if status == 429:
            metrics.refused("rate_limited")
            return JSONResponse({"detail": "too many wrong metrics tokens from this "
                                 f"address; try again in {wait} s", "code": "rate_limited"},
                                status_code=429, headers={"retry-after": str(wait)})
        if status == 403:
            raise RoomError(403, "metrics are served with Authorization: Bearer and the "
                                 "server's metrics_token (HZMJ_METRICS_TOKEN), or to "
                                 "loopback clients that are no trusted proxy "
                                 "(docs/scaling.md, Metrics)", "forbidden")
        registry = state.get("metrics")
        if registry is None:
            registry = state["metrics"] = metrics.registry_for(lobby)
        return Response(generate_latest(registry), media_type=metrics.CONTENT_TYPE)

    @app.post("/api/rooms")
    async def create_room(body: CreateRoom, request: Request) -> RoomCreated:
        rules = Rules.from_dict(body.rules)
        address = client_address(request)
        if not creations.take(address):
            raise RoomError(429, f"too many new rooms: at most {cfg.create_per_minute:g} a "
                                 "minute from one address", "rate_limited")
        room = await lobby().create(rules, body.name, body.seed, address,  # "": UI names it
                                    body.private)
        return RoomCreated(room_id=room.id)

    @app.get("/api/rooms")
    async def list_rooms(all: bool = False) -> RoomList:
        rooms = await lobby().infos()
        return RoomList(rooms=[r for r in rooms if (all or r.status == "open")
                               and not r.private])  # a private room: by its link only

    @app.get("/api/rooms/{room_id}")
    async def get_room(room_id: str) -> RoomInfo:
        room = lobby().rooms.get(room_id)
        if room is not None:
            return room.info()
        return _finished_info(await _finished(room_id), cfg)

    @app.post("/api/rooms/{room_id}/seats")
    async def join(room_id: str, body: JoinRoom, request: Request,
                   response: Response) -> Joined:
        room = lobby().get(room_id)
        address = client_address(request)
        if not joins.take(address):
            raise RoomError(429, f"too many seats taken: at most {cfg.join_per_minute:g} a "
                                 "minute from one address", "rate_limited")
        who = await accounts().seat_holder(request)
        seat, token = await room.call(
            lambda: room.join(seat_name(who, body.name), body.seat, address,
                              display_name=who.account is not None))
        await seat_taken(accounts(), who, request, response, room_id, seat)
        return Joined(seat=seat, token=token)

    @app.post("/api/rooms/{room_id}/bots")
    async def add_bot(room_id: str, body: AddBot, authorization: Auth = None) -> BotAdded:
        room = lobby().get(room_id)
        await room.call(lambda: room.add_bot(_bearer(authorization), body.seat, body.bot))
        return BotAdded(seat=body.seat, bot=body.bot)

    @app.delete("/api/rooms/{room_id}/seats/{seat}")
    async def remove_seat(room_id: str, seat: SeatParam, authorization: Auth = None) -> Ok:
        room = lobby().get(room_id)
        await room.call(lambda: room.remove_seat(_bearer(authorization), seat))
        return Ok()

    @app.post("/api/rooms/{room_id}/start")
    async def start(room_id: str, authorization: Auth = None) -> Started:
        room = lobby().get(room_id)
        state_id = await room.call(lambda: room.start(_bearer(authorization)))
        return Started(state_id=state_id)

    @app.post("/api/rooms/{room_id}/leave")
    async def leave(room_id: str, authorization: Auth = None) -> Left:
        room = lobby().get(room_id)
        escaped = await _settled(room, lambda: room.leave(_bearer(authorization)))
        return Left(escaped=escaped)

    @app.get("/api/rooms/{room_id}/hints")
    async def hints(room_id: str, seat: SeatParam | None = None,
                    authorization: Auth = None) -> Hints:
        room = lobby().get(room_id)
        token = _bearer(authorization)
        if token is not None and not hint_calls.take(token):
            raise RoomError(429, f"too many hints: at most {cfg.hints_per_second:g} a second")
        # the view is read inside the actor (a consistent state); the analysis needs no more
        mine, view = await _settled(room, lambda: room.seat_view(token, seat))
        adviser = get_bot(hint_bot(cfg.hint_ms), room.seed + mine)
        return Hints.model_validate(await lobby().thinker.run(seat_hints, view, adviser))

    # a QR code is a function of its link alone: each is drawn once (off the event loop,
    # which it held ~8 ms) and kept, the newest QR_CACHE of them
    qr_codes: OrderedDict[str, str] = OrderedDict()

    @app.get("/api/rooms/{room_id}/share")
    async def share(room_id: str, request: Request) -> Share:
        """The room's link for friends, and its QR code (SVG)."""
        if not shares.take(client_address(request)):
            raise RoomError(429, f"too many share links: at most {cfg.share_per_minute:g} a "
                                 "minute from one address", "rate_limited")
        await get_room(room_id)  # 404 for an unknown room
        url = f"{public_base(request, cfg)}/room/{room_id}"
        svg = qr_codes.get(url)
        if svg is None:
            svg = qr_codes[url] = await asyncio.to_thread(_qr_svg, url)
            while len(qr_codes) > QR_CACHE:
                qr_codes.popitem(last=False)
        qr_codes.move_to_end(url)
        return Share(url=url, qr_svg=svg)

    # a finished match's record is served as the text stored (or made once), and parsed
    # off the event loop when needed: a points match of thousands of hands has a 10 MB
    # record, whose parsing and writing took 0.8 s of the loop a request (every table
    # stalled while a client asked for it again and again)
    @app.get("/api/matches/{room_id}/record")
    async def record(room_id: str) -> Response:
        text, _, _ = await _finished_record(room_id)
        return Response(text, media_type="application/json")

    @app.get("/api/matches/{room_id}/replay")
    async def replay(room_id: str) -> Replay:
        text, _, players = await _finished_record(room_id)
        return await asyncio.to_thread(_replay, text, players)

    # finished matches never change: reviews are kept (the newest REVIEW_CACHE), a review
    # asked for while it is being made waits for that one, and at most
    # REVIEW_CONCURRENCY per review worker run at once, in a pool of their own
    # (Lobby.reviewer) so that a live table's bot never waits behind one
    reviews: OrderedDict[tuple[str, int, str], Review] = OrderedDict()
    # reviews being made: the task, and the client address that asked first
    making: dict[tuple[str, int, str], tuple[asyncio.Task[Review], str]] = {}
    # one slot per review worker; one in all when reviews share the bot workers or run
    # in a thread (bot_workers 0)
    slots = REVIEW_CONCURRENCY * max(1, cfg.review_pool)
    review_slots = asyncio.Semaphore(slots)
    review_queue = max(REVIEW_QUEUE, slots)

    async def make_review(key: tuple[str, int, str], text: str) -> Review:
        try:
            async with review_slots:
                rec = await asyncio.to_thread(json.loads, text)
                try:  # a search over the whole match: in a review worker, off the loop
                    made = Review.model_validate(
                        await lobby().reviewer.run(review_seat, rec, key[1], key[2], None,
                                                   REVIEW_MAX_HANDS))
                except ValueError as exc:
                    raise RoomError(422, str(exc)) from None
                except RuntimeError:  # the review workers keep dying
                    raise RoomError(503, "the review could not be made: try again in a "
                                         "minute", "busy") from None
            reviews[key] = made
            while len(reviews) > REVIEW_CACHE:
                reviews.popitem(last=False)
            return made
        finally:
            del making[key]

    @app.get("/api/matches/{room_id}/review")
    async def review(room_id: str, seat: SeatParam, request: Request,
                     bot: str = REVIEW_BOT) -> Review:
        text, rules, _ = await _finished_record(room_id)
        key = (room_id, seat, bot)
        if key in reviews:
            reviews.move_to_end(key)
            return reviews[key]
        if key not in making:
            players = rules.players
            if not 0 <= seat < players:  # refused here, before it takes a place in line
                raise RoomError(422, f"seat must be 0..{players - 1}, got {seat}")
            get_bot(bot, 0)  # UnknownBotError → 422 (the oracle too)
            if bot not in REVIEW_BOTS:
                raise RoomError(422, "a review's bot must be one of "
                                     f"{', '.join(REVIEW_BOTS)}", "bad_bot")
            address = client_address(request)
            if (len(making) >= review_queue
                    or sum(a == address for _, a in making.values()) >= REVIEW_PER_ADDRESS):
                raise RoomError(503, "too many reviews are being made: try again in a "
                                     "minute", "busy")
            if not review_calls.take(address):
                raise RoomError(429, f"too many reviews: at most {cfg.hints_per_second:g} "
                                     "a second", "rate_limited")
            task = asyncio.create_task(make_review(key, text), name=f"hzmj-review-{room_id}")
            # the work is the task's, not this request's: a client that goes away cancels
            # nothing, and whoever asks meanwhile waits for the same review
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
            making[key] = (task, address)
        return await asyncio.shield(making[key][0])

    async def _finished_record(room_id: str
                               ) -> tuple[str, Rules, list[str | None]]:
        """A finished or dissolved match's record (JSON text, not parsed here), its rules
        and its seats' names; 409 before the end."""
        room = lobby().rooms.get(room_id)
        if room is not None:
            if room.match is None or room.status != "over":
                raise RoomError(409, "the match is not over yet", "not_over")
            return room.finished_record_text(), room.rules, [s.name for s in room.seats]
        stored = await _finished(room_id)
        if stored.record_text is None:
            raise RoomError(409, "the match is not over yet", "not_over")
        names = {s.seat: s.name for s in stored.seats}
        rules = Rules.from_dict(stored.rules)
        return stored.record_text, rules, [names.get(i) for i in range(rules.players)]

    async def _gone(room_id: str) -> str:
        """Why a WebSocket finds no room ``room_id`` here (a close reason: ≤ 123 bytes)."""
        if await store().room_status(room_id) == "dissolved":
            return dissolved_reason(cfg.unattended_limit)
        return f"no room {clip(ascii(room_id))}"

    async def _finished(room_id: str) -> StoredRoom:
        found = await store().load_rooms(room_id=room_id)
        if not found:
            raise RoomError(404, f"no room {shown(room_id)}", "no_room")
        return found[0]

    app.include_router(account_routes(accounts))

    # ------------------------------------------------------------------ WebSocket

    watching: Counter[str] = Counter()  # spectator sockets per client address

    @app.websocket("/ws/rooms/{room_id}")
    async def play(ws: WebSocket, room_id: str) -> None:
        offered = ws.scope.get("subprotocols") or []
        token = next((p[len(TOKEN_PROTOCOL):] for p in offered
                      if p.startswith(TOKEN_PROTOCOL)), None)
        await ws.accept(subprotocol=WS_PROTOCOL if WS_PROTOCOL in offered else None)
        # before any work (a token check, a snapshot): one address opening and closing
        # sockets in a loop; a cluster's router counted it where the client came in
        if (not ws.scope.get(CONNECT_COUNTED)
                and not await lobby().take_connect(client_address(ws))):
            metrics.refused("rate_limited")
            await ws.close(TOO_MANY_CONNECTS, too_many_connects(cfg.connects_per_second))
            return
        if "token" in ws.query_params:
            await ws.close(4400, "send the token as the subprotocol token.<TOKEN>, "
                                 "never in the URL")
            return
        room = lobby().rooms.get(room_id)
        if room is None:
            await ws.close(4404, await _gone(room_id))
            return
        seat = room.seat_of_token(token) if token else None
        if token and seat is None:
            await ws.close(4401, "invalid token")
            return
        address = client_address(ws) if seat is None else None
        # an IPv6 /64 counts under its /48 too, which holds NETWORK_SHARE times as many:
        # a site's 65,536 /64s would hold as many allowances (the process's files)
        counted = [] if address is None else [address, *filter(None, [network_key(address)])]
        if counted:
            # spectators need no token: one address may watch with so many sockets in all
            # (a socket per room held every open room alive, and the room cap with them)
            limits = (cfg.spectators_per_address, cfg.spectators_per_address * NETWORK_SHARE)
            if any(watching[key] >= limit  # counted: the address, then its /48 if any
                   for key, limit in zip(counted, limits, strict=False)):
                await ws.close(4429, f"too many spectator connections from your address "
                                     f"(limit {cfg.spectators_per_address})")
                return
            watching.update(counted)
        try:
            conn = Connection(seat)
            try:
                refused = await room.call(lambda: room.connect(conn))
            except RoomError as exc:  # the room stopped here meanwhile (moved, evicted)
                refused = 1013, str(exc)
            if refused is not None:
                await ws.close(*refused)
                return
            sender = _pump(ws, conn)
            try:
                await _receive(ws, room, conn, cfg)
            finally:
                room.post(lambda: room.disconnect(conn))
                conn.close(1000, "bye")
                await sender
        finally:
            watching.subtract(counted)
            for key in counted:
                if not watching[key]:
                    del watching[key]

    # ------------------------------------------------------------------ browser client

    web = Path(cfg.web_dir) if cfg.web_dir else WEB_DIR

    def page(name: str) -> Response:
        path = web / name
        if path.is_file():
            return FileResponse(path)
        return PlainTextResponse(f"{name} is not installed; the API is at /api", 404)

    async def _settled(room: Room, job: Callable[[], Awaitable[T]]) -> T:
        """Run ``job`` in the room, waiting (briefly) while a discard is being settled."""
        for _ in range(100):
            try:
                return await room.call(job)
            except RoomError as exc:
                if exc.status != 425:
                    raise
            await asyncio.sleep(0.05)
        return await room.call(job)

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        return page("index.html")

    @app.get("/room/{room_id}", include_in_schema=False)
    async def room_page(room_id: str) -> Response:
        return page("index.html")

    @app.get("/account", include_in_schema=False)
    @app.get("/matches", include_in_schema=False)
    async def account_page() -> Response:
        return page("account.html")

    @app.get("/players/{player_id}", include_in_schema=False)
    async def player_page(player_id: str) -> Response:
        return page("account.html")

    @app.get("/replay/{room_id}", include_in_schema=False)
    async def replay_page(room_id: str) -> Response:
        return page("replay.html")

    @app.get("/rules", include_in_schema=False)
    async def rules(request: Request, lang: str | None = None) -> Response:
        """The rule book: ``?lang=en|zh`` (a regional tag such as ``zh-CN`` or ``en_GB``
        reads as its language), else the language Accept-Language prefers."""
        book = (base_language(lang) if lang else
                book_language(request.headers.get("accept-language", "")))
        try:
            book_page = rules_page(book)
        except rulebook.UnknownLanguageError as exc:
            return PlainTextResponse(str(exc), 404)
        return HTMLResponse(book_page, headers={"Vary": "Accept-Language"})

    app.mount("/static", StaticFiles(directory=web, check_dir=False), name="static")
    return app


def cluster_lobby(store: Store, cfg: ServerConfig, app: FastAPI) -> Lobby:
    """This node's lobby in a cluster (``cfg.redis``), able to run requests for others."""
    from hzmj.server.cluster import ClusterLobby

    lobby = ClusterLobby(store, cfg)
    lobby.app = app
    return lobby



def public_base(request: Request, cfg: ServerConfig) -> str:
    """The address friends should use: ``--public-url``; else the address this visitor
    used (the scheme and client as forwarded by a trusted proxy, its Host header); a
    visitor on this machine's loopback gets the LAN address when the server listens on
    every interface (``--host 0.0.0.0``)."""
    if cfg.public_url:
        return cfg.public_url.rstrip("/")
    base = str(request.base_url).rstrip("/")
    host = request.url.hostname or ""
    if cfg.lan_url and host in ("127.0.0.1", "localhost", "::1"):
        return cfg.lan_url.rstrip("/")
    return base


def _qr_svg(url: str) -> str:
    import io

    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=4, border=2, xmldecl=False,
                                    svgns=True, dark="#111", light="#fff")
    return out.getvalue().decode()


async def _after_match(store: Store, room_id: str, record: dict[str, Any]) -> None:
    """History and ratings of a match just over, or dissolved (its record's ``over`` is
    false: no place, no rating); the replay runs off the event loop."""
    stats = await asyncio.to_thread(seat_stats, record)
    async with writing(store.engine) as conn:
        await record_finished(conn, room_id, stats, over=record.get("over") is True)


async def _rated(store: Store, room_id: str) -> bool:
    """:func:`hzmj.server.history.rated_for_an_account`, on a connection of its own."""
    async with store.engine.connect() as conn:
        return await rated_for_an_account(conn, room_id)


def _rename(lobby: Lobby, room_id: str, seat: int, name: str) -> None:
    """A live room's seat takes a new name (an account deleted: "deleted player")."""
    room = lobby.rooms.get(room_id)
    if room is not None:
        room.post(lambda: room.rename_seat(seat, name))


def _replay(text: str, players: list[str | None]) -> Replay:
    """Every step of a finished match's first :data:`REPLAY_MAX_HANDS` hands, rebuilt
    from its record (``text``, JSON) alone; the events in full form, as a finished hand
    may be replayed openly (RULES §13); with the seed, salt and commitment for the page
    to check."""
    record = json.loads(text)
    match, steps = replay_steps(record, REPLAY_MAX_HANDS)
    hands = record.get("hands")
    return Replay.model_validate({"rules": record["rules"], "players": players,
                                  "steps": [s.to_json() for s in steps],
                                  "seed": record["seed"], "seed_text": str(record["seed"]),
                                  "salt": record.get("salt"),
                                  "commitment": record.get("commitment"),
                                  "hands": len(hands) if isinstance(hands, list) else 0,
                                  "hands_replayed": len(match.results)})


def _finished_info(stored: StoredRoom, cfg: ServerConfig) -> RoomInfo:
    """A room no longer in memory, as stored: finished, dissolved (its seed and salt
    revealed alike: neither is ever played on), expired; 410 when quarantined."""
    if stored.status == "broken":
        raise RoomError(410, f"room {stored.id} could not be rebuilt and is quarantined")
    rules = Rules.from_dict(stored.rules)
    taken = {s.seat: s for s in stored.seats}
    seats = []
    for i in range(rules.players):
        s = taken.get(i)
        seats.append(SeatInfo(seat=i, name=s.name if s else None, bot=s.bot if s else None,
                              connected=False, auto=False, left=bool(s and s.left),
                              owner=i == stored.owner_seat))
    ended = stored.status in ("over", "dissolved")
    return RoomInfo(
        room_id=stored.id, name=stored.name, status=stored.status,  # type: ignore[arg-type]
        rules=rules.to_dict(), seats=seats,
        free_seats=[i for i in range(rules.players) if i not in taken],
        state_id=None, hand_no=None,
        # the record's own, without reading it (10 MB for thousands of hands)
        commitment=seed_commitment(stored.seed, stored.salt) if stored.record_text else None,
        seed=stored.seed if ended else None, salt=stored.salt if ended else None,
        private=stored.private, dissolved_after=round(cfg.unattended_limit)
        if stored.status == "dissolved" else None)


def _pump(ws: WebSocket, conn: Connection) -> asyncio.Task[None]:
    async def pump() -> None:
        try:
            while True:
                item = await conn.get()
                while True:  # a step's messages come together: send them in one wake-up
                    if isinstance(item, tuple):
                        if ws.application_state == WebSocketState.CONNECTED:
                            await ws.close(*item)
                        return
                    await ws.send_text(item)
                    try:
                        item = conn.get_nowait()
                    except asyncio.QueueEmpty:
                        break
        except (WebSocketDisconnect, RuntimeError, OSError):
            conn.closed = True

    return asyncio.create_task(pump())


async def _receive(ws: WebSocket, room: Room, conn: Connection, cfg: ServerConfig) -> None:
    """Read client messages until the socket closes; refuse what is too big, malformed,
    unknown or too frequent without bothering the room.  Refusals for rate are strikes
    that expire after ``strike_window``: only a sustained flood closes the socket."""
    bucket = Bucket(cfg.rate_per_second, cfg.rate_burst)
    snapshots = Bucket(cfg.snapshots_per_second, cfg.snapshot_burst)  # the costly one
    strikes = Strikes(cfg.strike_window)
    while not conn.closed:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        if text is None:
            raw = message.get("bytes") or b""
            text = raw.decode("utf-8", "replace")
        if not bucket.take():
            if strikes.add() >= cfg.flood_strikes:
                conn.close(1008, "flood: too many messages")
                return
            conn.error(f"rate limit: at most {cfg.rate_per_second:g} messages a second")
            continue
        if len(text.encode()) > cfg.max_message_bytes:
            conn.error(f"message too large (limit {cfg.max_message_bytes} bytes)")
            continue
        parsed = _parse(text)
        if isinstance(parsed, str):
            conn.error(parsed)
            continue
        if isinstance(parsed, SnapshotRequest) and not snapshots.take():
            conn.error(f"too many snapshots: at most {cfg.snapshots_per_second:g} a second",
                       "rate_limited")
            continue
        room.post(lambda msg=parsed: room.on_message(conn, msg))  # type: ignore[misc]


def _parse(text: str) -> Any:
    """The client message, or a reason why it is refused."""
    try:
        data = strict_json(text)
    except ValueError as exc:
        return str(exc)
    if not isinstance(data, dict):
        return "a message must be a JSON object"
    kind = data.get("type")
    if kind not in ("action", "snapshot", "auto", "ready", "phrase"):
        return (f"unknown message type {shown(kind)} "
                "(expected action, snapshot, auto, ready or phrase)")
    try:
        return client_message.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or kind
        return f"bad {kind} message: {where}: {first['msg']}"


def lan_address() -> str | None:
    """This machine's address on its local network (no packet is sent), or None."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: only picks the outgoing interface
            address: str = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def _shown_database(url: str) -> str:
    """``url`` as the server prints it: the password hidden, cut to 120 characters; a URL
    SQLAlchemy cannot read is not shown at all (it may hold a password)."""
    try:
        return clip(make_url(url).render_as_string(hide_password=True), 120)
    except Exception:  # ArgumentError, or ValueError for a port that is not a number
        return "given (a URL that cannot be read)"


def serve(host: str = "127.0.0.1", port: int = 8000, db: str | None = None,
          log_level: str = "info", public_url: str | None = None,
          forwarded_allow_ips: str | None = None, redis: str | None = None,
          node_url: str | None = None, node_id: str | None = None) -> None:
    """Run the server until interrupted (``hzmj serve``).

    ``host`` 0.0.0.0 opens it to the network; ``public_url`` (``https://mj.example.org``)
    is the address share links and QR codes use; ``forwarded_allow_ips`` are the proxies
    whose X-Forwarded-Proto / -For headers are believed (a TLS proxy in front: wss).
    With ``redis`` it runs as one node of a cluster (docs/scaling.md) that the other nodes
    reach at ``node_url``.
    """
    import uvicorn

    if redis and not node_url:
        node_url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
    lan = lan_address() if host in ("0.0.0.0", "::") else None
    try:
        cfg = ServerConfig.from_env(db=db, public_url=public_url,
                                    forwarded_allow_ips=forwarded_allow_ips,
                                    lan_url=f"http://{lan}:{port}" if lan else None,
                                    redis=redis, node_url=node_url, node_id=node_id)
    except ValueError as exc:  # an HZMJ_* variable that does not parse or is out of range
        raise SystemExit(f"error: {exc}") from None
    db_shown = _shown_database(cfg.db_url)
    if cfg.redis and cfg.db_url.startswith("sqlite"):
        raise SystemExit("error: --redis needs a shared database (--db postgresql://…), "
                         "not SQLite")
    problem = asyncio.run(check_database(cfg.db_url))
    if problem:
        raise SystemExit(f"error: cannot open the database {db_shown}: {problem}")
    logs = log_config(log_level, cfg.log_format)
    logging.config.dictConfig(logs)
    for warning in unknown_variables(os.environ):  # said in the log's own format
        log.warning(warning)
    node = f", node at {cfg.node_url}, Redis {_hide(cfg.redis)}" if cfg.redis else ""
    local = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    print(f"hzmj table server: open http://{local}:{port}/  (database {db_shown}{node})",
          flush=True)
    if cfg.public_url:
        print(f"  friends use {cfg.public_url}", flush=True)
    elif lan:
        print(f"  friends on your network use http://{lan}:{port}/", flush=True)
    app = create_app(cfg)
    tune_gc(cfg.gc_gen0)  # the server process (tests that make an app keep theirs)
    raise_file_limit()  # a socket is a file: Linux often starts a process at 1024
    uvicorn.run(app, host=host, port=port, log_level=log_level, log_config=logs,
                proxy_headers=True,
                forwarded_allow_ips=TrustedProxies(cfg.forwarded_allow_ips).uvicorn_hosts(),
                **uvicorn_options(cfg))


def log_config(log_level: str, log_format: str) -> dict[str, Any]:
    """The server's :func:`logging.config.dictConfig`: every logger (the server's,
    uvicorn's, its access log) through one handler on stderr that blanks seat tokens
    (:class:`~hzmj.server.guard.TokenFilter`), as text (``LEVEL logger: message``) or as
    JSON, one object a line with ``time``, ``level``, ``logger`` and ``message``
    (``HZMJ_LOG_FORMAT=json``, for a log collector); alembic's below warnings hidden."""
    level = 5 if log_level.lower() == "trace" else log_level.upper()  # uvicorn's TRACE is 5
    formatter: dict[str, Any] = (
        {"()": "pythonjsonlogger.json.JsonFormatter",
         "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
         "datefmt": "%Y-%m-%dT%H:%M:%S%z",
         "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
         # uvicorn's coloured copy of the message is for terminals
         "reserved_attrs": [*RESERVED_ATTRS, "color_message"],
         "json_ensure_ascii": False}
        if log_format == "json" else {"format": "%(levelname)s %(name)s: %(message)s"})
    quiet = {"handlers": ["stderr"], "level": level, "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"tokens": {"()": TokenFilter}},
        "formatters": {"main": formatter},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "main",
                                "filters": ["tokens"], "stream": "ext://sys.stderr"}},
        "root": {"handlers": ["stderr"], "level": level},
        "loggers": {"uvicorn": quiet, "uvicorn.error": {"level": level},
                    "uvicorn.access": quiet, "alembic": {"level": "WARNING"}},
    }


def uvicorn_options(cfg: ServerConfig) -> dict[str, Any]:
    """uvicorn's settings for the table server: the WebSocket frame limit, the graceful
    shutdown, and a deadline for each request and each write (:mod:`hzmj.server.slow`)."""
    return {"timeout_graceful_shutdown": GRACEFUL_SHUTDOWN, "ws_max_size": WS_MAX_FRAME,
            "ws_per_message_deflate": False, "http": request_deadline(cfg.request_seconds)}


def _hide(url: str) -> str:
    """A URL without its password, for logs."""
    return re.sub(r"//([^:/@]*):[^@]*@", r"//\1:***@", url)
