# SPDX-License-Identifier: GPL-2.0-only
"""A profile held against one root: what each setting would write, checked first.

Everything is read and validated here, before apply writes anything: each
setting's first key this kernel has (the others are alternatives for older
or newer kernels), the file's safety (hotpath.labs.tune.keys), the value's form
against what the kernel prints now. Keys this kernel has none of, and
read-only keys, are skipped with the reason; anything else wrong is an
error, and one error means nothing is written.
"""

from dataclasses import dataclass, field
from pathlib import Path

from hotpath.destination import reason
from hotpath.labs.tune.keys import (
    AREAS,
    DEBUGFS,
    SCHED_FEATURE,
    Knob,
    UnsafeKeyError,
    is_read_only,
    read_text,
    resolve,
)
from hotpath.labs.tune.profile import Profile, Setting
from hotpath.labs.tune.values import ValueFormError, check_shape, current_value, desired_value


@dataclass(frozen=True)
class Item:
    """One knob a setting writes."""

    setting: Setting
    knob: Knob
    current: str  # normal form (hotpath.labs.tune.values)
    desired: str

    @property
    def changes(self) -> bool:
        return self.current != self.desired


@dataclass(frozen=True)
class Skipped:
    setting: Setting
    why: str


@dataclass
class Plan:
    root: Path
    items: list[Item] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def changes(self) -> list[Item]:
        return [i for i in self.items if i.changes]


def make_plan(profile: Profile, root: Path, settings: list[Setting] | None = None) -> Plan:
    """Resolve and check `settings` (default: the profile's) under `root`."""
    plan = Plan(root=root)
    seen: dict[str, str] = {}
    for setting in profile.settings if settings is None else settings:
        try:
            knobs = _first_existing(setting, root)
        except UnsafeKeyError as err:
            plan.errors.append(str(err))
            continue
        if not knobs:
            tried = ", ".join(k.text for k in setting.keys)
            note = " (Android kernels only)" if setting.android_only else ""
            if _needs_debugfs(setting) and not _has_entries(root / AREAS[DEBUGFS]):
                note += f" ({root / AREAS[DEBUGFS]} is empty: debugfs not mounted?)"
            plan.skipped.append(Skipped(setting, f"not on this kernel{note}: tried {tried}"))
            continue
        for knob in knobs:
            if knob.name in seen:
                plan.errors.append(
                    f"{setting.name}: {knob.name} is also set by {seen[knob.name]}; "
                    "allowed: one setting per kernel file"
                )
                continue
            seen[knob.name] = setting.name
            item = _item(setting, knob, plan)
            if item is not None:
                plan.items.append(item)
    return plan


def _needs_debugfs(setting: Setting) -> bool:
    return any(k.kind in (DEBUGFS, SCHED_FEATURE) for k in setting.keys)


def _has_entries(folder: Path) -> bool:
    try:
        return any(folder.iterdir())
    except OSError:
        return False


def _first_existing(setting: Setting, root: Path) -> list[Knob]:
    for spec in setting.keys:
        knobs = resolve(spec, root)
        if knobs:
            return knobs
    return []


def _item(setting: Setting, knob: Knob, plan: Plan) -> Item | None:
    try:
        text = read_text(knob.path)
    except OSError as err:
        plan.errors.append(f"{knob.name}: cannot be read ({reason(err)})")
        return None
    try:
        desired = desired_value(knob, setting.value)
        check_shape(knob, desired, text)
    except ValueFormError as err:
        plan.errors.append(str(err))
        return None
    current = current_value(knob, text)
    if is_read_only(knob) and current != desired:
        plan.skipped.append(Skipped(setting, f"{knob.name} is read-only here (now {current})"))
        return None
    return Item(setting, knob, current, desired)
