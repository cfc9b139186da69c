# SPDX-License-Identifier: GPL-2.0-only
"""Schema 3: every lab's figures (which way is better), bounds beside
figures, and what a run keeps beside them (bound models, graphs, sections).

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa

from hotpath.db import ops

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    ops.add_missing_columns(
        "figures",
        [
            sa.Column("better", sa.Text, nullable=False, server_default="lower"),
            sa.Column("bound_json", sa.Text),
        ],
    )
    ops.add_missing_columns("runs", [sa.Column("extras_json", sa.Text)])
    ops.set_version(3)


downgrade = ops.forward_only
