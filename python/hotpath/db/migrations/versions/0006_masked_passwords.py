# SPDX-License-Identifier: GPL-2.0-only
"""Schema 6: no password in a stored command line. Before, a run measured
with `--db postgresql://USER:PASSWORD@HOST/DB` kept the password in
runs.command_line, which `history` and every report showed; each one is
masked as hotpath now stores them (hotpath.db.location.masked: ***). No
column changes; nothing else in the run is touched.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

from hotpath.db import ops
from hotpath.db.location import masked

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    # Only lines that may hold one are read: ':' then '@', or a password= parameter.
    rows = bind.execute(
        sa.text(
            "SELECT id, command_line FROM runs"
            " WHERE command_line LIKE '%:%@%' OR lower(command_line) LIKE '%password=%'"
        )
    ).fetchall()
    changed = [
        {"line": masked(line), "id": run_id} for run_id, line in rows if masked(line) != line
    ]
    if changed:
        bind.execute(sa.text("UPDATE runs SET command_line = :line WHERE id = :id"), changed)
    ops.set_version(6)


downgrade = ops.forward_only
