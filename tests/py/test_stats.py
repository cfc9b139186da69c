# SPDX-License-Identifier: GPL-2.0-only
"""Statistics of one figure: exact values on small arrays, CI coverage, noisy flag."""

import numpy as np
import pytest

from hotpath.stats import (
    bootstrap_median_ci,
    intervals_overlap,
    is_noisy,
    median_resample_quantiles,
    summarize,
)


def test_median_and_percentiles_exact_on_small_arrays():
    s = summarize([5.0, 1.0, 4.0, 2.0, 3.0])
    assert s.n == 5
    assert s.median == 3.0
    assert s.min == 1.0
    assert s.p10 == pytest.approx(1.4)  # linear: 1 + 0.4 * (2 - 1)
    assert s.p90 == pytest.approx(4.6)
    even = summarize([1.0, 2.0, 3.0, 4.0])
    assert even.median == 2.5
    eleven = summarize([float(v) for v in range(1, 12)])
    assert eleven.p10 == 2.0 and eleven.p90 == 10.0 and eleven.median == 6.0


def test_ci_brackets_the_median_and_is_reproducible():
    rng = np.random.default_rng(7)
    samples = rng.normal(100.0, 2.0, 400)
    lo, hi = bootstrap_median_ci(samples)
    assert lo <= np.median(samples) <= hi
    assert (lo, hi) == bootstrap_median_ci(samples)  # exact: no random draws


@pytest.mark.parametrize("n", [41, 400])
def test_exact_ci_matches_resampling(n):
    """The exact distribution gives what many resamples estimate (odd and even n)."""
    rng = np.random.default_rng(5)
    samples = 40.0 + rng.exponential(3.0, n)
    draws = rng.integers(0, n, size=(20000, n))
    resampled = np.percentile(np.median(samples[draws], axis=1), [2.5, 97.5])
    lo, hi = bootstrap_median_ci(samples)
    step = float(np.median(np.diff(np.sort(samples))))  # about one order statistic
    assert abs(lo - resampled[0]) <= 3 * step and abs(hi - resampled[1]) <= 3 * step
    q = median_resample_quantiles(np.sort(samples), np.array([0.0, 0.5, 1.0]))
    assert q[0] == pytest.approx(np.min(samples)) or q[0] <= lo
    assert lo <= q[1] <= hi


def test_ci_contains_true_median_most_of_the_time():
    rng = np.random.default_rng(11)
    true_median = 50.0  # exponential shifted: median = 40 + 10 ln 2
    true_median = 40.0 + 10.0 * np.log(2.0)
    covered = 0
    trials = 40
    for _ in range(trials):
        samples = 40.0 + rng.exponential(10.0, 200)
        lo, hi = bootstrap_median_ci(samples)
        covered += lo <= true_median <= hi
    assert covered >= 0.8 * trials


def test_single_sample_has_zero_width_ci():
    s = summarize([7.0])
    assert (s.ci_lo, s.median, s.ci_hi) == (7.0, 7.0, 7.0)
    assert not s.noisy


def test_noisy_flag_follows_the_threshold():
    tight = summarize(np.full(100, 10.0) + np.linspace(0, 0.01, 100))
    assert not tight.noisy
    rng = np.random.default_rng(3)
    wide = summarize(rng.uniform(5.0, 15.0, 20))
    assert wide.noisy
    assert is_noisy(10.0, 9.8, 10.3, 0.05) is False  # width 0.5 = 5%: not above
    assert is_noisy(10.0, 9.7, 10.3, 0.05) is True
    assert not summarize(rng.uniform(5.0, 15.0, 20), noisy_fraction=0.9).noisy


def test_empty_samples_rejected():
    with pytest.raises(ValueError):
        summarize([])


def test_intervals_overlap():
    assert intervals_overlap((1.0, 2.0), (2.0, 3.0))
    assert not intervals_overlap((1.0, 2.0), (2.1, 3.0))
