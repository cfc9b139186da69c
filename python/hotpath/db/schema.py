# SPDX-License-Identifier: GPL-2.0-only
"""The history's tables at the newest schema version, in SQLAlchemy Core.

One definition for SQLite and PostgreSQL. The migrations
(hotpath/db/migrations/versions) build exactly these tables, step by step
from the first release's; tests/py/test_pg_store.py checks that they agree.
Figures are REAL on SQLite, DOUBLE PRECISION on PostgreSQL (8 bytes both:
never PostgreSQL's 4-byte REAL); samples are zlib-compressed little-endian
float64 arrays, BLOB or BYTEA.
"""

import sqlalchemy as sa

SCHEMA_VERSION = 6


def revision(version: int) -> str:
    """The Alembic revision that brings a history to schema `version`."""
    return f"{version:04d}"


HEAD = revision(SCHEMA_VERSION)

Real: sa.types.TypeEngine[float] = sa.Double().with_variant(sa.REAL(), "sqlite")

metadata = sa.MetaData()

# One row: the schema version, as every hotpath release has written it
# (an older hotpath refuses a history newer than itself by reading it).
schema_version = sa.Table(
    "schema_version", metadata, sa.Column("version", sa.Integer, nullable=False)
)

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("started", sa.Text, nullable=False),
    sa.Column("hotpath_version", sa.Text, nullable=False),
    sa.Column("command", sa.Text, nullable=False),
    sa.Column("command_line", sa.Text, nullable=False),
    sa.Column("machine_json", sa.Text, nullable=False),
    sa.Column("machine_key", sa.Text, nullable=False),
    sa.Column("clock_json", sa.Text, nullable=False),
    sa.Column("labs_json", sa.Text, nullable=False),
    sa.Column("settings_json", sa.Text, nullable=False),
    sa.Column("variants_json", sa.Text, nullable=False),
    sa.Column("calibration_json", sa.Text),
    sa.Column("extras_json", sa.Text),  # version 3
    sa.Column("uid", sa.String(32)),  # version 4: the run's identity across histories
    sa.Index("runs_by_uid", "uid", unique=True),
    sa.Index("runs_by_machine", "machine_key"),
    sqlite_autoincrement=True,
)

figures = sa.Table(
    "figures",
    metadata,
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    sa.Column("lab", sa.Text, nullable=False),
    sa.Column("primitive", sa.Text, nullable=False),
    sa.Column("variant", sa.Text, nullable=False),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("align", sa.Integer, nullable=False),
    sa.Column("mode", sa.Text, nullable=False),
    sa.Column("unit", sa.Text, nullable=False),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("reason", sa.Text),
    sa.Column("n", sa.Integer, nullable=False),
    sa.Column("median", Real),
    sa.Column("min", Real),
    sa.Column("p10", Real),
    sa.Column("p90", Real),
    sa.Column("ci_lo", Real),
    sa.Column("ci_hi", Real),
    sa.Column("noisy", sa.Integer, nullable=False),
    sa.Column("calls_per_sample", sa.Integer),
    sa.Column("samples", sa.LargeBinary),
    # version 2: the width probe and replicas
    sa.Column("samples_taken", sa.Integer, nullable=False, server_default="0"),
    sa.Column("kept_fraction", Real),
    sa.Column("min_share", Real),
    sa.Column("short", sa.Integer, nullable=False, server_default="0"),
    sa.Column("replica_medians", sa.Text),
    # version 3: every lab's figures
    sa.Column("better", sa.Text, nullable=False, server_default="lower"),
    sa.Column("bound_json", sa.Text),
    # version 4: the figure's place in its run (SQLite's rowid order before)
    sa.Column("seq", sa.Integer, nullable=False, server_default="0"),
    sa.Index("figures_by_run", "run_id"),
)
