# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath tune`: profiles of kernel settings, applied with an undo, and judged.

    hotpath tune list | show PROFILE | diff PROFILE
    hotpath tune apply PROFILE [--dry-run] | verify PROFILE | revert
    hotpath tune evaluate PROFILE [--rounds N] [--per-setting MODE] [--yes] [--db PATH]
    hotpath tune export PROFILE (--sysctl-d | --tuned) [--output DIR]

--root DIR (default /) works on a copy of /proc/sys and /sys; --state-dir
(or $HOTPATH_TUNE_STATE_DIR) says where the snapshot goes
(hotpath.labs.tune.apply.default_state_dir for the default). Settings a profile
marks as lowering security are refused by apply and evaluate unless
--allow-security-loss names their loss, and come first in show, diff and
export. A profile's text is printed through hotpath.safetext.escaped().
"""

import argparse
import sys
from pathlib import Path

from hotpath.db.location import location_type
from hotpath.destination import StagedFolder, check_folder, reason, write_file
from hotpath.errors import HotpathError, UsageError
from hotpath.labs.tune import evaluate, export, profile
from hotpath.labs.tune.apply import State, Writer, revert
from hotpath.labs.tune.options import (
    add_security_option,
    check_security,
    checked_plan,
    checked_root,
    need_privilege,
    print_restore,
    print_skipped,
    state_for,
)
from hotpath.labs.tune.plan import Plan, make_plan
from hotpath.labs.tune.verify import verify
from hotpath.render import tune_profile as shown
from hotpath.safetext import escaped


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "tune",
        description="Kernel tuning profiles (profiles/*.toml): each setting with its reason. "
        "Apply takes a snapshot first and undoes itself on failure; evaluate gives an A/B "
        "verdict with statistics. --root DIR works on a copy of /proc/sys and /sys.",
    )
    actions = parser.add_subparsers(dest="tune_action", metavar="ACTION", required=True)

    sub = actions.add_parser("list", help="the built-in profiles")
    sub.set_defaults(handler=run_list)

    sub = actions.add_parser("show", help="a profile's settings with their reasons")
    sub.add_argument("profile", metavar="PROFILE", help="a built-in name or a .toml file")
    sub.set_defaults(handler=run_show)

    for name, helptext, handler in (
        ("diff", "present values against the profile's", run_diff),
        ("verify", "check that the profile's values are set (exit 1 if not)", run_verify),
    ):
        sub = actions.add_parser(name, help=helptext)
        sub.add_argument("profile", metavar="PROFILE")
        _root_option(sub)
        sub.set_defaults(handler=handler)

    sub = actions.add_parser("apply", help="snapshot, then write the profile (all or nothing)")
    sub.add_argument("profile", metavar="PROFILE")
    sub.add_argument("--dry-run", action="store_true", help="check and show, write nothing")
    _root_option(sub)
    _state_option(sub)
    add_security_option(sub)
    sub.set_defaults(handler=run_apply)

    sub = actions.add_parser("revert", help="restore the snapshot the last apply took")
    _root_option(sub)
    _state_option(sub)
    sub.add_argument(
        "--forget",
        action="store_true",
        help="write nothing: print the snapshot's values and drop it (after a revert the "
        "kernel keeps refusing; set those by hand)",
    )
    sub.set_defaults(handler=run_revert)

    sub = actions.add_parser(
        "evaluate", help="A/B: workloads under the present settings and under the profile"
    )
    sub.add_argument("profile", metavar="PROFILE")
    _root_option(sub)
    _state_option(sub)
    add_security_option(sub)
    evaluate.add_arguments(sub)
    _history_options(sub)
    sub.set_defaults(handler=evaluate.run)

    sub = actions.add_parser("export", help="write the profile as sysctl.d or tuned files")
    sub.add_argument("profile", metavar="PROFILE")
    fmt = sub.add_mutually_exclusive_group(required=True)
    fmt.add_argument("--sysctl-d", action="store_true", help="an /etc/sysctl.d NN-name.conf")
    fmt.add_argument("--tuned", action="store_true", help="a tuned profile folder (tuned.conf)")
    sub.add_argument(
        "--output", type=Path, metavar="DIR", help="write the file into DIR (default: print it)"
    )
    sub.add_argument(
        "--priority", type=int, default=60, metavar="NN", help="sysctl.d order, 10..99 (60)"
    )
    sub.set_defaults(handler=run_export)


def _root_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root",
        type=Path,
        default=Path("/"),
        metavar="DIR",
        help="the tree holding proc/sys and sys (default /; a copy for tests and dry runs)",
    )


def _history_options(parser: argparse.ArgumentParser) -> None:
    """--db and --no-store, as the measuring commands have them; defined here
    because hotpath.commands.common loads numpy and matplotlib, which the
    rest of tune runs without (`hotpath tune list` in a guest whose CPU
    numpy's wheels do not run on)."""
    parser.add_argument(
        "--db",
        type=location_type,
        default=None,
        metavar="PATH|URL",
        help="history the evaluation is stored in, for `hotpath compare`: a SQLite file or "
        "postgresql://USER@HOST/DB (default: $HOTPATH_DB, else "
        "$XDG_STATE_HOME/hotpath/history.sqlite)",
    )
    parser.add_argument("--no-store", action="store_true", help="do not save the evaluation")


def _state_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--state-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where the snapshot goes (default: $HOTPATH_TUNE_STATE_DIR; with --root, "
        "ROOT/var/lib/hotpath/tune; as root /var/lib/hotpath/tune; else "
        "$XDG_STATE_HOME/hotpath/tune)",
    )


def run_list(args: argparse.Namespace) -> int:
    names = profile.builtin_names()
    if not names:
        raise HotpathError(f"no built-in profiles in {profile.BUILTIN_DIR}")
    loaded = [profile.load(name) for name in names]
    sys.stdout.write(shown.profiles(loaded, profile.BUILTIN_DIR))
    return 0


def run_show(args: argparse.Namespace) -> int:
    prof = profile.load(args.profile)
    sys.stdout.write(shown.profile(prof, profile.security_first(prof.settings)))
    return 0


def run_diff(args: argparse.Namespace) -> int:
    root = checked_root(args)
    prof = profile.load(args.profile)
    plan = make_plan(prof, root)
    knobs, errors, count = shown.diff(plan, root)
    sys.stdout.write(knobs)
    sys.stdout.flush()
    sys.stderr.write(errors)
    sys.stdout.write(count)
    return 2 if plan.errors else 0


def run_verify(args: argparse.Namespace) -> int:
    root = checked_root(args)
    prof = profile.load(args.profile)
    plan = checked_plan(prof, root)
    checks = verify(plan)
    bad = [c for c in checks if not c.ok]
    for check in checks:
        state = (
            "ok"
            if check.ok
            else f"DIFFERS: kernel has {escaped(check.found)}, profile {check.expected}"
        )
        print(f"{check.name:<44} {state}")
    print_skipped(plan)
    if not checks:
        # Nothing checked is not "as the profile says": a wrong --root, or a
        # kernel with none of these knobs, must not pass a script's check.
        print(
            f"nothing verified: none of the {len(prof.settings)} setting(s) of "
            f"'{prof.name}' is on this kernel under {root}"
        )
        return 1
    print(
        f"{len(checks) - len(bad)} of {len(checks)} knob(s) as the profile says"
        + (f"; {len(plan.skipped)} skipped" if plan.skipped else "")
    )
    return 1 if bad else 0


def run_apply(args: argparse.Namespace) -> int:
    root = checked_root(args)
    prof = profile.load(args.profile)
    plan = checked_plan(prof, root)
    # A dry run checks what apply checks: the losses too.
    check_security(prof, plan, args.allow_security_loss)
    changes = plan.changes()
    if args.dry_run:
        for item in plan.items:
            what = f"{item.current} -> {item.desired}" if item.changes else "already set"
            print(f"would write {item.knob.name:<40} {escaped(what)}")
        print_skipped(plan)
        print(f"dry run: {len(changes)} knob(s) would change under {root}; nothing written")
        return 0
    need_privilege(root, "apply")
    state = state_for(args, root)
    with state.locked(create=True):
        return _apply_locked(prof, plan, state)


def _apply_locked(prof: profile.Profile, plan: Plan, state: State) -> int:
    changes = plan.changes()
    writer = Writer(state, plan.root, plan.items)
    writer.begin(prof.name)
    try:
        warnings = writer.set_values({i.knob.name: i.desired for i in changes})
    except BaseException:
        # set_values has set back what it wrote; drop the snapshot only when
        # every knob is at its snapshot value again.
        if not writer.restore().refused:
            state.clear()
        raise
    state.journal(event="complete", profile=prof.name)
    for item in changes:
        print(f"wrote {item.knob.name:<40} {item.current} -> {item.desired}")
    for line in warnings:
        print(f"warning: {line}", file=sys.stderr)
    print_skipped(plan)
    print(
        f"applied '{prof.name}': {len(changes)} knob(s) changed, "
        f"{len(plan.items) - len(changes)} already set; snapshot in {state.snapshot_path} "
        "('hotpath tune revert' undoes it)"
    )
    return 0


def _need_snapshot(state: State) -> None:
    if not state.exists():
        raise UsageError(
            f"no snapshot in {state.folder}; allowed: revert after 'hotpath tune apply' "
            "(with the same --root/--state-dir)"
        )


def run_revert(args: argparse.Namespace) -> int:
    root = checked_root(args)
    state = state_for(args, root)
    _need_snapshot(state)
    if not args.forget:
        need_privilege(root, "revert")
    with state.locked(create=False):
        _need_snapshot(state)  # again: another revert may have ended meanwhile
        return _forget(state) if args.forget else _revert_locked(state, root)


def _forget(state: State) -> int:
    snap = state.load()
    for entry in snap.entries:
        print(f"snapshot value {escaped(entry.name)} = {escaped(str(entry.value))}")
    state.clear()
    print(f"forgot the snapshot of '{escaped(snap.profile)}' ({snap.created}); nothing written")
    return 0


def _revert_locked(state: State, root: Path) -> int:
    # "complete" anywhere: a revert that stopped half-way adds lines after it.
    finished = any(e.get("event") == "complete" for e in state.journal_events())
    snap, report = revert(state, root)
    if not finished:
        print(f"the apply of '{snap.profile}' at {snap.created} did not finish (journal)")
    print_restore(report)
    total = len(snap.entries)
    if report.refused:
        print(
            f"revert of '{snap.profile}' INCOMPLETE: {len(report.refused)} of {total} knob(s) "
            f"refused; the snapshot is kept in {state.snapshot_path} (revert again once the "
            "kernel accepts them, or 'revert --forget' to drop it)"
        )
        return 1
    print(
        f"reverted '{snap.profile}': {len(report.restored)} restored, "
        f"{len(report.unchanged)} already at their snapshot value"
        + (f", {len(report.gone)} gone" if report.gone else "")
        + "; snapshot removed"
    )
    return 0


def run_export(args: argparse.Namespace) -> int:
    prof = profile.load(args.profile)
    if not 10 <= args.priority <= 99:
        raise UsageError(f"--priority '{args.priority}': allowed: 10..99")
    text = export.sysctl_d(prof) if args.sysctl_d else export.tuned(prof)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    check_folder(args.output, "--output")
    try:
        path = _write_export(args, prof.name, text)
    except OSError as err:  # a full disk, a quota: nothing is left half-written
        raise HotpathError(
            f"--output '{args.output}': the export could not be written ({reason(err)}); "
            "nothing left there"
        ) from err
    print(f"wrote {path}")
    return 0


def _write_export(args: argparse.Namespace, name: str, text: str) -> Path:
    """Write the file whole or not at all: staged in a hidden folder and moved
    into --output at the end (hotpath.destination), the tuned folder with it."""
    if args.sysctl_d:
        relative = Path(f"{args.priority}-hotpath-{name}.conf")
    else:
        relative = Path(f"hotpath-{name}/tuned.conf")
    stage = StagedFolder(args.output)
    try:
        (stage.path / relative).parent.mkdir(exist_ok=True)
        write_file(stage.path / relative, text)
        stage.commit()
    except BaseException:
        stage.discard()
        raise
    return Path(args.output) / relative
