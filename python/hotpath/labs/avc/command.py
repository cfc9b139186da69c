# SPDX-License-Identifier: GPL-2.0-only
"""The avc lab's own modes (LabHooks.own_command): --stats and --recommend
instead of timing, the timed lookups' node counts checked before anything
runs; and its seed table (LabHooks.seed_table, `--seed-table`)."""

import argparse

from hotpath import measure
from hotpath.errors import UsageError
from hotpath.labs.avc import _slots
from hotpath.labs.avc import recommend as avc_recommend
from hotpath.labs.avc import seed_table as avc_seed_table
from hotpath.labs.avc import stats as avc_stats


def run(args: argparse.Namespace) -> int | None:
    """--stats or --recommend instead of timing; None when not asked."""
    asked = [flag for flag in ("stats", "recommend") if getattr(args, flag)]
    if getattr(args, "lookup_seeds", None) is not None:
        raise UsageError(
            f"--lookup-seeds '{args.lookup_seeds}': allowed only with --seed-table "
            "(the other modes time one workload seed's cache)"
        )
    if not asked:
        if args.trace is not None:
            raise UsageError(f"--trace '{args.trace}': allowed only with --stats or --recommend")
        if args.sizes is not None:
            # The timed lookups take the node counts --stats takes (their
            # registry refuses others): refused here, before anything runs,
            # not each figure "n/a" and exit 0.
            known = measure.listing(measure.get_runner())
            avc_stats.node_counts(known, args.sizes, ())
        return None
    if len(asked) > 1:
        raise UsageError("one of --stats, --seed-table, --recommend at a time")
    avc_stats.check_checks(args.checks)
    if args.recommend:
        return avc_recommend.run(args)
    return avc_stats.run(args, _slots(args.slots))


def seed_table(args: argparse.Namespace) -> int:
    """--seed-table: seed 004's tables (labs/avc/seed_table.py), after
    refusing what it cannot take beside it."""
    if args.stats or args.recommend:
        raise UsageError("one of --stats, --seed-table, --recommend at a time")
    if args.trace is not None or args.sizes is not None:
        raise UsageError(
            "--seed-table: sets its own configurations; allowed beside it: "
            "--checks, --rounds, --repeat, --lookup-seeds, --json, --db, --no-store"
        )
    avc_stats.check_checks(args.checks)
    return avc_seed_table.run(args)
