# SPDX-License-Identifier: GPL-2.0-only
"""Where the history lives and how its schema is defined and migrated.

location: a --db value (or $HOTPATH_DB) as a file path or a database URL;
it imports nothing heavy, so the CLI and `hotpath tune` start without
SQLAlchemy. access: whether that location can hold a run (checked before
anything is measured) and engines to read or write it; hotpath.store keeps
the runs. schema: the tables at the newest version, in SQLAlchemy Core,
for SQLite and PostgreSQL alike. migrate: Alembic run programmatically over
the revisions in migrations/versions (0001 is the first release's schema,
each later one a schema version), shipped inside the package.
"""
