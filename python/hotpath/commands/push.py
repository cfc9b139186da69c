# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath push URL [RUN...]`: copy runs from a local history (--db, as
every command takes it) into a shared one, for machines that measure
offline. Runs are matched by their uid: a run the target has already is
skipped, so pushing twice (or from two copies of a history) stores it
once. Each run goes in its own transaction, figures and samples as they
are stored, byte for byte; the source is only read."""

import argparse

from hotpath.commands.common import add_db_option, db_path
from hotpath.db.access import check_db_path
from hotpath.db.location import location_type
from hotpath.errors import UsageError
from hotpath.store import Store


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "push", help="copy runs of this history into another (a shared PostgreSQL store)"
    )
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
        target = Store.open(target_at)
        try:
            pushed = kept = 0
            for run_id in sorted(set(ids)):
                new_id = target.copy_in(*source.export(run_id))
                if new_id is None:
                    kept += 1
                    print(f"run {run_id}: {target_at} has it already")
                else:
                    pushed += 1
                    print(f"run {run_id}: stored as run {new_id} in {target_at}")
        finally:
            target.close()
    finally:
        source.close()
    print(f"pushed {pushed} run(s) from {source_at} to {target_at}; {kept} were there already")
    return 0
