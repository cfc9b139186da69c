# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath list [LAB]`: every variant and whether it runs on this CPU."""

import argparse
import json
import sys

from hotpath import measure
from hotpath.errors import UsageError
from hotpath.labs import LABS
from hotpath.render import listing as shown


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("list")
    parser.add_argument("lab", nargs="?", default=None, metavar="LAB")
    parser.add_argument(
        "--json", action="store_true", help=f"print the runner's list as {shown.SCHEMA} JSON"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.lab is not None and args.lab not in LABS:
        raise UsageError(f"lab '{args.lab}': unknown; known: {', '.join(LABS)}")
    runner = measure.get_runner()
    known = measure.listing(runner)
    primitives = [p for p in known.primitives if args.lab is None or p.lab == args.lab]
    if args.json:
        doc = shown.to_json(primitives)
        sys.stdout.write(json.dumps(doc, indent=2, default=lambda o: o.__dict__) + "\n")
    else:
        sys.stdout.write(shown.text(known, primitives, args.lab))
    return 0
