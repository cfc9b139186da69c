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

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hotpath.findings import BAD, GOOD, NEUTRAL, Finding, LabSummary
from hotpath.labs.crossing.results import ModuleRun, UserRun
from hotpath.significance import bootstrap_ratio_ci
from hotpath.stats import Summary, intervals_overlap, summarize

UNIT = "ns per iteration, wall clock"
BASELINE = "write"
BATCHED = ("writev", "io_uring")
KERNEL = "kernel_write"
EMULATED = "emulated: not a performance figure"


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


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.3f}"


def table_rows(report: CrossingReport) -> tuple[list[str], list[list[str]]]:
    mark = f" [{EMULATED}]" if report.emulated else ""
    head = [
        "path",
        "ms per iteration [95% CI]",
        "p10..p90 ms",
        "ns per chunk",
        "speed-up vs write() [95% CI]",
    ]
    rows = []
    for p in report.paths:
        s = p.summary
        if s is None:
            note = f"{p.status.upper() if p.status == 'wrong' else p.status}"
            rows.append([p.name, f"{note}: {p.reason or ''}".rstrip(": "), "", "", ""])
            continue
        rows.append(
            [
                p.name,
                f"{_ms(s.median)} [{_ms(s.ci_lo)}, {_ms(s.ci_hi)}]{'~' if s.noisy else ''}{mark}",
                f"{_ms(s.p10)}..{_ms(s.p90)}",
                f"{s.median / p.chunks:.0f}",
                "baseline"
                if p.name == BASELINE
                else p.speedup.text() + mark
                if p.speedup
                else "n/a (write() not timed)",
            ]
        )
    return head, rows


def _context_lines(report: CrossingReport) -> list[str]:
    where = (
        f"guest kernel {report.kernel} in QEMU ({report.accel or 'unknown'})"
        if report.where == "vm"
        else f"host kernel {report.kernel}"
    )
    lines = [
        f"machine: {report.machine}",
        f"kernel: {where}",
        f"workload: open, {report.count} x {report.chunk} B writes of zeros "
        f"({report.count * report.chunk} B), close; {report.iterations} timed iterations "
        f"per path after one checked one; file in {report.dir} ({report.fs_type})",
        f"unit: {UNIT} (CLOCK_MONOTONIC from open to close; table in ms), median with "
        "bootstrap 95% CI; '~' marks a CI wider than 5% of the median",
    ]
    if report.emulated:
        lines.append(f"every guest figure below is {EMULATED} (software emulation, TCG)")
    return lines


def _syscall_lines(report: CrossingReport) -> list[str]:
    sc = report.syscall
    if sc is None:
        return []
    mark = f" [{EMULATED}]" if report.emulated else ""
    cycles = (
        f", ~{sc.cycles:.0f} core cycles (TSC ticks per cycle "
        f"{'/'.join(f'{t:.3f}' for t in sc.ticks_per_cycle)} before/after, from a "
        "dependent-add chain)"
        if sc.cycles is not None
        else ""
    )
    return [
        f"one system call (getppid via syscall(), {sc.blocks} blocks of {sc.calls_per_block}): "
        f"{sc.ns.median:.1f} ns per call [{sc.ns.ci_lo:.1f}, {sc.ns.ci_hi:.1f}], "
        f"p10..p90 {sc.ns.p10:.1f}..{sc.ns.p90:.1f}; {sc.ticks.median:.0f} TSC ticks{cycles}"
        f"{mark}"
    ]


def _vulnerability_lines(report: CrossingReport) -> list[str]:
    if not report.vulnerabilities:
        return ["vulnerabilities: not readable (/sys/devices/system/cpu/vulnerabilities)"]
    who = "guest" if report.where == "vm" else "host"
    width = max(len(k) for k in report.vulnerabilities)
    return [f"mitigations ({who} kernel, /sys/devices/system/cpu/vulnerabilities):"] + [
        f"  {name:<{width}}  {text}" for name, text in sorted(report.vulnerabilities.items())
    ]


def render_text(report: CrossingReport) -> str:
    head, rows = table_rows(report)
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    out = [*_context_lines(report), ""]
    for row in [head, *rows]:
        out.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    out += ["", *_syscall_lines(report), verdict(report.paths, report.emulated)]
    out += seed_line(report.paths, report.emulated)
    out += [*report.notes, *_vulnerability_lines(report)]
    return "\n".join(out) + "\n"


def render_markdown(report: CrossingReport) -> str:
    head, rows = table_rows(report)
    out = [f"- {line}" for line in _context_lines(report)] + [""]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    out += ["| " + " | ".join(row) + " |" for row in rows]
    out += ["", *_syscall_lines(report), "", verdict(report.paths, report.emulated)]
    out += seed_line(report.paths, report.emulated)
    out += [f"\n{note}" for note in report.notes]
    out += ["", *(f"    {line}" for line in _vulnerability_lines(report))]
    return "\n".join(out) + "\n"


def _summary_json(s: Summary | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {
        "n": s.n,
        "median": s.median,
        "min": s.min,
        "p10": s.p10,
        "p90": s.p90,
        "ci_lo": s.ci_lo,
        "ci_hi": s.ci_hi,
        "noisy": s.noisy,
    }


def to_json(report: CrossingReport) -> str:
    sc = report.syscall
    doc = {
        "schema": "hotpath.crossing-report/1",
        "where": report.where,
        "kernel": report.kernel,
        "accel": report.accel,
        "emulated": report.emulated,
        "machine": report.machine,
        "dir": report.dir,
        "fs_type": report.fs_type,
        "chunk": report.chunk,
        "count": report.count,
        "iterations": report.iterations,
        "unit": UNIT,
        "paths": [
            {
                "name": p.name,
                "desc": p.desc,
                "status": p.status,
                "reason": p.reason,
                "summary": _summary_json(p.summary),
                "speedup_vs_write": None
                if p.speedup is None
                else {"point": p.speedup.point, "lo": p.speedup.lo, "hi": p.speedup.hi},
                "samples": list(p.samples),
            }
            for p in report.paths
        ],
        "syscall": None
        if sc is None
        else {
            "name": "getppid",
            "unit": "ns per call",
            "summary": _summary_json(sc.ns),
            "ticks_per_call": _summary_json(sc.ticks),
            "ticks_per_cycle": list(sc.ticks_per_cycle),
            "cycles_per_call": sc.cycles,
        },
        "verdict": verdict(report.paths, report.emulated),
        "seed": seed_line(report.paths, report.emulated),
        "vulnerabilities": report.vulnerabilities,
        "notes": report.notes,
        "guest": report.guest,
    }
    return json.dumps(doc, indent=2) + "\n"


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
    lab.findings.append(Finding("verdict", verdict(result.paths, result.emulated)))
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
