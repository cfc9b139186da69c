# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath machines`: the machines a history has seen, each with its key,
the key's parts and how many runs it has. Reads only: the database is
opened read-only, never created, initialised or upgraded.

The keys are today's rule's (hotpath.machine_keys).
"""

import argparse
import json
import sys

from hotpath.commands.common import add_db_option, db_path
from hotpath.db.access import check_db_path
from hotpath.machine_keys import machines
from hotpath.render import history as shown
from hotpath.store import Store


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "machines",
        description="Every machine key in the history, newest run first: its short name, "
        "the key's parts (vendor, family, model, stepping, microcode, CPU features, logical "
        "CPUs, kernel, VM or not), how many runs and the first and last run's start. A key, "
        "or a unique start of one, is what `hotpath history --machine` takes.",
    )
    add_db_option(parser)
    parser.add_argument(
        "--json", action="store_true", help=f"print the list as {shown.MACHINES_SCHEMA} JSON"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    path = db_path(args)
    check_db_path(path, write=False)
    found = []
    if path.exists():
        store = Store.open(path, create=False)
        try:
            found = machines(store)
        finally:
            store.close()
    if args.json:
        sys.stdout.write(json.dumps(shown.machines_json(found), indent=2) + "\n")
    else:
        sys.stdout.write(shown.machines_text(found, path))
    return 0
