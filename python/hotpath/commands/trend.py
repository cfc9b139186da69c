# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath trend`: one figure's medians over the stored runs, its change
points and outlying runs (hotpath.trend), as a table, JSON or an HTML page.

`--all` lists every figure of the machine key with a change point, the
largest first. The history is only read (opened read-only); --html DIR is
written whole or not at all (destination.write_folder).
"""

import argparse
import json
import sys
from pathlib import Path

from hotpath.commands.common import add_db_option, db_path
from hotpath.db.access import check_db_path
from hotpath.destination import check_folder, write_folder
from hotpath.errors import UsageError
from hotpath.inputs import path
from hotpath.render import trend as shown
from hotpath.trend import (
    DEFAULT_MAX_PVALUE,
    DEFAULT_MIN_MAGNITUDE,
    DEFAULT_MIN_SEGMENT,
    ORDERS,
    TREND_SCHEMA,
    History,
    Selection,
    Settings,
    Trend,
    check_selection,
    figure_keys,
    read_history,
    trend,
)

PAGE = "trend.html"
# Candidates named in the message when a selection matches several figures.
NAMED = 12


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "trend",
        description="The series of one figure's medians over the runs of one machine key, "
        "ordered by time or kernel release, with its change points (E-Divisive means and a "
        "t-test, apache-otava; each with its magnitude, 95%% interval, p-value and the first "
        "run after it) and its outlying runs (generalized ESD). --all: every figure with a "
        "change point, largest first.",
    )
    add_db_option(parser)
    parser.add_argument("--lab", default=None, help="the lab (csum, crc32c, ...)")
    parser.add_argument("--primitive", default=None, help="the lab's primitive")
    parser.add_argument("--variant", default=None, help="the variant")
    parser.add_argument("--size", type=int, default=None, metavar="BYTES", help="the size")
    parser.add_argument("--align", type=int, default=None, metavar="OFFSET", help="the offset")
    parser.add_argument("--mode", default=None, help="latency, throughput, fenced, ...")
    parser.add_argument(
        "--machine",
        default=None,
        metavar="KEY",
        help="the machine: its key (`hotpath history --json`: machine_key), or a unique start "
        "of one (default: the newest run's); the series takes its runs on every kernel release "
        "(keys that differ in the kernel only)",
    )
    parser.add_argument(
        "--exact-key",
        action="store_true",
        help="only the runs of that exact key (one kernel release)",
    )
    parser.add_argument(
        "--by",
        choices=ORDERS,
        default="time",
        help="order the runs by start time or kernel release",
    )
    parser.add_argument(
        "--min-segment",
        type=int,
        default=DEFAULT_MIN_SEGMENT,
        metavar="N",
        help=f"fewest runs on each side of a change point (default {DEFAULT_MIN_SEGMENT}); a "
        "shorter excursion is an outlier, not a change",
    )
    parser.add_argument(
        "--min-magnitude",
        type=float,
        default=DEFAULT_MIN_MAGNITUDE,
        metavar="F",
        help=f"smallest change called, a fraction (default {DEFAULT_MIN_MAGNITUDE}: 2%%)",
    )
    parser.add_argument(
        "--max-pvalue",
        type=float,
        default=DEFAULT_MAX_PVALUE,
        metavar="P",
        help=f"largest p-value of a change point or an outlier (default {DEFAULT_MAX_PVALUE})",
    )
    parser.add_argument(
        "--all", action="store_true", help="every figure with a change point, largest first"
    )
    parser.add_argument("--json", action="store_true", help=f"print {TREND_SCHEMA} JSON")
    parser.add_argument(
        "--html", type=path, default=None, metavar="DIR", help=f"write {PAGE} (plots) into DIR"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    settings = Settings(args.min_segment, args.min_magnitude, args.max_pvalue)
    settings.check()
    for name in ("size", "align"):
        value = getattr(args, name)
        if value is not None and value < 0:
            raise UsageError(f"--{name} '{value}': allowed: a whole number, 0 or more")
    if args.html is not None:
        check_folder(args.html, "--html")
    path = db_path(args)
    check_db_path(path, write=False)
    if not path.exists():
        raise UsageError(f"database '{path}' does not exist: no runs recorded there yet")
    selection = Selection(args.lab, args.primitive, args.variant, args.size, args.align, args.mode)
    history = read_history(path, args.machine, exact=args.exact_key)
    check_selection(history, selection)
    keys = figure_keys(history, selection)
    outlying: list[Trend] = []
    if args.all:
        every = [trend(history, key, args.by, settings) for key in keys]
        trends = sorted((t for t in every if t.changes), key=lambda t: -t.largest())
        outlying = [t for t in every if t.outliers and not t.changes]
    else:
        if len(keys) != 1:
            raise UsageError(_ambiguous(selection, keys, history))
        trends = [trend(history, keys[0], args.by, settings)]
    if args.html is not None:
        folder: Path = args.html
        page = shown.page(history, trends, settings)

        def write(into: Path) -> None:
            (into / PAGE).write_text(page, encoding="utf-8")

        write_folder(folder, write)
    if args.json:
        doc = shown.to_json(history, trends, outlying if args.all else None, settings, args.by)
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    elif args.all:
        sys.stdout.write(shown.text_all(history, trends, outlying, settings, args.by))
    else:
        sys.stdout.write(shown.text_one(history, trends[0], settings))
    if args.html is not None:
        print(args.html / PAGE, file=sys.stderr if args.json else sys.stdout)
    return 0


def _ambiguous(
    selection: Selection, keys: list[tuple[str, str, str, int, int, str, str]], history: History
) -> str:
    """Why one figure could not be chosen, and the options that would."""
    chosen = selection.options()
    if not keys:
        return f"{chosen}: no timed figure of machine {history.machine_key} matches"
    named = [
        f"--lab {k[0]} --primitive {k[1]} --variant {k[2]} --size {k[3]} --align {k[4]} "
        f"--mode {k[5]}"
        for k in keys[:NAMED]
    ]
    more = f"\n  ... and {len(keys) - NAMED} more" if len(keys) > NAMED else ""
    return (
        f"{chosen}: {len(keys)} figures match; allowed: options that pick one of them "
        "(or --all for every figure with a change point):\n  " + "\n  ".join(named) + more
    )
