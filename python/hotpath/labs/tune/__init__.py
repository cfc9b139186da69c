# SPDX-License-Identifier: GPL-2.0-only
"""The tuning lab (seed 003): kernel settings applied with an undo, and
their effect A/B-evaluated on workloads (`hotpath tune ...`).

Its code lives in hotpath.tune, outside this package on purpose: list,
show, apply, verify, revert and export must run without numpy (on a rescue
system, or in a guest whose emulated CPU numpy's wheels do not support),
and importing anything under hotpath.labs loads every lab's spec and the
result model with numpy. This spec is what the rest of hotpath knows of the
lab: its `tune evaluate` runs are kept in the history (hotpath.tune.stored),
summarized and rebuilt from there like any lab's; `hotpath run` never runs
it (evaluating changes the kernel's settings), and its commands are its own
(hotpath.commands.tune), not the engine labs' `hotpath <lab>`.
"""

from hotpath.labs.lab import Lab

LAB = Lab(
    name="tune",
    title="kernel settings A/B-evaluated on workloads (seed 003)",
    sizes_are_bytes=False,
    show_align=False,
    summarize="hotpath.tune.stored:lab_summary",
    plotted=False,
    subcommand=False,
)
