# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath push URL [RUN...]`: copy runs from a local history (--db, as
every command takes it) into a shared one, for machines that measure
offline. Runs are matched by their uid: a run the target has already is
skipped, so pushing twice (or from two copies of a history) stores it
once. Every run is read back as a reader would before the first write
(a corrupt run in a shared store would break every client's commands):
one that does not read is named and not pushed. Each run goes in its own
transaction, whole or not at all, figures and samples as they are stored,
byte for byte (its command line's password masked); the source is only
read. Any run that did not go (corrupt, or refused by the target) is
named on stderr and the exit status is 1: the others went, as said."""

import argparse
import sys

from hotpath.commands.common import add_db_option, db_path
from hotpath.db.access import check_db_path
from hotpath.db.location import DbLocation, location_type
from hotpath.db.rows import run_problems
from hotpath.errors import StoreError, UsageError
from hotpath.store import Store


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("push")
    parser.add_argument(
        "target",
        type=location_type,
        metavar="URL",
        help="the history to copy into: postgresql://USER@HOST/DB, or a SQLite file",
    )
    parser.add_argument(
        "runs",
        nargs="*",
        metavar="RUN",
        help="runs to copy: ids, 'last' or 'last~N' (default: every run)",
    )
    add_db_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    source_at = db_path(args)
    target_at = args.target
    if str(source_at) == str(target_at):
        raise UsageError(f"push: '{target_at}' is the history the runs come from (--db)")
    check_db_path(source_at, write=False)
    check_db_path(target_at)
    source = Store.open(source_at, create=False)
    try:
        ids = [source.resolve(ref) for ref in args.runs] if args.runs else source.ids()
        source.require_uids()  # before the target is touched
        failed: dict[int, str] = {}
        for run_id in sorted(set(ids)):  # every run read before the first write
            problems = run_problems(run_id, *source.export(run_id))
            if problems:
                failed[run_id] = "; ".join(problems)
        good = [run_id for run_id in sorted(set(ids)) if run_id not in failed]
        pushed, kept = _copy(source, good, target_at, failed)
    finally:
        source.close()
    for run_id, why in sorted(failed.items()):
        print(f"hotpath: run {run_id}: not pushed: {why}", file=sys.stderr)
    print(
        f"pushed {pushed} run(s) from {source_at} to {target_at}; {kept} were there already"
        + (f"; {len(failed)} not pushed" if failed else "")
    )
    return 1 if failed else 0


def _copy(
    source: Store, ids: list[int], target_at: DbLocation, failed: dict[int, str]
) -> tuple[int, int]:
    """Each run into the target in a transaction of its own, saying which
    went; one the target refuses goes into `failed`. (pushed, there already)"""
    target = Store.open(target_at)
    pushed = kept = 0
    try:
        for run_id in ids:
            try:
                new_id = target.copy_in(*source.export(run_id))
            except StoreError as err:
                failed[run_id] = str(err)
                continue
            if new_id is None:
                kept += 1
                print(f"run {run_id}: {target_at} has it already")
            else:
                pushed += 1
                print(f"run {run_id}: stored as run {new_id} in {target_at}")
    finally:
        target.close()
    return pushed, kept
