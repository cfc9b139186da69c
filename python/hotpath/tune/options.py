# SPDX-License-Identifier: GPL-2.0-only
"""What the tune actions share: the root, privilege, state folder, a checked plan, messages."""

import argparse
import os
import sys
from pathlib import Path
from typing import TextIO

from hotpath.errors import UsageError
from hotpath.tune import profile
from hotpath.tune.apply import RestoreReport, State, default_state_dir
from hotpath.tune.plan import Plan, make_plan


def checked_root(args: argparse.Namespace) -> Path:
    root: Path = args.root
    if not root.is_dir():
        raise UsageError(f"--root '{root}': not a folder; allowed: a folder holding proc/sys, sys")
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


def print_skipped(plan: Plan) -> None:
    for skip in plan.skipped:
        print(f"warning: skipped {skip.setting.name}: {skip.why}", file=sys.stderr)


def print_restore(report: RestoreReport, stream: TextIO | None = None) -> None:
    for line in report.lines():
        print(line, file=stream or sys.stdout)
