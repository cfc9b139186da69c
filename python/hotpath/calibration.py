# SPDX-License-Identifier: GPL-2.0-only
"""Calibration: is the engine's clock right on this machine?

The runner's `add_chain` primitive times N dependent one-cycle adds in
latency mode. A correct engine reports N cycles for N adds, and twice as
many for 2N: that is the self-check. The same run reports how TSC ticks
convert to core cycles (re-measured between batches), from which the core
frequency follows. Tolerance: 5%.

Beside it, the width probe's timeline (`hotpath-bench probe`): the share of
the core's width this thread got, interval by interval, which says whether
a neighbour on the other hardware thread of the core comes and goes.
"""

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hotpath.machine import plausible_core_hz
from hotpath.protocol import BenchRun, Timeline, TimelinePoint
from hotpath.results import FigureResult

PRIMITIVE = "add_chain"
LAB = "calibrate"
SIZES: tuple[int, ...] = (50, 100, 200)
MODES: tuple[str, ...] = ("latency",)
DEFAULT_ROUNDS = 400
SUITE_ROUNDS = 200
QUICK_ROUNDS = 60
TOLERANCE = 0.05
# The clock's cross-check (add_chain's "imuls"): N dependent imul r64, 3
# cycles each on Zen 1 to Zen 5 and Golden Cove by the published tables
# (measured: Zen 5); a clock whose adds run faster than one a cycle reads
# them as fewer.
IMUL_VARIANT = "imuls"
IMUL_CYCLES = 3.0
TIMELINE_SECONDS = 5
SUITE_TIMELINE_SECONDS = 2
TIMELINE_INTERVAL_MS = 100


@dataclass(frozen=True)
class ChainCheck:
    """N adds measured as `median` cycles: should be N."""

    adds: int
    median: float
    ci_lo: float
    ci_hi: float
    ratio: float  # median / adds
    passed: bool


@dataclass(frozen=True)
class ImulCheck:
    """N dependent imuls measured as `median` cycles: should be 3N."""

    imuls: int
    median: float
    per_imul: float
    passed: bool


@dataclass(frozen=True)
class DoublingCheck:
    """2N adds cost twice N adds: the per-call overhead is really removed."""

    adds: int
    doubled: int
    ratio: float
    passed: bool


@dataclass(frozen=True)
class Calibration:
    source: str
    unit: str
    tsc_hz: float
    ticks_per_cycle_median: float
    ticks_per_cycle_p10: float
    ticks_per_cycle_p90: float
    batches: int
    core_hz: float
    perf_available: bool
    perf_reason: str | None
    chains: list[ChainCheck]
    doublings: list[DoublingCheck]
    timeline: Timeline | None = None
    imul: ImulCheck | None = None  # None: a runner without the cross-check
    # Chains the engine could not time (a neighbour spoiled every sample):
    # "N adds: reason". A check not made is not passed.
    untimed: list[str] = field(default_factory=list)

    @property
    def plausible(self) -> bool:
        """The clock's core frequency is one an x86 core can run at."""
        return plausible_core_hz(self.core_hz)

    @property
    def passed(self) -> bool:
        return (
            self.plausible
            and bool(self.chains)
            and not self.untimed
            and (self.imul is None or self.imul.passed)
            and all(c.passed for c in self.chains)
            and all(d.passed for d in self.doublings)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "unit": self.unit,
            "tsc_hz": self.tsc_hz,
            "ticks_per_cycle": {
                "median": self.ticks_per_cycle_median,
                "p10": self.ticks_per_cycle_p10,
                "p90": self.ticks_per_cycle_p90,
                "batches": self.batches,
            },
            "core_hz_estimate": self.core_hz,
            "perf_cycles": {"available": self.perf_available, "reason": self.perf_reason},
            "tolerance": TOLERANCE,
            "chains": [c.__dict__ for c in self.chains],
            "doublings": [d.__dict__ for d in self.doublings],
            "imul": self.imul.__dict__ if self.imul else None,
            "untimed": self.untimed,
            "passed": self.passed,
            "width": _timeline_json(self.timeline) if self.timeline else None,
        }


def from_json(doc: dict[str, Any]) -> Calibration:
    """A stored run's calibration (Calibration.to_json) as the object the
    reports render: `hotpath report RUN` shows what `hotpath run` showed."""
    tpc = doc["ticks_per_cycle"]
    perf = doc.get("perf_cycles") or {}
    width = doc.get("width")
    timeline = None
    if width:
        timeline = Timeline(
            cpu=None,
            tsc_hz=float(doc["tsc_hz"]),
            interval_ms=int(width["interval_ms"]),
            clean_share=float(width["clean_share"]),
            best_cycles_per_iteration=float(width["best_cycles_per_iteration"]),
            contended_fraction=float(width["contended_fraction"]),
            points=[TimelinePoint(**point) for point in width["timeline"]],
        )
    return Calibration(
        source=str(doc["source"]),
        unit=str(doc["unit"]),
        tsc_hz=float(doc["tsc_hz"]),
        ticks_per_cycle_median=float(tpc["median"]),
        ticks_per_cycle_p10=float(tpc["p10"]),
        ticks_per_cycle_p90=float(tpc["p90"]),
        batches=int(tpc["batches"]),
        core_hz=float(doc["core_hz_estimate"]),
        perf_available=bool(perf.get("available")),
        perf_reason=perf.get("reason"),
        chains=[ChainCheck(**c) for c in doc["chains"]],
        doublings=[DoublingCheck(**d) for d in doc["doublings"]],
        timeline=timeline,
        imul=ImulCheck(**doc["imul"]) if doc.get("imul") else None,
        untimed=[str(u) for u in doc.get("untimed") or []],
    )


def _timeline_json(t: Timeline) -> dict[str, Any]:
    return {
        "interval_ms": t.interval_ms,
        "clean_share": t.clean_share,
        "best_cycles_per_iteration": t.best_cycles_per_iteration,
        "contended_fraction": t.contended_fraction,
        "contended_intervals": contended_intervals(t),
        "timeline": [p.__dict__ for p in t.points],
    }


def contended_intervals(t: Timeline) -> float:
    """Fraction of the intervals whose median share was below the clean share."""
    if not t.points:
        return 0.0
    return sum(p.share_median < t.clean_share for p in t.points) / len(t.points)


def analyze(
    bench: BenchRun, figures: list[FigureResult], timeline: Timeline | None = None
) -> Calibration:
    """Build the calibration report from an add_chain run and its summarized figures."""
    if bench.clock is None:
        raise ValueError("calibration needs a `run` with a clock")
    clock = bench.clock
    ratios = np.asarray(clock.ticks_per_cycle or [float("nan")], dtype=np.float64)
    tpc = float(np.median(ratios))
    core_hz = bench.cpu.core_hz_estimate or (clock.tsc_hz / tpc if tpc > 0 else float("nan"))
    latency = [f for f in figures if f.primitive == bench.primitive and f.mode == "latency"]
    timed = {f.size: f for f in latency if f.timed and f.variant != IMUL_VARIANT}
    imuls = {f.size: f for f in latency if f.timed and f.variant == IMUL_VARIANT}
    untimed = [
        f"{f.size} {'imuls' if f.variant == IMUL_VARIANT else 'adds'}: {f.reason or f.status}"
        for f in latency
        if not f.timed
    ]

    def per_step(fig: FigureResult) -> float:
        """Cycles per instruction of a chain (in ticks it costs size * tpc)."""
        assert fig.median is not None
        scale = tpc if fig.unit == "ticks" else 1.0
        return fig.median / scale / fig.size if fig.size else float("nan")

    chains = []
    for adds in sorted(timed):
        fig = timed[adds]
        assert fig.median is not None and fig.ci_lo is not None and fig.ci_hi is not None
        ratio = per_step(fig)
        chains.append(
            ChainCheck(
                adds=adds,
                median=fig.median,
                ci_lo=fig.ci_lo,
                ci_hi=fig.ci_hi,
                ratio=ratio,
                passed=abs(ratio - 1.0) <= TOLERANCE,
            )
        )
    doublings = []
    for adds in sorted(timed):
        if 2 * adds in timed:
            small, big = timed[adds].median, timed[2 * adds].median
            assert small is not None and big is not None
            ratio = big / small if small else float("nan")
            doublings.append(
                DoublingCheck(adds, 2 * adds, ratio, abs(ratio / 2.0 - 1.0) <= TOLERANCE)
            )
    imul = None
    if imuls:
        longest = imuls[max(imuls)]
        assert longest.median is not None
        per = per_step(longest)
        imul = ImulCheck(longest.size, longest.median, per,
                         abs(per / IMUL_CYCLES - 1.0) <= TOLERANCE)  # fmt: skip
    return Calibration(
        imul=imul,
        source=clock.source,
        unit=clock.unit,
        tsc_hz=clock.tsc_hz,
        ticks_per_cycle_median=tpc,
        ticks_per_cycle_p10=float(np.percentile(ratios, 10)),
        ticks_per_cycle_p90=float(np.percentile(ratios, 90)),
        batches=len(clock.ticks_per_cycle),
        core_hz=float(core_hz),
        perf_available=clock.perf_cycles.available,
        perf_reason=clock.perf_cycles.reason,
        chains=chains,
        doublings=doublings,
        timeline=timeline,
        untimed=untimed,
    )
