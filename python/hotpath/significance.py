# SPDX-License-Identifier: GPL-2.0-only
"""Is run B different from run A? Rank test and ratio interval.

`hotpath compare` needs two pieces of evidence before it calls a figure
faster or slower: a Mann-Whitney U test (no assumption of normality; the
timing distributions have long tails) and a bootstrap CI of the ratio of
medians, so that the size of the change is known, not only its sign.
Written with numpy alone to keep the runtime dependencies small.
"""

import math
from dataclasses import dataclass

import numpy as np

from hotpath.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, FloatArray


@dataclass(frozen=True)
class MannWhitney:
    u: float  # U statistic of the first sample
    z: float  # normal approximation, continuity-corrected
    p_value: float  # two-sided


def _rank_with_ties(values: FloatArray) -> tuple[FloatArray, float]:
    """Average ranks (1-based) and the tie term sum(t^3 - t) over tie groups."""
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    ranks = np.empty(values.size, dtype=np.float64)
    _, starts, counts = np.unique(sorted_values, return_index=True, return_counts=True)
    tie_term = 0.0
    for start, count in zip(starts, counts, strict=True):
        average = start + (count + 1) / 2.0
        ranks[order[start : start + count]] = average
        tie_term += float(count) ** 3 - float(count)
    return ranks, tie_term


def mann_whitney_u(a: FloatArray, b: FloatArray) -> MannWhitney:
    """Two-sided Mann-Whitney U test, normal approximation with tie correction."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n1, n2 = a.size, b.size
    if n1 == 0 or n2 == 0:
        raise ValueError("Mann-Whitney U needs two non-empty samples")
    ranks, tie_term = _rank_with_ties(np.concatenate([a, b]))
    u1 = float(ranks[:n1].sum()) - n1 * (n1 + 1) / 2.0
    mean_u = n1 * n2 / 2.0
    n = n1 + n2
    variance = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1))) if n > 1 else 0.0
    if variance <= 0.0:
        return MannWhitney(u=u1, z=0.0, p_value=1.0)
    difference = u1 - mean_u
    corrected = max(abs(difference) - 0.5, 0.0)
    z = math.copysign(corrected, difference) / math.sqrt(variance)
    p_value = math.erfc(abs(z) / math.sqrt(2.0))
    return MannWhitney(u=u1, z=z, p_value=min(1.0, p_value))


def bootstrap_ratio_ci(
    a: FloatArray,
    b: FloatArray,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile-bootstrap CI of median(b) / median(a), resampling each run."""
    rng = np.random.default_rng(seed)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    ratios = np.empty(resamples, dtype=np.float64)
    chunk = max(1, min(resamples, 4_000_000 // max(a.size, b.size)))
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        med_a = np.median(a[rng.integers(0, a.size, size=(stop - start, a.size))], axis=1)
        med_b = np.median(b[rng.integers(0, b.size, size=(stop - start, b.size))], axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios[start:stop] = med_b / med_a
    ratios = ratios[np.isfinite(ratios)]
    if ratios.size == 0:
        return math.nan, math.nan
    tail = (1.0 - level) / 2.0 * 100.0
    lo, hi = np.percentile(ratios, [tail, 100.0 - tail])
    return float(lo), float(hi)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                    -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):  # fmt: skip
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-12:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p-value of Student's t with df degrees of freedom."""
    if math.isnan(t) or df <= 0:
        return math.nan
    return min(1.0, incomplete_beta(df / 2.0, 0.5, df / (df + t * t)))
