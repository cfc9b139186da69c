# SPDX-License-Identifier: GPL-2.0-only
"""A run's results as hotpath keeps them: summarized figures plus context.

The runner reports raw samples per primitive; this module turns them into
FigureResult rows (one per variant x size x alignment x mode, with its
statistics, unit and mode) and a RunResult that holds the machine and clock
beside them. RunResult.to_json() is the documented "hotpath.result/2"
schema (python/hotpath/schema/result-2.schema.json), the one format that
--json, results.json and the store share.
"""

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from hotpath import __version__
from hotpath.machine import Fingerprint
from hotpath.protocol import BenchRun, RawFigure, Variant
from hotpath.stats import (
    DEFAULT_NOISY_FRACTION,
    FloatArray,
    is_noisy,
    summarize,
    widen_by_replicas,
)

RESULT_SCHEMA = "hotpath.result/2"


@dataclass(frozen=True)
class Unit:
    """What a figure's numbers count, in words and short."""

    words: str  # "core cycles"
    short: str  # "cyc", in narrow table columns
    time: bool  # a time: lower is faster; verdicts say faster/slower
    resolution: float | None = None  # the engine tells nothing apart below it (cycles, ticks)


# Every unit a lab may give a figure; a workload of the tuning lab may
# bring its own (ops/s, ...), shown as it is named.
UNITS: dict[str, Unit] = {
    "cycles": Unit("core cycles", "cyc", True, 1.0),
    "ticks": Unit("TSC ticks", "tick", True, 1.0),
    "ns": Unit("ns of wall clock", "ns", True),
    "ns/op": Unit("ns per operation", "ns/op", True),
    "s": Unit("seconds of wall clock", "s", True),
    "ratio": Unit("ratio", "x", False),
    "count": Unit("count", "n", False),
    "percent": Unit("percent", "%", False),
}
# Which way a figure is better: "lower" (every time), "higher" (a rate), or
# "none" (a statistic of a model: it only moves).
BETTER = ("lower", "higher", "none")


def unit_of(unit: str) -> Unit:
    return UNITS.get(unit) or Unit(unit, unit[:6], False)


def unit_name(unit: str) -> str:
    """Never ambiguous: "cycles" is core cycles, "ticks" TSC ticks."""
    return unit_of(unit).words


MODEL_OFF = "model off"


@dataclass
class Bound:
    """A model's floor set beside one measured figure: the csum lab's
    dependency-chain bound (hotpath.labs.csum.chainbound), in core cycles per call.

    status "n/a" with the reason where it does not apply (another size or
    mode, a variant the model does not cover, a tool missing). Made from the
    sources when a run is measured and kept with it in the history.
    """

    status: str  # ok, n/a, or MODEL_OFF (the model exceeds the measurement)
    cycles: float | None = None  # the larger of the chain and throughput bounds
    reason: str | None = None
    chain_cycles: int | None = None  # longest chain anywhere in the call
    mca_cycles: float | None = None  # llvm-mca's latency-mode steady state
    seed_chain_cycles: int | None = None  # the chain from the input sum to the result
    throughput_cycles: float | None = None  # llvm-mca's resource-pressure bound
    binds: str | None = None  # "chain" or "throughput": which one is `cycles`

    def text(self) -> str:
        """The bound as a table shows it ("9", "3.5"); "n/a" or "model off" otherwise."""
        if self.status == "ok" and self.cycles is not None:
            return f"{self.cycles:g}"
        return self.status

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "cycles": self.cycles,
            "unit": "cycles",
            "reason": self.reason,
            "chain_cycles": self.chain_cycles,
            "mca_cycles": self.mca_cycles,
            "seed_chain_cycles": self.seed_chain_cycles,
            "throughput_cycles": self.throughput_cycles,
            "binds": self.binds,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> "Bound":
        return cls(**{k: v for k, v in doc.items() if k != "unit"})


@dataclass
class BoundModel:
    """What the bounds beside one primitive's figures are, and where they apply."""

    primitive: str
    label: str  # column header beside each figure it applies to
    legend: str  # one line under a table: what the bound is, tools and model
    mode: str
    sizes: tuple[int, ...]
    aligns: tuple[int, ...]
    scope: str  # where it applies, in words
    available: bool = True
    reason: str | None = None  # why not, when not available
    details: dict[str, Any] = field(default_factory=dict)  # model, tools, method

    def applies(self, mode: str, size: int, align: int) -> bool:
        return mode == self.mode and size in self.sizes and align in self.aligns

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "legend": self.legend,
            "mode": self.mode,
            "sizes": list(self.sizes),
            "aligns": list(self.aligns),
            "scope": self.scope,
            "available": self.available,
            "reason": self.reason,
            **self.details,
        }

    @classmethod
    def from_json(cls, primitive: str, doc: dict[str, Any]) -> "BoundModel":
        own = ("label", "legend", "mode", "scope", "available", "reason")
        return cls(
            primitive=primitive,
            sizes=tuple(doc["sizes"]),
            aligns=tuple(doc["aligns"]),
            details={k: v for k, v in doc.items() if k not in (*own, "sizes", "aligns")},
            **{k: doc[k] for k in own},
        )


@dataclass
class Graph:
    """A Graphviz graph for the report (a variant's dependency chain)."""

    lab: str
    primitive: str
    variant: str
    size: int
    align: int
    title: str
    dot: str

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> "Graph":
        return cls(**doc)


class FigureKey(NamedTuple):
    """Where a figure sits: what compare matches two runs' figures by (with the unit)."""

    lab: str
    primitive: str
    variant: str
    size: int
    align: int
    mode: str  # the engine's mode, or a lab's workload


@dataclass
class FigureResult:
    lab: str
    primitive: str
    variant: str
    size: int
    align: int
    mode: str
    unit: str
    status: str  # ok, n/a, not timed
    reason: str | None = None
    n: int = 0
    median: float | None = None
    min: float | None = None
    p10: float | None = None
    p90: float | None = None
    ci_lo: float | None = None
    ci_hi: float | None = None
    noisy: bool = False
    calls_per_sample: int | None = None
    # The clean samples only (full width, steady clock), all replicas pooled.
    samples: FloatArray = field(default_factory=lambda: np.empty(0, dtype=np.float64))
    bound: Bound | None = None  # set by a lab with a bound model (csum_partial)
    samples_taken: int = 0  # clean or not, all replicas
    kept_fraction: float | None = None  # clean / taken
    min_share: float | None = None  # lowest width share around any sample
    short: bool = False  # fewer clean samples than the rounds asked for
    replica_medians: list[float] = field(default_factory=list)  # one per process
    better: str = "lower"  # BETTER: which way this figure improves

    @classmethod
    def from_samples(
        cls,
        where: "FigureKey",
        unit: str,
        samples: "list[float] | tuple[float, ...] | FloatArray",
        better: str = "lower",
    ) -> "FigureResult":
        """A figure of a lab with its own timing (crossing, tune): the median
        of `samples`, its bootstrap 95% interval and spread, samples kept."""
        values = np.asarray(samples, dtype=np.float64)
        s = summarize(values)
        return cls(
            *where, unit=unit, status="ok", n=s.n, median=s.median, min=s.min, p10=s.p10,
            p90=s.p90, ci_lo=s.ci_lo, ci_hi=s.ci_hi, noisy=s.noisy, samples=values,
            samples_taken=s.n, kept_fraction=1.0, better=better,
        )  # fmt: skip

    @classmethod
    def exact(cls, where: "FigureKey", unit: str, value: float) -> "FigureResult":
        """A deterministic model's statistic (the AVC model's): no samples, no
        interval, no better side; compare calls any change real."""
        return cls(*where, unit=unit, status="ok", n=1, median=value, min=value, better="none")

    @property
    def key(self) -> tuple[str, str, str, int, int, str, str]:
        """What makes two figures comparable across runs."""
        return (self.lab, self.primitive, self.variant, self.size, self.align, self.mode, self.unit)

    @property
    def timed(self) -> bool:
        return self.status == "ok" and self.median is not None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "lab": self.lab,
            "primitive": self.primitive,
            "variant": self.variant,
            "size": self.size,
            "align": self.align,
            "mode": self.mode,
            "unit": self.unit,
            "status": self.status,
            "reason": self.reason,
            "n": self.n,
            "median": self.median,
            "min": self.min,
            "p10": self.p10,
            "p90": self.p90,
            "ci_lo": self.ci_lo,
            "ci_hi": self.ci_hi,
            "noisy": self.noisy,
            "calls_per_sample": self.calls_per_sample,
            "samples_taken": self.samples_taken,
            "kept_fraction": self.kept_fraction,
            "min_share": self.min_share,
            "short": self.short,
            "replica_medians": self.replica_medians,
            "better": self.better,
        }
        if self.bound is not None:
            doc["bound"] = self.bound.to_json()
        return doc


@dataclass
class VariantResult:
    lab: str
    primitive: str
    info: Variant

    def to_json(self) -> dict[str, Any]:
        v = self.info
        failure = None
        if v.failure is not None:
            f = v.failure
            failure = {
                "len": f.length,
                "align": f.align,
                "seed": f.seed,
                "expected": f.expected,
                "got": f.got,
                "what": f.what,
            }
        return {
            "lab": self.lab,
            "primitive": self.primitive,
            "name": v.name,
            "desc": v.desc,
            "origin": v.origin,
            "needs": v.needs,
            "flags": v.flags,
            "status": v.status,
            "reason": v.reason,
            "checked_cases": v.checked_cases,
            "failure": failure,
            "warnings": v.warnings,
        }


@dataclass
class RunResult:
    command: str
    started: str  # UTC ISO 8601
    machine: Fingerprint
    labs: list[str] = field(default_factory=list)
    clocks: dict[str, dict[str, Any]] = field(default_factory=dict)  # per primitive
    settings: dict[str, Any] = field(default_factory=dict)
    variants: list[VariantResult] = field(default_factory=list)
    figures: list[FigureResult] = field(default_factory=list)
    calibration: dict[str, Any] | None = None
    run_id: int | None = None
    version: str = __version__
    command_line: str = ""
    # Per primitive: the model whose bounds sit beside its figures (csum_partial).
    bound_models: dict[str, BoundModel] = field(default_factory=dict)
    graphs: list[Graph] = field(default_factory=list)  # drawn in report.html
    # Per lab, what its figures alone do not hold (the crossing lab's kernel
    # and file system, the tuning lab's verdicts): JSON, kept with the run.
    sections: dict[str, Any] = field(default_factory=dict)
    # False for a run stored before the history kept bounds, graphs and sections.
    extras_kept: bool = True

    def add_replicas(
        self, benches: list[BenchRun], noisy_fraction: float = DEFAULT_NOISY_FRACTION
    ) -> None:
        """Summarize the runner processes of one primitive (its replicas) into this run."""
        first = benches[0]
        if first.lab not in self.labs:
            self.labs.append(first.lab)
        if first.clock is not None:
            clock = first.clock.to_json()
            if len(benches) > 1:
                clock["replica_widths"] = [b.clock.width if b.clock else None for b in benches]
            self.clocks[first.primitive] = clock
        self.settings[first.primitive] = {**first.settings, "replicas": len(benches)}
        self.variants.extend(VariantResult(first.lab, first.primitive, v) for v in first.variants)
        unit = first.clock.unit if first.clock else "cycles"
        wanted = int(first.settings.get("rounds") or 0) * len(benches)
        for index, raw in enumerate(first.figures):
            copies = [b.figures[index] for b in benches if index < len(b.figures)]
            copies = [c for c in copies if (c.variant, c.size, c.align, c.mode) == _raw_key(raw)]
            figure = FigureResult(
                lab=first.lab,
                primitive=first.primitive,
                variant=raw.variant,
                size=raw.size,
                align=raw.align,
                mode=raw.mode,
                unit=unit,
                status=raw.status,
                reason=raw.reason,
                calls_per_sample=raw.calls_per_sample,
            )
            if raw.status == "ok":
                summarize_clean(figure, copies, wanted, noisy_fraction)
            self.figures.append(figure)

    def variant_warnings(self) -> list[str]:
        """One line per variant warning of the gate: 'primitive variant: words'."""
        return [f"{v.primitive} {v.info.name}: {w}" for v in self.variants for w in v.info.warnings]

    def width_lines(self) -> list[str]:
        """One line: what the width probe saw in the run, and what it cost."""
        widths = {
            p: c["width"] for p, c in self.clocks.items() if isinstance(c, dict) and c.get("width")
        }
        if not widths:
            return []
        figs = [f for f in self.figures if f.primitive in widths and f.samples_taken]
        short = sum(f.short or f.status == "n/a" for f in figs)
        kept = [f.kept_fraction for f in figs if f.kept_fraction is not None]
        contended = [float(w.get("contended_fraction", 0)) for w in widths.values()]
        taken = [int(w.get("rounds_taken") or 0) for w in widths.values()]
        wanted = {int(w.get("rounds_wanted") or 0) for w in widths.values()}
        share = next(iter(widths.values())).get("clean_share", 0)
        where = next(iter(widths)) if len(widths) == 1 else f"{len(widths)} primitives"

        def span(lo: float, hi: float, fmt: str) -> str:
            return format(lo, fmt) if f"{lo:{fmt}}" == f"{hi:{fmt}}" else f"{lo:{fmt}}..{hi:{fmt}}"

        return [
            f"core width ({where}): {span(min(contended), max(contended), '.1%')} of probes "
            f"below {share:.2f} of full width (lowest share "
            f"{min(float(w.get('share_min', 1)) for w in widths.values()):.2f}); samples "
            f"kept {span(min(kept, default=1), max(kept, default=1), '.0%')} per figure; "
            f"{short} figure(s) short of clean samples; "
            f"{span(min(taken), max(taken), 'd')} rounds for {'/'.join(map(str, sorted(wanted)))}"
        ]

    def wrong_variants(self) -> list[VariantResult]:
        return [v for v in self.variants if v.info.status == "wrong"]

    def primitives(self) -> list[str]:
        return list(dict.fromkeys(v.primitive for v in self.variants))

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "schema": RESULT_SCHEMA,
            "hotpath_version": self.version,
            "command": self.command,
            "command_line": self.command_line,
            "run_id": self.run_id,
            "started": self.started,
            "machine": {
                **self.machine.to_json(),
                "key": self.machine.key(),
                "warnings": self.machine.warnings(),
            },
            "labs": self.labs,
            "clocks": self.clocks,
            "settings": self.settings,
            "variants": [v.to_json() for v in self.variants],
            "figures": [f.to_json() for f in self.figures],
            "calibration": self.calibration,
        }
        if self.bound_models:
            doc["bound_models"] = {p: m.to_json() for p, m in self.bound_models.items()}
        if self.sections:
            doc["sections"] = self.sections
        return doc


def _raw_key(raw: RawFigure) -> tuple[str, int, int, str]:
    return (raw.variant, raw.size, raw.align, raw.mode)


def _clean_values(raw: RawFigure) -> FloatArray:
    values: FloatArray = np.asarray(raw.values, dtype=np.float64)
    if len(raw.clean) != values.size:  # output of a runner without the probe
        return values
    kept: FloatArray = values[np.asarray(raw.clean, dtype=bool)]
    return kept


def summarize_clean(
    figure: FigureResult, copies: list[RawFigure], wanted: int, noisy_fraction: float
) -> None:
    """The figure from its clean samples; short or n/a when there are too few."""
    per_replica = [_clean_values(c) for c in copies]
    kept = np.concatenate(per_replica) if per_replica else np.empty(0)
    figure.samples_taken = sum(len(c.values) for c in copies)
    shares = [s for c in copies for s in c.share]
    figure.min_share = min(shares) if shares else None
    figure.kept_fraction = kept.size / figure.samples_taken if figure.samples_taken else None
    if kept.size == 0:
        figure.status = "n/a"
        figure.reason = (
            f"no clean sample among {figure.samples_taken}: a neighbour on the core "
            f"(lowest width share {figure.min_share:.2f}) or a changing clock spoiled every one"
            if figure.samples_taken and figure.min_share is not None
            else "no samples"
        )
        return
    figure.short = kept.size < wanted
    figure.replica_medians = [float(np.median(v)) for v in per_replica if v.size]
    summary = summarize(kept, noisy_fraction)
    figure.samples = kept
    figure.n = summary.n
    figure.median = summary.median
    figure.min = summary.min
    figure.p10 = summary.p10
    figure.p90 = summary.p90
    figure.ci_lo, figure.ci_hi = widen_by_replicas(
        (summary.ci_lo, summary.ci_hi), summary.median, figure.replica_medians
    )
    figure.noisy = figure.short or is_noisy(
        summary.median, figure.ci_lo, figure.ci_hi, noisy_fraction
    )
    if figure.short:
        figure.reason = f"only {kept.size} of {wanted} samples clean: the core was contended"
