# SPDX-License-Identifier: GPL-2.0-only
"""The lines above every table: machine, clock and warnings.

A figure is meaningless without its machine and unit, so every format
prints these first.
"""

from typing import Any

import numpy as np

from hotpath.results import RunResult, unit_name


def clock_line(primitive: str, clock: dict[str, Any]) -> str:
    ratios = clock.get("ticks_per_cycle") or []
    unit = unit_name(str(clock.get("unit", "cycles")))
    parts = [f"clock ({primitive}): {unit}"]
    tsc_hz = clock.get("tsc_hz")
    if tsc_hz:
        parts.append(f"TSC {float(tsc_hz) / 1e9:.3f} GHz")
    if ratios:
        values = np.asarray(ratios, dtype=np.float64)
        parts.append(
            f"{float(np.median(values)):.3f} TSC ticks per core cycle "
            f"(p10-p90 {float(np.percentile(values, 10)):.3f}-"
            f"{float(np.percentile(values, 90)):.3f}, {values.size} batches)"
        )
    perf = clock.get("perf_cycles") or {}
    if perf.get("available"):
        parts.append("perf cycles: available")
    else:
        parts.append(f"perf cycles: not available ({perf.get('reason') or 'no reason given'})")
    return "; ".join(parts)


def context_lines(run: RunResult) -> list[str]:
    lines = [f"machine: {run.machine.one_line()}"]
    seen: set[str] = set()
    for primitive, clock in run.clocks.items():
        line = clock_line(primitive, clock)
        # Identical clock settings: print once.
        summary = line.split(": ", 1)[1]
        if summary not in seen:
            seen.add(summary)
            lines.append(line)
    lines.extend(run.width_lines())
    lines.extend(f"warning: {w}" for w in run.machine.warnings())
    lines.extend(f"warning: {w}" for w in run.variant_warnings())
    return lines
