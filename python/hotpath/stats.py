# SPDX-License-Identifier: GPL-2.0-only
"""Robust summaries of one figure's samples.

A figure is the per-call cost of one variant at one (size, alignment, mode),
sampled many times. On a shared machine the distribution has a long right
tail, so hotpath reports the median with a bootstrap 95% confidence
interval instead of a mean, plus min, p10 and p90 for the shape. The
interval comes from the bootstrap's exact distribution (no resampling), so
the same samples always give the same interval; Student's t is scipy's.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from hotpath.inputs import DEFAULT_NOISY_FRACTION

BOOTSTRAP_RESAMPLES = 2000  # the ratio CI's draws (hotpath.significance)
BOOTSTRAP_SEED = 20240601

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


def median_resample_quantiles(ordered: FloatArray, q: FloatArray) -> FloatArray:
    """Quantiles `q` of the median of a bootstrap resample of `ordered` (sorted).

    Computed from its exact distribution instead of by resampling: in a
    resample of n draws the number that fall on the j smallest values is
    Binomial(n, j/n), so the resample's k-th smallest value is at most the
    j-th smallest sample with probability P(Binomial(n, j/n) >= k). That is
    what 2000 resamples estimated with noise, at O(n) per figure instead of
    O(2000 n): a sweep spent half its time there (docs/engine.md). For even
    n the median is the mean of the resample's (n/2)-th and (n/2 + 1)-th
    values; each is taken at the same quantile (they move together).
    """
    # P(Binomial > k); scipy.special is imported when used (0.25 s)
    from scipy.special import bdtrc  # type: ignore[import-untyped]

    n = ordered.size
    share = np.arange(1, n + 1, dtype=np.float64) / n
    middle = (n // 2, n // 2 + 1) if n % 2 == 0 else ((n + 1) // 2,)
    out = np.zeros(np.shape(q), dtype=np.float64)
    for rank in middle:
        cdf = bdtrc(rank - 1, n, share)  # P(rank-th value <= ordered[j])
        at = np.minimum(np.searchsorted(cdf, q, side="left"), n - 1)
        out += ordered[at]
    out /= len(middle)
    return out


def bootstrap_median_ci(samples: FloatArray, level: float = 0.95) -> tuple[float, float]:
    """Percentile-bootstrap confidence interval of the median, exact (above)."""
    if samples.size == 1:
        value = float(samples[0])
        return value, value
    tail = (1.0 - level) / 2.0
    lo, hi = median_resample_quantiles(np.sort(samples), np.array([tail, 1.0 - tail]))
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


def t975(df: float) -> float:
    """The 97.5% quantile of Student's t (scipy), for fractional df too (Welch's);
    infinite below one degree of freedom, where no interval is claimed."""
    from scipy.special import stdtrit

    if not df >= 1.0:
        return math.inf
    return float(stdtrit(df, 0.975))


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
