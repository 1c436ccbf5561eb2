"""The rooms' fencing token: the epoch of the node that owns a room (docs/scaling.md).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("epoch", sa.BigInteger, nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("epoch")
