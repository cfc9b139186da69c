# SPDX-License-Identifier: GPL-2.0-only
"""The tuning lab's hook: the summary of a stored `tune evaluate` run (its
commands are hotpath.commands.tune's, not the engine labs' `hotpath <lab>`)."""

from hotpath.labs.hooks import LabHooks
from hotpath.labs.tune.stored import lab_summary

HOOKS = LabHooks(summarize=lab_summary)
