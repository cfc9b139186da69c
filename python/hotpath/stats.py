# SPDX-License-Identifier: GPL-2.0-only
"""Robust summaries of one figure's samples.

A figure is the per-call cost of one variant at one (size, alignment, mode),
sampled many times. On a shared machine the distribution has a long right
tail, so hotpath reports the median with a bootstrap 95% confidence
interval instead of a mean, plus min, p10 and p90 for the shape. The RNG
seed is fixed so that the same samples always give the same interval.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20240601
DEFAULT_NOISY_FRACTION = 0.05  # CI wider than 5% of the median: "noisy"

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Summary:
    """Statistics of one figure; all in the figure's unit."""

    n: int
    median: float
    min: float
    p10: float
    p90: float
    ci_lo: float
    ci_hi: float
    noisy: bool


def percentile(samples: FloatArray, q: float) -> float:
    """The q-th percentile with linear interpolation between order statistics."""
    return float(np.percentile(samples, q, method="linear"))


def bootstrap_median_ci(
    samples: FloatArray,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile-bootstrap confidence interval of the median."""
    n = samples.size
    if n == 1:
        value = float(samples[0])
        return value, value
    rng = np.random.default_rng(seed)
    medians = np.empty(resamples, dtype=np.float64)
    # Chunked so a 100k-sample figure does not allocate gigabytes.
    chunk = max(1, min(resamples, 4_000_000 // n))
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        medians[start:stop] = np.median(samples[idx], axis=1)
    tail = (1.0 - level) / 2.0 * 100.0
    lo, hi = np.percentile(medians, [tail, 100.0 - tail])
    return float(lo), float(hi)


def is_noisy(median: float, ci_lo: float, ci_hi: float, fraction: float) -> bool:
    """A figure is noisy when its CI is wider than `fraction` of its median."""
    if median <= 0.0:
        return ci_hi - ci_lo > 0.0
    return (ci_hi - ci_lo) > fraction * median


def summarize(
    values: Sequence[float] | FloatArray, noisy_fraction: float = DEFAULT_NOISY_FRACTION
) -> Summary:
    """Median, min, p10, p90, bootstrap 95% CI of the median and the noisy flag."""
    samples = np.asarray(values, dtype=np.float64)
    if samples.size == 0:
        raise ValueError("no samples to summarize")
    median = float(np.median(samples))
    ci_lo, ci_hi = bootstrap_median_ci(samples)
    return Summary(
        n=int(samples.size),
        median=median,
        min=float(samples.min()),
        p10=percentile(samples, 10.0),
        p90=percentile(samples, 90.0),
        ci_lo=ci_lo,
        ci_hi=ci_hi,
        noisy=is_noisy(median, ci_lo, ci_hi, noisy_fraction),
    )


def intervals_overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """True when two closed intervals share a point: no order can be claimed."""
    return a[0] <= b[1] and b[0] <= a[1]


# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom.
T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t975(df: float) -> float:
    """The 97.5% quantile of Student's t (df rounded down; 1.96 past 30)."""
    k = int(df)
    if k < 1:
        return math.inf
    return T975[k - 1] if k <= len(T975) else 1.96


def widen_by_replicas(
    ci: tuple[float, float], median: float, replica_medians: list[float]
) -> tuple[float, float]:
    """The CI, widened to hold the between-process spread when there are replicas.

    Samples inside one process share its code and data placement; with
    three or more processes the t-interval of their medians, centred on
    the pooled median, says how far another process could land.
    """
    k = len(replica_medians)
    if k < 3:
        return ci
    half = t975(k - 1) * float(np.std(replica_medians, ddof=1)) / math.sqrt(k)
    return min(ci[0], median - half), max(ci[1], median + half)
