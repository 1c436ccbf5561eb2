"""Skill ratings of accounts and bot levels: OpenSkill's Plackett–Luce model on the
final places of a match, on an Elo-like scale (a new player is 1500 ± 500).

A *subject* is ``account:<id>`` or ``bot:<name>`` (``bot:strong``).  Guests are not
rated: a guest seat takes part in an update with a fresh rating that is not kept.  A
subject that sits more than one seat (three efficiency bots) moves by the mean of its
seats' changes.  The shown rating is ``round(mu)``; ``sigma`` is its uncertainty.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce
from sqlalchemy import Float, Integer, String, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import Mapped, mapped_column

from hzmj.server.storage import Base

MU, SIGMA = 1500.0, 500.0
MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=SIGMA / 2, tau=SIGMA / 100)


class RatingRow(Base):
    __tablename__ = "ratings"

    subject: Mapped[str] = mapped_column(String(48), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    matches: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[float] = mapped_column(Float)


@dataclass(frozen=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA
    matches: int = 0

    @property
    def shown(self) -> int:
        """The number players see (``round(mu)``)."""
        return round(self.mu)


def account_subject(account_id: int) -> str:
    return f"account:{account_id}"


def bot_subject(bot: str) -> str:
    return f"bot:{bot}"


def places(points: Sequence[int]) -> list[int]:
    """Final places from final points, 1 = most; equal points share a place
    (``[10, 30, 10, -50]`` → ``[2, 1, 2, 4]``)."""
    return [1 + sum(q > p for q in points) for p in points]


def rerate(subjects: Sequence[str | None], ratings: dict[str, Rating],
           ranks: Sequence[int]) -> dict[str, Rating]:
    """New ratings after one match: seat ``i`` was ``subjects[i]`` (``None``: a guest,
    rated as new and not kept) and finished at place ``ranks[i]``.  Only subjects are
    returned; one that sat several seats moves by the mean of their changes."""
    before = [ratings.get(s, Rating()) if s else Rating() for s in subjects]
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = MODEL.rate(teams, ranks=list(ranks))
    moves: dict[str, list[tuple[float, float]]] = {}
    for s, old, (new,) in zip(subjects, before, after, strict=True):
        if s is not None:
            moves.setdefault(s, []).append((new.mu - old.mu, new.sigma))
    out = {}
    for s, seats in moves.items():
        old = ratings.get(s, Rating())
        out[s] = Rating(old.mu + sum(d for d, _ in seats) / len(seats),
                        min(sigma for _, sigma in seats), old.matches + 1)
    return out


async def load(conn: AsyncConnection, subjects: Sequence[str]) -> dict[str, Rating]:
    """The stored ratings of ``subjects`` (missing ones are new: left out)."""
    if not subjects:
        return {}
    rows = await conn.execute(select(RatingRow).where(RatingRow.subject.in_(set(subjects))))
    return {r.subject: Rating(r.mu, r.sigma, r.matches) for r in rows.all()}


async def save(conn: AsyncConnection, ratings: dict[str, Rating]) -> None:
    now = time.time()
    stored = await load(conn, list(ratings))
    for subject, r in ratings.items():
        row = {"mu": r.mu, "sigma": r.sigma, "matches": r.matches, "updated_at": now}
        if subject in stored:
            await conn.execute(update(RatingRow).where(RatingRow.subject == subject)
                               .values(**row))
        else:
            await conn.execute(insert(RatingRow).values(subject=subject, **row))


async def rate_match(conn: AsyncConnection, subjects: Sequence[str | None],
                     points: Sequence[int]) -> tuple[dict[str, Rating], dict[str, Rating]]:
    """Load, update and store the ratings of one finished match; (before, after)."""
    before = await load(conn, [s for s in subjects if s])
    after = rerate(subjects, before, places(points))
    await save(conn, after)
    return before, after


async def rate_matches(url: str, matches: Sequence[tuple[Sequence[str], Sequence[int]]]
                       ) -> dict[str, Rating]:
    """Rate bot levels from whole matches played outside the server (``hzmj arena
    --rate``): each match is (bot name per seat, final points per seat), in the order
    played.  The database at ``url`` is migrated first; the new ratings are returned."""
    from hzmj.server.storage import make_engine, migrate

    engine = make_engine(url)
    try:
        await migrate(engine)
        async with engine.begin() as conn:
            subjects = {bot_subject(name) for names, _ in matches for name in names}
            current = await load(conn, list(subjects))
            for names, points in matches:
                current.update(rerate([bot_subject(n) for n in names], current,
                                      places(points)))
            await save(conn, current)
    finally:
        await engine.dispose()
    return current
