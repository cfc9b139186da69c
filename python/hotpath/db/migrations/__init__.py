# SPDX-License-Identifier: GPL-2.0-only
"""Alembic's environment (env.py) and the revisions (versions/), shipped
inside the package so that an installed hotpath migrates its histories
with no alembic.ini: hotpath.db.migrate configures Alembic in code."""
