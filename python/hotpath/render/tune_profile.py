# SPDX-License-Identifier: GPL-2.0-only
"""The tuning lab's profiles as text: `hotpath tune list` (the built-in
profiles), `tune show` (every setting with its reason, those that lower
security first) and `tune diff` (what would change). From the loaded
Profile and Plan (hotpath.labs.tune.profile, .plan); no numpy."""

from pathlib import Path
from typing import TYPE_CHECKING

from hotpath.safetext import escaped

if TYPE_CHECKING:
    from hotpath.labs.tune.plan import Plan
    from hotpath.labs.tune.profile import Profile, Setting


def profiles(loaded: "list[Profile]", folder: Path) -> str:
    """One line per built-in profile: its name, how many settings, its summary."""
    lines = [f"{'profile':<20} {'settings':>8}  summary"]
    lines += [f"{p.name:<20} {len(p.settings):>8}  {p.summary}" for p in loaded]
    lines.append(f"(from {folder}; 'hotpath tune show NAME' for the reasons)")
    return "\n".join(lines) + "\n"


def profile(prof: "Profile", ordered: "list[Setting]") -> str:
    """The profile and its settings in `ordered`'s order (those that lower
    security first), each with its reason and source. Loading refused
    control characters; escaped() is the second line of defence."""
    lines = [f"profile {prof.name}: {escaped(prof.summary)}"]
    if prof.source:
        lines.append(f"source: {escaped(prof.source)}")
    if prof.includes:
        lines.append(f"includes: {escaped(', '.join(prof.includes))}")
    lowering = [(s, s.lowers_security) for s in prof.settings if s.lowers_security is not None]
    if lowering:
        lines.append(
            "\nLOWERS SECURITY: apply and evaluate refuse these unless "
            f"--allow-security-loss {','.join(prof.loss_names())} names their loss"
        )
    for setting, loss in lowering:
        lines.append(f"  {loss.name}: {setting.name} = {setting.value!r}: {escaped(loss.reason)}")
    for setting in ordered:
        keys = " | ".join(k.text for k in setting.keys)
        flags = []
        if setting.lowers_security:
            flags.append(f"LOWERS SECURITY: {setting.lowers_security.name}")
        if setting.android_only:
            flags.append("Android only")
        if setting.origin != prof.name:
            flags.append(f"from {setting.origin}")
        tail = f"  [{', '.join(flags)}]" if flags else ""
        lines.append(f"\n{keys} = {setting.value!r}{tail}")
        lines.append(f"  why: {escaped(setting.reason)}")
        lines.append(f"  source: {escaped(setting.source)}")
    return "\n".join(lines) + "\n"


def diff(plan: "Plan", root: Path) -> tuple[str, str, str]:
    """What applying the plan would change under `root`: the knobs (for
    stdout), the plan's errors (for stderr), then the count (stdout)."""
    lines = []
    for item in sorted(plan.items, key=lambda i: i.setting.lowers_security is None):
        mark = "same" if not item.changes else f"{item.current} -> {item.desired}"
        loss = item.setting.lowers_security
        tail = f"  LOWERS SECURITY ({loss.name})" if loss else ""
        lines.append(f"{item.knob.name:<44} {escaped(mark)}{tail}")
    for skip in plan.skipped:
        lines.append(f"{skip.setting.name:<44} skipped: {escaped(skip.why)}")
    errors = "".join(f"error: {error}\n" for error in plan.errors)
    count = f"{len(plan.changes())} of {len(plan.items)} knob(s) would change under {root}\n"
    return "".join(f"{line}\n" for line in lines), errors, count
