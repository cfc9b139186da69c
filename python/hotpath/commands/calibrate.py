# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath calibrate`: show the clock and check the engine against N adds.

Exit status: 0 every self-check passed, 1 one failed, 2 bad input.
"""

import argparse
import json
import sys

from hotpath import calibration, measure
from hotpath.commands.common import add_output_options, db_path
from hotpath.compare import MIN_REPLICAS, detectable_change
from hotpath.delivery import check_common, deliver
from hotpath.errors import UsageError
from hotpath.inputs import check_cpu, check_rounds
from hotpath.render import markdown
from hotpath.render.calibration import detectable_line
from hotpath.render.calibration import render as render_calibration
from hotpath.render.context import context_lines


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "calibrate",
        description="Time chains of 50, 100 and 200 dependent adds in latency mode: a "
        "correct engine reports N cycles for N adds; then watch the core's width with the "
        "probe for a few seconds: does a neighbour on the other hardware thread take part "
        "of it? Exit status 1 if a check fails.",
    )
    parser.add_argument("--rounds", type=int, default=calibration.DEFAULT_ROUNDS)
    parser.add_argument(
        "--seconds",
        type=int,
        default=calibration.TIMELINE_SECONDS,
        help=f"how long to watch the width (default {calibration.TIMELINE_SECONDS}; 0: not)",
    )
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to (-1: no pinning)")
    add_output_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    rounds = check_rounds(args.rounds)
    cpu = check_cpu(args.cpu)
    if not 0 <= args.seconds <= 3600:
        raise UsageError(f"--seconds '{args.seconds}': allowed: 0..3600")
    check_common(args)
    runner = measure.get_runner()
    history = measure.width_history(db_path(args), measure.listing(runner))
    # Three processes: their spread says how small a change compare can call here.
    groups = measure.run_requests(
        runner,
        [measure.calibration_request(rounds, cpu)],
        [],
        sys.stderr.isatty(),
        repeat=MIN_REPLICAS,
        width_history=history,
    )
    result = measure.new_run("calibrate", groups, args.noisy_threshold, args.command_line)
    width = (
        measure.timeline(
            runner,
            args.seconds,
            calibration.TIMELINE_INTERVAL_MS,
            cpu,
            measure.width_reference(history),
        )
        if args.seconds
        else None
    )
    cal = calibration.analyze(groups[0][0], result.figures, width)
    result.calibration = cal.to_json()
    detectable = {
        f.size: change
        for f in result.figures
        if (change := detectable_change(f.replica_medians)) is not None
    }
    result.calibration["detectable_change"] = {str(size): c for size, c in detectable.items()}

    def show() -> None:
        if args.json:
            sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
        elif args.markdown:
            sys.stdout.write(markdown.render_run(result))
        else:
            lines = [*context_lines(result), "", *render_calibration(cal)]
            lines.append(detectable_line(detectable))
            if result.run_id is not None:
                lines.append(f"stored as run {result.run_id}")
            sys.stdout.write("\n".join(lines) + "\n")

    deliver(args, result, show)
    return 0 if cal.passed else 1
