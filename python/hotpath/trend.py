# SPDX-License-Identifier: GPL-2.0-only
"""Trends: one figure's medians over the stored runs, and where they changed.

A series is one figure (lab, primitive, variant, size, align, mode, unit)
over the runs of one machine key (every machine with that CPU, hypervisor
and CPU count: Fingerprint.key), one value per run (the figure's median),
ordered by the time the run started or by the kernel release it ran on.

Change points are found by apache-otava (the Apache project that was
MongoDB's, then DataStax's Hunter): E-Divisive means, split over sliding
windows with a first-pass Student's t-test, then merged bottom-up until
every change point left has p <= max_pvalue and a relative change above
min_magnitude (Fleming et al., "Hunter: Using Change Point Detection to
Hunt for Performance Regressions", ICPE 2023). On top of what otava does:

- a minimum segment: a change point that leaves fewer than min_segment
  runs on either side is dropped (the weakest first, the rest retested
  with otava's own t-test and merge), so one spike is never a change;
- single runs far from their segment are outliers, not changes: Rosner's
  generalized ESD test (Technometrics 25(2), 1983) at p 0.01, on
  each segment, and at least min_magnitude from the segment's median. A
  run a slower build made is marked even where it is alone; the change
  points are then found again without the outliers.

Each change point carries the first run after it, the ratio of the mean
after to the mean before (as a percentage change), its 95% interval (the
Welch t interval of the difference of the two segments' means, over the
mean before) and the t-test's p-value (otava's). This module reads only:
the history is opened read-only, through Store's public methods.
"""

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hotpath.db.location import DbLocation
from hotpath.errors import UsageError
from hotpath.inputs import shown
from hotpath.results import FigureResult, RunResult, unit_name
from hotpath.store import Store
from hotpath.versions import version_key

TREND_SCHEMA = "hotpath.trend/1"
ORDERS = ("time", "kernel")
DEFAULT_MIN_SEGMENT = 3
DEFAULT_MIN_MAGNITUDE = 0.02
DEFAULT_MAX_PVALUE = 0.001
# The outlier test's significance level: fixed, less strict than the change
# points' (with 12 runs, an 8% spike over 1% noise is near the limit of what
# generalized ESD can call at 0.001; at 0.01 it is called).
OUTLIER_PVALUE = 0.01
# otava's sliding window (its own default): the series is split window by
# window, each window half overlapping the next.
WINDOW_LEN = 50
# How often the change points are found again after outliers were taken out.
MAX_PASSES = 4
METHOD = (
    "E-Divisive means with Student's t-test, split over windows and merged "
    "(Hunter/apache-otava); outliers by Rosner's generalized ESD"
)

FigureKey = tuple[str, str, str, int, int, str, str]


@dataclass(frozen=True)
class Settings:
    """The detection's parameters; check() names a bad one and what is allowed."""

    min_segment: int = DEFAULT_MIN_SEGMENT
    min_magnitude: float = DEFAULT_MIN_MAGNITUDE
    max_pvalue: float = DEFAULT_MAX_PVALUE

    def check(self) -> None:
        if not 1 <= self.min_segment <= 1000:
            raise UsageError(f"--min-segment '{self.min_segment}': allowed: runs, 1..1000")
        if not (math.isfinite(self.min_magnitude) and 0.0 <= self.min_magnitude < 1.0):
            raise UsageError(
                f"--min-magnitude '{self.min_magnitude}': allowed: a fraction in [0, 1), "
                "e.g. 0.02 for 2%"
            )
        if not (math.isfinite(self.max_pvalue) and 0.0 < self.max_pvalue < 1.0):
            raise UsageError(
                f"--max-pvalue '{self.max_pvalue}': allowed: a probability in (0, 1), e.g. 0.001"
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": METHOD,
            "library": f"apache-otava {_otava_version()}",
            "window_len": WINDOW_LEN,
            "max_pvalue": self.max_pvalue,
            "min_magnitude": self.min_magnitude,
            "min_segment": self.min_segment,
            "outlier_test": f"generalized ESD (Rosner 1983) per segment, p <= {OUTLIER_PVALUE}",
            "interval": "95% Welch t interval of the difference of the means, over the mean before",
        }


@dataclass(frozen=True)
class Change:
    """A change point: the series changed between index-1 and index."""

    index: int  # first point after the change
    before: float  # mean of the segment before (outliers left out)
    after: float  # mean of the segment after
    magnitude: float  # after / before - 1
    low: float | None  # 95% interval of the magnitude (None: a segment of one run)
    high: float | None
    pvalue: float
    runs_before: int
    runs_after: int


@dataclass(frozen=True)
class Outlier:
    index: int
    deviation: float  # value / its segment's median - 1


@dataclass(frozen=True)
class Detection:
    changes: list[Change]
    outliers: list[Outlier]


@dataclass(frozen=True)
class Point:
    run_id: int
    started: str
    kernel: str
    median: float
    ci_lo: float | None
    ci_hi: float | None


@dataclass
class Trend:
    """One figure's series on one machine key, and what was found in it."""

    key: FigureKey
    better: str
    machine_key: str
    machine: str
    by: str
    points: list[Point] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    outliers: list[Outlier] = field(default_factory=list)

    @property
    def unit(self) -> str:
        return self.key[6]

    def label(self) -> str:
        lab, primitive, variant, size, align, mode, _ = self.key
        return f"{lab} / {primitive} / {variant}, {size} B, align {align}, {mode}"

    def largest(self) -> float:
        return max((abs(c.magnitude) for c in self.changes), default=0.0)

    def direction(self, magnitude: float) -> str:
        """In words: a time that grew is slower; a rate that grew is better."""
        if self.better == "none":
            return "higher" if magnitude > 0 else "lower"
        worse = magnitude > 0 if self.better == "lower" else magnitude < 0
        if self.better == "lower":
            return "slower" if worse else "faster"
        return "worse" if worse else "better"

    def _run_at(self, index: int) -> dict[str, Any]:
        """Where a change or outlier is: its point's index, run and start."""
        point = self.points[index]
        return {"index": index, "run_id": point.run_id, "started": point.started}

    def to_json(self) -> dict[str, Any]:
        lab, primitive, variant, size, align, mode, unit = self.key
        out = {o.index for o in self.outliers}
        return {
            "lab": lab,
            "primitive": primitive,
            "variant": variant,
            "size": size,
            "align": align,
            "mode": mode,
            "unit": unit,
            "unit_name": unit_name(unit),
            "better": self.better,
            "points": [
                {
                    "index": i,
                    "run_id": p.run_id,
                    "started": p.started,
                    "kernel": p.kernel,
                    "median": p.median,
                    "ci_lo": p.ci_lo,
                    "ci_hi": p.ci_hi,
                    "outlier": i in out,
                }
                for i, p in enumerate(self.points)
            ],
            "change_points": [
                {
                    **self._run_at(c.index),
                    "kernel": self.points[c.index].kernel,
                    "before": c.before,
                    "after": c.after,
                    "magnitude": c.magnitude,
                    "interval": [c.low, c.high],
                    "pvalue": c.pvalue,
                    "runs_before": c.runs_before,
                    "runs_after": c.runs_after,
                    "direction": self.direction(c.magnitude),
                }
                for c in self.changes
            ],
            "outliers": [
                {
                    **self._run_at(o.index),
                    "median": self.points[o.index].median,
                    "deviation": o.deviation,
                    "direction": self.direction(o.deviation),
                }
                for o in self.outliers
            ],
        }


# ---------------------------------------------------------------- detection


def _scipy_stats() -> Any:
    """scipy.stats, imported when a series is tested (0.5 s: not at start-up)."""
    from scipy import stats  # type: ignore[import-untyped]

    return stats


def _otava_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("apache-otava")
    except PackageNotFoundError:
        return "not installed"


def detect(values: Sequence[float], settings: Settings) -> Detection:
    """Change points and outliers of one series (in its order)."""
    series = [float(v) for v in values]
    outliers: dict[int, float] = {}
    kept = list(range(len(series)))
    changes: list[Change] = []
    for _ in range(MAX_PASSES):
        sub = [series[i] for i in kept]
        found = _change_points(sub, settings)
        bounds = [0, *found, len(sub)]
        new: dict[int, float] = {}
        for lo, hi in itertools.pairwise(bounds):
            for j, deviation in _esd(sub[lo:hi], settings):
                new[kept[lo + j]] = deviation
        changes = [
            _change(sub, bounds, n, kept, settings.max_pvalue) for n in range(1, len(bounds) - 1)
        ]
        if not new:
            break
        outliers.update(new)
        kept = [i for i in kept if i not in new]
    return Detection(changes, [Outlier(i, d) for i, d in sorted(outliers.items())])


def _change_points(series: list[float], settings: Settings) -> list[int]:
    """Indices (into series) of otava's change points that leave at least
    min_segment runs on both sides."""
    if len(series) < 2 * max(settings.min_segment, 1) or len(series) < 3:
        return []
    from otava.analysis import (  # type: ignore[import-untyped]
        TTestSignificanceTester,
        compute_change_points,
        merge,
    )

    # A plain list: otava slices windows out of it (an ndarray it would not slice).
    points, _weak = compute_change_points(
        series,
        window_len=WINDOW_LEN,
        max_pvalue=settings.max_pvalue,
        min_magnitude=settings.min_magnitude,
    )
    tester = TTestSignificanceTester(settings.max_pvalue)
    while True:
        edges = [0, *[int(p.index) for p in points], len(series)]
        short = [
            n
            for n in range(len(points))
            if min(edges[n + 1] - edges[n], edges[n + 2] - edges[n + 1]) < settings.min_segment
        ]
        if not short:
            break
        weakest = max(short, key=lambda n: float(points[n].stats.pvalue))
        del points[weakest]
        intervals = tester.get_intervals(points)
        points = [tester.change_point(p.to_candidate(), series, intervals) for p in points]
        points = merge(points, series, settings.max_pvalue, settings.min_magnitude)
    return [int(p.index) for p in points]


def _change(
    sub: list[float], bounds: list[int], n: int, kept: list[int], max_pvalue: float
) -> Change:
    """The n-th change point (bounds[n]) of the series sub, with its statistics."""
    stats = _scipy_stats()

    left = sub[bounds[n - 1] : bounds[n]]
    right = sub[bounds[n] : bounds[n + 1]]
    before = sum(left) / len(left)
    after = sum(right) / len(right)
    low = high = None
    if len(left) >= 2 and len(right) >= 2:
        test = stats.ttest_ind(right, left, equal_var=False)
        interval = test.confidence_interval(0.95)
        if math.isfinite(interval.low) and math.isfinite(interval.high):
            low, high = float(interval.low) / before, float(interval.high) / before
    # otava's own test, as its merge step decided with it.
    from otava.analysis import TTestSignificanceTester

    pvalue = float(TTestSignificanceTester(max_pvalue).compare(left, right).pvalue)
    return Change(
        index=kept[bounds[n]],
        before=before,
        after=after,
        magnitude=after / before - 1.0 if before else math.nan,
        low=low,
        high=high,
        pvalue=pvalue,
        runs_before=len(left),
        runs_after=len(right),
    )


def _esd(segment: list[float], settings: Settings) -> list[tuple[int, float]]:
    """Rosner's generalized ESD on one segment: indices of its outliers
    (at most a tenth of it, at least one), each with its deviation from
    the segment's median; only those at least min_magnitude from it."""
    import numpy as np

    stats = _scipy_stats()

    n = len(segment)
    if n < 5:
        return []
    values = np.asarray(segment, dtype=np.float64)
    median = float(np.median(values))
    left = list(range(n))
    removed: list[int] = []
    significant = 0
    for i in range(1, max(1, n // 10) + 1):
        rest = values[left]
        sd = float(rest.std(ddof=1))
        if sd == 0.0:
            break
        far = int(np.argmax(np.abs(rest - rest.mean())))
        r = abs(float(rest[far]) - float(rest.mean())) / sd
        m = n - i + 1
        p = 1.0 - OUTLIER_PVALUE / (2.0 * m)
        t = float(stats.t.ppf(p, m - 2))
        critical = (m - 1) * t / math.sqrt((m - 2 + t * t) * m)
        removed.append(left.pop(far))
        if r > critical:
            significant = i
    out = []
    for index in removed[:significant]:
        deviation = float(values[index]) / median - 1.0 if median else math.nan
        if abs(deviation) >= settings.min_magnitude:
            out.append((index, deviation))
    return sorted(out)


# ---------------------------------------------------------------- series


@dataclass(frozen=True)
class Selection:
    """Which figures: None matches any."""

    lab: str | None = None
    primitive: str | None = None
    variant: str | None = None
    size: int | None = None
    align: int | None = None
    mode: str | None = None

    def matches(self, fig: FigureResult) -> bool:
        wanted: list[tuple[object, object]] = [
            (self.lab, fig.lab),
            (self.primitive, fig.primitive),
            (self.variant, fig.variant),
            (self.size, fig.size),
            (self.align, fig.align),
            (self.mode, fig.mode),
        ]
        return all(want is None or want == have for want, have in wanted)

    def options(self) -> str:
        named = [
            f"--{name} {value}"
            for name, value in (
                ("lab", self.lab),
                ("primitive", self.primitive),
                ("variant", self.variant),
                ("size", self.size),
                ("align", self.align),
                ("mode", self.mode),
            )
            if value is not None
        ]
        return " ".join(named) or "(no selection)"


@dataclass
class History:
    """The runs of one machine, each reduced to its timed figures."""

    path: DbLocation
    machine_key: str  # the chosen run's key
    machine: str  # its short name
    keys: list[str]  # every key the runs have (one per kernel release, unless exact)
    runs: list[tuple[Point, list[FigureResult]]]


def _same_machine(parts: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """A machine key's parts but the kernel release: one machine across kernels."""
    return tuple(sorted((k, v) for k, v in parts.items() if k != "kernel"))


def read_history(path: DbLocation, machine: str | None, exact: bool = False) -> History:
    """The runs of one machine from the history at path (read-only).

    `machine`: a machine key (`hotpath history --json`), as the run's
    fingerprint gives it now or as the history's column keeps it (an older
    rule's key), or a unique start of one; None: the newest run's. The
    series takes every run whose key differs from it in the kernel release
    at most (the same CPU, microcode, features, CPU count and VM or not),
    so that --by kernel has kernels to order; with `exact`, that key's only.
    """
    store = Store.open(path, create=False)
    try:
        rows = store.runs()
        if not rows:
            raise UsageError(f"database '{path}' has no runs: nothing to trend")
        # oldest first; a corrupt run is said and left out
        loaded = [(row, run) for row in reversed(rows) if (run := store.loaded(row.run_id))]
    finally:
        store.close()
    names = {run.machine.key(): row.machine for row, run in loaded}
    if machine is None:
        chosen = loaded[-1]
    else:
        start = machine.strip()
        matching = [
            (row, run)
            for row, run in loaded
            if start and (run.machine.key().startswith(start) or row.machine_key.startswith(start))
        ]
        keys = {run.machine.key() for _, run in matching}
        if len(keys) != 1:
            known = ", ".join(f"{k} ({name})" for k, name in names.items())
            why = "no machine key starts with it" if not keys else "several keys start with it"
            raise UsageError(
                f"--machine '{shown(machine)}': {why}; allowed: one of the keys in "
                f"'{path}': {known}"
            )
        chosen = matching[-1]
    key = chosen[1].machine.key()
    same = _same_machine(chosen[1].machine.key_parts())

    def included(run: RunResult) -> bool:
        if run.machine.key() == key:
            return True
        return not exact and _same_machine(run.machine.key_parts()) == same

    runs = []
    for row, run in loaded:
        if included(run):
            point = Point(row.run_id, run.started, run.machine.kernel, math.nan, None, None)
            runs.append((point, [f for f in run.figures if f.timed]))
    every = list(dict.fromkeys(run.machine.key() for _, run in loaded if included(run)))
    return History(path, key, chosen[0].machine, every, runs)


def figure_keys(history: History, selection: Selection) -> list[FigureKey]:
    keys: dict[FigureKey, None] = {}
    for _, figures in history.runs:
        for fig in figures:
            if selection.matches(fig):
                keys.setdefault(fig.key, None)
    return list(keys)


def check_selection(history: History, selection: Selection) -> None:
    """UsageError naming the first option that matches no timed figure, and
    the values the history has for it."""
    figures = [f for _, figs in history.runs for f in figs]
    narrowed = Selection()
    for name in ("lab", "primitive", "variant", "size", "align", "mode"):
        value = getattr(selection, name)
        if value is None:
            continue
        candidates = [f for f in figures if narrowed.matches(f)]
        narrowed = Selection(**{**narrowed.__dict__, name: value})
        if not any(narrowed.matches(f) for f in candidates):
            have = sorted({str(getattr(f, name)) for f in candidates})
            listed = ", ".join(have[:20]) + (
                f" (and {len(have) - 20} more)" if len(have) > 20 else ""
            )
            raise UsageError(
                f"--{name} '{shown(str(value))}': no timed figure of machine {history.machine_key} "
                f"in '{history.path}' has it; allowed: {listed or 'none (no timed figures)'}"
            )


def order(points: list[tuple[Point, FigureResult]], by: str) -> list[tuple[Point, FigureResult]]:
    if by == "kernel":
        return sorted(
            points, key=lambda pf: (version_key(pf[0].kernel), pf[0].started, pf[0].run_id)
        )
    return sorted(points, key=lambda pf: (pf[0].started, pf[0].run_id))


def trend(history: History, key: FigureKey, by: str, settings: Settings) -> Trend:
    """The series of one figure, ordered, and what detect() finds in it."""
    found: list[tuple[Point, FigureResult]] = []
    for point, figures in history.runs:
        fig = next((f for f in figures if f.key == key), None)
        if fig is not None and fig.median is not None:
            found.append((point, fig))
    found = order(found, by)
    points = [
        Point(p.run_id, p.started, p.kernel, float(f.median or 0.0), f.ci_lo, f.ci_hi)
        for p, f in found
    ]
    better = found[0][1].better if found else "lower"
    result = Trend(key, better, history.machine_key, history.machine, by, points)
    detection = detect([p.median for p in points], settings)
    result.changes = detection.changes
    result.outliers = detection.outliers
    return result
