# SPDX-License-Identifier: GPL-2.0-only
"""The seed's trade-off fit: a fixed cost per hash plus a cost per node."""

import pytest

from hotpath.labs.avc.seed_table import break_even
from hotpath.render.avc_seed_table import break_even_lines


def test_fit_recovers_a_known_trade_off():
    fixed = {"orig": 8.0, "murmur3": 40.0, "hp": 18.0}
    model, timed = {}, {}
    for n, (h, base) in enumerate(fixed.items()):
        for walk in (1.5, 2.0, 3.0 + n / 10):
            key = (int(walk * 100), 512, h)
            model[key] = {"timed_walk": walk}
            timed[key] = (base + 20.0 * walk, 0.0)
    long = (8192, 512, "orig")  # 15 nodes a lookup: outside the fit
    model[long], timed[long] = {"timed_walk": 15.0}, (900.0, 0.0)
    fit = break_even(model, timed)
    assert fit is not None
    assert fit.per_node == pytest.approx(20.0)
    assert fit.fixed == pytest.approx(fixed)
    assert fit.worst_residual == pytest.approx(0.0, abs=1e-9)
    lines = break_even_lines(fit)
    assert any(
        "murmur3's hash costing 32.0 cycles more than orig's pays for itself when it "
        "shortens the average walk by 1.60 nodes" in line
        for line in lines
    )


def test_too_few_configurations_say_so():
    assert break_even({}, {}) is None
    assert "not enough" in break_even_lines(None)[0]


def test_recommend_takes_the_fewest_bytes_near_the_fastest():
    from hotpath.labs.avc.recommend import Option, choose

    options = [
        Option(512, "orig", 60.0, 100_000, 0.9),
        Option(4096, "orig", 28.0, 200_000, 0.9),
        Option(8192, "muladd", 27.0, 250_000, 0.9),
        Option(16384, "hp", 26.9, 340_000, 0.9),
    ]
    # 28.0 is within 5% of 26.9 and costs the fewest bytes among those near it
    assert choose(options) == options[1]
    assert choose(options[:1]) == options[0]
