# SPDX-License-Identifier: GPL-2.0-only
"""Alembic's environment: the connection is hotpath's, handed over in
config.attributes by hotpath.db.migrate, inside a transaction it holds (and
commits with the run it is storing, or alone for `hotpath db upgrade`).
Imported outside Alembic (the tests import every module), it does nothing."""

from alembic import context

from hotpath.db.schema import metadata


def run_migrations() -> None:
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()


if hasattr(context, "config"):  # Alembic is running this file
    run_migrations()
