# SPDX-License-Identifier: GPL-2.0-only
"""The crossing lab's figures and its answer, from the programs' parsed output.

Per path: the median ns per iteration (wall clock, CLOCK_MONOTONIC around
the open, the writes and the close, as the module times its own), its
bootstrap 95% confidence interval and its p10..p90 spread
(hotpath.stats.summarize), the ns per chunk that makes, and its speed-up
over the seed's write() loop with the bootstrap interval of the ratio of
medians (hotpath.significance.bootstrap_ratio_ci). Then the one sentence
the seed wanted: does batching in user space (writev, io_uring) reach what
moving the loop into the kernel (kernel_write from the module) gains?
"""

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hotpath.findings import BAD, GOOD, NEUTRAL, Finding, LabSummary
from hotpath.labs.crossing import BASELINE, EMULATED, KERNEL_PATH
from hotpath.labs.crossing.results import ModuleRun, UserRun
from hotpath.significance import bootstrap_ratio_ci
from hotpath.stats import Summary, intervals_overlap, summarize

BATCHED = ("writev", "io_uring")
KERNEL = KERNEL_PATH


@dataclass(frozen=True)
class Ratio:
    """median(write) / median(path): above 1, the path is faster than write()."""

    point: float
    lo: float
    hi: float

    def text(self) -> str:
        return f"{self.point:.2f}x [{self.lo:.2f}, {self.hi:.2f}]"


@dataclass(frozen=True)
class PathFigure:
    name: str
    desc: str
    status: str  # ok, wrong, failed, unavailable, not run
    reason: str | None
    samples: tuple[float, ...] = ()  # ns per timed iteration
    summary: Summary | None = None
    speedup: Ratio | None = None
    chunks: int = 1  # writes per iteration, for the ns-per-chunk column

    @property
    def timed(self) -> bool:
        return self.summary is not None


@dataclass(frozen=True)
class SyscallFigure:
    """getppid(): ns per call and TSC ticks per call, per block; cycles from the ticks."""

    ns: Summary
    ticks: Summary
    ticks_per_cycle: tuple[float, ...]
    calls_per_block: int
    blocks: int
    ns_per_call: tuple[float, ...] = ()  # per block: the samples behind `ns`
    ticks_per_call: tuple[float, ...] = ()

    @property
    def cycles(self) -> float | None:
        tpc = [t for t in self.ticks_per_cycle if t > 0]
        return self.ticks.median / float(np.mean(tpc)) if tpc else None


@dataclass
class CrossingReport:
    where: str  # "host" or "vm"
    kernel: str
    machine: str
    fs_type: str
    dir: str
    chunk: int
    count: int
    iterations: int
    paths: list[PathFigure]
    syscall: SyscallFigure | None
    vulnerabilities: dict[str, str] | None
    emulated: bool = False
    accel: str | None = None  # vm: kvm or tcg
    notes: list[str] = field(default_factory=list)
    guest: dict[str, Any] = field(default_factory=dict)  # vm: seconds, exit kind

    def path(self, name: str) -> PathFigure | None:
        return next((p for p in self.paths if p.name == name), None)

    @property
    def answer(self) -> str:
        """The lab's answer in one sentence (verdict()): what the renderers show."""
        return verdict(self.paths, self.emulated)

    @property
    def seed(self) -> list[str]:
        """The seed's one number beside ours (seed_line()), where the module was timed."""
        return seed_line(self.paths, self.emulated)


def ratio_to_write(write_ns: tuple[float, ...], path_ns: tuple[float, ...]) -> Ratio:
    """Speed-up of a path over write(), with the bootstrap 95% interval of the ratio."""
    a = np.asarray(path_ns, dtype=np.float64)
    b = np.asarray(write_ns, dtype=np.float64)
    lo, hi = bootstrap_ratio_ci(a, b)
    return Ratio(float(np.median(b) / np.median(a)), lo, hi)


def path_figures(user: UserRun, module: PathFigure | None) -> list[PathFigure]:
    """Each user path's figure (and the module's, given as a bare PathFigure)
    with its summary and its speed-up over write() where both were timed."""
    bare = [
        PathFigure(p.name, p.desc, p.status, p.reason, samples=p.ns, chunks=user.count)
        for p in user.paths
    ]
    if module is not None:
        bare.append(module)
    return with_speedups(bare)


def with_speedups(bare: list[PathFigure]) -> list[PathFigure]:
    """Paths as measured (samples only) with their summaries and speed-ups
    over write(); also how a stored run's paths are rebuilt."""
    write = next((p for p in bare if p.name == BASELINE and p.status == "ok"), None)
    out = []
    for p in bare:
        if p.status != "ok" or not p.samples:
            out.append(p)
            continue
        speedup = ratio_to_write(write.samples, p.samples) if write is not None else None
        out.append(
            PathFigure(
                p.name,
                p.desc,
                p.status,
                p.reason,
                samples=p.samples,
                summary=summarize(p.samples),
                speedup=speedup,
                chunks=p.chunks,
            )
        )
    return out


def module_figure(run: ModuleRun | None, status: str, reason: str | None) -> PathFigure:
    """The module's kernel_write() loop as a path beside the user ones."""
    desc = "kernel_write() per chunk from the module (filp_open, ktime_get_ns)"
    if run is None or status != "ok":
        return PathFigure(KERNEL, desc, status, reason)
    return PathFigure(KERNEL, desc, "ok", None, samples=run.ns, chunks=run.count)


def syscall_figure(user: UserRun) -> SyscallFigure | None:
    sys = user.syscall
    if not sys.ns:
        return None
    return syscall_from(
        tuple(sys.per_call_ns()),
        tuple(sys.per_call_ticks()),
        sys.ticks_per_cycle,
        sys.calls_per_block,
    )


def syscall_from(
    ns_per_call: tuple[float, ...],
    ticks_per_call: tuple[float, ...],
    ticks_per_cycle: tuple[float, ...],
    calls_per_block: int,
) -> SyscallFigure | None:
    """The getppid() figure from its blocks' per-call ns and ticks."""
    if not ns_per_call or not ticks_per_call:
        return None
    return SyscallFigure(
        ns=summarize(ns_per_call),
        ticks=summarize(ticks_per_call),
        ticks_per_cycle=ticks_per_cycle,
        calls_per_block=calls_per_block,
        blocks=len(ns_per_call),
        ns_per_call=ns_per_call,
        ticks_per_call=ticks_per_call,
    )


def verdict(paths: list[PathFigure], emulated: bool = False) -> str:
    """Does batching in user space reach the module's gain? One plain sentence."""
    tail = f" ({EMULATED})" if emulated else ""
    batched = [p for p in paths if p.name in BATCHED and p.speedup is not None]
    kernel = next((p for p in paths if p.name == KERNEL), None)
    if not batched:
        return "No batched user-space path (writev, io_uring) was timed beside write()." + tail
    best = max(batched, key=lambda p: p.speedup.point if p.speedup else 0.0)
    assert best.speedup is not None
    mine = f"{best.name} {best.speedup.text()} write()"
    if kernel is None or kernel.speedup is None:
        why = (
            f"kernel_write was not timed ({kernel.status}: {kernel.reason})"
            if kernel is not None and kernel.status != "ok"
            else "the module was not run (--kernel vm, or --kernel host with headers, adds it)"
        )
        return f"The module's gain is not measured here: {why}; batching alone gives {mine}.{tail}"
    theirs = f"kernel_write {kernel.speedup.text()}"
    b, k = best.speedup, kernel.speedup
    if b.lo > k.hi:
        answer = f"Yes: batching in user space beats the module's gain: {mine} against {theirs}."
    elif intervals_overlap((b.lo, b.hi), (k.lo, k.hi)):
        answer = (
            f"About: batching in user space reaches the module's gain within the intervals: "
            f"{mine} against {theirs}; no order can be claimed."
        )
    else:
        answer = f"No: batching in user space falls short of the module's gain: {mine} against "
        answer += f"{theirs}."
    return answer + tail


def seed_line(paths: list[PathFigure], emulated: bool = False) -> list[str]:
    """The seed's one number beside ours, where the module was timed."""
    kernel = next((p for p in paths if p.name == KERNEL and p.speedup is not None), None)
    if kernel is None or kernel.speedup is None:
        return []
    tail = f" ({EMULATED})" if emulated else ""
    return [
        "seed 001 reported 'about a 1.2x speedup' for kernel_write over write() (one loop "
        f"each, no spread); here kernel_write is {kernel.speedup.text()} write(){tail}"
    ]


# ---- output ----------------------------------------------------------------


def lab_summary(result: CrossingReport) -> LabSummary:
    """The crossing lab's rows in `hotpath run`'s summary (hotpath.summary):
    the fastest path, the module against write(), the seed's 1.2x, the paths
    not timed, and the plain answer whether batching reaches the module."""
    tail = f" ({EMULATED})" if result.emulated else ""
    lab = LabSummary("crossing", f"write() against kernel_write() (seed 001), {result.where}")
    timed = [p for p in result.paths if p.summary is not None]
    if timed:
        best = min(timed, key=lambda p: p.summary.median if p.summary else 0.0)
        assert best.summary is not None
        lab.headline["fastest"].append(
            f"{best.name}: {best.summary.median / 1e6:.3f} ms per iteration "
            f"({result.count} x {result.chunk} B){tail}"
        )
    kernel = next((p for p in result.paths if p.name == KERNEL), None)
    if kernel is not None and kernel.speedup is not None:
        lab.headline["kernel"].append(f"kernel_write {kernel.speedup.text()} write(){tail}")
        lab.headline["claims"].append(f"seed's 'about 1.2x': {kernel.speedup.text()} here")
    else:
        lab.headline["kernel"].append("kernel_write not run here: hotpath crossing --kernel vm")
    untimed = [p for p in result.paths if p.summary is None]
    wrong = sum(p.status == "wrong" for p in untimed)
    lab.headline["problems"].append(f"{wrong} WRONG, {len(untimed) - wrong} not timed")
    lab.findings.append(Finding("verdict", result.answer))
    for p in result.paths:
        if p.summary is None:
            tone = BAD if p.status == "wrong" else NEUTRAL
            lab.findings.append(Finding("not timed", f"{p.name} {p.status}: {p.reason}", tone))
            continue
        ratio = f", {p.speedup.text()} write()" if p.speedup is not None else ""
        lab.findings.append(
            Finding(
                "path",
                f"{p.name}: {p.summary.median / 1e6:.3f} ms per iteration "
                f"[{p.summary.ci_lo / 1e6:.3f}, {p.summary.ci_hi / 1e6:.3f}]{ratio}{tail}",
                GOOD if p.speedup is not None and p.speedup.lo > 1 else NEUTRAL,
            )
        )
    return lab
