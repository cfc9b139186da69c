# SPDX-License-Identifier: GPL-2.0-only
"""Is run B different from run A? The ratio's interval and Student's t.

`hotpath compare` (hotpath.compare says when each is used): a bootstrap CI
of the ratio of medians from the samples of single runs, and the p-value of
Student's t from the medians of replicas. Written with numpy and math alone
to keep the runtime dependencies small.
"""

import math

import numpy as np

from hotpath.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, FloatArray


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
