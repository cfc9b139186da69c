# SPDX-License-Identifier: GPL-2.0-only
"""The crossing lab's hooks: it times with a program of its own, so its
command, its share of `hotpath run`, its summary and its report files are
its own."""

from hotpath.labs.crossing import add_arguments, stored
from hotpath.labs.crossing.command import run, suite
from hotpath.labs.hooks import LabHooks

HOOKS = LabHooks(
    add_arguments=add_arguments,
    own_command=run,
    own_suite=suite,
    summarize=stored.lab_summary,
    write_files=stored.write_files,
)
