# SPDX-License-Identifier: GPL-2.0-only
"""What the tune actions share: the root, privilege, state folder, a checked plan,
the security losses the user accepted, messages."""

import argparse
import os
import sys
from pathlib import Path
from typing import TextIO

from hotpath.errors import UsageError
from hotpath.labs.tune import profile
from hotpath.labs.tune.apply import RestoreReport, State, default_state_dir
from hotpath.labs.tune.plan import Plan, make_plan
from hotpath.safetext import escaped


def checked_root(args: argparse.Namespace) -> Path:
    root: Path = args.root
    if not root.is_dir():
        raise UsageError(
            f"--root '{escaped(str(root))}': not a folder; allowed: a folder holding proc/sys, sys"
        )
    # A link (or ..) to / would read and write this system's settings while
    # every line says "under ROOT": the system's own is asked for as / only.
    if root != Path("/") and root.resolve() == Path("/"):
        raise UsageError(
            f"--root '{escaped(str(root))}': resolves to /, this system's own settings; "
            "allowed: / given as such, or a folder holding a copy of proc/sys, sys"
        )
    return root


def is_real_root(root: Path) -> bool:
    return root.resolve() == Path("/")


def need_privilege(root: Path, what: str) -> None:
    if is_real_root(root) and os.geteuid() != 0:
        raise UsageError(
            f"{what} on this system's settings needs root (uid 0); allowed: run as root, "
            "or --root DIR for a copy"
        )


def state_for(args: argparse.Namespace, root: Path) -> State:
    folder = args.state_dir if args.state_dir is not None else default_state_dir(root)
    return State(folder)


def checked_plan(
    prof: profile.Profile, root: Path, settings: list[profile.Setting] | None = None
) -> Plan:
    plan = make_plan(prof, root, settings)
    if plan.errors:
        raise UsageError(
            f"profile '{prof.name}' cannot be applied under {root} (nothing written):\n  "
            + "\n  ".join(plan.errors)
        )
    return plan


def add_security_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-security-loss",
        action="append",
        default=[],
        metavar="NAME[,NAME]",
        help="write the settings the profile marks as lowering security with these losses "
        "(e.g. aslr,syncookies; 'hotpath tune show PROFILE' lists them); without it they "
        "are refused",
    )


def check_security(prof: profile.Profile, plan: Plan, allowed: list[str]) -> None:
    """UsageError unless every loss of security the plan would write is named in
    `allowed` (--allow-security-loss), and every name there is one of the profile's.

    Only a knob the plan changes counts: one already at the profile's value
    loses nothing more, one this kernel lacks is not written."""
    losses: dict[str, list[str]] = {}
    for setting in prof.settings:
        if setting.lowers_security is not None:
            losses.setdefault(setting.lowers_security.name, []).append(setting.name)
    named = {name for arg in allowed for name in arg.split(",")}
    unknown = sorted(named - set(losses))
    if unknown:
        known = "; ".join(f"{n} ({', '.join(s)})" for n, s in sorted(losses.items()))
        raise UsageError(
            f"--allow-security-loss '{escaped(unknown[0])}': not a loss profile '{prof.name}' "
            f"names; allowed: {known or 'none, the profile marks no setting as lowering security'}"
        )
    refused = [
        (item, item.setting.lowers_security)
        for item in plan.changes()
        if item.setting.lowers_security is not None
        and item.setting.lowers_security.name not in named
    ]
    if refused:
        needed = ",".join(sorted({loss.name for _, loss in refused}))
        raise UsageError(
            f"profile '{prof.name}' would lower this system's security (nothing written):\n  "
            + "\n  ".join(
                f"{item.knob.name} = {item.desired} ({loss.name}): {loss.reason}"
                for item, loss in refused
            )
            + f"\nallowed: --allow-security-loss {needed} to accept that loss, "
            "or a profile without these settings"
        )


def print_skipped(plan: Plan) -> None:
    for skip in plan.skipped:
        print(f"warning: skipped {skip.setting.name}: {skip.why}", file=sys.stderr)


def print_restore(report: RestoreReport, stream: TextIO | None = None) -> None:
    for line in report.lines():
        print(line, file=stream or sys.stdout)
