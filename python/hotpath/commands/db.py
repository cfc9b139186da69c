# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath db upgrade` and `hotpath db check`: the history's schema brought
to the newest version (Alembic), and its health read (docs/history.md)."""

import argparse

from hotpath.commands.common import add_db_option, db_path
from hotpath.db.access import check_db_path
from hotpath.store import SCHEMA_VERSION, Store, upgrade_history


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("db")
    actions = parser.add_subparsers(dest="db_action", metavar="ACTION", required=True)
    upgrade = actions.add_parser(
        "upgrade",
        help=f"bring the history to schema {SCHEMA_VERSION} (creating it if there is none); "
        "nothing in it is lost",
    )
    add_db_option(upgrade)
    upgrade.set_defaults(handler=run_upgrade)
    check = actions.add_parser(
        "check",
        help="read the history and say what is wrong (exit 1) or that it is clean (exit 0): "
        "schema at the newest version, every figure with its run, every run with a uid, "
        "every sample readable",
    )
    add_db_option(check)
    check.set_defaults(handler=run_check)


def run_upgrade(args: argparse.Namespace) -> int:
    where = db_path(args)
    before, after = upgrade_history(where)
    if before is None:
        print(f"{where}: created at schema {after}")
    elif before == after:
        print(f"{where}: at schema {after} already, the newest; nothing to do")
    else:
        print(f"{where}: upgraded from schema {before} to {after}")
    return 0


def run_check(args: argparse.Namespace) -> int:
    where = db_path(args)
    check_db_path(where, write=False)
    store = Store.open(where, create=False)
    try:
        checked = store.check()
    finally:
        store.close()
    counts = ", ".join(f"{n} {what}" for what, n in checked.counts.items())
    print(f"{where}: {counts}")
    for problem in checked.problems:
        print(f"problem: {problem}")
    if checked.problems:
        print(f"{len(checked.problems)} problem(s)")
        return 1
    print(f"clean: schema {SCHEMA_VERSION}, every figure with its run")
    return 0
