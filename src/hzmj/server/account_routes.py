"""The accounts API (``docs/protocol.md``, "Accounts"): sign-up, log-in, log-out, the
signed-in player and their matches, account deletion, profiles, the leaderboard and the
ratings at a table; and the link of every seat taken to its account or guest id."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from fastapi import APIRouter, Request, Response
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from hzmj.rules import Rules
from hzmj.server import ratings
from hzmj.server.account_protocol import (
    DELETED_PLAYER,
    DeleteAccount,
    Leaderboard,
    Login,
    Me,
    MyMatches,
    Ok,
    Profile,
    Register,
    SeatRatings,
    SignedIn,
)
from hzmj.server.accounts import (
    GUEST_COOKIE,
    SESSION_COOKIE,
    AccountRow,
    Accounts,
    Identity,
    SessionRow,
    account_info,
    login_key,
    now,
)
from hzmj.server.guard import client_address
from hzmj.server.history import (
    MatchPlayerRow,
    leaderboard_entries,
    link_seat,
    match_summaries,
    profile_of,
)
from hzmj.server.rooms import RoomError
from hzmj.server.storage import RoomRow, SeatRow, writing
from hzmj.shown import shown


def seat_name(who: Identity, typed: str) -> str:
    """A signed-in player sits under their display name; a guest under the typed one."""
    return who.account.display_name if who.account else typed


async def seat_taken(acc: Accounts, who: Identity, request: Request, response: Response,
                     room_id: str, seat: int) -> None:
    """Link a seat just taken to its account, or to this browser's guest id (replacing the
    link of whoever held it before and left; a seat handed to a bot is the bot's)."""
    guest = None if who.account else acc.guest_id(request, response, who)
    async with writing(acc.engine) as conn:
        await link_seat(conn, room_id, seat,
                        account_id=who.account.id if who.account else None, guest_hash=guest)


async def _rating(conn: AsyncConnection, subject: str) -> ratings.Rating:
    return (await ratings.load(conn, [subject])).get(subject, ratings.Rating())


def account_routes(get: Callable[[], Accounts]) -> APIRouter:
    """The accounts API; ``get`` returns the service once the server has started."""
    router = APIRouter()

    @router.post("/api/auth/register")
    async def register(body: Register, request: Request, response: Response) -> SignedIn:
        acc = get()
        acc.check_same_origin(request)
        # before the (slow, on purpose) password hash: sign-ups cost every client the same
        if not acc.signups.take(client_address(request)):
            raise RoomError(429, "too many sign-ups from this address: try again later",
                            "rate_limited")
        who = await acc.identify(request)
        password_hash = await acc.hash_password(body.password)
        async with writing(acc.engine) as conn:
            taken = await conn.execute(select(AccountRow.id).where(
                AccountRow.username == body.username))
            if taken.first() is not None:
                raise RoomError(409, f"user name {body.username!r} is taken")
            try:  # a sign-up of the same name that won the race since the check above
                account_id = (await conn.execute(insert(AccountRow).values(
                    public_id=secrets.token_hex(6), username=body.username,
                    display_name=body.display_name, password_hash=password_hash,
                    created_at=now()).returning(AccountRow.id))).scalar_one()
            except IntegrityError:
                raise RoomError(409, f"user name {body.username!r} is taken") from None
            account = (await conn.execute(select(AccountRow).where(
                AccountRow.id == account_id))).one()
            claimed = 0
            if who.guest_hash is not None:  # the guest becomes this account
                claimed = (await conn.execute(update(MatchPlayerRow).where(
                    MatchPlayerRow.guest_hash == who.guest_hash,
                    MatchPlayerRow.account_id.is_(None))
                    .values(account_id=account_id, guest_hash=None))).rowcount
            token, session = await acc.open_session(conn, account, body.bearer)
        if who.guest_hash is not None:
            response.delete_cookie(GUEST_COOKIE, path="/")
        return acc.signed_in(request, response, account, token, session, body.bearer,
                             ratings.Rating(), claimed)

    @router.post("/api/auth/login")
    async def login(body: Login, request: Request, response: Response) -> SignedIn:
        acc = get()
        acc.check_same_origin(request)
        user = body.username.strip().lower()
        address = client_address(request)
        if not acc.logins.take(address):
            raise RoomError(429, "too many log-ins from your address: try again in a minute",
                            "rate_limited")
        key = login_key(user, address)
        wait = max(acc.user_throttle.retry_after(key), acc.address_throttle.retry_after(address))
        if wait > 0:
            raise RoomError(429, f"too many failed log-ins: try again in {int(wait) + 1} s")
        # the failure is counted before the (slow) check, so a burst of parallel guesses
        # meets the limit too; a right password takes it back
        acc.user_throttle.fail(key)
        acc.address_throttle.fail(address)
        async with acc.engine.connect() as conn:
            account = (await conn.execute(select(AccountRow).where(
                AccountRow.username == user))).one_or_none()
        # an unknown user costs a hash too, so timing does not tell which names exist
        ok = await acc.check_password(account.password_hash if account else acc.dummy_hash,
                                      body.password)
        if account is None or not ok:
            raise RoomError(401, "wrong user name or password")
        acc.user_throttle.clear(key)
        acc.address_throttle.forgive(address)
        async with writing(acc.engine) as conn:
            token, session = await acc.open_session(conn, account, body.bearer)
            rating = await _rating(conn, ratings.account_subject(account.id))
        return acc.signed_in(request, response, account, token, session, body.bearer, rating)

    @router.post("/api/auth/logout")
    async def logout(request: Request, response: Response) -> Ok:
        acc = get()
        who = await acc.identify(request)
        acc.check_csrf(request, who)
        if who.session is not None:
            async with writing(acc.engine) as conn:
                await conn.execute(delete(SessionRow).where(
                    SessionRow.token_hash == who.session.token_hash))
        response.delete_cookie(SESSION_COOKIE, path="/")
        return Ok()

    @router.get("/api/me")
    async def me(request: Request) -> Me:
        acc = get()
        who = await acc.identify(request)
        if who.account is None:
            return Me(account=None, guest=who.guest_hash is not None, csrf=None)
        async with acc.engine.connect() as conn:
            rating = await _rating(conn, ratings.account_subject(who.account.id))
        return Me(account=account_info(who.account, rating), guest=who.guest_hash is not None,
                  csrf=who.session.csrf if who.via == "cookie" and who.session else None)

    @router.delete("/api/me")
    async def delete_me(body: DeleteAccount, request: Request, response: Response) -> Ok:
        acc = get()
        who = await acc.identify(request)
        acc.check_csrf(request, who)
        account = acc.account(who)
        key = login_key(account.username, client_address(request))
        wait = acc.user_throttle.retry_after(key)
        if wait > 0:
            raise RoomError(429, f"too many wrong passwords: try again in {int(wait) + 1} s")
        acc.user_throttle.fail(key)
        if not await acc.check_password(account.password_hash, body.password):
            raise RoomError(401, "wrong password")
        acc.user_throttle.clear(key)
        async with writing(acc.engine) as conn:
            seats = (await conn.execute(select(MatchPlayerRow.room_id, MatchPlayerRow.seat)
                                        .where(MatchPlayerRow.account_id == account.id))).all()
            for room_id, seat in seats:  # replays and tables show "deleted player"
                await conn.execute(update(SeatRow).where(
                    SeatRow.room_id == room_id, SeatRow.seat == seat, SeatRow.bot.is_(None))
                    .values(name=DELETED_PLAYER))
            await conn.execute(update(MatchPlayerRow).where(
                MatchPlayerRow.account_id == account.id).values(account_id=None))
            await conn.execute(delete(ratings.RatingRow).where(
                ratings.RatingRow.subject == ratings.account_subject(account.id)))
            await conn.execute(delete(SessionRow).where(SessionRow.account_id == account.id))
            await conn.execute(delete(AccountRow).where(AccountRow.id == account.id))
        for room_id, seat in seats:
            acc.rename_seat(room_id, seat, DELETED_PLAYER)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return Ok()

    @router.get("/api/me/matches")
    async def my_matches(request: Request, limit: int = 50) -> MyMatches:
        acc = get()
        who = await acc.identify(request)
        if who.account is None and who.guest_hash is None:
            return MyMatches(matches=[])
        mine = (MatchPlayerRow.account_id == who.account.id if who.account
                else MatchPlayerRow.guest_hash == who.guest_hash)
        async with acc.engine.connect() as conn:
            found = await match_summaries(conn, mine, max(1, min(limit, 200)))
        return MyMatches(matches=found)

    @router.get("/api/players/{player_id}")
    async def profile(player_id: str) -> Profile:
        acc = get()
        async with acc.engine.connect() as conn:
            found = await profile_of(conn, player_id)
        if found is None:
            raise RoomError(404, f"no player {player_id!r}")
        return found

    @router.get("/api/leaderboard")
    async def leaderboard(limit: int = 50) -> Leaderboard:
        acc = get()
        async with acc.engine.connect() as conn:
            return Leaderboard(entries=await leaderboard_entries(conn, max(1, min(limit, 200))))

    @router.get("/api/rooms/{room_id}/ratings")
    async def seat_ratings(room_id: str) -> SeatRatings:
        acc = get()
        async with acc.engine.connect() as conn:
            seats = (await conn.execute(select(SeatRow.seat, SeatRow.bot, SeatRow.name).where(
                SeatRow.room_id == room_id))).all()
            links = {seat: (account_id, display) for seat, account_id, display in (
                await conn.execute(select(
                    MatchPlayerRow.seat, MatchPlayerRow.account_id, AccountRow.display_name)
                    .outerjoin(AccountRow, AccountRow.id == MatchPlayerRow.account_id)
                    .where(MatchPlayerRow.room_id == room_id))).all()}
            subjects: dict[int, str] = {}
            signed_in: set[int] = set()
            for seat, bot, name in seats:
                account_id, display = links.get(seat, (None, None))
                if bot is not None:
                    subjects[seat] = ratings.bot_subject(bot)
                elif account_id is not None:
                    subjects[seat] = ratings.account_subject(account_id)
                    # marked only under the account's own display name: a guest seat that
                    # a sign-up claimed keeps the name the guest typed
                    if name == display:
                        signed_in.add(seat)
            known = await ratings.load(conn, list(subjects.values()))
            rules = (await conn.execute(select(RoomRow.rules).where(
                RoomRow.id == room_id))).scalar_one_or_none()
        if rules is None:
            raise RoomError(404, f"no room {shown(room_id)}")
        n = Rules.from_json(rules).players
        return SeatRatings(ratings=[
            known.get(subjects[i], ratings.Rating()).shown if i in subjects else None
            for i in range(n)], signed_in=[i in signed_in for i in range(n)])

    return router

