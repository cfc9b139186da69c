# SPDX-License-Identifier: GPL-2.0-only
"""The tuning lab (seed 003) as data: kernel settings applied with an undo,
and their effect A/B-evaluated on workloads (`hotpath tune ...`).

Its `tune evaluate` runs are kept in the history (labs/tune/stored.py),
summarized (hooks.py) and rebuilt from there like any lab's; `hotpath run`
never runs it (evaluating changes the kernel's settings), and its commands
are its own (hotpath.commands.tune), not the engine labs' `hotpath <lab>`.
list, show, diff, apply, verify, revert and export load no numpy (a rescue
system, a guest whose emulated CPU numpy's wheels do not run on): the
CLI imports what a command uses only (hotpath.cli).
"""

from hotpath.labs.lab import Lab

LAB = Lab(
    name="tune",
    title="kernel settings A/B-evaluated on workloads (seed 003)",
    sizes_are_bytes=False,
    show_align=False,
    plotted=False,
    subcommand=False,
)
