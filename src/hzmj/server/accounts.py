"""Accounts (optional: anyone can play as a guest), sessions, guest ids, and the
accounts API (``docs/protocol.md``, "Accounts").

* Passwords are hashed with argon2id (argon2-cffi; 19 MiB, 2 passes, 1 lane) off the
  event loop; never stored or logged in clear.
* A session is a random token stored as its SHA-256: an HttpOnly, SameSite=Lax cookie
  for the browser, or ``Authorization: Bearer hzs_…`` for API clients.  Every POST and
  DELETE made with the cookie must carry the session's ``X-CSRF-Token``; sign-up and
  log-in (no session yet) must be JSON from this origin.  Sessions expire after
  ``ServerConfig.session_days``.
* A browser without an account gets a guest id cookie when it takes a seat; signing up
  in that browser moves the guest's matches to the new account.
* Failed log-ins are throttled per user name *and* client address (an attacker
  elsewhere cannot lock the owner out) and per client address; sign-ups are limited per
  client address.  The counters live in each server process: in a cluster every node
  counts for itself (docs/scaling.md).
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import Request, Response
from sqlalchemy import Float, ForeignKey, Integer, Row, String, delete, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.orm import Mapped, mapped_column

from hzmj.server import ratings
from hzmj.server.account_protocol import Account, SignedIn
from hzmj.server.guard import BucketsByKey
from hzmj.server.rooms import RoomError
from hzmj.server.storage import Base, hash_token

SESSION_COOKIE = "hzmj_session"
GUEST_COOKIE = "hzmj_guest"
CSRF_HEADER = "X-CSRF-Token"
BEARER_PREFIX = "hzs_"  # tells a session token from a seat token in Authorization
# argon2id at OWASP's recommended minimum (19 MiB, 2 passes, 1 lane): one lane, because a
# small shared server's event loop must keep its other core
PASSWORD_HASHER = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)


def now() -> float:
    """Wall-clock seconds (tests move it to expire sessions)."""
    return time.time()


class AccountRow(Base):
    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    public_id: Mapped[str] = mapped_column(String(16), unique=True)
    username: Mapped[str] = mapped_column(String(24), unique=True)
    display_name: Mapped[str] = mapped_column(String(24))
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[float] = mapped_column(Float)


MAX_SESSIONS = 20
"""Sessions one account keeps (browsers and bearer tokens); the oldest go first."""


class SessionRow(Base):
    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[float] = mapped_column(Float)
    expires_at: Mapped[float] = mapped_column(Float)


@dataclass
class Identity:
    """Who is asking: an account (through a cookie or bearer session), a guest id, both
    (a signed-in browser keeps its guest cookie), or nobody."""

    account: Row[Any] | None = None  # an accounts row
    session: Row[Any] | None = None  # a sessions row
    via: Literal["cookie", "bearer"] | None = None
    guest_hash: str | None = None


MAX_THROTTLED = 100_000  # keys a throttle keeps before it sweeps out the stale ones


def login_key(username: str, address: str) -> str:
    """The failed log-in counter of one account *from one client address*: guesses
    from elsewhere never lock the owner out (the per-address counter limits those)."""
    return f"{username}\n{address}"


class Throttle:
    """At most ``limit`` failures per key in ``window`` seconds."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit, self.window = limit, window
        self.failures: dict[str, deque[float]] = defaultdict(deque)

    def retry_after(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        times = self.failures.get(key)
        if not times:
            return 0.0
        t = now()
        while times and times[0] <= t - self.window:
            times.popleft()
        if not times:
            del self.failures[key]
            return 0.0
        return times[0] + self.window - t if len(times) >= self.limit else 0.0

    def fail(self, key: str) -> None:
        if len(self.failures) > MAX_THROTTLED:  # many keys: forget the ones past the window
            for stale in [k for k, times in self.failures.items()
                          if not times or times[-1] <= now() - self.window]:
                del self.failures[stale]
        self.failures[key].append(now())

    def clear(self, key: str) -> None:
        self.failures.pop(key, None)

    def forgive(self, key: str) -> None:
        """Take back the latest failure of ``key`` (one reserved before a check that
        then passed)."""
        times = self.failures.get(key)
        if times:
            times.pop()


@dataclass
class Accounts:
    """The accounts service of one server (its routes: :func:`account_routes`)."""

    engine: AsyncEngine
    session_seconds: float
    user_throttle: Throttle  # keyed by login_key(user name, client address)
    address_throttle: Throttle
    signups: BucketsByKey = field(default_factory=lambda: BucketsByKey(2 / 60, 5))
    # log-ins of one client address, right or wrong (each costs a password hash)
    logins: BucketsByKey = field(default_factory=lambda: BucketsByKey(20 / 60, 40))
    hasher: PasswordHasher = field(default_factory=lambda: PASSWORD_HASHER)
    # renames the seats of live rooms when an account is deleted: (room, seat, name)
    rename_seat: Callable[[str, int, str], None] = lambda *_: None
    dummy_hash: str = ""

    def __post_init__(self) -> None:
        self.dummy_hash = self.hasher.hash(secrets.token_urlsafe(16))

    # -- passwords (argon2id, in a thread: hashing is slow on purpose) -------------------

    async def hash_password(self, password: str) -> str:
        return await asyncio.to_thread(self.hasher.hash, password)

    async def check_password(self, stored: str, password: str) -> bool:
        def verify() -> bool:
            try:
                return self.hasher.verify(stored, password)
            except (VerificationError, InvalidHashError):
                return False
        return await asyncio.to_thread(verify)

    # -- identity --------------------------------------------------------------------

    async def identify(self, request: Request) -> Identity:
        who = Identity()
        guest = request.cookies.get(GUEST_COOKIE)
        if guest:
            who.guest_hash = hash_token(guest)
        auth = request.headers.get("authorization", "")
        token: str | None = None
        via: Literal["cookie", "bearer"] | None = None
        if auth.lower().startswith("bearer ") and auth[7:].strip().startswith(BEARER_PREFIX):
            token, via = auth[7:].strip(), "bearer"
        elif request.cookies.get(SESSION_COOKIE):
            token, via = request.cookies[SESSION_COOKIE], "cookie"
        if token is None:
            return who
        async with self.engine.connect() as conn:
            session = (await conn.execute(select(SessionRow).where(
                SessionRow.token_hash == hash_token(token)))).one_or_none()
            if session is None or session.expires_at <= now():
                return who
            account = (await conn.execute(select(AccountRow).where(
                AccountRow.id == session.account_id))).one_or_none()
        who.session, who.account, who.via = session, account, via
        return who

    def check_csrf(self, request: Request, who: Identity) -> None:
        """Refuse a cookie-authenticated change without the session's CSRF token (403)."""
        if who.via != "cookie" or who.session is None:
            return
        sent = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(sent.encode(), who.session.csrf.encode()):
            raise RoomError(403, f"missing or wrong {CSRF_HEADER} header (CSRF protection)")

    @staticmethod
    def check_same_origin(request: Request) -> None:
        """Sign-up and log-in: JSON only (no cross-site form can send it) and, when the
        browser names an origin, this one."""
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise RoomError(415, "send JSON (Content-Type: application/json)")
        origin = request.headers.get("origin")
        if origin is not None and origin.split("://", 1)[-1] != request.headers.get("host"):
            raise RoomError(403, "cross-site request refused (CSRF protection)")

    def account(self, who: Identity) -> Row[Any]:
        if who.account is None:
            raise RoomError(401, "sign in first (session cookie or Authorization: Bearer)")
        return who.account

    # -- sessions ----------------------------------------------------------------------

    async def open_session(self, conn: AsyncConnection, account: Row[Any],
                           bearer: bool) -> tuple[str, SessionRow]:
        token = (BEARER_PREFIX if bearer else "") + secrets.token_urlsafe(32)
        t = now()
        row = SessionRow(token_hash=hash_token(token), account_id=account.id,
                         csrf=secrets.token_urlsafe(24), created_at=t,
                         expires_at=t + self.session_seconds)
        await conn.execute(insert(SessionRow).values(
            token_hash=row.token_hash, account_id=row.account_id, csrf=row.csrf,
            created_at=row.created_at, expires_at=row.expires_at))
        # expired sessions of anyone are dropped as new ones open, and an account keeps
        # its newest MAX_SESSIONS (a loop of log-ins stored a session each)
        await conn.execute(delete(SessionRow).where(SessionRow.expires_at <= t))
        newest = (select(SessionRow.token_hash).where(SessionRow.account_id == account.id)
                  .order_by(SessionRow.created_at.desc()).limit(MAX_SESSIONS))
        await conn.execute(delete(SessionRow).where(SessionRow.account_id == account.id,
                                                    SessionRow.token_hash.not_in(newest)))
        return token, row

    def signed_in(self, request: Request, response: Response, account: Row[Any],
                  token: str, session: SessionRow, bearer: bool, rating: ratings.Rating,
                  claimed: int = 0) -> SignedIn:
        if not bearer:
            response.set_cookie(SESSION_COOKIE, token, max_age=int(self.session_seconds),
                                httponly=True, samesite="lax",
                                secure=request.url.scheme == "https", path="/")
        return SignedIn(account=account_info(account, rating),
                        csrf=None if bearer else session.csrf, token=token if bearer else None,
                        expires_at=session.expires_at, claimed_matches=claimed)

    # -- guests ------------------------------------------------------------------------

    def guest_id(self, request: Request, response: Response, who: Identity) -> str:
        """This browser's guest id hash, giving it a guest cookie if it has none."""
        if who.guest_hash is None:
            token = secrets.token_urlsafe(24)
            response.set_cookie(GUEST_COOKIE, token, max_age=400 * 86400, httponly=True,
                                samesite="lax", secure=request.url.scheme == "https", path="/")
            who.guest_hash = hash_token(token)
        return who.guest_hash

    async def seat_holder(self, request: Request) -> Identity:
        """Who takes a seat with this request (a cookie session must send its CSRF
        token: taking a seat in someone's name is a change)."""
        who = await self.identify(request)
        self.check_csrf(request, who)
        return who


def account_info(row: Row[Any], rating: ratings.Rating) -> Account:
    return Account(id=row.public_id, username=row.username, display_name=row.display_name,
                   rating=rating.shown, rating_sigma=round(rating.sigma),
                   rated_matches=rating.matches)
