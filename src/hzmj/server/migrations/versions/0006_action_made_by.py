"""Who chose each action a person's seat did not choose itself (the record's
``made_by``): ``bot`` (托管, away, left) or ``clock`` (a timeout, RULES §8.7); NULL for
the seat's own actions and for every action stored before this revision.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"


def upgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.add_column(sa.Column("made_by", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.drop_column("made_by")
