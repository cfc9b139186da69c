# SPDX-License-Identifier: GPL-2.0-only
"""Schema 4: a run's identity across histories (uid, what `hotpath push`
matches runs by), each figure's place in its run (seq: SQLite's rowid
order, which PostgreSQL lacks), and runs found by machine.

Revision ID: 0004
Revises: 0003
"""

import uuid

import sqlalchemy as sa
from alembic import op

from hotpath.db import ops

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    ops.add_missing_columns("runs", [sa.Column("uid", sa.String(32))])
    ops.add_missing_columns(
        "figures", [sa.Column("seq", sa.Integer, nullable=False, server_default="0")]
    )
    bind = op.get_bind()
    ids = [row[0] for row in bind.execute(sa.text("SELECT id FROM runs WHERE uid IS NULL"))]
    if ids:
        bind.execute(
            sa.text("UPDATE runs SET uid = :uid WHERE id = :id"),
            [{"uid": uuid.uuid4().hex, "id": run_id} for run_id in ids],
        )
    # The figures' order as they were stored, counted from 0 in each run.
    if bind.dialect.name == "sqlite":
        op.execute(
            "UPDATE figures SET seq = rowid - (SELECT min(f.rowid) FROM figures f"
            " WHERE f.run_id = figures.run_id)"
        )
    else:
        op.execute(
            "UPDATE figures SET seq = o.n FROM (SELECT ctid AS at, row_number() OVER"
            " (PARTITION BY run_id ORDER BY ctid) - 1 AS n FROM figures) o"
            " WHERE figures.ctid = o.at"
        )
    ops.create_missing_index("runs_by_uid", "runs", ["uid"], unique=True)
    ops.create_missing_index("runs_by_machine", "runs", ["machine_key"])
    ops.set_version(4)


downgrade = ops.forward_only
