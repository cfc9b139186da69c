# SPDX-License-Identifier: GPL-2.0-only
"""The workloads evaluate times: real programs, each run as its own process.

Each workload is a command and the figure it prints (or its wall time),
with the figure's unit and which way is better. The built-in ones are the
seed's own benchmarks (hackbench, `perf bench mem memcpy`) plus `perf bench
sched messaging` and one of hotpath's labs; --quick makes each about a
tenth of a second here, so that an A/A check of many rounds stays short.
A workload whose program is not installed is named and skipped, with the
Debian package that has it. `--command NAME=SHELL-COMMAND` adds your own,
timed by wall clock.
"""

import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from hotpath.errors import HotpathError, UsageError
from hotpath.processes import end_group, start_group

TIME_LIMIT_S = 300.0
GRACE_S = 2.0  # after SIGTERM, before SIGKILL: time to end what it started
_NAME = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Workload:
    name: str
    argv: tuple[str, ...]
    unit: str
    lower_is_better: bool
    parse: Callable[[str], float] | None  # None: the wall time of the run, seconds
    program: str  # what must be installed
    package: str  # where it comes from
    shell: bool = False
    figure: str = "wall clock of the whole run"  # what the figure is (its mode)

    def available(self) -> bool:
        return shutil.which(self.program) is not None or self.program == sys.executable

    def run(self) -> float:
        """One run; its figure in self.unit (HotpathError when it fails)."""
        start = time.perf_counter()
        try:
            # Its own process group, so that everything it starts (a shell's
            # children too) can be ended at once.
            proc = start_group(self.argv[0] if self.shell else list(self.argv), shell=self.shell)
        except OSError as err:
            raise HotpathError(f"workload {self.name} could not start ({err})") from err
        try:
            stdout, stderr = proc.communicate(timeout=TIME_LIMIT_S)
            wall = time.perf_counter() - start
        except subprocess.TimeoutExpired as err:
            raise HotpathError(f"workload {self.name} ran past {TIME_LIMIT_S:.0f} s") from err
        finally:
            # After a time limit, Ctrl-C or SIGTERM all of it; after a normal
            # end whatever it left behind, which would run on into the next timing.
            end_group(proc, grace_s=GRACE_S)
        if proc.returncode != 0:
            tail = (stderr or stdout).strip().splitlines()[-3:]
            raise HotpathError(
                f"workload {self.name} failed (exit {proc.returncode}): " + " | ".join(tail)
            )
        if self.parse is None:
            return wall
        try:
            return self.parse(stdout + stderr)
        except (ValueError, KeyError, IndexError) as err:
            raise HotpathError(f"workload {self.name}: output not understood ({err})") from err


def _number_after(label: str) -> Callable[[str], float]:
    pattern = re.compile(re.escape(label) + r"\s*([0-9.]+)")

    def parse(text: str) -> float:
        match = pattern.search(text)
        if match is None:
            raise ValueError(f"no '{label}' line")
        return float(match.group(1))

    return parse


_RATE_UNITS = {"B": 1e-9, "KB": 1e-6, "MB": 1e-3, "GB": 1.0, "TB": 1e3}


def _gb_per_s(text: str) -> float:
    """perf bench's rate in GB/s: it prints B/sec up to GB/sec by magnitude."""
    match = re.search(r"([0-9.]+)\s*([KMGT]?B)/sec", text)
    if match is None:
        raise ValueError("no '.../sec' line")
    return float(match.group(1)) * _RATE_UNITS[match.group(2)]


def _hotpath_cycles(text: str) -> float:
    # The JSON document is on stdout; stderr (after it) may hold make's lines.
    data, _ = json.JSONDecoder().raw_decode(text[text.index("{") :])
    medians = [f["median"] for f in data["figures"] if f.get("status") == "ok"]
    if not medians:
        raise ValueError("no figure measured")
    return float(medians[0])


def builtin(quick: bool) -> list[Workload]:
    """The built-in workloads (--quick: short ones for many rounds)."""
    loops = "100" if quick else "1000"
    return [
        Workload(
            "hackbench",
            ("hackbench", "-g", "4", "-l", loops),
            "s",
            True,
            _number_after("Time:"),
            "hackbench",
            "rt-tests",
            figure="hackbench's own 'Time:' (4 groups of 40 tasks, sockets)",
        ),
        Workload(
            "sched-messaging",
            ("perf", "bench", "sched", "messaging", "-g", "4", "-l", "50" if quick else "500"),
            "s",
            True,
            _number_after("Total time:"),
            "perf",
            "linux-perf",
            figure="perf bench's 'Total time' (4 groups, sockets)",
        ),
        Workload(
            "memcpy",
            (
                "perf",
                "bench",
                "mem",
                "memcpy",
                "-f",
                "default",
                "-s",
                "16MB",
                "-l",
                "5" if quick else "50",
            ),
            "GB/s",
            False,
            _gb_per_s,
            "perf",
            "linux-perf",
            figure="perf bench's glibc memcpy bandwidth, 16 MiB buffers",
        ),
        Workload(
            "hotpath-csum",
            (
                sys.executable,
                "-m",
                "hotpath",
                "csum",
                "--sizes",
                "1500",
                "--align",
                "0",
                "--modes",
                "throughput",
                "--variants",
                "hp-csum",
                "--rounds",
                "20" if quick else "200",
                "--no-store",
                "--json",
            ),
            "cycles",
            True,
            _hotpath_cycles,
            sys.executable,
            "hotpath (make)",
            figure="hotpath's median cycles of hp-csum, 1500 B, throughput mode",
        ),
    ]


def custom(spec: str) -> Workload:
    """--command NAME=SHELL-COMMAND: its wall time in seconds."""
    name, sep, command = spec.partition("=")
    if not sep or not _NAME.fullmatch(name) or not command.strip():
        raise UsageError(f"--command '{spec}': allowed: NAME=SHELL-COMMAND, NAME of [A-Za-z0-9_-]")
    return Workload(name, (command,), "s", True, None, "sh", "dash", shell=True)


def select(names: str | None, commands: list[str], quick: bool) -> tuple[list[Workload], list[str]]:
    """The workloads to run, and a line for each one skipped (not installed)."""
    known = builtin(quick)
    own = [custom(c) for c in commands]
    if names is None:
        chosen = known if not own else []
    else:
        by_name = {w.name: w for w in known}
        chosen = []
        for name in (n.strip() for n in names.split(",")):
            if name not in by_name:
                raise UsageError(
                    f"--workloads '{name}': allowed: {', '.join(by_name)} (comma-separated)"
                )
            chosen.append(by_name[name])
    runnable, skipped = [], []
    for w in chosen + own:
        if w.available():
            runnable.append(w)
        else:
            skipped.append(f"{w.name}: {w.program} not installed (Debian package {w.package})")
    seen = set()
    for w in runnable:
        if w.name in seen:
            raise UsageError(f"workload name '{w.name}' given twice; allowed: unique names")
        seen.add(w.name)
    return runnable, skipped
