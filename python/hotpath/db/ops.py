# SPDX-License-Identifier: GPL-2.0-only
"""What the migrations share: steps that leave a history right however far
it already is. A history whose schema_version was set back by hand (or
written by a hotpath that added a column early) keeps what it has: a
column or index is added only where it is missing."""

import sqlalchemy as sa
from alembic import op

from hotpath.errors import StoreError


def _inspector() -> sa.Inspector:
    return sa.inspect(op.get_bind())


def add_missing_columns(table: str, columns: list[sa.Column]) -> None:
    have = {c["name"] for c in _inspector().get_columns(table)}
    for column in columns:
        if column.name not in have:
            op.add_column(table, column)


def create_missing_index(name: str, table: str, columns: list[str], unique: bool = False) -> None:
    if name not in {i["name"] for i in _inspector().get_indexes(table)}:
        op.create_index(name, table, columns, unique=unique)


def set_version(version: int) -> None:
    """schema_version says `version`: what every hotpath release reads first."""
    write_version(op.get_bind(), version)


def write_version(conn: sa.Connection, version: int) -> None:
    """set_version() on a connection (outside a revision: a version that was
    not a number, set right where no revision runs)."""
    conn.execute(sa.text("DELETE FROM schema_version"))
    conn.execute(sa.text("INSERT INTO schema_version (version) VALUES (:v)"), {"v": version})


def forward_only() -> None:
    """Every revision's downgrade: a history only moves forward. hotpath
    never downgrades one (`hotpath db` has no such command); an older
    hotpath refuses a newer history instead (hotpath.store)."""
    raise StoreError(
        "a hotpath history only moves forward: no revision downgrades it; "
        "open it with this hotpath or a newer one"
    )
