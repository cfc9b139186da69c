# SPDX-License-Identifier: GPL-2.0-only
"""A measured run to its destinations, in one order.

Every destination is checked before measuring (check_common here,
commands.common.check_plot, report.check_folder). After measuring, one
order (deliver): the files (plots) first, then the history row, then the
printout. So no row is kept for a run whose plots failed; a failed store
still prints the run; and either failure ends the command with status 1
and a line saying what could not be written, after the run was printed.
Used by the commands and by the labs' own modes (avc --stats, crossing).
"""

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hotpath.db.access import check_db_path, db_path, storing
from hotpath.destination import reason
from hotpath.errors import HotpathError, StoreError, UsageError
from hotpath.plots import plot_run
from hotpath.results import RunResult
from hotpath.stats import DEFAULT_NOISY_FRACTION
from hotpath.store import Store


def check_common(args: argparse.Namespace) -> None:
    """Validate the shared options before anything runs."""
    threshold = getattr(args, "noisy_threshold", DEFAULT_NOISY_FRACTION)
    if not 0.0 < threshold < 1.0:
        raise UsageError(f"--noisy-threshold '{threshold}': allowed: a fraction in (0, 1)")
    if not getattr(args, "no_store", False):
        check_db_path(db_path(args))


def store_run(args: argparse.Namespace, run: RunResult) -> None:
    """Save the run now (run.run_id set); StoreError, run.run_id None, if it cannot be."""
    if not storing(args):
        return
    store = Store.open(db_path(args))
    try:
        store.save(run)
    finally:
        store.close()


def deliver(
    args: argparse.Namespace,
    run: RunResult,
    show: Callable[[], None],
    plot: Path | None = None,
) -> None:
    """A measured run to its destinations: plots, history row, printout (show).

    The run is always printed. Plots that cannot be written leave no row;
    a row that cannot be written leaves the plots. Either way, once the run
    is printed, a HotpathError (status 1) says what was not written.
    """
    problem = None
    if plot is not None:
        try:
            plot_run(run, plot)
        except OSError as err:
            problem = f"plots could not be written to '{plot}' ({reason(err)})"
            if storing(args):
                problem += "; the run was not stored"
    if problem is None:
        try:
            store_run(args, run)
        except StoreError as err:
            problem = f"the run was not stored: {err}"
    show()
    if problem is not None:
        raise HotpathError(f"{problem}; the results are printed above")


def deliver_printed(
    args: argparse.Namespace,
    run: RunResult,
    text: Callable[[], str],
    doc: Callable[[], dict[str, Any]],
) -> None:
    """deliver() with the labs' own printout: with --json the document
    doc() gives, else text() and the line saying where the run was stored.
    Both are called after the store, so they can name the run."""

    def show() -> None:
        if getattr(args, "json", False):
            sys.stdout.write(json.dumps(doc(), indent=2) + "\n")
            return
        sys.stdout.write(text())
        if run.run_id is not None:
            sys.stdout.write(f"stored as run {run.run_id} in {db_path(args)}\n")

    deliver(args, run, show)
