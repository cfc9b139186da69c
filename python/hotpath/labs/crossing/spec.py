# SPDX-License-Identifier: GPL-2.0-only
"""The crossing lab as data (hotpath.labs.lab.Lab)."""

from hotpath.labs.lab import Lab

LAB = Lab(
    name="crossing",
    title="user write() vs kernel_write() from a module vs batched user I/O (seed 001)",
    # No runner primitives: `hotpath run` runs the lab's own quick suite
    # (own_suite) instead.
    show_align=False,
    plotted=False,
)
