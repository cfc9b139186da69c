# SPDX-License-Identifier: GPL-2.0-only
"""Schema 5: every run's machine key by the rule that does not drift
(hotpath.machine.Fingerprint.key: vendor, family, model, stepping,
microcode, features, CPUs, VM or not, kernel; never a clock), recomputed
from the fingerprint each run keeps. The old keys hashed the brand string
and the hypervisor's name; nothing is lost (Fingerprint.legacy_key rebuilds
them from the same JSON). The A/A floor and the width probe's history ask
the store by key, so they find the runs made before the change.

Revision ID: 0005
Revises: 0004
"""

import json

import sqlalchemy as sa
from alembic import op

from hotpath.db import ops
from hotpath.machine import Fingerprint

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, machine_json, machine_key FROM runs")).fetchall()
    changed = []
    for run_id, machine_json, old in rows:
        key = Fingerprint.from_json(json.loads(machine_json)).key()
        if key != old:
            changed.append({"key": key, "id": run_id})
    if changed:
        bind.execute(sa.text("UPDATE runs SET machine_key = :key WHERE id = :id"), changed)
    ops.set_version(5)


downgrade = ops.forward_only
