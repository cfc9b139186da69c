# SPDX-License-Identifier: GPL-2.0-only
"""Comparing two stored runs figure by figure, with a verdict per figure.

Two processes that run identical code measure different figures: code and
data land at other addresses, and a neighbour on the core comes and goes.
Samples inside one process cannot see that, so a p-value computed from
them says nothing about two processes (on a shared cloud core such tests
called identical runs different with p = 1e-40). So:

- **Replicas on both sides** (`--repeat 3` or more): the evidence is the
  spread of the replicas' medians. The ratio's 95% interval comes from
  Student's t on the log medians: paired replica by replica when both
  figures come from the same run (two variants timed side by side),
  Welch's otherwise. The evidence shows a difference when that interval
  excludes 1.
- **A single run on either side**: no p-value is offered. The evidence
  shows a difference only when the ratio's interval (bootstrap within the
  runs) lies beyond this machine's A/A floor: the largest difference it
  has shown between replicas of identical runs (`AAFloor`, from the
  history), or DEFAULT_FLOOR when it has shown none yet.

A difference shown is then "faster"/"slower" beyond the user's threshold
and "below the threshold" (with its size) within it; medians MIN_ABS_DIFFERENCE
of their unit or less apart are "within one unit" (hotpath.verdicts).
Figures that are not times say "better"/"worse" (a rate, a score) or
"higher"/"lower" (a model's statistic), in the figure's own unit.

Two kinds of figure carry no samples:
- **exact**: a deterministic model's statistic (the AVC model's hash
  counts): the same inputs give the same value, so any difference is real;
- **intervals**: a figure derived from others with its 95% interval (the
  tuning lab's B/A ratio): the evidence shows a difference only when the
  two intervals do not overlap.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from hotpath.machine import Fingerprint
from hotpath.results import FigureResult, RunResult, unit_of
from hotpath.significance import bootstrap_ratio_ci, t_two_sided_p
from hotpath.stats import t975
from hotpath.verdicts import (
    DEFAULT_THRESHOLD,
    MIN_ABS_DIFFERENCE,
    SAME,
    Verdict,
    decide,
    words,
)

MIN_REPLICAS = 3
# Single runs on a machine with no A/A history: assumed, and said so.
DEFAULT_FLOOR = 0.05


@dataclass(frozen=True)
class AAFloor:
    """The largest difference this machine has shown between identical runs.

    Taken from the spread (max/min - 1) of replica medians in replicated
    runs of the history on the same machine: per figure where that figure
    was replicated, else the 95th percentile over all replicated figures.
    """

    per_figure: dict[tuple[str, ...], float] = field(default_factory=dict)
    machine: float | None = None  # 95th percentile over every replicated figure
    runs: int = 0  # replicated runs it comes from

    def floor(self, key: tuple[str, ...]) -> tuple[float, str]:
        """The floor for one figure and where it comes from, in words."""
        if key in self.per_figure:
            return self.per_figure[key], f"this figure's A/A spread in {self.runs} run(s)"
        if self.machine is not None:
            return self.machine, f"95th percentile of A/A spreads in {self.runs} run(s)"
        return DEFAULT_FLOOR, "assumed: no replicated run of this machine in the history"

    @classmethod
    def from_figures(cls, runs: list[list[FigureResult]]) -> "AAFloor":
        """From the figures of replicated runs of one machine, a list per run."""
        per: dict[tuple[str, ...], float] = {}
        spreads: list[float] = []
        used = 0
        for figures in runs:
            seen = False
            for fig in figures:
                meds = [m for m in fig.replica_medians if m > 0]
                if len(meds) < 2 or fig.median is None or fig.median <= MIN_ABS_DIFFERENCE:
                    continue
                spread = max(meds) / min(meds) - 1.0
                key = _match_key(fig, with_variant=True)
                per[key] = max(per.get(key, 0.0), spread)
                spreads.append(spread)
                seen = True
            used += seen
        machine = float(np.percentile(spreads, 95)) if spreads else None
        return cls(per_figure=per, machine=machine, runs=used)


@dataclass(frozen=True)
class FigureComparison:
    a: FigureResult
    b: FigureResult
    ratio: float
    ratio_ci: tuple[float, float]
    p_value: float | None  # only from replicas, never from samples of one process
    verdict: str  # hotpath.verdicts: faster, slower, below the threshold, ...
    verdict_text: str  # the verdict in words, with the change where it says more
    method: str  # "paired replicas", "replicas", "single runs"
    floor: float | None = None  # single runs: the A/A floor the CI had to clear
    floor_source: str | None = None


@dataclass
class Comparison:
    run_a: int | None
    run_b: int | None
    machine_a: Fingerprint
    machine_b: Fingerprint
    threshold: float
    rows: list[FigureComparison] = field(default_factory=list)
    only_a: int = 0
    only_b: int = 0
    variant_a: str | None = None
    variant_b: str | None = None

    @property
    def same_machine(self) -> bool:
        return self.machine_a.key() == self.machine_b.key()


def replica_ratio(
    a: list[float], b: list[float], paired: bool
) -> tuple[tuple[float, float], float]:
    """95% interval of the ratio B/A and its two-sided p, from replica medians."""
    la, lb = np.log(np.asarray(a)), np.log(np.asarray(b))
    if paired:
        d = lb - la
        mean, se, df = float(d.mean()), float(d.std(ddof=1)) / math.sqrt(d.size), d.size - 1.0
    else:
        va, vb = float(la.var(ddof=1)) / la.size, float(lb.var(ddof=1)) / lb.size
        mean, se = float(lb.mean() - la.mean()), math.sqrt(va + vb)
        df = (
            (va + vb) ** 2 / (va**2 / (la.size - 1) + vb**2 / (lb.size - 1))
            if va + vb > 0
            else la.size + lb.size - 2.0
        )
    if se == 0.0:
        return (math.exp(mean), math.exp(mean)), 0.0 if mean else 1.0
    half = t975(df) * se
    return (math.exp(mean - half), math.exp(mean + half)), t_two_sided_p(mean / se, df)


def detectable_change(replica_medians: list[float], repeat: int = MIN_REPLICAS) -> float | None:
    """The half-width of the interval compare would give two figures of
    `repeat` replicas each with this spread: a change of that size is
    called about half the time, one of twice that size nearly always.
    None with fewer than two replicas (no spread to go by)."""
    meds = [m for m in replica_medians if m > 0]
    if len(meds) < 2:
        return None
    spread = float(np.log(np.asarray(meds)).std(ddof=1))
    return math.exp(t975(2.0 * (repeat - 1)) * spread * math.sqrt(2.0 / repeat)) - 1.0


def compare_figures(
    a: FigureResult,
    b: FigureResult,
    threshold: float,
    floor: tuple[float, str] = (DEFAULT_FLOOR, "assumed"),
    paired: bool = False,
) -> FigureComparison:
    assert a.median is not None and b.median is not None
    ratio = b.median / a.median if a.median else math.nan
    unit = unit_of(a.unit)
    # Below one cycle or tick the engine tells nothing apart; other units have no such step.
    diff = abs(b.median - a.median) if unit.resolution else math.inf
    up, down = words(a.better, unit.time)

    def said(ci: tuple[float, float], edge: float | None = None) -> Verdict:
        return decide(ratio, ci, threshold, floor=edge, abs_diff=diff, unit=unit.words,
                      up=up, down=down)  # fmt: skip

    ra, rb = a.replica_medians, b.replica_medians
    if len(ra) >= MIN_REPLICAS and len(rb) >= MIN_REPLICAS and a.median > 0:
        paired = paired and len(ra) == len(rb)
        ci, p_value = replica_ratio(ra, rb, paired)
        got = said(ci)
        method = "paired replicas" if paired else "replicas"
        return FigureComparison(a, b, ratio, ci, p_value, got.kind, got.text, method)
    if a.samples.size and b.samples.size:
        ci = bootstrap_ratio_ci(a.samples, b.samples)
        got = said(ci, floor[0])
        return FigureComparison(
            a, b, ratio, ci, None, got.kind, got.text, "single runs", floor[0], floor[1]
        )
    if _exact(a) and _exact(b):
        got = Verdict(SAME, SAME) if a.median == b.median else said((ratio, ratio))
        return FigureComparison(a, b, ratio, (ratio, ratio), None, got.kind, got.text, "exact")
    return _by_intervals(a, b, ratio, said)


def _exact(f: FigureResult) -> bool:
    """A model's statistic: a value with no samples and no interval."""
    return f.ci_lo is None and f.ci_hi is None and f.samples.size == 0


def _by_intervals(
    a: FigureResult, b: FigureResult, ratio: float, said: Callable[..., Verdict]
) -> FigureComparison:
    """Derived figures with an interval each: a difference is shown when the
    intervals do not overlap; the ratio's interval is then end to end."""
    lo_a, hi_a = _interval(a)
    lo_b, hi_b = _interval(b)
    # Each end of B's interval over the far end of A's: excludes 1 exactly
    # when the two intervals do not overlap.
    ci = (lo_b / hi_a if hi_a > 0 else math.nan, hi_b / lo_a if lo_a > 0 else math.inf)
    got = said(ci)
    return FigureComparison(a, b, ratio, ci, None, got.kind, got.text, "intervals")


def _interval(f: FigureResult) -> tuple[float, float]:
    mid = f.median or 0.0
    return (f.ci_lo if f.ci_lo is not None else mid, f.ci_hi if f.ci_hi is not None else mid)


def comparable(f: FigureResult) -> bool:
    """A figure compare can judge: timed, with samples, an interval or an exact value."""
    return f.timed and (f.samples.size > 0 or f.ci_lo is not None or _exact(f))


def _match_key(f: FigureResult, with_variant: bool) -> tuple[str, ...]:
    key = tuple(str(part) for part in f.key)
    return key if with_variant else key[:2] + key[3:]


def compare_runs(
    a: RunResult,
    b: RunResult,
    threshold: float = DEFAULT_THRESHOLD,
    aa: AAFloor | None = None,
    variant_a: str | None = None,
    variant_b: str | None = None,
) -> Comparison:
    """Figures of B against A; with variant_a/variant_b, one variant against another."""
    aa = aa if aa is not None else AAFloor()
    result = Comparison(
        a.run_id,
        b.run_id,
        a.machine,
        b.machine,
        threshold,
        variant_a=variant_a,
        variant_b=variant_b,
    )
    by_variant = variant_a is not None
    paired = by_variant and a.run_id is not None and a.run_id == b.run_id

    def usable(f: FigureResult, variant: str | None) -> bool:
        return comparable(f) and (variant is None or f.variant == variant)

    figures_b = {_match_key(f, not by_variant): f for f in b.figures if usable(f, variant_b)}
    keys_a = set()
    for fig_a in a.figures:
        if not usable(fig_a, variant_a):
            continue
        key = _match_key(fig_a, not by_variant)
        keys_a.add(key)
        fig_b = figures_b.get(key)
        if fig_b is None:
            result.only_a += 1
            continue
        floor = max(
            aa.floor(_match_key(fig_a, True)), aa.floor(_match_key(fig_b, True)), key=lambda f: f[0]
        )
        result.rows.append(compare_figures(fig_a, fig_b, threshold, floor, paired))
    result.only_b = sum(1 for key in figures_b if key not in keys_a)
    return result
