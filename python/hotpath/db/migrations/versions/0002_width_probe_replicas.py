# SPDX-License-Identifier: GPL-2.0-only
"""Schema 2: each figure's width-probe record and its replicas' medians.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa

from hotpath.db import ops

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

Real: sa.types.TypeEngine[float] = sa.Double().with_variant(sa.REAL(), "sqlite")


def upgrade() -> None:
    ops.add_missing_columns(
        "figures",
        [
            sa.Column("samples_taken", sa.Integer, nullable=False, server_default="0"),
            sa.Column("kept_fraction", Real),
            sa.Column("min_share", Real),
            sa.Column("short", sa.Integer, nullable=False, server_default="0"),
            sa.Column("replica_medians", sa.Text),
        ],
    )
    ops.set_version(2)


downgrade = ops.forward_only
