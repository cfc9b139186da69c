# SPDX-License-Identifier: GPL-2.0-only
"""Student's t against published tables, and the ratio CI."""

import math

import numpy as np
import pytest

from hotpath.significance import bootstrap_ratio_ci, t_two_sided_p
from hotpath.stats import t975


def test_student_t_p_values_against_tables():
    # two-sided 5% points of Student's t: df 2 -> 4.303, df 4 -> 2.776, df 30 -> 2.042
    assert t_two_sided_p(4.303, 2) == pytest.approx(0.05, abs=2e-4)
    assert t_two_sided_p(2.776, 4) == pytest.approx(0.05, abs=2e-4)
    assert t_two_sided_p(-2.042, 30) == pytest.approx(0.05, abs=2e-4)
    # df 1 is Cauchy: p = 1 - 2/pi * atan(|t|)
    assert t_two_sided_p(3.0, 1) == pytest.approx(1 - 2 / math.pi * math.atan(3.0))
    assert t_two_sided_p(0.0, 5) == 1.0
    assert math.isnan(t_two_sided_p(1.0, 0))


def test_t_quantiles_match_the_p_values():
    for df in (1, 2, 3, 5, 10, 30):
        assert t_two_sided_p(t975(df), df) == pytest.approx(0.05, abs=5e-4)
    # published two-sided 5% points, fractional df (Welch) between its neighbours
    assert t975(2) == pytest.approx(4.303, abs=1e-3) and t975(100) == pytest.approx(1.984, abs=1e-3)
    assert t975(2) > t975(2.5) > t975(3) and t975(0.5) == math.inf


def test_ratio_ci_brackets_a_known_shift():
    rng = np.random.default_rng(9)
    a = 100.0 + rng.exponential(1.0, 300)
    b = a * 1.10
    lo, hi = bootstrap_ratio_ci(a, b)
    assert lo < 1.10 < hi or math.isclose(lo, 1.10, rel_tol=1e-3)
    assert 1.05 < lo <= hi < 1.15
