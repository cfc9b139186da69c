# SPDX-License-Identifier: GPL-2.0-only
"""The neighbour filter, replicas and the gate's AVX warning, end to end.

The runner's test hook (--test-spells EVERY:LEN:FACTOR) plays a neighbour
on the other hardware thread: in LEN rounds of every EVERY its width
probes and its samples take FACTOR times as long. Only ratios are
asserted, never a speed.
"""

from pathlib import Path

import numpy as np
import pytest

from conftest import RFC1071_C
from hotpath.protocol import RawFigure, parse_run
from hotpath.results import FigureResult, RunResult, summarize_clean
from hotpath.runner import invoke, locate_runner
from test_store import make_run

DIRTY_C = (
    RFC1071_C
    + r"""
/* Right sums, but returns with ymm0's upper half set: no vzeroupper. */
uint32_t dirty(const void *buf, int len, uint32_t sum)
{
	uint32_t s = ok(buf, len, sum);

	__asm__ volatile("vpcmpeqd %%ymm0, %%ymm0, %%ymm0" ::: "xmm0");
	return s;
}
"""
)


def _run_chain(spells: str | None, rounds: int = 120) -> RunResult:
    args = ["run", "--primitive", "add_chain", "--variants", "adds", "--sizes", "100"]
    args += ["--modes", "latency"]
    args += ["--rounds", str(rounds)]
    if spells:
        args += ["--test-spells", spells]
    bench = parse_run(invoke(locate_runner(), args))
    run = make_run()
    run.figures, run.variants, run.clocks = [], [], {}
    run.add_replicas([bench])
    return run


@pytest.mark.runner
@pytest.mark.usefixtures("real_runner")
def test_spells_are_set_aside_and_made_up():
    run = _run_chain("4:2:2.0")
    (fig,) = run.figures
    assert run.settings["add_chain"]["test_spells"] == {"every": 4, "len": 2, "factor": 2.0}
    width = run.clocks["add_chain"]["width"]
    assert width["rounds_taken"] > 200 and width["contended_fraction"] > 0.3
    (line,) = run.width_lines()  # what heads every table
    assert line.startswith("core width (add_chain): ")
    if fig.status == "n/a":  # a real neighbour spoiled the clean rounds too: said so
        assert fig.reason is not None and "no clean sample" in fig.reason
        return
    assert fig.median is not None and abs(fig.median / 100 - 1) < 0.05  # clean ones only
    # The run went on until it had them, or says it fell short (a real
    # neighbour on the core as well as the spells).
    assert (fig.n >= 120 and not fig.short) or "1 figure(s) short" in line
    assert fig.kept_fraction is not None and fig.kept_fraction < 0.6  # half were spells
    assert fig.min_share is not None and fig.min_share < 0.6


@pytest.mark.runner
@pytest.mark.usefixtures("real_runner")
def test_a_run_that_never_gets_clean_samples_says_so():
    # Every round a spell, and a budget of 30 rounds: no clean sample.
    args = ["run", "--primitive", "add_chain", "--variants", "adds", "--sizes", "100"]
    args += ["--modes", "latency"]
    args += ["--rounds", "20", "--max-rounds", "30", "--test-spells", "1:1:2.0"]
    args += ["--width-ref", "1e-3"]  # a full width no probe reaches
    run = make_run()
    run.figures, run.variants = [], []
    run.add_replicas([parse_run(invoke(locate_runner(), args))])
    (fig,) = run.figures
    assert fig.status == "n/a" and fig.median is None
    assert fig.reason is not None and "no clean sample among 30" in fig.reason


@pytest.mark.runner
@pytest.mark.usefixtures("real_runner")
def test_dirty_upper_state_is_warned(cli, tmp_path: Path):
    if "avx2" not in invoke(locate_runner(), ["list"])["cpu"]["features"]:
        pytest.skip("this CPU has no AVX: no upper state to leave dirty")
    src = tmp_path / "dirty.c"
    src.write_text(DIRTY_C)
    args = ["csum", "--sizes", "40", "--align", "0", "--rounds", "5", "--modes", "latency",
            "--variants", "rfc1071-ref", "--with", f"{src}:dirty", "--no-store"]  # fmt: skip
    res = cli(*args, "--json")
    assert res.status == 0, res.err
    doc = res.json()
    mine = next(v for v in doc["variants"] if v["name"] == "dirty")
    ref = next(v for v in doc["variants"] if v["name"] == "rfc1071-ref")
    assert mine["status"] == "ok"
    assert any("leaves AVX upper state dirty" in w for w in mine["warnings"])
    assert ref["warnings"] == []
    text = cli(*args)
    assert "warning: csum_partial dirty: leaves AVX upper state dirty" in text.out


@pytest.mark.usefixtures("fake_runner")
def test_repeat_stores_replicas_and_compare_pairs_variants(cli, tmp_path: Path):
    db = str(tmp_path / "h.sqlite")
    res = cli("csum", "--sizes", "40", "--align", "0", "--rounds", "20", "--repeat", "3",
              "--db", db, "--json")  # fmt: skip
    assert res.status in (0, 1), res.err
    doc = res.json()
    assert doc["settings"]["csum_partial"]["replicas"] == 3
    timed = [f for f in doc["figures"] if f["status"] == "ok"]
    assert timed and all(len(f["replica_medians"]) == 3 for f in timed)
    assert all(f["n"] == 60 and f["kept_fraction"] == 1.0 for f in timed)
    # Two variants of one replicated run: paired replica by replica.
    res = cli("compare", "last:kernel-5.17", "last:rfc1071-ref", "--db", db, "--json")
    assert res.status == 0, res.err
    rows = res.json()["figures"]
    assert rows and {r["method"] for r in rows} == {"paired replicas"}
    assert all(r["verdict"] == "slower" for r in rows if r["mode"] == "latency")
    # A second replicated run: the A/A floor a single run is held to.
    cli("csum", "--sizes", "40", "--align", "0", "--rounds", "20", "--db", db)
    res = cli("compare", "1", "2", "--db", db, "--json")
    single = res.json()["figures"]
    assert {r["method"] for r in single} == {"single runs"}
    assert all(r["p_value"] is None for r in single)
    assert all("A/A spread" in r["floor_source"] for r in single)


@pytest.mark.usefixtures("fake_runner")
@pytest.mark.parametrize(
    "args, words",
    [
        (["csum", "--repeat", "0"], "--repeat '0': allowed: 1..100"),
        (["compare", "last:x", "last"], "name a variant on both sides"),
        (["compare", "last:", "last:y"], "allowed: RUN or RUN:VARIANT"),
    ],
)
def test_bad_repeat_and_compare_refs(cli, tmp_path: Path, args, words):
    db = tmp_path / "h.sqlite"
    if args[0] == "compare":
        assert cli("csum", "--sizes", "40", "--rounds", "5", "--db", str(db)).status in (0, 1)
    res = cli(*args, "--db", str(db))
    assert res.status == 2 and words in res.err
    if args[0] != "compare":
        assert not db.exists()


def test_summary_from_clean_samples_only():
    values = [10.0] * 50 + [30.0] * 50
    raw = RawFigure("v", 40, 0, "latency", "ok", None, 100, values, values,
                    share=[1.0] * 50 + [0.5] * 50, clean=[True] * 50 + [False] * 50)  # fmt: skip
    fig = FigureResult("csum", "csum_partial", "v", 40, 0, "latency", "cycles", "ok")
    summarize_clean(fig, [raw], wanted=80, noisy_fraction=0.05)
    assert fig.median == 10.0 and fig.n == 50 and fig.kept_fraction == 0.5
    assert fig.short and fig.noisy and "only 50 of 80" in (fig.reason or "")
    assert fig.min_share == 0.5
    assert np.all(fig.samples == 10.0)
