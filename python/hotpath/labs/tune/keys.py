# SPDX-License-Identifier: GPL-2.0-only
"""A profile's key, resolved to one kernel file under a root, safely.

Four kinds of key, each a file below its own area of the root:

  kernel.sched_autogroup_enabled   sysctl: ROOT/proc/sys/kernel/sched_autogroup_enabled
  debugfs:sched/migration_cost_ns  ROOT/sys/kernel/debug/sched/migration_cost_ns
  sched_feature:NEXT_BUDDY         one word of ROOT/sys/kernel/debug/sched/features
                                   (sched_features before Linux 5.13)
  block:vd*:read_ahead_kb          ROOT/sys/block/<each device matching vd*>/queue/read_ahead_kb

A key is refused before anything is read when its text could name another
place: an empty component, '.', '..', an absolute path, characters outside
[A-Za-z0-9_+@:-] (dots too, inside a slash-separated sysctl). Then the file
is resolved with every symbolic link followed and must still lie inside its
area of the root (/sys/block/vda is itself a link to ../devices/..., which
is allowed: it stays under ROOT/sys), and must be a regular file. The area
is the resolved root joined with the area's name, never the area resolved:
with ROOT/proc/sys a link to the host's /proc/sys, the area resolved would
be /proc/sys itself and every host knob "inside" it. The file is opened by
its resolved path with O_NOFOLLOW, so a link put in its place after the
check is not followed either.
"""

import errno
import fnmatch
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from hotpath.safetext import escaped

SYSCTL = "sysctl"
DEBUGFS = "debugfs"
SCHED_FEATURE = "sched_feature"
BLOCK = "block"

# Where each kind lives, relative to the root.
AREAS = {
    SYSCTL: "proc/sys",
    DEBUGFS: "sys/kernel/debug",
    SCHED_FEATURE: "sys/kernel/debug",
    BLOCK: "sys",
}
# The scheduler-features file moved with the sched_*_ns knobs in Linux 5.13.
FEATURE_FILES = ("sched/features", "sched_features")

_COMPONENT = re.compile(r"[A-Za-z0-9_+@:-]+")
_SLASH_COMPONENT = re.compile(r"[A-Za-z0-9_+@:.-]+")
_FEATURE = re.compile(r"[A-Z0-9_]+")
_PATTERN = re.compile(r"[A-Za-z0-9_*?\[\]-]+")
MAX_READ = 65536


class KeyFormError(ValueError):
    """A key's text is not a key (the message names it and what is allowed)."""


class UnsafeKeyError(Exception):
    """A key's file resolves outside the root, or is not a regular file."""


@dataclass(frozen=True)
class KeySpec:
    """One key as a profile writes it (a setting may give several alternatives)."""

    text: str
    kind: str
    parts: tuple[str, ...]  # path components; (feature,); or (device pattern, attribute)


@dataclass(frozen=True)
class Knob:
    """One concrete kernel file a setting writes."""

    name: str  # canonical: kernel.x, debugfs:a/b, sched_feature:X, block:vda:read_ahead_kb
    kind: str
    relative: str  # path below the root, as the snapshot records it
    path: Path  # resolved, inside the root
    feature: str | None = None

    @property
    def attribute(self) -> str:
        """The file's own name (a block attribute's name, e.g. 'scheduler')."""
        return self.relative.rsplit("/", 1)[-1]


def _components(text: str, separator: str, pattern: re.Pattern[str]) -> tuple[str, ...]:
    parts = tuple(text.split(separator))
    for part in parts:
        if part in ("", ".", "..") or not pattern.fullmatch(part):
            raise KeyFormError(
                f"key '{escaped(text)}': component '{escaped(part)}' is not allowed; allowed: "
                "names of [A-Za-z0-9_+@:-], no empty component, '.', '..' or absolute path"
            )
    return parts


def parse_key(text: str) -> KeySpec:
    """The KeySpec of a key's text; KeyFormError when it could name another place."""
    shown = escaped(str(text))
    if not isinstance(text, str) or not text or text != text.strip():
        raise KeyFormError(f"key '{shown}': allowed: a non-empty key without spaces")
    prefix, sep, rest = text.partition(":")
    if sep and prefix == DEBUGFS:
        return KeySpec(text, DEBUGFS, _components(rest, "/", _SLASH_COMPONENT))
    if sep and prefix == SCHED_FEATURE:
        if not _FEATURE.fullmatch(rest) or rest.startswith("NO_"):
            raise KeyFormError(
                f"key '{shown}': allowed: sched_feature:NAME with NAME in [A-Z0-9_], "
                "without NO_ (the value true/false says on or off)"
            )
        return KeySpec(text, SCHED_FEATURE, (rest,))
    if sep and prefix == BLOCK:
        pattern, sep2, attribute = rest.partition(":")
        if not sep2 or not _PATTERN.fullmatch(pattern) or not _COMPONENT.fullmatch(attribute):
            raise KeyFormError(
                f"key '{shown}': allowed: block:DEVICE-PATTERN:ATTRIBUTE "
                "(e.g. block:vd*:read_ahead_kb; pattern of [A-Za-z0-9_*?[]-])"
            )
        return KeySpec(text, BLOCK, (pattern, attribute))
    if sep:
        raise KeyFormError(
            f"key '{shown}': unknown prefix '{escaped(prefix)}:'; allowed: a sysctl name "
            "(kernel.x or kernel/x), debugfs:PATH, sched_feature:NAME, block:PATTERN:ATTRIBUTE"
        )
    if "/" in text:
        return KeySpec(text, SYSCTL, _components(text, "/", _SLASH_COMPONENT))
    return KeySpec(text, SYSCTL, _components(text, ".", _COMPONENT))


def inside(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


def _checked(root: Path, area: str, relative: str, key: str) -> Path | None:
    """The resolved file for root/relative, None when it does not exist."""
    candidate = root / relative
    if not os.path.lexists(candidate):
        return None
    base = str(Path(os.path.realpath(root)) / area)
    real = os.path.realpath(candidate)
    if not inside(real, base):
        raise UnsafeKeyError(
            f"key '{key}': {relative} resolves to {escaped(real)}, outside {escaped(base)}; refused"
        )
    try:
        mode = Path(real).lstat().st_mode
    except FileNotFoundError:
        return None  # a dangling link inside the area: not on this kernel
    if not stat.S_ISREG(mode):
        raise UnsafeKeyError(f"key '{key}': {relative} is not a regular file; refused")
    return Path(real)


def resolve(spec: KeySpec, root: Path) -> list[Knob]:
    """The files `spec` names under `root`: [] when this kernel has none of them.

    UnsafeKeyError when one resolves outside its area or is not a regular file.
    """
    area = AREAS[spec.kind]
    if spec.kind == SYSCTL:
        relative = area + "/" + "/".join(spec.parts)
        name = ".".join(spec.parts) if "." not in "".join(spec.parts) else spec.text
        path = _checked(root, area, relative, spec.text)
        return [] if path is None else [Knob(name, SYSCTL, relative, path)]
    if spec.kind == DEBUGFS:
        relative = area + "/" + "/".join(spec.parts)
        path = _checked(root, area, relative, spec.text)
        return [] if path is None else [Knob(spec.text, DEBUGFS, relative, path)]
    if spec.kind == SCHED_FEATURE:
        feature = spec.parts[0]
        for name in FEATURE_FILES:
            relative = f"{area}/{name}"
            path = _checked(root, area, relative, spec.text)
            if path is not None:
                words = read_text(path).split()
                if feature not in words and f"NO_{feature}" not in words:
                    return []  # the file exists, the feature does not (e.g. removed)
                return [Knob(spec.text, SCHED_FEATURE, relative, path, feature)]
        return []
    pattern, attribute = spec.parts
    block_dir = root / "sys/block"
    try:
        devices = sorted(entry.name for entry in block_dir.iterdir())
    except OSError:
        devices = []
    knobs = []
    for device in devices:
        if not _COMPONENT.fullmatch(device) or not fnmatch.fnmatchcase(device, pattern):
            continue
        relative = f"sys/block/{device}/queue/{attribute}"
        path = _checked(root, area, relative, spec.text)
        if path is not None:
            knobs.append(Knob(f"block:{device}:{attribute}", BLOCK, relative, path))
    return knobs


def reopen_knob(root: Path, name: str) -> Knob | None:
    """The knob a snapshot names, found from its name as apply found it, with the
    same checks (None: gone from this kernel). The snapshot's own path is not
    used: the name is the only thing in it that says which file to write."""
    try:
        spec = parse_key(name)
    except KeyFormError as err:
        raise UnsafeKeyError(f"snapshot entry: {err}") from err
    return next((knob for knob in resolve(spec, root) if knob.name == name), None)


def is_read_only(knob: Knob) -> bool:
    """No write bit at all: the kernel refuses writes even from root (proc, sysfs)."""
    mode = knob.path.stat().st_mode
    return not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)


def read_text(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        data = os.read(fd, MAX_READ)
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="replace")


def write_text(path: Path, text: str) -> None:
    """One write() of the whole value, as sysctl(8) does; OSError as the kernel says."""
    data = (text + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_TRUNC)
    try:
        written = os.write(fd, data)
    finally:
        os.close(fd)
    if written != len(data):
        raise OSError(errno.EIO, f"short write ({written} of {len(data)} bytes)")


def nominal_knob(spec: KeySpec) -> Knob:
    """A Knob for `spec` that names no real file: for formatting values (export)."""
    if spec.kind == BLOCK:
        pattern, attribute = spec.parts
        relative = f"sys/block/{pattern}/queue/{attribute}"
    elif spec.kind == SCHED_FEATURE:
        relative = f"{AREAS[spec.kind]}/{FEATURE_FILES[0]}"
    else:
        relative = AREAS[spec.kind] + "/" + "/".join(spec.parts)
    feature = spec.parts[0] if spec.kind == SCHED_FEATURE else None
    return Knob(spec.text, spec.kind, relative, Path("/") / relative, feature)
