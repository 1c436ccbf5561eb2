"""Alembic environment: runs on the connection the server hands over at start-up
(``hzmj.server.storage.migrate``); ``alembic`` on the command line is not used."""

from __future__ import annotations

from alembic import context

from hzmj.server.storage import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through hzmj.server.storage.migrate()")
context.configure(connection=connection, target_metadata=Base.metadata,
                  render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
