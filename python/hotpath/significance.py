# SPDX-License-Identifier: GPL-2.0-only
"""Is run B different from run A? The ratio's interval and Student's t.

`hotpath compare` (hotpath.compare says when each is used): a bootstrap CI
of the ratio of medians from the samples of single runs, and the p-value of
Student's t from the medians of replicas (scipy.special's, which replaced
an incomplete beta function written here; scipy came with apache-otava).
"""

import math

import numpy as np

from hotpath.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    FloatArray,
    median_resample_quantiles,
)


def bootstrap_ratio_ci(
    a: FloatArray,
    b: FloatArray,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile-bootstrap CI of median(b) / median(a), resampling each run.

    Each run's resample median is drawn from its exact distribution
    (hotpath.stats.median_resample_quantiles at uniform quantiles), which
    is what resampling the run's samples draws, at O(log n) a draw."""
    rng = np.random.default_rng(seed)
    med_a, med_b = (
        median_resample_quantiles(np.sort(np.asarray(run, dtype=np.float64)), rng.random(resamples))
        for run in (a, b)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = med_b / med_a
    ratios = ratios[np.isfinite(ratios)]
    if ratios.size == 0:
        return math.nan, math.nan
    tail = (1.0 - level) / 2.0 * 100.0
    lo, hi = np.percentile(ratios, [tail, 100.0 - tail])
    return float(lo), float(hi)


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p-value of Student's t with df degrees of freedom (scipy)."""
    # Student's t CDF; scipy.special is imported when used
    from scipy.special import stdtr  # type: ignore[import-untyped]

    if math.isnan(t) or df <= 0:
        return math.nan
    return min(1.0, 2.0 * float(stdtr(df, -abs(t))))
