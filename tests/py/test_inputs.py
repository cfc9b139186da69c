# SPDX-License-Identifier: GPL-2.0-only
"""Size lists and sweeps as the labs take them."""

import pytest

from hotpath.errors import UsageError
from hotpath.inputs import MAX_SWEEP_POINTS, parse_sizes


def test_plain_list_keeps_the_users_order():
    assert parse_sizes("1500,40,1500") == (1500, 40)


def test_sweep_has_two_points_per_octave_and_both_ends():
    sweep = parse_sizes("1..65536")
    assert sweep[0] == 1 and sweep[-1] == 65536
    assert {40, 1500} - set(sweep) == {40, 1500}
    for k in range(16):
        assert 2**k in sweep
    assert 3 * 1024 in sweep and 3 * 1024 + 1 not in sweep
    assert list(sweep) == sorted(set(sweep))
    assert parse_sizes("5..100")[:2] == (5, 6)
    assert parse_sizes("5..100")[-1] == 100


def test_sweep_and_single_sizes_merge_in_order():
    assert parse_sizes("40,1..64,1500") == (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 48, 64, 1500)


def test_too_many_points_is_refused_with_the_limit():
    text = ",".join(str(n) for n in range(MAX_SWEEP_POINTS + 1))
    with pytest.raises(UsageError, match=str(MAX_SWEEP_POINTS)):
        parse_sizes(text)
