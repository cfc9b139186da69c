# SPDX-License-Identifier: GPL-2.0-only
"""compare verdicts on synthetic runs."""

from hotpath.compare import NO_EVIDENCE, compare_runs, render, verdict
from test_store import make_run


def test_identical_runs_show_no_evidence():
    cmp = compare_runs(make_run(), make_run())
    assert [row.verdict for row in cmp.rows] == [NO_EVIDENCE]
    assert cmp.same_machine
    assert "DIFFERENT MACHINES" not in render(cmp)


def test_ten_percent_shift_is_called():
    slower = compare_runs(make_run(), make_run(scale=1.10))
    assert slower.rows[0].verdict == "slower"
    assert slower.rows[0].p_value < 0.01
    faster = compare_runs(make_run(scale=1.10), make_run())
    assert faster.rows[0].verdict == "faster"


def test_small_shift_within_threshold_is_not_called():
    cmp = compare_runs(make_run(), make_run(scale=1.01), threshold=0.02)
    assert cmp.rows[0].verdict == NO_EVIDENCE
    assert "threshold 0.02" in render(cmp)


def test_machine_mismatch_named():
    a, b = make_run(model=17), make_run(model=97)
    b.machine.model_name = "AMD EPYC 9R14"
    cmp = compare_runs(a, b)
    assert not cmp.same_machine
    text = render(cmp)
    assert "DIFFERENT MACHINES" in text
    assert "AMD EPYC 9R14" in text and "model 17" in text and "model 97" in text


def test_verdict_rules():
    assert verdict(0.001, (0.80, 0.90), 0.02) == "faster"
    assert verdict(0.001, (1.05, 1.10), 0.02) == "slower"
    assert verdict(0.001, (0.97, 0.99), 0.02) == NO_EVIDENCE  # CI touches the band
    assert verdict(0.02, (0.80, 0.90), 0.02) == NO_EVIDENCE  # p not small enough


def test_figures_near_zero_are_not_called_different() -> None:
    from hotpath.compare import verdict

    # a tight, significant ratio far outside the threshold, but one cycle apart
    assert verdict(1e-9, (-0.2, -0.1), 0.02, abs_diff=1.0) == "no evidence of a difference"
    assert verdict(1e-9, (1.5, 1.6), 0.02, abs_diff=5.0) == "slower"
