"""Accounts, their sessions, the players of every match (accounts, guests, bots) with
their results, and ratings.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("public_id", sa.String(16), nullable=False, unique=True),
        sa.Column("username", sa.String(24), nullable=False, unique=True),
        sa.Column("display_name", sa.String(24), nullable=False),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                  nullable=False, index=True),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_table(
        "match_players",
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="SET NULL"),
                  nullable=True, index=True),
        sa.Column("guest_hash", sa.String(64), nullable=True, index=True),
        sa.Column("bot", sa.String(32), nullable=True),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.Column("place", sa.Integer, nullable=True),
        sa.Column("points", sa.Integer, nullable=True),
        sa.Column("delta", sa.Integer, nullable=True),
        sa.Column("hands", sa.Integer, nullable=True),
        sa.Column("wins", sa.Integer, nullable=True),
        sa.Column("self_draws", sa.Integer, nullable=True),
        sa.Column("baotou", sa.Integer, nullable=True),
        sa.Column("caipiao", sa.Integer, nullable=True),
        sa.Column("gangkai", sa.Integer, nullable=True),
        sa.Column("multiplier_sum", sa.Integer, nullable=True),
        sa.Column("rating_before", sa.Float, nullable=True),
        sa.Column("rating_after", sa.Float, nullable=True),
    )
    op.create_table(
        "ratings",
        sa.Column("subject", sa.String(48), primary_key=True),  # account:<id> | bot:<name>
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ratings")
    op.drop_table("match_players")
    op.drop_table("sessions")
    op.drop_table("accounts")
