"""The address that created an open room survives a restart or a move to another node,
so that ``rooms_per_address`` still counts the room there; kept only while the room is
open (cleared when its match starts, like the seats' addresses).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("creator", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("creator")
