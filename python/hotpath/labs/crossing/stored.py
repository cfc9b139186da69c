# SPDX-License-Identifier: GPL-2.0-only
"""The crossing lab's answer as a run of the history, and back.

Every timed path is a figure in ns of wall clock per iteration (its
samples kept), keyed ("crossing", "file_write", path, chunk, 0, "N
writes") so that `hotpath compare` matches the same workload only; its
speed-up over write() is a derived ratio figure (higher is better, with
its bootstrap interval); the getppid() price is a figure in ns per call and
one in TSC ticks per call. What the figures do not hold (the kernel, the
file system, each path's status, the guest) is the run's "crossing"
section. from_run() rebuilds the report from the stored run: the same
samples give the same summaries (the bootstrap's seed is fixed), so a page
made later is the page made at the time.
"""

from pathlib import Path
from typing import Any

from hotpath.findings import LabSummary
from hotpath.labs.crossing import report
from hotpath.machine import Fingerprint
from hotpath.render import crossing as shown
from hotpath.results import FigureKey, FigureResult, RunResult

LAB = "crossing"
PRIMITIVE = "file_write"
SYSCALL = "syscall"
UNTIMED = {"wrong": "not timed", "failed": "not timed", "unavailable": "n/a", "not run": "n/a"}


def workload(count: int) -> str:
    """The mode of a path's figures: what one iteration does."""
    return f"{count} writes"


def to_run(
    result: report.CrossingReport,
    command_line: str,
    machine: Fingerprint,
    started: str,
) -> RunResult:
    """`hotpath crossing`'s run: the lab's figures alone."""
    run = RunResult(
        command="crossing", started=started, machine=machine, labs=[LAB], command_line=command_line
    )
    add_to(run, result)
    return run


def add_to(run: RunResult, result: report.CrossingReport) -> None:
    """The report's figures and section into `run` (`hotpath run` adds its quick suite)."""
    if LAB not in run.labs:
        run.labs.append(LAB)
    mode = workload(result.count)
    for p in result.paths:
        key = FigureKey(LAB, PRIMITIVE, p.name, result.chunk, 0, mode)
        if not p.samples or p.status != "ok":
            status = UNTIMED.get(p.status, "n/a")
            run.figures.append(FigureResult(*key, unit="ns", status=status, reason=p.reason))
            continue
        figure = FigureResult.from_samples(key, "ns", p.samples)
        figure.reason = report.EMULATED if result.emulated else None
        run.figures.append(figure)
        if p.speedup is not None and p.name != report.BASELINE:
            ratio = FigureKey(LAB, PRIMITIVE, f"write/{p.name}", result.chunk, 0, mode)
            run.figures.append(
                FigureResult(
                    *ratio,
                    unit="ratio",
                    status="ok",
                    median=p.speedup.point,
                    ci_lo=p.speedup.lo,
                    ci_hi=p.speedup.hi,
                    better="higher",
                    reason="speed-up over write()",
                )
            )
    sc = result.syscall
    if sc is not None:
        per_call = f"{sc.calls_per_block} calls per block"
        run.figures.append(
            FigureResult.from_samples(
                FigureKey(LAB, SYSCALL, "getppid", 0, 0, per_call), "ns", sc.ns_per_call
            )
        )
        run.figures.append(
            FigureResult.from_samples(
                FigureKey(LAB, SYSCALL, "getppid", 0, 0, per_call), "ticks", sc.ticks_per_call
            )
        )
    run.sections[LAB] = section(result)


def section(result: report.CrossingReport) -> dict[str, Any]:
    sc = result.syscall
    return {
        "where": result.where,
        "kernel": result.kernel,
        "machine": result.machine,
        "fs_type": result.fs_type,
        "dir": result.dir,
        "chunk": result.chunk,
        "count": result.count,
        "iterations": result.iterations,
        "vulnerabilities": result.vulnerabilities,
        "emulated": result.emulated,
        "accel": result.accel,
        "notes": result.notes,
        "guest": result.guest,
        "paths": [
            {
                "name": p.name,
                "desc": p.desc,
                "status": p.status,
                "reason": p.reason,
                "chunks": p.chunks,
            }
            for p in result.paths
        ],
        "syscall": None
        if sc is None
        else {"ticks_per_cycle": list(sc.ticks_per_cycle), "calls_per_block": sc.calls_per_block},
    }


def from_run(run: RunResult) -> report.CrossingReport | None:
    """The crossing report a run holds, or None (a run without the lab)."""
    doc = run.sections.get(LAB)
    if doc is None:
        return None
    mode = workload(doc["count"])
    timed = {
        f.variant: f
        for f in run.figures
        if f.lab == LAB and f.primitive == PRIMITIVE and f.mode == mode and f.unit == "ns"
    }
    bare = []
    for p in doc["paths"]:
        fig = timed.get(p["name"])
        samples = tuple(float(v) for v in fig.samples) if fig is not None else ()
        bare.append(
            report.PathFigure(
                p["name"], p["desc"], p["status"], p["reason"], samples=samples, chunks=p["chunks"]
            )
        )
    sc = doc["syscall"]
    syscall = None
    if sc is not None:
        per_call = {
            f.unit: tuple(float(v) for v in f.samples)
            for f in run.figures
            if f.lab == LAB and f.primitive == SYSCALL
        }
        syscall = report.syscall_from(
            per_call.get("ns", ()),
            per_call.get("ticks", ()),
            tuple(sc["ticks_per_cycle"]),
            sc["calls_per_block"],
        )
    return report.CrossingReport(
        where=doc["where"],
        kernel=doc["kernel"],
        machine=doc["machine"],
        fs_type=doc["fs_type"],
        dir=doc["dir"],
        chunk=doc["chunk"],
        count=doc["count"],
        iterations=doc["iterations"],
        paths=report.with_speedups(bare),
        syscall=syscall,
        vulnerabilities=doc["vulnerabilities"],
        emulated=doc["emulated"],
        accel=doc["accel"],
        notes=list(doc["notes"]),
        guest=dict(doc["guest"]),
    )


def lab_summary(run: RunResult) -> LabSummary:
    """The lab's lines in a run's summary (LabHooks.summarize)."""
    result = from_run(run)
    if result is None:  # a run of the lab stored without its section
        return LabSummary(LAB, "write() against kernel_write() (seed 001)")
    return report.lab_summary(result)


def write_files(run: RunResult, folder: Path) -> list[Path]:
    """crossing.md and crossing.json in a report folder (LabHooks.write_files)."""
    result = from_run(run)
    if result is None:
        return []
    paths = [folder / "crossing.md", folder / "crossing.json"]
    paths[0].write_text("# crossing lab\n\n" + shown.render_markdown(result), encoding="utf-8")
    paths[1].write_text(shown.to_json(result), encoding="utf-8")
    return paths
