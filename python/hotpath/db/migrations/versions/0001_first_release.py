# SPDX-License-Identifier: GPL-2.0-only
"""Schema 1, as the first release created it: runs and their figures.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

from hotpath.db import ops

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

Real: sa.types.TypeEngine[float] = sa.Double().with_variant(sa.REAL(), "sqlite")


def upgrade() -> None:
    op.create_table("schema_version", sa.Column("version", sa.Integer, nullable=False))
    op.create_table(
        "runs",
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
        sqlite_autoincrement=True,
    )
    op.create_table(
        "figures",
        sa.Column(
            "run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False
        ),
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
    )
    op.create_index("figures_by_run", "figures", ["run_id"])
    ops.set_version(1)


downgrade = ops.forward_only
