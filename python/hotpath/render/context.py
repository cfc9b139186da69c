# SPDX-License-Identifier: GPL-2.0-only
"""The lines above every table: machine, clock and warnings.

A figure is meaningless without its machine and unit, so every format
prints these first.
"""

from hotpath.results import RunResult
from hotpath.runstate import state_lines


def context_lines(run: RunResult) -> list[str]:
    lines = state_lines(run)
    lines.extend(f"warning: {w}" for w in run.machine.warnings())
    lines.extend(f"warning: {w}" for w in run.variant_warnings())
    return lines
