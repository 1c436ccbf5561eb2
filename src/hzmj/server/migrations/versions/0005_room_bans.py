"""Removal bans survive a restart or a move to another node: the address each seat was
taken from and the addresses a room's owner removed players from, kept only while the
room is open (cleared when its match starts).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("removed", sa.Text, nullable=True))  # JSON list
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("address", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("address")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("removed")
