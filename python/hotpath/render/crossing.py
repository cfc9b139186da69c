# SPDX-License-Identifier: GPL-2.0-only
"""The crossing lab's answer (hotpath.labs.crossing.report.CrossingReport,
its verdict and the seed's line included) as text, as Markdown for a commit
message and crossing.md, and as JSON (hotpath.crossing-report/1, every
sample included). Takes the report and returns text: nothing here calls
into the lab."""

import json
from typing import TYPE_CHECKING, Any

from hotpath.labs.crossing import BASELINE, EMULATED, UNIT
from hotpath.stats import Summary

if TYPE_CHECKING:
    from hotpath.labs.crossing.report import CrossingReport


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.3f}"


def table_rows(report: "CrossingReport") -> tuple[list[str], list[list[str]]]:
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


def _context_lines(report: "CrossingReport") -> list[str]:
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


def _syscall_lines(report: "CrossingReport") -> list[str]:
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


def _vulnerability_lines(report: "CrossingReport") -> list[str]:
    if not report.vulnerabilities:
        return ["vulnerabilities: not readable (/sys/devices/system/cpu/vulnerabilities)"]
    who = "guest" if report.where == "vm" else "host"
    width = max(len(k) for k in report.vulnerabilities)
    return [f"mitigations ({who} kernel, /sys/devices/system/cpu/vulnerabilities):"] + [
        f"  {name:<{width}}  {text}" for name, text in sorted(report.vulnerabilities.items())
    ]


def render_text(report: "CrossingReport") -> str:
    head, rows = table_rows(report)
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    out = [*_context_lines(report), ""]
    for row in [head, *rows]:
        out.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    out += ["", *_syscall_lines(report), report.answer, *report.seed]
    out += [*report.notes, *_vulnerability_lines(report)]
    return "\n".join(out) + "\n"


def render_markdown(report: "CrossingReport") -> str:
    head, rows = table_rows(report)
    out = [f"- {line}" for line in _context_lines(report)] + [""]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    out += ["| " + " | ".join(row) + " |" for row in rows]
    out += ["", *_syscall_lines(report), "", report.answer, *report.seed]
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


def to_json(report: "CrossingReport") -> str:
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
        "verdict": report.answer,
        "seed": report.seed,
        "vulnerabilities": report.vulnerabilities,
        "notes": report.notes,
        "guest": report.guest,
    }
    return json.dumps(doc, indent=2) + "\n"
