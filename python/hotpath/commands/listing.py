# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath list [LAB]`: every variant and whether it runs on this CPU."""

import argparse
import json
import sys

from hotpath import measure, measured_rows
from hotpath.errors import UsageError
from hotpath.labs import LABS

SCHEMA = "hotpath.list/1"


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("list")
    parser.add_argument("lab", nargs="?", default=None, metavar="LAB")
    parser.add_argument(
        "--json", action="store_true", help=f"print the runner's list as {SCHEMA} JSON"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.lab is not None and args.lab not in LABS:
        raise UsageError(f"lab '{args.lab}': unknown; known: {', '.join(LABS)}")
    runner = measure.get_runner()
    known = measure.listing(runner)
    cpu = known.cpu
    primitives = [p for p in known.primitives if args.lab is None or p.lab == args.lab]
    if args.json:
        out = {
            "schema": SCHEMA,
            "primitives": [
                {"primitive": p.name, "lab": p.lab, "variants": [v.__dict__ for v in p.variants]}
                for p in primitives
            ],
        }
        sys.stdout.write(json.dumps(out, indent=2, default=lambda o: o.__dict__) + "\n")
        return 0
    print(f"cpu: {cpu.brand} ({cpu.vendor} family {cpu.family} model {cpu.model}); "
          f"features: {', '.join(cpu.features) or 'none'}")  # fmt: skip
    if known.dispatch:
        print("\n".join(measured_rows.in_use_lines(known.dispatch)))
    for prim in primitives:
        print(f"\n{prim.lab} / {prim.name}")
        width = max((len(v.name) for v in prim.variants), default=7)
        for v in prim.variants:
            status = f"{v.status}: {v.reason}" if v.reason else v.status
            needs = f" [needs {', '.join(v.needs)}]" if v.needs else ""
            print(f"  {v.name:<{width}}  {status:<12} {v.desc}{needs}")
    if args.lab is not None and not primitives:
        # crossing and tune time with programs of their own, not the runner
        print(
            f"\nlab {args.lab}: no runner primitives; `hotpath {args.lab} --help` says what it runs"
        )
    return 0
