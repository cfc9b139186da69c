# SPDX-License-Identifier: GPL-2.0-only
"""The crossing lab's command and its share of `hotpath run` (LabHooks.own_command,
LabHooks.own_suite): the options checked, then the user-space program here, the
module on the running kernel (hotpath.labs.crossing.run) or in a guest
kernel (hotpath.labs.crossing.vm); each run kept in the history."""

import argparse

from hotpath.db.access import check_db_path, db_path, storing
from hotpath.errors import UsageError
from hotpath.labs.crossing import check_dir, check_workload, refuse_engine_options, stored
from hotpath.labs.crossing import run as crossing_run
from hotpath.labs.crossing import vm as crossing_vm
from hotpath.results import RunResult


def run(args: argparse.Namespace) -> int:
    """The whole command (LabHooks.own_command): this lab never goes through the engine's runner."""
    refuse_engine_options(args)
    work = check_workload(args)
    if storing(args):  # before anything runs: a bad --db changes nothing
        check_db_path(db_path(args))
    if args.kernel == "vm":
        if args.dir is not None:
            raise UsageError(
                f"--dir '{args.dir}': allowed only without --kernel vm (the guest writes "
                "to a tmpfs of its own)"
            )
        # The guest's clock is emulated: the machine is the host's, measured here.
        return crossing_run.finish(args, crossing_vm.run(args, work), None)
    if args.time_limit is not None:
        raise UsageError(f"--time-limit '{args.time_limit}': allowed only with --kernel vm")
    folder = check_dir(args.dir, work.bytes)
    if args.kernel == "host":
        return crossing_run.run_host_kernel(args, work, folder)
    return crossing_run.run_user(args, work, folder)


def suite(run: RunResult, quick: bool) -> str:
    """`hotpath run`'s share: the quick suite's figures into `run`; the line to print."""
    part = crossing_run.suite_part(quick)
    if part.result is not None:
        stored.add_to(run, part.result)
    return part.line()
