# SPDX-License-Identifier: GPL-2.0-only
"""Mann-Whitney U against hand-computed values, and the ratio CI."""

import math

import numpy as np
import pytest

from hotpath.significance import bootstrap_ratio_ci, mann_whitney_u


def test_separated_samples_by_hand():
    # ranks of a: 1,2,3 -> R1 = 6, U1 = 6 - 3*4/2 = 0; mean 4.5; var = 9/12 * 7 = 5.25
    result = mann_whitney_u(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]))
    assert result.u == 0.0
    z = -(4.5 - 0.5) / math.sqrt(5.25)
    assert result.z == pytest.approx(z)
    assert result.p_value == pytest.approx(math.erfc(abs(z) / math.sqrt(2)))
    assert result.p_value == pytest.approx(0.0809, abs=1e-4)


def test_ties_by_hand():
    # combined 1,2,2,2,3,3: ranks 1,3,3,3,5.5,5.5; a = 1,2,2 -> R1 = 7, U1 = 1
    # tie term (3^3-3) + (2^3-2) = 30; var = 9/12 * (7 - 30/30) = 4.5
    result = mann_whitney_u(np.array([1.0, 2.0, 2.0]), np.array([2.0, 3.0, 3.0]))
    assert result.u == 1.0
    assert result.z == pytest.approx(-3.0 / math.sqrt(4.5))
    assert result.p_value == pytest.approx(math.erfc(1.0))


def test_identical_constant_samples_give_p_one():
    assert mann_whitney_u(np.full(5, 2.0), np.full(5, 2.0)).p_value == 1.0


def test_symmetry():
    rng = np.random.default_rng(5)
    a, b = rng.normal(0, 1, 50), rng.normal(0.5, 1, 60)
    ab, ba = mann_whitney_u(a, b), mann_whitney_u(b, a)
    assert ab.p_value == pytest.approx(ba.p_value)
    assert ab.u + ba.u == pytest.approx(50 * 60)


def test_ratio_ci_brackets_a_known_shift():
    rng = np.random.default_rng(9)
    a = 100.0 + rng.exponential(1.0, 300)
    b = a * 1.10
    lo, hi = bootstrap_ratio_ci(a, b)
    assert lo < 1.10 < hi or math.isclose(lo, 1.10, rel_tol=1e-3)
    assert 1.05 < lo <= hi < 1.15
