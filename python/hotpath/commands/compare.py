# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath compare RUN_A RUN_B`: is B faster or slower than A, with evidence."""

import argparse
import json
import sys

from hotpath import compare
from hotpath.commands.common import add_db_option, db_path
from hotpath.errors import UsageError
from hotpath.store import Store, check_db_path


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare two stored runs figure by figure",
        description="RUN is an id from `hotpath history`, 'last' or 'last~N'.",
    )
    parser.add_argument("run_a", metavar="RUN_A")
    parser.add_argument("run_b", metavar="RUN_B")
    parser.add_argument(
        "--threshold",
        type=float,
        default=compare.DEFAULT_THRESHOLD,
        help="smallest ratio change called a difference (default 0.02: 2%%)",
    )
    parser.add_argument("--json", action="store_true", help="print hotpath.compare/1 JSON")
    add_db_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not 0.0 <= args.threshold < 1.0:
        raise UsageError(f"--threshold '{args.threshold}': allowed: a fraction in [0, 1)")
    path = db_path(args)
    check_db_path(path)
    store = Store.open(path, create=False)
    try:
        run_a = store.load(store.resolve(args.run_a))
        run_b = store.load(store.resolve(args.run_b))
    finally:
        store.close()
    result = compare.compare_runs(run_a, run_b, args.threshold)
    if args.json:
        sys.stdout.write(json.dumps(compare.to_json(result), indent=2) + "\n")
    else:
        sys.stdout.write(compare.render(result))
    return 0
