# SPDX-License-Identifier: GPL-2.0-only
"""The calibration's findings (hotpath.calibration) as text: the clock, the
checks of the engine against known chains, the width probe's timeline."""

import numpy as np

from hotpath.calibration import IMUL_CYCLES, TOLERANCE, Calibration, contended_intervals
from hotpath.compare import MIN_REPLICAS
from hotpath.machine import MAX_CORE_HZ
from hotpath.protocol import Timeline
from hotpath.results import unit_name


def render(cal: Calibration) -> list[str]:
    """The calibration report as text lines."""
    perf = (
        "available (second clock)"
        if cal.perf_available
        else f"not available: {cal.perf_reason or 'no reason given'}"
    )
    unit = unit_name(cal.unit)
    lines = [
        f"clock source: {cal.source.upper()}; perf cycles counter: {perf}",
        f"TSC frequency: {cal.tsc_hz / 1e9:.4f} GHz",
        f"TSC ticks per core cycle: {cal.ticks_per_cycle_median:.4f} median, "
        f"p10-p90 {cal.ticks_per_cycle_p10:.4f}-{cal.ticks_per_cycle_p90:.4f} "
        f"over {cal.batches} calibration batches",
        f"estimated core frequency: {cal.core_hz / 1e9:.3f} GHz"
        + (
            ""
            if cal.plausible
            else f" (FAIL: above {MAX_CORE_HZ / 1e9:.0f} GHz, no x86 core "
            "runs so fast: the clock's adds ran faster than one a cycle on this CPU)"
        ),
        "",
        f"self-check, latency mode, {unit} per call (median, 95% CI); pass within {TOLERANCE:.0%}:",
        f"{'adds':>6}  {'measured':>9}  {'95% CI':>17}  {'ratio to N':>10}  check",
    ]
    for c in cal.chains:
        lines.append(
            f"{c.adds:>6}  {c.median:>9.2f}  {c.ci_lo:>8.2f}-{c.ci_hi:<8.2f}  "
            f"{c.ratio:>10.3f}  {'PASS' if c.passed else 'FAIL'}"
        )
    for d in cal.doublings:
        lines.append(
            f"{d.doubled} adds / {d.adds} adds = {d.ratio:.3f} (expected 2.000): "
            f"{'PASS' if d.passed else 'FAIL'}"
        )
    if cal.imul is not None:
        lines.append(
            f"cross-check: {cal.imul.imuls} dependent imuls {cal.imul.median:.2f} {unit}, "
            f"{cal.imul.per_imul:.2f} cycles each (expected {IMUL_CYCLES:.0f}; fewer: the "
            f"clock's adds ran faster than one a cycle): {'PASS' if cal.imul.passed else 'FAIL'}"
        )
    lines += [f"{u}: not checked" for u in cal.untimed]
    if not cal.chains:
        lines.append("no chain was timed: nothing checked")
    lines.append(f"calibration: {'PASS' if cal.passed else 'FAIL'}")
    if cal.timeline is not None:
        lines += ["", *render_timeline(cal.timeline)]
    return lines


def _strip_char(share: float, clean: float) -> str:
    """One interval as one ASCII character: '#' full width, then '+', '-', '.'."""
    if share >= clean:
        return "#"
    return "+" if share >= 0.75 else "-" if share >= 0.5 else "."


def neighbour_verdict(t: Timeline) -> str:
    """One line: does this machine have a contending neighbour?"""
    seen = contended_intervals(t)
    seconds = len(t.points) * t.interval_ms / 1000
    if seen == 0:
        return f"contending neighbour: none seen in {seconds:g} s"
    low = min(p.share_median for p in t.points)
    return (
        f"contending neighbour: YES, in {seen:.0%} of {seconds:g} s the core's width "
        f"this thread got fell below {t.clean_share:.2f} (median share as low as {low:.2f}); "
        "figures are made from the samples it did not touch"
    )


def render_timeline(t: Timeline) -> list[str]:
    """The width probe over time: a strip, a table of half-second bins, a verdict."""
    points = t.points
    strip = "".join(_strip_char(p.share_median, t.clean_share) for p in points)
    lines = [
        f"core width (probe: independent adds, loads, SSE adds; full width = "
        f"{t.best_cycles_per_iteration:.2f} core cycles per iteration, learnt here), "
        f"every {t.interval_ms} ms:",
        f"  {strip}",
        f"  '#' share >= {t.clean_share:.2f} (clean), '+' >= 0.75, '-' >= 0.50, '.' below",
        f"  {'t (s)':>7}  {'ticks/cycle':>16}  {'share median':>12}  {'share min':>9}",
    ]
    per_bin = max(1, 500 // t.interval_ms)
    for start in range(0, len(points), per_bin):
        chunk = points[start : start + per_bin]
        tpc = [p.ticks_per_cycle for p in chunk]
        lines.append(
            f"  {chunk[0].t_s:>7.1f}  {min(tpc):>7.3f}-{max(tpc):<8.3f}  "
            f"{float(np.median([p.share_median for p in chunk])):>12.2f}  "
            f"{min(p.share_min for p in chunk):>9.2f}"
        )
    lines += [
        f"  probes below {t.clean_share:.2f}: {t.contended_fraction:.1%}",
        neighbour_verdict(t),
    ]
    return lines


def detectable_line(detectable: dict[int, float]) -> str:
    """One line: the smallest change `compare` can call here, per chain length."""
    if not detectable:
        return "smallest change compare can call: n/a (no spread between the processes)"
    said = ", ".join(f"{size} adds {change:.2%}" for size, change in sorted(detectable.items()))
    return (
        f"smallest change compare can call with --repeat {MIN_REPLICAS} (from the spread of "
        f"this run's {MIN_REPLICAS} processes, latency): {said}; called about half the time "
        "at that size, nearly always at twice it (docs/engine.md has the measured table)"
    )
