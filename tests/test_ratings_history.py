"""Ratings (OpenSkill Plackett–Luce on final places), a match's per-seat statistics read
from its record, the accounts migration on an existing database, and ``hzmj arena
--rate``."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hzmj.bots.registry import make_bot
from hzmj.cli import app
from hzmj.game import Match
from hzmj.rules import Rules
from hzmj.server import ratings
from hzmj.server.history import seat_stats
from hzmj.server.storage import MIGRATIONS, make_engine, migrate


@pytest.mark.parametrize("points, want", [
    ([30, 10, -10, -30], [1, 2, 3, 4]),
    ([10, 30, 10, -50], [2, 1, 2, 4]),
    ([0, 0], [1, 1]),
    ([-5, 5, 0], [3, 1, 2]),
])
def test_places_from_final_points(points: list[int], want: list[int]) -> None:
    assert ratings.places(points) == want


def test_equal_players_winner_up_loser_down_sum_near_zero() -> None:
    subjects = [f"account:{i}" for i in range(4)]
    after = ratings.rerate(subjects, {}, [1, 2, 3, 4])
    moves = [after[s].mu - ratings.MU for s in subjects]
    assert moves[0] > moves[1] > 0 > moves[2] > moves[3]
    assert abs(sum(moves)) < 1e-6 * ratings.MU
    assert all(after[s].sigma < ratings.SIGMA and after[s].matches == 1 for s in subjects)


def test_an_upset_moves_more_than_an_expected_result() -> None:
    strong, weak = ratings.Rating(1800, 100, 50), ratings.Rating(1200, 100, 50)
    known = {"bot:strong": strong, "bot:weak": weak}
    expected = ratings.rerate(["bot:strong", "bot:weak"], known, [1, 2])
    upset = ratings.rerate(["bot:strong", "bot:weak"], known, [2, 1])
    assert 0 < expected["bot:strong"].mu - 1800 < 1800 - upset["bot:strong"].mu
    assert upset["bot:weak"].mu - 1200 > expected["bot:strong"].mu - 1800


def test_guests_are_not_kept_and_a_level_on_several_seats_moves_by_the_mean() -> None:
    after = ratings.rerate(["account:1", None, "bot:efficiency", "bot:efficiency"], {},
                           [1, 2, 3, 4])
    assert set(after) == {"account:1", "bot:efficiency"}
    alone = ratings.rerate(["a", "b", "c", "d"], {}, [1, 2, 3, 4])
    mean = (alone["c"].mu + alone["d"].mu) / 2
    assert after["bot:efficiency"].mu == pytest.approx(mean)
    assert after["bot:efficiency"].matches == 1


def played(seed: int, players: int = 4) -> Match:
    m = Match(Rules(players=players), seed)
    bots = [make_bot("efficiency", seed + s) for s in range(players)]
    while not m.over:
        seat = m.to_move()[0]
        m.apply(bots[seat].choose(m.view(seat), m.legal_actions(seat)))
    return m


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_seat_stats_agree_with_the_engine_results(seed: int) -> None:
    m = played(seed)
    stats = seat_stats(m.record())
    assert [s.points for s in stats] == m.points()
    assert [s.place for s in stats] == ratings.places(m.points())
    assert all(s.hands == len(m.results) for s in stats)
    for seat, s in enumerate(stats):
        won = [r for r in m.results if r.winner == seat]
        assert s.wins == len(won)
        assert s.self_draws == sum(r.discarder is None for r in won)
        assert s.multiplier_sum == sum(r.score.multiplier for r in won if r.score)
        assert s.baotou == sum(bool(r.score and r.score.baotou) and r.discarder is None
                               for r in won)
        names = [r.score.pattern.zh for r in won
                 if r.score and r.score.pattern and r.discarder is None]
        # RULES §9.1: 杠开 rows and 财飘 rows by the pattern names the engine gave
        assert s.gangkai == sum(n.endswith("杠开") for n in names)
        assert s.caipiao == sum("财飘" in n or "飘" in n and "杠" in n for n in names)
    assert sum(s.delta for s in stats) == 0


def test_stats_count_each_kind_of_win() -> None:
    """Over enough matches every counted kind shows up at least once."""
    totals = {"wins": 0, "self_draws": 0, "baotou": 0, "gangkai": 0}
    for seed in range(4, 12):
        for s in seat_stats(played(seed, players=2).record()):
            for key in totals:
                totals[key] += getattr(s, key)
    assert totals["wins"] >= totals["self_draws"] > 0
    assert totals["baotou"] > 0


def upgrade_to(db: Path, revision: str) -> None:
    """Upgrade the SQLite file ``db`` to the Alembic ``revision`` (as the server does)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))

    async def to() -> None:
        engine = make_engine(f"sqlite+aiosqlite:///{db}")
        async with engine.begin() as conn:
            def run(connection: object) -> None:
                cfg.attributes["connection"] = connection
                command.upgrade(cfg, revision)
            await conn.run_sync(run)
        await engine.dispose()

    asyncio.run(to())


def test_migration_upgrades_an_existing_database(tmp_path: Path) -> None:
    """A database made before accounts existed (revision 0001) keeps its rooms."""
    from alembic.script import ScriptDirectory

    db = tmp_path / "old.db"
    upgrade_to(db, "0001")
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO rooms VALUES ('r1', 'old', '{}', 1, 'over', 0, 0, NULL)")
    engine = make_engine(f"sqlite+aiosqlite:///{db}")
    asyncio.run(migrate(engine))
    asyncio.run(engine.dispose())
    with sqlite3.connect(db) as conn:
        newest = ScriptDirectory(str(MIGRATIONS)).get_current_head()
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [(newest,)]
        assert conn.execute("SELECT id, name, removed, private FROM rooms").fetchall() == [
            ("r1", "old", None, 0)]  # 0005's column, empty for an old room; 0009: listed
        assert conn.execute("SELECT idx, made_by FROM actions").fetchall() == []  # 0006
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert {"accounts", "sessions", "match_players", "ratings"} <= tables


def test_migration_0006_keeps_a_running_room_s_actions(tmp_path: Path) -> None:
    """A running room stored before the actions' ``made_by`` (revision 0005) keeps its
    actions; who made them is not known (NULL: its record has no marks for them)."""
    db = tmp_path / "old.db"
    upgrade_to(db, "0005")
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO rooms (id, name, rules, seed, status, owner_seat, "
                     "created_at) VALUES ('r1', 'old', '{}', 1, 'running', 0, 0)")
        conn.executemany("INSERT INTO actions VALUES ('r1', ?, ?, 0)",
                         [(0, '{"type": "discard"}'), (1, '{"type": "pass"}')])
    upgrade_to(db, "head")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT idx, action, made_by FROM actions ORDER BY idx"
                            ).fetchall() == [(0, '{"type": "discard"}', None),
                                             (1, '{"type": "pass"}', None)]


@pytest.mark.parametrize("start", ["0001", "0002", "0003"])
def test_upgrading_keeps_every_rooms_seats_and_actions(tmp_path: Path, start: str) -> None:
    """An SQLite database from before 0004 keeps its seats, actions and match links: 0004
    rebuilds the rooms table, and with the server's foreign keys on, dropping the old
    table cascaded to every seat and action (every running match and seat list lost)."""
    db = tmp_path / "old.db"
    upgrade_to(db, start)
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO rooms (id, name, rules, seed, status, owner_seat, "
                     "created_at) VALUES ('r1', 'old', '{}', 1, 'running', 0, 0)")
        conn.executemany("INSERT INTO seats (room_id, seat, name, token_hash, bot, left) "
                         "VALUES ('r1', ?, ?, NULL, NULL, 0)", [(0, "ann"), (1, "bo")])
        conn.executemany("INSERT INTO actions (room_id, idx, action, created_at) "
                         "VALUES ('r1', ?, ?, 0)", [(0, '{"type": "discard"}')])
        if start != "0001":
            conn.execute("INSERT INTO match_players (room_id, seat) VALUES ('r1', 0)")
    engine = make_engine(f"sqlite+aiosqlite:///{db}")
    asyncio.run(migrate(engine))
    asyncio.run(engine.dispose())
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT seat, name FROM seats ORDER BY seat").fetchall() == [
            (0, "ann"), (1, "bo")]
        assert conn.execute("SELECT idx FROM actions").fetchall() == [(0,)]
        if start != "0001":
            assert conn.execute("SELECT room_id FROM match_players").fetchall() == [("r1",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []


def test_arena_rate_writes_bot_ratings(tmp_path: Path) -> None:
    db = tmp_path / "server.db"
    args = ["arena", "--bots", "efficiency,random", "--hands", "16", "--seed", "3",
            "--duplicate", "--workers", "1", "--rate", "--db", str(db), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    rated = json.loads(result.stdout)["ratings"]
    assert set(rated) == {"efficiency", "random"}
    assert rated["efficiency"]["matches"] == rated["random"]["matches"] == 4
    assert rated["efficiency"]["rating"] > 1500 > rated["random"]["rating"]
    with sqlite3.connect(db) as conn:
        stored = dict(conn.execute("SELECT subject, matches FROM ratings").fetchall())
    assert stored == {"bot:efficiency": 4, "bot:random": 4}
    # a second run goes on from the stored ratings
    again = json.loads(CliRunner().invoke(app, args).stdout)["ratings"]
    assert again["efficiency"]["matches"] == 8
