# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath run`: calibration plus every lab's default suite, into a report folder.

The folder (default ./hotpath-report-<UTC timestamp>/) holds report.md,
report.html, results.json and plots/ (and crossing.md/.json: the crossing
lab times with a program of its own, its figures kept in the run like the
others'); its path is the last line printed.
The suite's rounds are chosen so the whole run takes well under three
minutes on a 2-core machine; --quick cuts them further.

The folder and the history row go together: the run's row is inserted
(not committed), the folder written in a hidden temporary place beside it
with the row's id in its pages and results.json, the folder moved into place, and
only then the row committed. An interrupt or a failure on the way leaves
neither (after a failure the run's tables are printed, so nothing measured
is lost); a row that cannot be written (or an interrupt at its commit)
leaves the report, its results.json saying run_id null, and says so.
"""

import argparse
import sys
from pathlib import Path
from typing import NoReturn

from hotpath import calibration, measure
from hotpath.commands import labs
from hotpath.commands.common import (
    add_db_option,
    add_repeat_option,
    db_path,
)
from hotpath.db.access import storing
from hotpath.delivery import check_common
from hotpath.destination import StagedFolder, reason
from hotpath.errors import HotpathError, StoreError
from hotpath.inputs import check_repeat, path
from hotpath.kernelsrc import variants
from hotpath.labs import ALL_LABS
from hotpath.render import summary as summary_text
from hotpath.render import text
from hotpath.report import check_folder, default_folder, write_results
from hotpath.results import RunResult
from hotpath.stats import DEFAULT_NOISY_FRACTION
from hotpath.store import Store
from hotpath.tree import repo_root
from hotpath.verdicts import add_threshold_option, check_threshold


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "run",
        description="Calibrate, run each lab's default suite, store the run and write "
        "report.md, report.html, results.json and plots. Prints the folder last.",
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds: a smoke run")
    parser.add_argument("--out", type=path, default=None, metavar="DIR", help="report folder")
    parser.add_argument("--no-store", action="store_true", help="do not save the run")
    add_threshold_option(parser, 0.0, "the summary's kernel lines")
    add_repeat_option(parser)
    add_db_option(parser)
    parser.set_defaults(handler=run, noisy_threshold=DEFAULT_NOISY_FRACTION)


def run(args: argparse.Namespace) -> int:
    folder: Path = args.out if args.out is not None else default_folder()
    repeat = check_repeat(args.repeat)
    check_threshold(args.threshold)
    if args.out is not None:
        check_folder(folder)
    else:
        check_folder(folder, "report folder", " (--out DIR)")
    check_common(args)
    runner = measure.get_runner()
    known = measure.listing(runner)
    rounds = calibration.QUICK_ROUNDS if args.quick else calibration.SUITE_ROUNDS
    requests = [measure.calibration_request(rounds)]
    for lab in ALL_LABS:
        suite = lab.suite
        if suite is None:  # no runner primitives: own_suite below, or none
            continue
        # Debian's kernels' own code beside the rest (a line says so when not at hand).
        kernels = variants.lab_kernels(lab.name, [], True, repo_root(), runner.build)
        for primitive in known.lab_members(lab.name):
            plan = lab.plan(primitive, measure.own_sizes(known, primitive))
            requests.append(
                measure.Request(
                    primitive=primitive,
                    sizes=plan.sizes,
                    aligns=plan.aligns,
                    modes=plan.modes,
                    rounds=suite.quick_rounds if args.quick else suite.rounds,
                    brought=kernels.runner_args(primitive),
                )
            )
    history = measure.width_history(db_path(args), known)
    groups = measure.run_requests(
        runner, requests, [], show_progress=True, repeat=repeat, width_history=history
    )
    result = labs.enrich(measure.new_run("run", groups, args.noisy_threshold, args.command_line))
    width = measure.timeline(
        runner,
        calibration.SUITE_TIMELINE_SECONDS,
        calibration.TIMELINE_INTERVAL_MS,
        None,
        measure.width_reference(history),
    )
    cal = calibration.analyze(groups[0][0], result.figures, width)
    result.calibration = cal.to_json()
    # Labs that time with a program of their own (crossing) add their share.
    own = [
        share(result, args.quick) for lab in ALL_LABS if (share := labs.hooks(lab.name).own_suite)
    ]
    stored = write_and_store(args, result, folder)
    for line in own:
        print(line)
    print("\n".join(summary_text.render_lines(labs.summarize(result, args.threshold))))
    if result.run_id is not None:
        print(f"stored as run {result.run_id}")
    wrong = result.wrong_variants()
    if wrong:
        print(f"WRONG variants (shown in the report): {', '.join(v.info.name for v in wrong)}")
    print(folder)
    if stored is not None:
        raise HotpathError(f"the run was not stored: {stored}; the report has it")
    return 0


def write_and_store(
    args: argparse.Namespace,
    result: RunResult,
    folder: Path,
) -> str | None:
    """The report folder, then the history row (module docstring); returns why
    the row could not be written, if it could not. A report that cannot be
    written prints the run's tables and raises HotpathError; no row is kept."""
    try:
        staged = StagedFolder(folder)
    except OSError as err:
        _report_failed(args, result, folder, err)
    store: Store | None = None
    problem = None
    where = db_path(args)
    # A history file this run creates goes again if the run is not kept.
    made = isinstance(where, Path) and storing(args) and not where.exists()
    try:
        if storing(args):  # first: the pages name the run's id
            try:
                store = Store.open(where)
                store.insert(result)
            except StoreError as err:
                problem = str(err)
                if store is not None:
                    store.close()
                    store = None
        labs.write_pages(result, staged.path, args.threshold)
        write_results(result, staged.path)
        staged.commit()
    except BaseException as err:
        staged.discard()
        if store is not None:
            store.rollback(result)
            store.close()
        if made and isinstance(where, Path):
            where.unlink(missing_ok=True)
        if isinstance(err, OSError):
            _report_failed(args, result, folder, err)
        raise
    if store is None:
        return problem
    try:
        store.commit(result)
    except BaseException as err:
        # The folder is in place but its row is not: say so in results.json.
        store.rollback(result)
        problem = str(err)
        try:
            write_results(result, folder)
        except OSError as again:
            problem += f"; {folder / 'results.json'} still names the run ({reason(again)})"
        if not isinstance(err, StoreError):
            raise
    finally:
        store.close()
    return problem


def _report_failed(
    args: argparse.Namespace, result: RunResult, folder: Path, err: OSError
) -> NoReturn:
    sys.stdout.write(text.render_run(result))
    stored = "; the run was not stored" if storing(args) else ""
    raise HotpathError(
        f"report folder '{folder}' could not be written ({reason(err)}){stored}; "
        "the results are printed above"
    ) from err
