# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath run`: calibration plus every lab's default suite, into a report folder.

The folder (default ./hotpath-report-<UTC timestamp>/) holds report.md,
report.html, results.json and plots/; its path is the last line printed.
The suite's rounds are chosen so the whole run takes well under three
minutes on a 2-core machine; --quick cuts them further.
"""

import argparse
from pathlib import Path

from hotpath import calibration, measure
from hotpath.commands.calibrate import request as calibration_request
from hotpath.commands.common import (
    add_db_option,
    add_repeat_option,
    check_common,
    db_path,
    store_run,
)
from hotpath.commands.lab import own_sizes
from hotpath.inputs import check_repeat
from hotpath.labs import ALL_LABS
from hotpath.report import check_folder, default_folder, write_report
from hotpath.stats import DEFAULT_NOISY_FRACTION


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "run",
        help="run every lab's default suite and write a report folder",
        description="Calibrate, run each lab's default suite, store the run and write "
        "report.md, report.html, results.json and plots. Prints the folder last.",
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds: a smoke run")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR", help="report folder")
    parser.add_argument("--no-store", action="store_true", help="do not save the run")
    add_repeat_option(parser)
    add_db_option(parser)
    parser.set_defaults(handler=run, noisy_threshold=DEFAULT_NOISY_FRACTION)


def run(args: argparse.Namespace) -> int:
    folder: Path = args.out if args.out is not None else default_folder()
    repeat = check_repeat(args.repeat)
    check_folder(folder)
    check_common(args)
    runner = measure.get_runner()
    known = measure.listing(runner)
    rounds = calibration.QUICK_ROUNDS if args.quick else calibration.SUITE_ROUNDS
    requests = [calibration_request(rounds)]
    for lab in ALL_LABS:
        suite = lab.suite
        for primitive in known.lab_members(lab.name):
            plan = lab.plan(primitive, own_sizes(known, primitive))
            requests.append(
                measure.Request(
                    primitive=primitive,
                    sizes=plan.sizes,
                    aligns=plan.aligns,
                    modes=plan.modes,
                    rounds=suite.quick_rounds if args.quick else suite.rounds,
                )
            )
    history = measure.width_history(db_path(args), known)
    groups = measure.run_requests(
        runner, requests, [], show_progress=True, repeat=repeat, width_history=history
    )
    result = measure.new_run("run", groups, args.noisy_threshold, args.command_line)
    width = measure.timeline(
        runner,
        calibration.SUITE_TIMELINE_SECONDS,
        calibration.TIMELINE_INTERVAL_MS,
        None,
        measure.width_reference(history),
    )
    cal = calibration.analyze(groups[0][0], result.figures, width)
    result.calibration = cal.to_json()
    store_run(args, result)
    write_report(result, folder, cal)
    if result.run_id is not None:
        print(f"stored as run {result.run_id}")
    wrong = result.wrong_variants()
    if wrong:
        print(f"WRONG variants (shown in the report): {', '.join(v.info.name for v in wrong)}")
    print(folder)
    return 0
