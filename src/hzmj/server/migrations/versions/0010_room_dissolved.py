"""A room's status may be ``dissolved`` (a running match stopped for good after standing
paused with nobody at the table), nine characters: the column widens from 8 to 16.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"


def upgrade() -> None:
    # SQLite keeps any length in a VARCHAR(8), and altering a column there rebuilds the
    # rooms table that seats and actions hang on: nothing to do.  PostgreSQL widens a
    # varchar in place (no table rewrite).
    if op.get_bind().dialect.name == "sqlite":
        return
    op.alter_column("rooms", "status", type_=sa.String(16), existing_type=sa.String(8),
                    existing_nullable=False)


def downgrade() -> None:
    # an older server knows no dissolved room: it shows as over (its record says
    # "over": false, and its matches were never rated)
    op.execute("UPDATE rooms SET status = 'over' WHERE status = 'dissolved'")
    if op.get_bind().dialect.name == "sqlite":
        return
    op.alter_column("rooms", "status", type_=sa.String(8), existing_type=sa.String(16),
                    existing_nullable=False)
