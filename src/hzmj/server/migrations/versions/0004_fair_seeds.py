"""Fair seeds: each room's salt (the seed's commitment) and whether its client chose it.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("salt", sa.String(64), nullable=False, server_default=""))
        batch.add_column(sa.Column("seed_fixed", sa.Boolean, nullable=False,
                                   server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("seed_fixed")
        batch.drop_column("salt")
