"""Who played each match and how it went: the ``match_players`` table.

A seat is linked to its account or guest id when it is taken (:func:`link_seat`; a seat
left before the start keeps its link until someone else takes it, and a seat handed to a
bot is the bot's); when
the match ends (:func:`record_finished`, called by the store) every seat gets its place,
points and hand statistics, read from the record by replaying it, and the ratings of its
accounts and bots are updated (:mod:`hzmj.server.ratings`).  A dissolved match (stopped
for good with nobody at the table) keeps its seats' points and hands so far with no
place: it is listed among a player's matches, marked dissolved, and counts in no total
and no rating (docs/rules-decisions.md).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import quote

from sqlalchemy import (
    ColumnElement,
    Float,
    ForeignKey,
    Integer,
    String,
    case,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import Mapped, mapped_column

from hzmj.record import replay_steps
from hzmj.scoring import ChainStats
from hzmj.server import ratings
from hzmj.server.account_protocol import (
    LeaderboardEntry,
    MatchSummary,
    PlayerSummary,
    Profile,
    RatingPoint,
    SeatName,
)
from hzmj.server.accounts import AccountRow
from hzmj.server.storage import Base, RoomRow, SeatRow


class MatchPlayerRow(Base):
    __tablename__ = "match_players"

    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True)
    guest_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    bot: Mapped[str | None] = mapped_column(String(32), nullable=True)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    place: Mapped[int | None] = mapped_column(Integer, nullable=True)
    points: Mapped[int | None] = mapped_column(Integer, nullable=True)
    delta: Mapped[int | None] = mapped_column(Integer, nullable=True)
    hands: Mapped[int | None] = mapped_column(Integer, nullable=True)
    wins: Mapped[int | None] = mapped_column(Integer, nullable=True)
    self_draws: Mapped[int | None] = mapped_column(Integer, nullable=True)
    baotou: Mapped[int | None] = mapped_column(Integer, nullable=True)
    caipiao: Mapped[int | None] = mapped_column(Integer, nullable=True)
    gangkai: Mapped[int | None] = mapped_column(Integer, nullable=True)
    multiplier_sum: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rating_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    rating_after: Mapped[float | None] = mapped_column(Float, nullable=True)


@dataclass
class SeatStats:
    """One seat's match: final ``points``, ``delta`` (points won or lost over the match),
    ``place`` (1 = most points, ties share), and its wins by kind."""

    place: int
    points: int
    delta: int
    hands: int
    wins: int = 0
    self_draws: int = 0
    baotou: int = 0  # every 爆头 reading, 财飘 and 七客 included (RULES §9.1 rows 3, 6)
    caipiao: int = 0  # 爆头 after at least one 财神 discard (RULES §9.1 row 3)
    gangkai: int = 0  # standard, not 爆头, on a kong replacement (RULES §9.1 row 2)
    multiplier_sum: int = 0


def seat_stats(record: Mapping[str, Any]) -> list[SeatStats]:
    """Every seat's :class:`SeatStats` of a finished match, from its record alone
    (``RecordError`` if it does not replay)."""
    match, steps = replay_steps(record)
    final = match.points()
    start = (match.rules.start_points if match.rules.match_mode == "points" else 0)
    places = ratings.places(final)
    stats = [SeatStats(places[i], final[i], final[i] - start, match.hand_no)
             for i in range(match.n)]
    for step in steps:
        for e in step.events:
            if e.type != "win":
                continue
            s = stats[e.data["seat"]]
            score = e.data["score"]
            s.wins += 1
            s.multiplier_sum += score["multiplier"]
            if not e.data["self_draw"]:
                continue  # a discard win ignores the chain (RULES §8.4)
            s.self_draws += 1
            chain = ChainStats.of(e.data["chain"])
            if score["baotou"]:
                s.baotou += 1
                s.caipiao += chain.p >= 1
            elif score["shape"] == "standard" and chain.t >= 1:
                s.gangkai += 1
    return stats


async def link_seat(conn: AsyncConnection, room_id: str, seat: int, *,
                    account_id: int | None, guest_hash: str | None) -> None:
    """Remember who took ``seat`` (replacing whoever held it before)."""
    await conn.execute(delete(MatchPlayerRow).where(MatchPlayerRow.room_id == room_id,
                                                    MatchPlayerRow.seat == seat))
    await conn.execute(insert(MatchPlayerRow).values(
        room_id=room_id, seat=seat, account_id=account_id, guest_hash=guest_hash))


async def _deal_chosen(conn: AsyncConnection, room_id: str) -> bool | None:
    """Whether the client chose the deal of ``room_id`` (its stored ``seed_fixed``: such a
    match is rated for nobody); None for no such room."""
    chosen = (await conn.execute(select(RoomRow.seed_fixed).where(
        RoomRow.id == room_id))).scalar_one_or_none()
    return None if chosen is None else bool(chosen)


async def rated_for_an_account(conn: AsyncConnection, room_id: str) -> bool:
    """Whether the match of ``room_id`` will move an account's rating when it ends: a
    seat is linked to an account and the deal was not the client's choice (the rule of
    :func:`record_finished`).  Such a match is never dissolved: 托管 finishes it."""
    if await _deal_chosen(conn, room_id) is not False:  # chosen, or no such room
        return False
    linked = await conn.execute(select(MatchPlayerRow.seat).where(
        MatchPlayerRow.room_id == room_id, MatchPlayerRow.account_id.is_not(None)).limit(1))
    return linked.first() is not None


async def record_finished(conn: AsyncConnection, room_id: str,
                          stats: list[SeatStats], over: bool = True) -> None:
    """Store a finished match's :func:`seat_stats` and update the ratings of its accounts
    and bots (once: a second call changes nothing).  A match dealt from a seed the client
    chose (an all-bot room's ``seed``) is stored but rated for nobody: a chosen deal
    could pick a bot's losses.  ``over`` false: the match was dissolved, its stats are
    the hands played so far, stored with no place and rated for nobody."""
    done = await conn.execute(select(MatchPlayerRow.seat).where(
        MatchPlayerRow.room_id == room_id, MatchPlayerRow.finished_at.is_not(None)))
    if done.first() is not None:
        return
    links = {r.seat: r for r in (await conn.execute(select(MatchPlayerRow).where(
        MatchPlayerRow.room_id == room_id))).all()}
    seats = {r.seat: r for r in (await conn.execute(select(SeatRow).where(
        SeatRow.room_id == room_id))).all()}
    subjects: list[str | None] = []
    for i in range(len(stats)):
        bot, link = seats[i].bot if i in seats else None, links.get(i)
        if bot is not None:
            subjects.append(ratings.bot_subject(bot))
        elif link is not None and link.account_id is not None:
            subjects.append(ratings.account_subject(link.account_id))
        else:
            subjects.append(None)
    if not over or await _deal_chosen(conn, room_id):
        subjects = [None] * len(stats)
    before, after = await ratings.rate_match(conn, subjects, [s.points for s in stats])
    now = time.time()
    for i, s in enumerate(stats):
        subject = subjects[i]
        values: dict[str, Any] = dict(asdict(s), finished_at=now,
                                      bot=seats[i].bot if i in seats else None)
        if not over:
            values["place"] = None  # no winner (RULES §12.2: a match ends by its own end)
        if subject is not None:
            values["rating_before"] = before.get(subject, ratings.Rating()).mu
            values["rating_after"] = after[subject].mu
        if i in links:
            await conn.execute(update(MatchPlayerRow).where(
                MatchPlayerRow.room_id == room_id, MatchPlayerRow.seat == i).values(**values))
        else:
            await conn.execute(insert(MatchPlayerRow).values(room_id=room_id, seat=i, **values))


# --------------------------------------------------------------------------------------
# reading: my matches, profiles, the leaderboard


async def match_summaries(conn: AsyncConnection, mine: ColumnElement[bool],
                          limit: int) -> list[MatchSummary]:
    """The finished and dissolved matches whose player row satisfies ``mine``, newest
    first."""
    rows = (await conn.execute(
        select(MatchPlayerRow, RoomRow.name, RoomRow.rules, RoomRow.status).join(
            RoomRow, RoomRow.id == MatchPlayerRow.room_id)
        .where(mine, MatchPlayerRow.finished_at.is_not(None), MatchPlayerRow.bot.is_(None))
        .order_by(MatchPlayerRow.finished_at.desc()).limit(limit))).all()
    if not rows:
        return []
    ids = [r.room_id for r in rows]
    seats: dict[str, list[SeatName]] = {}
    everyone = await conn.execute(
        select(SeatRow.room_id, SeatRow.seat, SeatRow.name, SeatRow.bot, MatchPlayerRow.points,
               MatchPlayerRow.place)
        .outerjoin(MatchPlayerRow, (MatchPlayerRow.room_id == SeatRow.room_id)
                   & (MatchPlayerRow.seat == SeatRow.seat))
        .where(SeatRow.room_id.in_(ids)).order_by(SeatRow.room_id, SeatRow.seat))
    for room_id, seat, name, bot, points, place in everyone.all():
        seats.setdefault(room_id, []).append(
            SeatName(seat=seat, name=name, bot=bot, points=points, place=place))
    out = []
    for row in rows:
        rules_dict = json.loads(row.rules)
        out.append(MatchSummary.model_validate(dict(
            room_id=row.room_id, name=row.name, finished_at=row.finished_at, rules=rules_dict,
            status="dissolved" if row.status == "dissolved" else "over",
            seat=row.seat, place=row.place, players=rules_dict.get("players", 4),
            points=row.points, delta=row.delta, hands=row.hands,
            rating_before=_shown(row.rating_before), rating_after=_shown(row.rating_after),
            seats=seats.get(row.room_id, []), replay=replay_path(row.room_id))))
    return out


def replay_path(room_id: str) -> str:
    """The replay page of a finished match at its end, the final table (``/replay/{id}#end``):
    a player looking back at a match expects its result (at step 1, the deal, it showed
    nothing of it).  The browser's own links (room.js, lobby.js) open it so too."""
    return f"/replay/{quote(room_id, safe='')}#end"


def _shown(mu: float | None) -> int | None:
    return None if mu is None else round(mu)


async def player_summary(conn: AsyncConnection, mine: ColumnElement[bool]) -> PlayerSummary:
    """Totals over the finished matches whose player row satisfies ``mine`` (a dissolved
    match has no place and counts in none)."""
    p = MatchPlayerRow
    finished = (mine, p.finished_at.is_not(None), p.place.is_not(None))
    row = (await conn.execute(select(
        func.count(), func.coalesce(func.sum(p.hands), 0), func.coalesce(func.sum(p.wins), 0),
        func.coalesce(func.sum(p.self_draws), 0), func.coalesce(func.sum(p.baotou), 0),
        func.coalesce(func.sum(p.caipiao), 0), func.coalesce(func.sum(p.gangkai), 0),
        func.coalesce(func.sum(p.multiplier_sum), 0), func.coalesce(func.sum(p.delta), 0),
        func.coalesce(func.sum(case((p.place == 1, 1), else_=0)), 0),
    ).where(*finished))).one()
    matches, hands, wins, self_draws, baotou, caipiao, gangkai, m_sum, delta, firsts = (
        int(x) for x in row)
    return PlayerSummary(
        matches=matches, hands=hands, hands_won=wins, self_draws=self_draws, baotou=baotou,
        caipiao=caipiao, gangkai=gangkai,
        average_multiplier=round(m_sum / wins, 3) if wins else None,
        points_per_hand=round(delta / hands, 3) if hands else None, first_places=firsts)


async def profile_of(conn: AsyncConnection, player_id: str) -> Profile | None:
    """A public profile: an account's public id, or ``bot:<name>``; display name and
    statistics only (never the user name)."""
    kind, _, bot = player_id.partition(":")
    if kind == "bot" and bot:
        subject, name, mine = ratings.bot_subject(bot), f"{bot} bot", MatchPlayerRow.bot == bot
    else:
        account = (await conn.execute(select(AccountRow).where(
            AccountRow.public_id == player_id))).one_or_none()
        if account is None:
            return None
        subject, name = ratings.account_subject(account.id), account.display_name
        mine = (MatchPlayerRow.account_id == account.id) & MatchPlayerRow.bot.is_(None)
    rating = (await ratings.load(conn, [subject])).get(subject)
    summary = await player_summary(conn, mine)
    if kind == "bot" and rating is None and summary.matches == 0:
        return None
    rating = rating or ratings.Rating()
    history = (await conn.execute(
        select(MatchPlayerRow.finished_at, MatchPlayerRow.rating_before,
               MatchPlayerRow.rating_after)
        .where(mine, MatchPlayerRow.rating_after.is_not(None))
        .order_by(MatchPlayerRow.finished_at.desc()).limit(50))).all()
    return Profile(
        kind="bot" if kind == "bot" else "account", id=player_id, display_name=name,
        rating=rating.shown, rating_sigma=round(rating.sigma), rated_matches=rating.matches,
        summary=summary,
        rating_history=[RatingPoint.model_validate(
            {"finished_at": at, "before": _shown(b), "after": _shown(a)})
            for at, b, a in history])


async def leaderboard_entries(conn: AsyncConnection, limit: int) -> list[LeaderboardEntry]:
    """Rated accounts and bot levels, highest rating first (ties: more matches first)."""
    rows = (await conn.execute(
        select(ratings.RatingRow).where(ratings.RatingRow.matches > 0)
        .order_by(ratings.RatingRow.mu.desc(), ratings.RatingRow.matches.desc(),
                  ratings.RatingRow.subject).limit(limit))).all()
    account_ids = [int(r.subject.partition(":")[2]) for r in rows
                   if r.subject.startswith("account:")]
    accounts = {a.id: a for a in (await conn.execute(select(AccountRow).where(
        AccountRow.id.in_(account_ids)))).all()} if account_ids else {}
    entries: list[LeaderboardEntry] = []
    for r in rows:
        kind, _, ident = r.subject.partition(":")
        if kind == "bot":
            entry_id, name = r.subject, f"{ident} bot"
        else:
            found = accounts.get(int(ident))
            if found is None:
                continue
            entry_id, name = found.public_id, found.display_name
        entries.append(LeaderboardEntry(
            rank=len(entries) + 1, kind="bot" if kind == "bot" else "account", id=entry_id,
            display_name=name, rating=round(r.mu), rating_sigma=round(r.sigma),
            matches=r.matches))
    return entries
