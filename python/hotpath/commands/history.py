# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath history`: the stored runs of every lab, newest first, each with
its labs and its machine (`--machine KEY`: one machine's only). Reads
only: the database is opened read-only, never created, initialised or
upgraded. Machine keys are today's rule's (hotpath.machine_keys):
a run stored under the first rule is keyed again from its fingerprint."""

import argparse
import json
import sys

from hotpath.commands.common import add_db_option, db_path
from hotpath.db.access import check_db_path
from hotpath.errors import UsageError
from hotpath.machine_keys import keyed_rows, resolve_key
from hotpath.render import history as shown
from hotpath.store import Store

# Far beyond any history, and well inside SQLite's 64-bit LIMIT.
MAX_LIMIT = 1_000_000_000


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("history")
    add_db_option(parser)
    parser.add_argument(
        "--limit", type=int, default=20, help=f"at most N runs, 1..{MAX_LIMIT} (default 20)"
    )
    parser.add_argument(
        "--machine",
        default=None,
        metavar="KEY",
        help="only the runs of this machine: its key (hotpath machines) or a unique start of one",
    )
    parser.add_argument(
        "--json", action="store_true", help=f"print the list as {shown.HISTORY_SCHEMA} JSON"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= MAX_LIMIT:
        raise UsageError(f"--limit '{args.limit}': allowed: 1..{MAX_LIMIT}")
    path = db_path(args)
    check_db_path(path, write=False)
    if not path.exists():
        if args.json:
            sys.stdout.write(json.dumps(shown.runs_json([]), indent=2) + "\n")
        else:
            print(f"no runs recorded yet in {path}")
        return 0
    store = Store.open(path, create=False)
    try:
        if args.machine is None:
            rows = keyed_rows(store, store.runs(args.limit))
        else:
            every = keyed_rows(store, store.runs())
            keys: dict[str, str] = {}  # key: short name, the newest run's first
            for row in every:
                keys.setdefault(row.machine_key, row.machine)
            key = resolve_key(args.machine, keys, path)
            rows = [row for row in every if row.machine_key == key][: args.limit]
    finally:
        store.close()
    if args.json:
        sys.stdout.write(json.dumps(shown.runs_json(rows), indent=2) + "\n")
    else:
        sys.stdout.write(shown.runs_table(rows))
    return 0
