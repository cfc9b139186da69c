# SPDX-License-Identifier: GPL-2.0-only
"""What a lab does beyond its spec and the engine: the same few hooks for
every lab, each a plain function of the lab's own modules.

A lab's hooks are `HOOKS = LabHooks(...)` in labs/<lab>/hooks.py; the
commands reach them through the one table of commands/labs.py, so the
direction is always commands -> labs -> engine and results, and a spec
(labs/<lab>/spec.py) stays plain data. A lab without a hooks module has
the defaults: no options of its own, the engine's timing, the engine
labs' summary.
"""

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hotpath.findings import LabSummary
    from hotpath.results import RunResult


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    """The lab has no options of its own."""


def _no_runner_args(args: argparse.Namespace) -> list[str]:
    """Nothing for the runner beyond the engine's arguments."""
    return []


@dataclass(frozen=True)
class LabHooks:
    # Its options on `hotpath <lab>`, beside the engine's.
    add_arguments: Callable[[argparse.ArgumentParser], None] = _no_arguments
    # What the runner is told beyond the engine's arguments (avc: --param slots=S).
    runner_args: Callable[[argparse.Namespace], list[str]] = _no_runner_args
    # Its own measuring where it does not go through the engine alone: the
    # exit status, or None when the options did not ask for it (avc:
    # --stats, --seed-table, --recommend; crossing: always).
    own_command: "Callable[[argparse.Namespace], int | None] | None" = None
    # `hotpath run`'s share of a lab that times with a program of its own
    # (crossing): adds its figures and section to the run, returns its line.
    own_suite: "Callable[[RunResult, bool], str] | None" = None
    # Sets a model's bound beside the lab's figures once a run is made
    # (csum: the dependency-chain bound of labs/csum/chainbound.py).
    attach_bounds: "Callable[[RunResult], None] | None" = None
    # What a run of it found, from the run alone (crossing, tune); None:
    # the engine labs' summary.
    summarize: "Callable[[RunResult], LabSummary] | None" = None
    # Files of its own in a report folder (crossing.md), from the run alone.
    write_files: "Callable[[RunResult, Path], list[Path]] | None" = None
    # A seed table of its own measuring (SeedTable.own: avc's): args -> exit status.
    seed_table: "Callable[[argparse.Namespace], int] | None" = None
