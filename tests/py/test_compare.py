# SPDX-License-Identifier: GPL-2.0-only
"""compare verdicts on synthetic runs: single runs against the A/A floor,
replicas by the spread of their medians, paired variants of one run."""

import pytest

from hotpath.compare import (
    DEFAULT_FLOOR,
    AAFloor,
    compare_runs,
    detectable_change,
    replica_ratio,
)
from hotpath.render.compare_text import render
from hotpath.verdicts import BELOW, NO_EVIDENCE, WITHIN_UNIT, decide
from test_store import make_run

STEADY = [1.0, 1.005, 0.997]  # replica medians of one figure / its base, 0.8% apart


def test_identical_runs_show_no_evidence():
    cmp = compare_runs(make_run(), make_run())
    assert [row.verdict for row in cmp.rows] == [NO_EVIDENCE]
    assert cmp.same_machine
    assert "DIFFERENT MACHINES" not in render(cmp)


def test_single_runs_offer_no_p_value_and_need_the_floor():
    # 4% slower, tight within-run intervals: a within-process test would
    # call it; below the assumed 5% floor it is not a change.
    cmp = compare_runs(make_run(base=100), make_run(base=100, scale=1.04))
    row = cmp.rows[0]
    assert row.method == "single runs" and row.p_value is None
    assert row.floor == DEFAULT_FLOOR and "assumed" in (row.floor_source or "")
    assert row.verdict == NO_EVIDENCE
    assert "no p-value" in render(cmp)
    # Past the floor it is called.
    a, b = make_run(base=100), make_run(base=100, scale=1.10)
    assert compare_runs(a, b).rows[0].verdict == "slower"
    assert compare_runs(b, a).rows[0].verdict == "faster"


def test_floor_comes_from_the_machines_replicated_history():
    history = make_run(replicas=[1.0, 1.01, 1.025], base=100)  # 2.5% between processes
    aa = AAFloor.from_figures([history.figures])
    assert aa.runs == 1
    cmp = compare_runs(make_run(base=100), make_run(base=100, scale=1.04), aa=aa)
    assert cmp.rows[0].floor == pytest.approx(0.025)
    assert cmp.rows[0].verdict == "slower"  # 4% clears a 2.5% floor
    assert "this figure's A/A spread" in (cmp.rows[0].floor_source or "")


def test_replicas_decide_from_their_spread():
    a = make_run(replicas=STEADY, base=100)
    same = compare_runs(a, make_run(base=100, replicas=[1.002, 0.999, 1.004]))
    assert same.rows[0].method == "replicas" and same.rows[0].verdict == NO_EVIDENCE
    slower = compare_runs(a, make_run(base=100, scale=1.05, replicas=STEADY))
    assert slower.rows[0].verdict == "slower"
    assert slower.rows[0].p_value is not None and slower.rows[0].p_value < 0.05
    # The same 5% with replicas scattered by 6% is no evidence.
    wide = compare_runs(a, make_run(base=100, scale=1.05, replicas=[0.94, 1.0, 1.06]))
    assert wide.rows[0].verdict == NO_EVIDENCE


def test_two_variants_of_one_run_are_paired_by_replica():
    run = make_run(base=100, replicas=STEADY)
    slow = make_run(base=100, scale=1.05, replicas=STEADY).figures[0]
    slow.variant = "slow"
    run.figures.append(slow)
    run.run_id = 7
    cmp = compare_runs(run, run, variant_a="ref", variant_b="slow")
    assert len(cmp.rows) == 1
    assert cmp.rows[0].method == "paired replicas" and cmp.rows[0].verdict == "slower"
    assert "variant ref of run 7" in render(cmp)


def test_replica_ratio_interval():
    (lo, hi), p = replica_ratio([10.0, 10.1, 9.9], [11.0, 11.1, 10.9], paired=False)
    assert lo < 1.1 < hi and lo > 1.05 and p < 0.001
    (lo, hi), p = replica_ratio([10.0, 10.1, 9.9], [10.0, 10.1, 9.9], paired=True)
    assert lo == hi == pytest.approx(1.0) and p == 1.0


def test_machine_mismatch_named():
    a, b = make_run(model=17), make_run(model=97)
    b.machine.model_name = "AMD EPYC 9R14"
    cmp = compare_runs(a, b)
    assert not cmp.same_machine
    text = render(cmp)
    assert "DIFFERENT MACHINES" in text
    assert "AMD EPYC 9R14" in text and "model 17" in text and "model 97" in text


def kind(*args, **kw) -> str:
    return decide(*args, **kw).kind


def test_verdict_rules():
    # single runs: the whole interval beyond this machine's A/A floor
    assert kind(0.85, (0.80, 0.90), 0.02, floor=0.05) == "faster"
    assert kind(1.07, (1.06, 1.10), 0.02, floor=0.05) == "slower"
    within = decide(1.03, (1.02, 1.04), 0.02, floor=0.05)
    assert within.kind == NO_EVIDENCE and "within this machine's A/A floor (5%)" in within.text
    # replicas: the interval excludes 1; beyond the threshold it is a direction
    assert kind(0.96, (0.93, 0.99), 0.02) == "faster"
    assert kind(0.96, (0.90, 1.01), 0.02) == NO_EVIDENCE  # the interval includes 1
    # a difference the evidence shows, within the threshold, is said with its size
    small = decide(1.019, (1.0186, 1.0194), 0.02)
    assert small.kind == BELOW
    assert small.text == "1.9% slower [1.9, 1.9], below the 2% threshold"
    assert decide(0.99, (0.985, 0.995), 0.02).text == (
        "1.0% faster [0.5, 1.5], below the 2% threshold"
    )
    # with threshold 0 every difference shown has a direction
    assert kind(1.019, (1.0186, 1.0194), 0.0) == "slower"
    assert "0.5% threshold" in decide(1.003, (1.001, 1.005), 0.005).text


def test_figures_near_zero_are_said_within_one_unit() -> None:
    # a tight ratio far outside the band, but one cycle apart: the rule names itself
    near = decide(0.85, (0.8, 0.9), 0.02, abs_diff=1.0, unit="core cycles")
    assert near.kind == WITHIN_UNIT
    assert near.text.startswith("within one unit: medians 1 core cycles apart")
    assert kind(1.55, (1.5, 1.6), 0.02, abs_diff=5.0) == "slower"
    assert kind(1.0, (0.9, 1.1), 0.02, abs_diff=0.5) == NO_EVIDENCE  # no difference shown


def test_detectable_change_from_the_replicas_spread():
    # three replicas 1% apart (sd 0.01): t(4) 2.776 x 0.01 x sqrt(2/3), as a ratio
    assert detectable_change([1.0, 1.01, 0.99]) == pytest.approx(0.0229, abs=0.0005)
    assert detectable_change([1.0, 1.0, 1.0]) == 0.0
    assert detectable_change([1.0]) is None


def test_seed_claims_and_kernel_lines_take_the_threshold():
    from hotpath import summary
    from hotpath.seedtables import HOLDS, HOLDS_BELOW, NOT_DISTINGUISHABLE, decide_point

    assert decide_point((10.0, 11.0), (12.0, 13.0)) == HOLDS
    assert decide_point((10.0, 11.0), (12.0, 13.0), threshold=0.2) == HOLDS_BELOW  # 25/21
    assert decide_point((10.0, 12.5), (12.0, 13.0), threshold=0.2) == NOT_DISTINGUISHABLE
    from test_summary import cols, fig

    columns = cols(fig("new", 40, 9.9, half=0.01), fig("old", 40, 10.0, half=0.01),
                   fig("new", 64, 8.0), fig("old", 64, 10.0))  # fmt: skip
    assert summary.kernel_line("new", "old", columns).endswith(
        "faster in 2, slower in 0, within noise in 0"
    )
    assert summary.kernel_line("new", "old", columns, 0.02).endswith(
        "faster in 1, slower in 0, below the 2% threshold in 1, within noise in 0"
    )
