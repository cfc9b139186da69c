# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath tune evaluate`: is the profile better, worse, or no evidence either way?

Configurations: A, the settings as they are at the start; B, the profile;
with --per-setting, each setting alone on top of A ("alone") or B without
each setting ("leave-one-out"). Every round runs each configuration in turn
(A B A B ... for two), each workload once per configuration, so drift of a
shared machine falls on all of them alike. Per workload and comparison:
the ratio of medians, its bootstrap 95% interval (hotpath.significance),
the Mann-Whitney p-value (hotpath.labs.tune.ranktest), and a verdict: better or
worse only when p is below alpha divided by the number of comparisons made
(Bonferroni: the whole evaluation keeps a 5% chance of one false call),
the interval excludes 1, and the ratio is beyond --threshold; the same
evidence with a ratio within the threshold is said as the change and its
interval, "below the threshold" (hotpath.verdicts); otherwise "no
evidence".

The snapshot of A is written before the first change (hotpath.labs.tune.apply),
and A is restored at the end, on an error, on Ctrl-C and on SIGTERM (the
CLI turns it into an exception), with those signals held off while
restoring; after a kill -9, `hotpath tune revert` restores it.
"""

import argparse
import json
import math
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hotpath.errors import UsageError
from hotpath.labs.tune import NO_EVIDENCE, profile, stored
from hotpath.labs.tune.apply import State, Writer
from hotpath.labs.tune.comparison import Config, Evaluation, Verdict
from hotpath.labs.tune.options import (
    check_security,
    checked_plan,
    checked_root,
    is_real_root,
    need_privilege,
    print_restore,
    print_skipped,
    state_for,
)
from hotpath.labs.tune.plan import Item
from hotpath.labs.tune.ranktest import mann_whitney_u
from hotpath.labs.tune.workloads import Workload, select
from hotpath.render.tune_evaluate import render, to_json
from hotpath.verdicts import (
    DEFAULT_THRESHOLD,
    add_threshold_option,
    below,
    change,
    check_threshold,
)

ALPHA = 0.05
MIN_ROUNDS, MAX_ROUNDS = 3, 500


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rounds", type=int, default=10, metavar="N", help="A/B rounds (default 10, 3..500)"
    )
    parser.add_argument(
        "--workloads",
        metavar="LIST",
        help="built-in workloads, comma-separated: hackbench, sched-messaging, memcpy, "
        "hotpath-csum (default: all installed, or none when --command is given)",
    )
    parser.add_argument(
        "--command",
        action="append",
        default=[],
        metavar="NAME=SHELL",
        help="your own workload, timed by wall clock (repeatable)",
    )
    parser.add_argument("--quick", action="store_true", help="short workloads (~0.1-0.5 s each)")
    parser.add_argument(
        "--per-setting",
        nargs="?",
        const="alone",
        choices=("alone", "leave-one-out"),
        help="attribute the effect: each setting alone against A (default), or B without it",
    )
    add_threshold_option(parser, DEFAULT_THRESHOLD, "the verdict per workload")
    parser.add_argument("--warmup", type=int, default=1, metavar="N", help="unmeasured runs (1)")
    parser.add_argument("--yes", action="store_true", help="do not ask before changing settings")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def configs(items: list[Item], mode: str | None) -> tuple[list[Config], list[tuple[str, str]]]:
    """The configurations to run and the (base, other) pairs to compare."""
    a = {i.knob.name: i.current for i in items}
    b = {i.knob.name: i.desired for i in items}
    out = [Config("A", a), Config("B", b)]
    pairs = [("A", "B")]
    if mode is None:
        return out, pairs
    by_setting: dict[str, list[Item]] = {}
    for item in items:
        if item.changes:
            by_setting.setdefault(item.setting.name, []).append(item)
    for name, group in by_setting.items():
        names = {i.knob.name for i in group}
        if mode == "alone":
            label = f"A+{name}"
            values = {k: (b[k] if k in names else v) for k, v in a.items()}
            pairs.append(("A", label))
        else:
            label = f"B-{name}"
            values = {k: (a[k] if k in names else v) for k, v in b.items()}
            pairs.append((label, "B"))
        out.append(Config(label, values, name))
    return out, pairs


def judge(
    w: Workload,
    base: str,
    other: str,
    a: list[float],
    b: list[float],
    alpha: float,
    threshold: float,
    setting: str | None,
) -> Verdict:
    """One comparison: b's median over a's, its interval, p and the verdict."""
    import numpy as np

    from hotpath.significance import bootstrap_ratio_ci
    from hotpath.stats import summarize

    med_a = summarize(a).median
    med_b = summarize(b).median
    ratio = med_b / med_a if med_a > 0 else math.nan
    ci = bootstrap_ratio_ci(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    _, p = mann_whitney_u(a, b)
    verdict = NO_EVIDENCE
    if p < alpha and (ci[0] > 1.0 or ci[1] < 1.0):
        if abs(ratio - 1.0) > threshold:
            higher = ratio > 1.0
            verdict = "worse" if higher == w.lower_is_better else "better"
        else:  # a difference the evidence shows, smaller than the user's threshold
            verdict = below(change(ratio, ci, "higher", "lower"), threshold)
    return Verdict(w, base, other, ratio, ci, p, verdict, setting)


def smallest_p(rounds: int) -> float:
    """The smallest two-sided p the rank test can give for rounds against rounds."""
    return 2.0 / math.comb(2 * rounds, rounds)


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the settings are back."""
    held = {signal.SIGINT, signal.SIGTERM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def confirm(args: argparse.Namespace, items: list[Item]) -> None:
    """On the real system: say what will change, and ask unless --yes."""
    changes = [i for i in items if i.changes]
    print("evaluate will switch these settings of this system back and forth:", file=sys.stderr)
    for item in changes:
        print(f"  {item.knob.name}: {item.current} <-> {item.desired}", file=sys.stderr)
    if args.yes or not changes:
        return
    if not sys.stdin.isatty():
        raise UsageError(
            "evaluate changes this system's settings; allowed: --yes to confirm, "
            "or --root DIR for a copy"
        )
    answer = input("proceed? the settings are restored at the end [y/N] ")
    if answer.strip().lower() not in ("y", "yes"):
        raise UsageError(f"answer '{answer.strip()}': nothing changed (allowed: y to proceed)")


def measure(
    state: State,
    root: Path,
    items: list[Item],
    name: str,
    cfgs: list[Config],
    workloads: list[Workload],
    args: argparse.Namespace,
) -> tuple[dict[tuple[str, str], list[float]], bool]:
    """Every round: each configuration set, each workload run once in it.

    A is back at the end whatever happens (signals held while restoring).
    Returns the samples and whether every knob was restored. The state
    folder is held throughout: no apply or revert can run in between.
    """
    with state.locked(create=True):
        writer = Writer(state, root, items)
        writer.begin(f"evaluate:{name}")
        samples: dict[tuple[str, str], list[float]] = {
            (c.label, w.name): [] for c in cfgs for w in workloads
        }
        try:
            for w in workloads:
                for _ in range(args.warmup):
                    w.run()
            for round_no in range(args.rounds):
                for cfg in cfgs:
                    writer.set_values(cfg.values)
                    for w in workloads:
                        samples[(cfg.label, w.name)].append(w.run())
                print(f"round {round_no + 1}/{args.rounds} done", file=sys.stderr)
        finally:
            with signals_held():
                report = writer.restore()
                if not report.refused:
                    state.clear()
            print_restore(report, sys.stderr)
            if report.refused:
                print(
                    f"settings NOT all restored; the snapshot is kept in {state.snapshot_path}: "
                    "'hotpath tune revert'",
                    file=sys.stderr,
                )
        return samples, not report.refused


def run(args: argparse.Namespace) -> int:
    if not MIN_ROUNDS <= args.rounds <= MAX_ROUNDS:
        raise UsageError(f"--rounds '{args.rounds}': allowed: {MIN_ROUNDS}..{MAX_ROUNDS}")
    check_threshold(args.threshold)
    if not 0 <= args.warmup <= 10:
        raise UsageError(f"--warmup '{args.warmup}': allowed: 0..10")
    root = checked_root(args)
    prof = profile.load(args.profile)
    plan = checked_plan(prof, root)
    check_security(prof, plan, args.allow_security_loss)
    # The history before anything runs: a --db that cannot take the run
    # stops here (status 2) with no setting changed.
    db = stored.db_of(args)
    workloads, missing = select(args.workloads, args.command, args.quick)
    for line in missing:
        print(f"warning: workload skipped: {line}", file=sys.stderr)
    if not workloads:
        raise UsageError("no workload to run; allowed: an installed built-in one or --command")
    print_skipped(plan)
    cfgs, pairs = configs(plan.items, args.per_setting)
    if not plan.changes():
        print(
            "the profile changes nothing here: A and B are the same (an A/A run)", file=sys.stderr
        )
    alpha = ALPHA / (len(pairs) * len(workloads))
    if smallest_p(args.rounds) >= alpha:
        need = next(n for n in range(args.rounds, MAX_ROUNDS + 1) if smallest_p(n) < alpha)
        print(
            f"warning: with {args.rounds} rounds the rank test cannot go below p = "
            f"{smallest_p(args.rounds):.2g}, not under alpha = {alpha:.2g}: every verdict will "
            f"be 'no evidence'; use --rounds {need} or more",
            file=sys.stderr,
        )
    if is_real_root(root):
        need_privilege(root, "evaluate")
        confirm(args, plan.items)
    from hotpath.measure import now_utc

    started = now_utc()
    samples, restored = measure(
        state_for(args, root), root, plan.items, prof.name, cfgs, workloads, args
    )
    settings_of = {c.label: c.setting for c in cfgs}
    verdicts = [
        judge(
            w,
            base,
            other,
            samples[(base, w.name)],
            samples[(other, w.name)],
            alpha,
            args.threshold,
            settings_of[other] or settings_of[base],
        )
        for base, other in pairs
        for w in workloads
    ]
    from hotpath.machine import fingerprint

    machine = fingerprint()
    result = stored.build_run(prof.name, args, alpha, machine, started, cfgs, samples, verdicts)
    problem = stored.store_or_say(result, db)
    answer = Evaluation(
        prof.name,
        args.rounds,
        args.per_setting,
        alpha,
        args.threshold,
        machine.one_line(),
        samples,
        verdicts,
        machine.to_json(),
    )
    if args.json:
        print(json.dumps(to_json(answer, result.run_id), indent=2))
    else:
        print(render(answer))
        if result.run_id is not None:
            print(f"stored as run {result.run_id} in {db}")
    if problem is not None:
        raise stored.not_stored(problem)
    return 0 if restored else 1
