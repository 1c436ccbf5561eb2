"""A private room (not listed in the lobby; only who has its link joins or watches) stays
private after a restart or a move to another node.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"


def upgrade() -> None:
    # a plain ADD COLUMN (SQLite and PostgreSQL both take NOT NULL with a default): no
    # rebuild of the rooms table, whose seats and actions hang on it
    op.add_column("rooms", sa.Column("private", sa.Boolean, nullable=False,
                                     server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("private")
