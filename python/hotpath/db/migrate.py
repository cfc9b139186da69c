# SPDX-License-Identifier: GPL-2.0-only
"""Which schema a history has, and Alembic run in code to bring it to head.

A history says its version twice: schema_version (every release wrote it,
and an older hotpath refuses a newer history by reading it) and, since
schema 4, Alembic's alembic_version. A history from before Alembic has only
the first: it is stamped with the matching revision, then upgraded. Where
the two disagree (a schema_version set back by hand), schema_version wins:
the migrations add only what is missing. Alembic is imported only to
migrate; reading a history at head never loads it.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from hotpath.db.schema import HEAD, SCHEMA_VERSION, revision
from hotpath.inputs import INTEGER

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
KNOWN_REVISIONS = {revision(v): v for v in range(1, SCHEMA_VERSION + 1)}
OURS = {"schema_version", "runs", "figures", "alembic_version"}


@dataclass(frozen=True)
class Found:
    """What a database holds: its tables, schema_version and Alembic revision."""

    tables: frozenset[str]
    version: int | None  # schema_version's; None when it has none (or not a number)
    revision: str | None  # alembic_version's; None when it has none
    bad_version: str | None = None  # schema_version's text when it is not a number

    @property
    def empty(self) -> bool:
        """No hotpath table at all: a new history (other tables may be there)."""
        return not (self.tables & OURS)

    @property
    def effective(self) -> int | None:
        """The schema version the history is at (schema_version wins)."""
        if self.version is not None:
            return self.version
        return KNOWN_REVISIONS.get(self.revision or "")

    @property
    def at_head(self) -> bool:
        return self.version == SCHEMA_VERSION and self.revision == HEAD

    @property
    def newer(self) -> bool:
        """Written by a newer hotpath than this one."""
        if self.version is not None and self.version > SCHEMA_VERSION:
            return True
        return self.revision is not None and self.revision not in KNOWN_REVISIONS


def inspect_schema(conn: sa.Connection) -> Found:
    tables = frozenset(sa.inspect(conn).get_table_names())
    version = rev = None
    if "schema_version" in tables:
        version = conn.execute(sa.text("SELECT max(version) FROM schema_version")).scalar()
    if "alembic_version" in tables:
        rev = conn.execute(sa.text("SELECT max(version_num) FROM alembic_version")).scalar()
    # SQLite keeps any text in an INTEGER column: a version of 'abc' is no
    # version (Alembic's revision says it then) and `db check` names it.
    if version is None or isinstance(version, int):
        return Found(tables, version, rev)
    if isinstance(version, str) and INTEGER.fullmatch(version):
        return Found(tables, int(version), rev)
    return Found(tables, None, rev, bad_version=str(version))


def _config(conn: sa.Connection) -> "Config":
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = conn
    return config


def upgrade(conn: sa.Connection, found: Found) -> None:
    """Bring the history on `conn` to head, inside the transaction the
    caller holds (committed or rolled back with it)."""
    from alembic import command

    config = _config(conn)
    at = found.effective
    if at is not None and found.revision != revision(at):
        command.stamp(config, revision(at), purge=True)
    command.upgrade(config, "head")
    if found.bad_version is not None:  # at head already, no revision ran to set it
        from hotpath.db.ops import write_version

        write_version(conn, SCHEMA_VERSION)
