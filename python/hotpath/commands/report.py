# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath report RUN [--out DIR]`: the report folder of any stored run.

The same pages `hotpath run` writes (hotpath.report.write_pages), made from
the run as the history keeps it: summary first, heat tables, plots,
report.md and results.json. The history is only read. The folder is
written whole or not at all (destination.write_folder); its path is the
last line printed.
"""

import argparse
from pathlib import Path

from hotpath.commands import labs
from hotpath.commands.common import add_db_option, db_path
from hotpath.db.access import check_db_path
from hotpath.destination import write_folder
from hotpath.inputs import path
from hotpath.report import check_folder, write_results
from hotpath.results import RunResult
from hotpath.store import Store
from hotpath.verdicts import add_threshold_option, check_threshold


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "report",
        description="RUN is an id from `hotpath history`, 'last' or 'last~N'. Writes "
        "report.html, report.md, results.json and plots/ into DIR (default "
        "./hotpath-report-run<ID>) and prints the folder last.",
    )
    parser.add_argument("run_ref", metavar="RUN", help="run id, 'last' or 'last~N'")
    parser.add_argument("--out", type=path, default=None, metavar="DIR", help="report folder")
    add_threshold_option(parser, 0.0, "the summary's kernel lines")
    add_db_option(parser)
    parser.set_defaults(handler=run)


def load_run(args: argparse.Namespace, ref: str) -> RunResult:
    """One stored run, the history opened read-only; bad refs are UsageErrors."""
    path = db_path(args)
    check_db_path(path, write=False)
    store = Store.open(path, create=False)
    try:
        return store.load(store.resolve(ref))
    finally:
        store.close()


def run(args: argparse.Namespace) -> int:
    check_threshold(args.threshold)
    folder: Path | None = args.out
    if folder is not None:
        check_folder(folder)
    stored = load_run(args, args.run_ref)
    if folder is None:
        folder = Path(f"hotpath-report-run{stored.run_id}")
        check_folder(folder, "report folder", " (--out DIR)")

    def write(into: Path) -> None:
        labs.write_pages(stored, into, args.threshold)
        write_results(stored, into)

    write_folder(folder, write)
    print(folder)
    return 0
