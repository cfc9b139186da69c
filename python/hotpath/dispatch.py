# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath dispatch`: which method of hp_csum() and hp_crc32c() wins at
each length on this machine, as a dispatch row (c/include/hotpath/dispatch.h).

The engine times each method as the variant that runs it alone (hp-csum-avx2
is hp_csum()'s AVX2 path at every length, sse42-3way hp_crc32c()'s three
streams, ...) beside hotpath's own (hp-csum, hotpath), which runs the row in
use. Per length (and, for the checksum, per address parity) the method
with the lowest geometric mean over the modes of its time over the best
wins; one that stays within STICKY of the winner keeps its place, so the
row does not flap on noise. The methods, the variant that runs each, the
step limits, the row format and what a row file may be are the runner's
(`hotpath-bench facts`' dispatch_facts, `hotpath-bench row TEXT` and
`row --file PATH`: protocol.DispatchFacts, ParsedRow), never copied here.
The winners, run-length compressed, are the row; beside each length the
row in use's figure and the gain the new row would bring. `--write FILE`
saves the row for HOTPATH_DISPATCH.

That gain is a prediction: each method is timed called directly, while
hp_csum() and hp_crc32c() reach it through the row (the first step inlined,
the others through the plan). So the measured row is then run: hp-csum and
hotpath timed with it and with the row in use (HOTPATH_DISPATCH), in
alternating pairs of runs, and the gain each length shows there is printed
beside the predicted one. Where it ran slower in every pair, the row in
use's method takes the length back (the repaired row), and that row is run
the same way. On an Emerald Rapids the prediction favoured seed-last
streams at 32 bytes by a cycle, while through hp_crc32c() they were 2 to 3
cycles slower than the inlined stream of the row in use.
"""

import math
from dataclasses import dataclass, replace

from hotpath.protocol import DispatchedPrimitive, DispatchFacts, Steps
from hotpath.results import FigureResult, RunResult

STICKY = 0.02  # the method of the length before keeps winning within 2%
SPLIT = 0.03  # a mode whose own best method beats the chosen one by more is named
RUN_WORSE = 0.03  # the measured row ran this much slower in every pair of runs: flagged

# the lengths `hotpath dispatch` measures, per primitive (and the address
# parities): its plan, not a fact of the row
CSUM_SIZES = (64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 8192,
              16384, 65536)  # fmt: skip
# A step starts at the first measured length its method wins, so a gap
# in this grid moves a crossover up to the next length: without 1536 the
# Emerald Rapids with AVX-512 hidden started the 256-bit fused fold at 2048,
# and hp_crc32c() took 103 cycles at 1536 where the fused fold alone took
# 88; without 32768 the Zen 4 started the 512-bit fused fold at 65536, and
# hp_crc32c() took 2061 cycles at 32768 where the fused fold took 1981.
CRC32C_SIZES = (16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072,
                4096, 8192, 16384, 32768, 65536, 1048576)  # fmt: skip
PLAN = {"csum_partial": (CSUM_SIZES, (0, 1)), "crc32c": (CRC32C_SIZES, (0,))}


@dataclass(frozen=True)
class Split:
    """A mode in which another method beats the one chosen at a length by
    more than SPLIT: no one method is within 3% in every mode there, a
    property of the core (latency wants one method, throughput another).
    Both methods' medians in every mode they were timed in, so the output
    states the trade with its figures."""

    mode: str  # where `rival` wins
    rival: str
    chosen_by_mode: tuple[tuple[str, float], ...]  # (mode, median), the chosen method
    rival_by_mode: tuple[tuple[str, float], ...]

    @property
    def ratio(self) -> float:
        """How many times faster the rival is in `mode`."""
        return dict(self.chosen_by_mode)[self.mode] / dict(self.rival_by_mode)[self.mode]


@dataclass
class Point:
    """One length (and parity): the chosen method and what it gains."""

    size: int
    align: int
    method: str
    chosen: float  # geometric mean over modes of the chosen method's median
    in_use: float | None  # the same for the row in use (hp-csum, hotpath)
    # per mode where another method is more than SPLIT faster than the chosen
    # one; one method cannot be within 3% in every mode at this length
    split: tuple[Split, ...] = ()
    # the row in use over the measured row, both run through the dispatch:
    # one ratio per pair of runs
    run_ratios: tuple[float, ...] = ()
    # False: a step of the row in use, kept where nothing was measured
    measured: bool = True

    @property
    def gain(self) -> float | None:
        return self.in_use / self.chosen if self.in_use else None

    @property
    def run_gain(self) -> float | None:
        """The geometric mean of the pairs' ratios."""
        if not self.run_ratios:
            return None
        return math.exp(sum(map(math.log, self.run_ratios)) / len(self.run_ratios))

    @property
    def run_worse(self) -> bool:
        """Slower with the measured row in every pair of runs."""
        return bool(self.run_ratios) and max(self.run_ratios) < 1 / (1 + RUN_WORSE)


def _score(figs: dict[str, list[FigureResult]]) -> dict[str, float]:
    """Per variant, the geometric mean over modes of its median over the best."""
    modes: dict[str, dict[str, float]] = {}
    for variant, figures in figs.items():
        for f in figures:
            if f.timed and f.median:
                modes.setdefault(f.mode, {})[variant] = f.median
    scores: dict[str, list[float]] = {}
    for per in modes.values():
        best = min(per.values())
        for variant, median in per.items():
            scores.setdefault(variant, []).append(math.log(median / best))
    return {v: math.exp(sum(x) / len(x)) for v, x in scores.items() if len(x) == len(modes)}


def run_gains(
    facts: DispatchFacts, measured: RunResult, in_use: RunResult
) -> dict[tuple[str, int, int], float]:
    """Per (primitive, size, align): hotpath's own variant with the row in use
    over the same with the measured row (geometric mean over the modes)."""
    own = {p.own for p in facts.primitives}

    def by_key(run: RunResult) -> dict[tuple[str, int, int], list[FigureResult]]:
        out: dict[tuple[str, int, int], list[FigureResult]] = {}
        for f in run.figures:
            if f.variant in own:
                out.setdefault((f.primitive, f.size, f.align), []).append(f)
        return out

    new, old = by_key(measured), by_key(in_use)
    gains = {}
    for key, figures in new.items():
        a, b = _geomean(old.get(key, [])), _geomean(figures)
        if a and b:
            gains[key] = a / b
    return gains


def _geomean(figures: list[FigureResult]) -> float | None:
    values = [f.median for f in figures if f.timed and f.median]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def _by_size(
    run: RunResult, prim: DispatchedPrimitive, align: int
) -> dict[int, dict[str, list[FigureResult]]]:
    """One alignment's figures of a primitive, per length and variant."""
    by_size: dict[int, dict[str, list[FigureResult]]] = {}
    for f in run.figures:
        if f.primitive == prim.primitive and f.align == align:
            by_size.setdefault(f.size, {}).setdefault(f.variant, []).append(f)
    return by_size


def _spoiled(figs: dict[str, list[FigureResult]], methods: dict[str, str]) -> bool:
    """A method's figure that was sampled but kept no clean sample (a
    neighbour, a changing clock): not a method the CPU lacks (not timed),
    nor a mode the method has no figure in (n/a with no sample taken)."""
    return any(f.status == "n/a" and f.samples_taken
               for v in methods.values() for f in figs.get(v, []))  # fmt: skip


def _candidates(prim: DispatchedPrimitive, size: int, short: int) -> dict[str, str]:
    """The methods that may win at a length: below `short` the first only."""
    first = next(iter(prim.methods))
    return {first: prim.methods[first]} if size < short else prim.methods


def undecided(run: RunResult, prim: DispatchedPrimitive, align: int, short: int = 0) -> list[int]:
    """The lengths choose() leaves to the step before: a method's figure
    there was spoiled, so the winner among the others may not be the
    winner (on the Emerald Rapids, with 98% of the width probes seeing a
    neighbour, a row took sse42-4way at 1 MiB, 0.51x of the row in use)."""
    by_size = _by_size(run, prim, align)
    return [size for size in sorted(by_size)
            if _spoiled(by_size[size], _candidates(prim, size, short))]  # fmt: skip


def choose(run: RunResult, prim: DispatchedPrimitive, align: int, short: int = 0) -> list[Point]:
    """The winning method at each measured length of one alignment where
    every method was timed (undecided() names the others); below `short`
    (the checksum's HP_CSUM_SHORT) only the first method."""
    methods, in_use = prim.methods, prim.own
    by_size = _by_size(run, prim, align)
    points: list[Point] = []
    for size in sorted(by_size):
        figs = by_size[size]
        candidates = _candidates(prim, size, short)
        if _spoiled(figs, candidates):
            continue
        names = {variant: method for method, variant in candidates.items()}
        scores = {names[v]: s for v, s in _score(figs).items() if v in names}
        if not scores:
            continue
        method = min(scores, key=lambda m: scores[m])
        previous = points[-1].method if points else None
        if previous in scores and scores[previous] <= scores[method] * (1 + STICKY):
            method = previous
        chosen = _geomean(figs[methods[method]])
        assert chosen is not None
        split = _split(figs, methods, method, set(scores))
        points.append(Point(size, align, method, chosen, _geomean(figs.get(in_use, [])), split))
    return points


def _split(
    figs: dict[str, list[FigureResult]], methods: dict[str, str], chosen: str,
    candidates: set[str],
) -> tuple[Split, ...]:  # fmt: skip
    """The modes in which another candidate beats the chosen method by more than SPLIT."""
    per_mode: dict[str, dict[str, float]] = {}
    for method in candidates:
        for f in figs.get(methods[method], []):
            if f.timed and f.median:
                per_mode.setdefault(f.mode, {})[method] = f.median

    def medians(method: str) -> tuple[tuple[str, float], ...]:
        return tuple((mode, m[method]) for mode, m in sorted(per_mode.items()) if method in m)

    out = []
    for mode, by_method in sorted(per_mode.items()):
        best = min(by_method, key=lambda m: by_method[m])
        if chosen in by_method and by_method[chosen] > by_method[best] * (1 + SPLIT):
            out.append(Split(mode, best, medians(chosen), medians(best)))
    return tuple(out)


def from_steps(row: list[tuple[str, int]], align: int) -> list[Point]:
    """A row's steps as points (not measured): steps() gives them back."""
    return [Point(start, align, method, 0.0, None, measured=False) for method, start in row]


def steps(points: list[Point], steps_max: int, first: str | None = None) -> list[tuple[str, int]]:
    """Run-length steps from 0; the checksum's first step is always scalar.

    More than steps_max (HP_STEPS_MAX) changes: the shortest run merges into
    the step before."""
    out: list[tuple[str, int]] = [(first, 0)] if first else []
    for p in points:
        if not out:
            out.append((p.method, 0))
        elif p.method != out[-1][0]:
            out.append((p.method, p.size))
    while len(out) > steps_max:
        spans = [(out[i + 1][1] if i + 1 < len(out) else math.inf) - out[i][1]
                 for i in range(1, len(out))]  # fmt: skip
        del out[1 + spans.index(min(spans))]
        merged = [out[0]]
        for step in out[1:]:
            if step[0] != merged[-1][0]:
                merged.append(step)
        out = merged
    return out


def changed(facts: DispatchFacts, a: Steps, b: Steps) -> set[str]:
    """The primitives (csum_partial, crc32c) whose steps differ between two
    rows (as the runner parsed them: names and comments aside)."""
    keys = {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
    return {p for p in map(facts.primitive_of_key, keys) if p}


def method_at(row: list[tuple[str, int]], size: int) -> str:
    """The method a row's steps give a length."""
    return [m for m, start in row if start <= size][-1]


def repaired(points: list[Point], in_use: list[tuple[str, int]]) -> list[Point]:
    """The points with the row in use's method wherever the measured row ran
    slower in every pair of runs (a cost the methods timed alone miss: the
    first CRC step inlined, a scan for the steps after the second)."""
    return [
        replace(p, method=method_at(in_use, p.size) if p.run_worse else p.method, run_ratios=())
        for p in points
    ]


def row_text(name: str, steps: Steps) -> str:
    """A row's text to hand to the runner's parser (`hotpath-bench row`),
    which says whether the library takes it and writes it back: KEY = METHOD
    FROM, ... per key, in the order given."""

    def line(key: str, row: list[tuple[str, int]]) -> str:
        return f"{key} = " + ", ".join(f"{m} {n}" for m, n in row)

    return "\n".join([f"name = {name}", *(line(k, row) for k, row in steps.items()), ""])


TAX_BAR = 0.5  # core cycles: hp_csum()/hp_crc32c() may cost this much over the method alone


@dataclass(frozen=True)
class TaxMode:
    """One mode of one length: hotpath's own variant through the row against
    the method the row runs there, called alone (medians and their 95%
    intervals' half-widths, in the figures' unit)."""

    mode: str
    own: float
    own_ci: float
    alone: float
    alone_ci: float

    @property
    def tax(self) -> float:
        return self.own - self.alone

    @property
    def over(self) -> bool:
        """Past the bar, and past what the two figures' intervals allow
        (at 1 MiB they are wider than the bar: a tax there must show
        through them)."""
        return self.tax > max(TAX_BAR, self.own_ci + self.alone_ci)


@dataclass(frozen=True)
class Tax:
    """The dispatch's cost at one length (and parity): per mode, hp_csum()
    or hp_crc32c() with the row in use against that row's method alone."""

    primitive: str
    size: int
    align: int
    method: str
    unit: str
    modes: tuple[TaxMode, ...]

    @property
    def over(self) -> bool:
        """Past the bar in some mode."""
        return any(m.over for m in self.modes)


def _half(f: FigureResult) -> float:
    if f.ci_lo is None or f.ci_hi is None:
        return 0.0
    return (f.ci_hi - f.ci_lo) / 2


def taxes(run: RunResult, facts: DispatchFacts, runs: Steps) -> list[Tax]:
    """Per measured length of each dispatched primitive (and parity): the
    own variant's figure in each mode against the figure of the method the
    row in use runs there (`runs`: its steps after the CPU's fallbacks, from
    the runner's listing). Lengths where either was not timed are left out."""
    figures: dict[tuple[str, int, int, str, str], FigureResult] = {}
    for f in run.figures:
        if f.timed and f.median:
            figures[(f.primitive, f.size, f.align, f.variant, f.mode)] = f
    out = []
    for prim in facts.primitives:
        sizes = sorted({(f.size, f.align) for f in run.figures if f.primitive == prim.primitive})
        for size, align in sizes:
            key = prim.keys[align % len(prim.keys)]
            if key not in runs:
                continue
            method = method_at(runs[key], size)
            variant = prim.methods.get(method)
            modes = []
            for mode in sorted({f.mode for f in run.figures if f.primitive == prim.primitive}):
                own = figures.get((prim.primitive, size, align, prim.own, mode))
                alone = figures.get((prim.primitive, size, align, variant or "", mode))
                if own is None or alone is None or own.median is None or alone.median is None:
                    continue
                modes.append(TaxMode(mode, own.median, _half(own), alone.median, _half(alone)))
            if modes:
                unit = next(f.unit for f in run.figures if f.primitive == prim.primitive)
                out.append(Tax(prim.primitive, size, align, method, unit, tuple(modes)))
    return out
