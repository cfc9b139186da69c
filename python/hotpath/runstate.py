# SPDX-License-Identifier: GPL-2.0-only
"""The machine's state in a run, said once as lines: machine, clock,
dispatch row, core width.

Below both the summary (hotpath.summary keeps these lines) and the output
formats (hotpath.render.context opens every table with them).
"""

from typing import Any

import numpy as np

from hotpath.results import RunResult, unit_name
from hotpath.runner import runner_facts


def _perf_words(clock: dict[str, Any]) -> str:
    perf = clock.get("perf_cycles") or {}
    if perf.get("available"):
        return "perf cycles: available"
    return f"perf cycles: not available ({perf.get('reason') or 'no reason given'})"


def clock_lines(run: RunResult) -> list[str]:
    """The clock once: one line per distinct setting (unit, TSC, perf), with
    the range of the primitives' ticks-per-cycle medians; not one per primitive."""
    groups: dict[tuple[str, str, str], list[tuple[str, dict[str, Any]]]] = {}
    for primitive, clock in run.clocks.items():
        tsc_hz = clock.get("tsc_hz")
        tsc = f"TSC {float(tsc_hz) / 1e9:.3f} GHz" if tsc_hz else ""
        unit = unit_name(str(clock.get("unit", "cycles")))
        groups.setdefault((unit, tsc, _perf_words(clock)), []).append((primitive, clock))
    lines = []
    for (unit, tsc, perf), members in groups.items():
        medians = []
        batches = 0
        for _, clock in members:
            ratios = clock.get("ticks_per_cycle") or []
            if ratios:
                medians.append(float(np.median(np.asarray(ratios, dtype=np.float64))))
                batches += len(ratios)
        where = members[0][0] if len(members) == 1 else f"{len(members)} primitives"
        parts = [f"clock ({where}): {unit}"]
        if tsc:
            parts.append(tsc)
        if medians:
            lo, hi = min(medians), max(medians)
            span = f"{lo:.3f}" if f"{lo:.3f}" == f"{hi:.3f}" else f"{lo:.3f}-{hi:.3f}"
            parts.append(f"{span} TSC ticks per core cycle ({batches} batches)")
        parts.append(perf)
        lines.append("; ".join(parts))
    return lines


def dispatch_lines(run: RunResult) -> list[str]:
    """The dispatch row hotpath's own checksum and CRC ran under, once: for
    the primitives whose hotpath variants run it (the runner's
    row_primitives); a run of other labs does not depend on it."""
    kept = {
        primitive: row
        for primitive, settings in run.settings.items()
        if isinstance(row := settings.get("dispatch_row"), dict)
    }
    if not kept:  # asked only of a run that kept a row
        return []
    row_primitives = runner_facts().row_primitives
    rows = {(row["name"], row["source"]) for p, row in kept.items() if p in row_primitives}
    return [
        f"dispatch row (hp_csum, hp_crc32c): {name} ({source})" for name, source in sorted(rows)
    ]


def state_lines(run: RunResult) -> list[str]:
    """The machine's state in a run, said once: machine, clock, dispatch
    row, core width."""
    return [
        f"machine: {run.machine.one_line()}",
        *clock_lines(run),
        *dispatch_lines(run),
        *run.width_lines(),
    ]
