# SPDX-License-Identifier: GPL-2.0-only
"""What the crossing lab's two measuring programs print, parsed and checked.

- The user-space program (c/crossing/tool/main.c, build/hotpath-crossing-static)
  prints one JSON document, schema "hotpath.crossing/1": per path its status
  and the ns (CLOCK_MONOTONIC) and TSC ticks of each timed iteration; the
  getppid() blocks; the vulnerabilities folder as it read it.
- The kernel module (kmod/, hotpath_crossing.ko) answers a read of
  /proc/hotpath_crossing/results with a header line
  `# hotpath_crossing 1 file=F chunk=C count=N iterations=I bytes_per_iteration=B`
  then `<index> <ns>` per iteration (ktime_get_ns around its kernel_write loop).

A document that breaks its format raises RunnerError naming what is wrong:
a figure is never made from a half-read answer.
"""

import json
import re
from dataclasses import dataclass
from typing import Any

from hotpath.errors import RunnerError

USER_SCHEMA = "hotpath.crossing/1"
MODULE_MAGIC = "hotpath_crossing"
MODULE_VERSION = "1"
PATH_STATUSES = ("ok", "wrong", "failed", "unavailable")


@dataclass(frozen=True)
class PathRun:
    """One user-space path: status, and each timed iteration's ns and ticks."""

    name: str
    desc: str
    status: str  # ok, wrong (bytes checked and not right), failed, unavailable
    reason: str | None
    ns: tuple[float, ...]
    ticks: tuple[float, ...]


@dataclass(frozen=True)
class SyscallRun:
    """Blocks of getppid() calls, each timed as a whole."""

    calls_per_block: int
    ns: tuple[float, ...]  # per block
    ticks: tuple[float, ...]  # per block
    ticks_per_cycle: tuple[float, ...]  # measured before and after the blocks

    def per_call_ns(self) -> list[float]:
        return [v / self.calls_per_block for v in self.ns]

    def per_call_ticks(self) -> list[float]:
        return [v / self.calls_per_block for v in self.ticks]


@dataclass(frozen=True)
class UserRun:
    kernel: str
    dir: str
    fs_type: str
    chunk: int
    count: int
    iterations: int
    writev_batch: int
    uring_depth: int
    tsc_hz: float
    paths: tuple[PathRun, ...]
    syscall: SyscallRun
    vulnerabilities: dict[str, str] | None


@dataclass(frozen=True)
class ModuleRun:
    """kernel_write() from the module: its header's fields and its iterations."""

    file: str
    chunk: int
    count: int
    iterations: int
    bytes_per_iteration: int
    ns: tuple[float, ...]


def _field(doc: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = doc.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise RunnerError(f"crossing program output: {where}'{key}' is missing or not valid")
    return value


def _numbers(doc: dict[str, Any], key: str, where: str) -> tuple[float, ...]:
    values = _field(doc, key, list, where)
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in values):
        raise RunnerError(f"crossing program output: {where}'{key}' holds a non-number")
    return tuple(float(v) for v in values)


def parse_user_run(text: str) -> UserRun:
    """The user-space program's JSON (schema hotpath.crossing/1)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise RunnerError(f"crossing program output is not JSON ({err})") from err
    if not isinstance(doc, dict) or doc.get("schema") != USER_SCHEMA:
        raise RunnerError(f"crossing program output: not a {USER_SCHEMA} document")
    paths = []
    for raw in _field(doc, "paths", list, ""):
        if not isinstance(raw, dict):
            raise RunnerError("crossing program output: a path is not an object")
        name = _field(raw, "name", str, "path ")
        status = _field(raw, "status", str, f"path {name}: ")
        if status not in PATH_STATUSES:
            raise RunnerError(f"crossing program output: path {name}: status '{status}'")
        reason = raw.get("reason")
        ns, ticks = _numbers(raw, "ns", f"path {name}: "), _numbers(raw, "ticks", f"{name}: ")
        if len(ns) != len(ticks) or (status == "ok" and not ns):
            raise RunnerError(f"crossing program output: path {name}: iterations missing")
        paths.append(
            PathRun(
                name=name,
                desc=str(raw.get("desc") or ""),
                status=status,
                reason=reason if isinstance(reason, str) else None,
                ns=ns,
                ticks=ticks,
            )
        )
    sys_doc = _field(doc, "syscall", dict, "")
    syscall = SyscallRun(
        calls_per_block=_field(sys_doc, "calls_per_block", int, "syscall "),
        ns=_numbers(sys_doc, "ns", "syscall "),
        ticks=_numbers(sys_doc, "ticks", "syscall "),
        ticks_per_cycle=_numbers(sys_doc, "ticks_per_cycle", "syscall "),
    )
    if syscall.calls_per_block < 1 or len(syscall.ns) != len(syscall.ticks):
        raise RunnerError("crossing program output: syscall blocks are not consistent")
    vulns = doc.get("vulnerabilities")
    return UserRun(
        kernel=_field(doc, "kernel", str, ""),
        dir=_field(doc, "dir", str, ""),
        fs_type=_field(doc, "fs_type", str, ""),
        chunk=_field(doc, "chunk", int, ""),
        count=_field(doc, "count", int, ""),
        iterations=_field(doc, "iterations", int, ""),
        writev_batch=_field(doc, "writev_batch", int, ""),
        uring_depth=_field(doc, "uring_depth", int, ""),
        tsc_hz=float(_field(doc, "tsc_hz", (int, float), "")),
        paths=tuple(paths),
        syscall=syscall,
        vulnerabilities={str(k): str(v) for k, v in vulns.items()}
        if isinstance(vulns, dict)
        else None,
    )


HEADER = re.compile(rf"^#\s*{MODULE_MAGIC}\s+(\S+)((?:\s+\w+=\S*)*)\s*$")
MODULE_KEYS = ("file", "chunk", "count", "iterations", "bytes_per_iteration")


def parse_module_results(text: str) -> ModuleRun:
    """/proc/hotpath_crossing/results: the header, then one `<index> <ns>` per iteration."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise RunnerError("module results: empty (no run was made?)")
    if lines[0].split()[1:] == [MODULE_MAGIC, MODULE_VERSION, "none"]:
        raise RunnerError("module results: the module has no run to report")
    match = HEADER.match(lines[0])
    if match is None:
        raise RunnerError(
            f"module results: header '{lines[0][:120]}' is not '# {MODULE_MAGIC} 1 ...'"
        )
    if match.group(1) != MODULE_VERSION:
        raise RunnerError(
            f"module results: format version {match.group(1)}; this hotpath reads {MODULE_VERSION}"
        )
    fields = dict(item.split("=", 1) for item in match.group(2).split())
    missing = [key for key in MODULE_KEYS if key not in fields]
    if missing:
        raise RunnerError(f"module results: header lacks {', '.join(missing)}")
    numbers: dict[str, int] = {}
    for key in MODULE_KEYS[1:]:
        if not fields[key].isdigit():
            raise RunnerError(f"module results: {key}='{fields[key]}' is not a whole number")
        numbers[key] = int(fields[key])
    ns: list[float] = []
    first: int | None = None  # the module may count from 0 or from 1
    for line in lines[1:]:
        if line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise RunnerError(f"module results: line '{line[:80]}' is not '<index> <ns>'")
        index = int(parts[0])
        first = index if first is None else first
        if first not in (0, 1) or index != first + len(ns):
            raise RunnerError(f"module results: index {index} out of order")
        ns.append(float(parts[1]))
    if len(ns) != numbers["iterations"]:
        raise RunnerError(
            f"module results: {len(ns)} iterations listed, the header says {numbers['iterations']}"
        )
    return ModuleRun(
        file=fields["file"],
        chunk=numbers["chunk"],
        count=numbers["count"],
        iterations=numbers["iterations"],
        bytes_per_iteration=numbers["bytes_per_iteration"],
        ns=tuple(ns),
    )
