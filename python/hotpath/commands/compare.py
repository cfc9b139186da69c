# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath compare A B`: is B faster or slower than A, with evidence.

A and B are runs (`12`, `last`, `last~1`), or one variant of a run each
(`last:kernel-5.17 last:mine`): then that variant's figures are compared
with the other's, size by size.
"""

import argparse
import json
import sys

from hotpath import compare, destination
from hotpath.commands.common import add_db_option, db_path
from hotpath.db.access import check_db_path
from hotpath.errors import UsageError
from hotpath.inputs import path
from hotpath.machine import Fingerprint
from hotpath.render import commit_block, compare_html, compare_text
from hotpath.report import check_folder
from hotpath.results import FigureResult, RunResult
from hotpath.store import Store
from hotpath.verdicts import DEFAULT_THRESHOLD, add_threshold_option, check_threshold


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "compare",
        description="RUN is an id from `hotpath history`, 'last' or 'last~N'; RUN:VARIANT "
        "takes one variant of that run (then both sides name one). With 3 or more replicas "
        "on each side (--repeat) the verdict comes from the spread of the replicas; with "
        "single runs a difference must clear this machine's A/A floor.",
    )
    parser.add_argument("run_a", metavar="A", help="RUN or RUN:VARIANT")
    parser.add_argument("run_b", metavar="B", help="RUN or RUN:VARIANT")
    add_threshold_option(parser, DEFAULT_THRESHOLD, "the verdict per figure (and --html's)")
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print hotpath.compare/2 JSON")
    fmt.add_argument(
        "--markdown",
        action="store_true",
        help="print the comparison as a table for a commit message (before, after, change, "
        "verdict per figure)",
    )
    parser.add_argument(
        "--html",
        type=path,
        default=None,
        metavar="DIR",
        help="also write the comparison as DIR/compare.html (verdicts, machines side by side, "
        "a ratio heat table per primitive and mode)",
    )
    add_db_option(parser)
    parser.set_defaults(handler=run)


def _split(ref: str) -> tuple[str, str | None]:
    run, sep, variant = ref.partition(":")
    if sep and not variant:
        raise UsageError(f"run '{ref}': allowed: RUN or RUN:VARIANT with a variant name")
    return run, variant if sep else None


def _check_variant(run: RunResult, variant: str, ref: str) -> None:
    names = sorted({f.variant for f in run.figures if f.timed})
    if variant not in names:
        raise UsageError(
            f"variant '{variant}' of '{ref}': no timed figure; allowed: {', '.join(names)}"
        )


def _machines(run_a: RunResult, run_b: RunResult) -> list[Fingerprint]:
    """The fingerprints of A and B, one per machine key."""
    found = {run_a.machine.key(): run_a.machine, run_b.machine.key(): run_b.machine}
    return [found[key] for key in sorted(found)]


def _replicated(store: Store, fp: Fingerprint) -> list[list[FigureResult]]:
    """The A/A evidence of this machine: replicated runs stored under its key;
    where there are none, those stored under its first-rule key (a history
    whose machine_key column still holds those: the same CPU and VM or not,
    of any kernel or microcode, as that rule had it)."""
    return store.replicated_figures(fp.key()) or store.replicated_figures(fp.legacy_key())


def run(args: argparse.Namespace) -> int:
    check_threshold(args.threshold)
    if args.html is not None:
        check_folder(args.html, "--html")
    ref_a, variant_a = _split(args.run_a)
    ref_b, variant_b = _split(args.run_b)
    if (variant_a is None) != (variant_b is None):
        raise UsageError(
            f"'{args.run_a}' and '{args.run_b}': name a variant on both sides (RUN:VARIANT) "
            "or on neither"
        )
    path = db_path(args)
    check_db_path(path, write=False)
    store = Store.open(path, create=False)  # read-only: compare changes nothing
    try:
        run_a = store.load(store.resolve(ref_a))
        run_b = store.load(store.resolve(ref_b))
        aa = compare.AAFloor.from_figures(
            [figs for fp in _machines(run_a, run_b) for figs in _replicated(store, fp)]
        )
    finally:
        store.close()
    if variant_a is not None and variant_b is not None:
        _check_variant(run_a, variant_a, args.run_a)
        _check_variant(run_b, variant_b, args.run_b)
    result = compare.compare_runs(run_a, run_b, args.threshold, aa, variant_a, variant_b)
    if args.json:
        sys.stdout.write(json.dumps(compare_text.to_json(result), indent=2) + "\n")
    elif args.markdown:
        sys.stdout.write(commit_block.compare_markdown(result))
    else:
        sys.stdout.write(compare_text.render(result))
    if args.html is not None:
        page = compare_html.render_page(result, run_a, run_b)
        destination.write_folder(
            args.html, lambda into: destination.write_file(into / "compare.html", page)
        )
        plain = not (args.json or args.markdown)
        print(args.html / "compare.html", file=sys.stdout if plain else sys.stderr)
    return 0
