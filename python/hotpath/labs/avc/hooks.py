# SPDX-License-Identifier: GPL-2.0-only
"""The avc lab's hooks: --slots for the runner, and its own modes (--stats,
--seed-table, --recommend: command.py) instead of timing."""

import argparse
from pathlib import Path

from hotpath.labs.avc import DEFAULT_CHECKS, DEFAULT_SLOTS, _slots
from hotpath.labs.avc.command import run, seed_table
from hotpath.labs.hooks import LabHooks


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--slots",
        default=str(DEFAULT_SLOTS),
        metavar="S",
        help=f"buckets of the cache, a power of two (default {DEFAULT_SLOTS}, the kernel's); "
        "the sizes are the nodes it holds",
    )

    parser.add_argument(
        "--stats",
        action="store_true",
        help="no timing: the cache model's hash_stats per hash (buckets used, longest "
        "chain) beside a random hash's, over the synthetic workload; with one hash "
        "(--variants) and one size, hash_stats and cache_stats as the kernel prints them",
    )
    parser.add_argument(
        "--checks",
        type=int,
        default=DEFAULT_CHECKS,
        metavar="C",
        help=f"--stats: permission checks the workload makes (default {DEFAULT_CHECKS})",
    )

    parser.add_argument(
        "--trace",
        type=Path,
        default=None,
        metavar="FILE",
        help="--stats: play a recorded workload instead, one 'ssid,tsid,tclass' per line "
        "('#' starts a comment)",
    )

    parser.add_argument(
        "--recommend",
        action="store_true",
        help="the slot count (2^9..2^14) and hash whose lookups are within 5%% of the "
        "fastest for the fewest bytes, for N nodes (--sizes, default 512) under the "
        "synthetic workload or --trace; with the table it chose from",
    )

    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="R",
        help="--stats: workload seeds the means are taken over (default 1; the seed table "
        "takes 16: a longest chain moves by a node from one seed to the next)",
    )

    parser.add_argument(
        "--lookup-seeds",
        type=int,
        default=None,
        metavar="K",
        help="--seed-table: workload seeds the lookups are timed over, a cache, key stream and "
        "runner process (--repeat processes) each, the table giving the mean of their medians "
        "(default 16, at most 32): which keys share a chain is one seed's luck",
    )


def runner_args(args: argparse.Namespace) -> list[str]:
    return ["--param", f"slots={_slots(args.slots)}"]


HOOKS = LabHooks(
    add_arguments=add_arguments, runner_args=runner_args, own_command=run, seed_table=seed_table
)
