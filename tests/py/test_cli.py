# SPDX-License-Identifier: GPL-2.0-only
"""The whole CLI against the scripted runner: output shapes, store, exit status."""

import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest

from conftest import SCHEMA

pytestmark = pytest.mark.usefixtures("fake_runner")


def validate(doc):
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))


def test_csum_table_and_wrong_exit(cli, tmp_path: Path):
    db = tmp_path / "h.sqlite"
    res = cli("csum", "--rounds", "30", "--db", str(db))
    assert res.status == 0  # odd-broken is the lab's own known-wrong variant: a result
    named = cli("csum", "--rounds", "5", "--variants", "odd-broken", "--no-store")
    assert named.status == 1  # a WRONG variant the user asked for
    assert "40 B even" in res.out and "40 B odd" in res.out
    assert "WRONG: mismatch at len 3" in res.out
    assert "skipped: needs avx512bw" in res.out
    assert "stored as run 1" in res.out
    assert db.exists()


def test_csum_json_validates(cli):
    res = cli("csum", "--rounds", "20", "--sizes", "40,1500", "--json", "--no-store")
    doc = res.json()
    validate(doc)
    assert doc["run_id"] is None
    modes = {f["mode"] for f in doc["figures"]}
    assert modes == {"latency", "throughput", "fenced"}
    ok = [f for f in doc["figures"] if f["status"] == "ok"]
    assert ok and all(f["unit"] == "cycles" and f["n"] == 20 for f in ok)


def test_unit_ticks(cli):
    res = cli("csum", "--rounds", "10", "--unit", "ticks", "--modes", "latency", "--no-store")
    assert "TSC ticks per call" in res.out


def test_markdown(cli):
    res = cli("csum", "--rounds", "10", "--modes", "throughput", "--markdown", "--no-store")
    assert "throughput mode" in res.out and "=====" in res.out


def test_calibrate(cli):
    res = cli("calibrate", "--rounds", "30", "--no-store")
    assert res.status == 0
    for text in ("TSC frequency: 2.6000 GHz", "ticks per core cycle", "perf cycles counter: "
                 "not available", "estimated core frequency", "calibration: PASS"):  # fmt: skip
        assert text in res.out
    # three processes: how small a change compare can call here, per chain
    assert "smallest change compare can call with --repeat 3" in res.out
    assert "50 adds " in res.out
    doc = cli("calibrate", "--rounds", "30", "--no-store", "--json").json()
    validate(doc)
    assert doc["calibration"]["passed"] is True
    assert set(doc["calibration"]["detectable_change"]) == {"50", "100", "200"}


def test_calibrate_cross_checks_the_clock_with_imuls(cli, monkeypatch):
    res = cli("calibrate", "--rounds", "30", "--no-store")
    assert re.search(r"cross-check: 200 dependent imuls 60\d\.\d\d core cycles, 3\.0\d cycles "
                     r"each \(expected 3; .*\): PASS", res.out), res.out  # fmt: skip
    # adds that ran two a cycle: every add check still passes against that clock,
    # the imuls (never folded) read 1.5 cycles each
    monkeypatch.setenv("FAKE_RUNNER_IMUL_CYCLES", "1.5")
    res = cli("calibrate", "--rounds", "30", "--no-store")
    assert re.search(
        r"1\.5\d cycles each \(expected 3; fewer: the clock's adds ran faster", res.out
    )
    assert "): FAIL" in res.out and "calibration: FAIL" in res.out and res.status == 1
    doc = cli("calibrate", "--rounds", "30", "--no-store", "--json").json()
    validate(doc)
    assert doc["calibration"]["imul"]["passed"] is False


def test_calibrate_fails_a_clock_faster_than_any_core(cli, monkeypatch):
    # the chain's adds ran faster than one a cycle (add-immediate on Intel's
    # Golden Cove): every check that divides by that clock would still pass
    monkeypatch.setenv("FAKE_RUNNER_CORE_HZ", "14.83e9")
    res = cli("calibrate", "--rounds", "30", "--no-store")
    assert "estimated core frequency: 14.830 GHz (FAIL: above 7 GHz" in res.out
    assert "calibration: FAIL" in res.out
    assert "warning: the clock reads a core at 14.8 GHz" in res.out


def test_history_and_compare(cli, tmp_path: Path, monkeypatch):
    db = str(tmp_path / "h.sqlite")
    assert "no runs recorded" in cli("history", "--db", db).out
    cli("csum", "--rounds", "50", "--modes", "latency", "--db", db)
    monkeypatch.setenv("FAKE_RUNNER_SCALE", "1.10")
    cli("csum", "--rounds", "50", "--modes", "latency", "--db", db)
    hist = cli("history", "--db", db)
    assert hist.status == 0 and "hotpath csum" in hist.out and "AMD EPYC" in hist.out
    res = cli("compare", "last~1", "last", "--db", db)
    assert res.status == 0
    assert "slower" in res.out and "threshold of 2.0% (--threshold)" in res.out
    same = cli("compare", "1", "1", "--db", db, "--json").json()
    assert {f["verdict"] for f in same["figures"]} == {"no evidence of a difference"}


def test_run_writes_report(cli, tmp_path: Path):
    out = tmp_path / "report"
    res = cli("run", "--quick", "--out", str(out), "--db", str(tmp_path / "h.sqlite"))
    assert res.out.strip().splitlines()[-1] == str(out)
    for name in ("report.md", "report.html", "results.json"):
        assert (out / name).is_file()
    validate(json.loads((out / "results.json").read_text()))
    html = (out / "report.html").read_text()
    assert "<svg" in html and "<?xml" not in html and "<img" not in html
    assert list((out / "plots").glob("*.png")) and list((out / "plots").glob("*.svg"))
    if shutil.which("llvm-mca") and shutil.which("dot"):  # the 40-byte paths' chains
        assert "<details><summary>seed-dead-code, 40 B even: bound 9 cycles" in html
        assert (out / "chains" / "seed-dead-code-40-even.dot").is_file()
        assert "chains/seed-dead-code-40-even.dot" in (out / "report.md").read_text()
    assert "progress" not in res.err and "csum_partial (2/8): 100%" in res.err
    assert "skb_crc32c_nonlinear (7/8): 100%" in res.err
    # The history keeps all the page is made from: `report` rebuilds it exactly.
    again = tmp_path / "again"
    res = cli("report", "last", "--out", str(again), "--db", str(tmp_path / "h.sqlite"))
    assert res.status == 0, res.err
    for name in ("report.md", "report.html"):
        assert (again / name).read_text() == (out / name).read_text(), name
    assert sorted(p.name for p in (again / "chains").glob("*")) == sorted(
        p.name for p in (out / "chains").glob("*")
    )


def test_run_suite_parts(cli, tmp_path: Path):
    """Each primitive gets its suite part: crc32c to 1 MiB in two modes, combine at two sizes."""
    out = tmp_path / "report"
    cli("run", "--quick", "--out", str(out), "--no-store")
    doc = json.loads((out / "results.json").read_text())
    assert "crc32c" in doc["labs"]

    def plan(primitive):
        figs = [f for f in doc["figures"] if f["primitive"] == primitive]
        return {f["size"] for f in figs}, {f["mode"] for f in figs}

    assert plan("crc32c") == ({64, 256, 1420, 4096, 16384, 65536, 1048576},
                              {"latency", "throughput"})  # fmt: skip
    assert plan("crc32c_combine") == ({1420, 16384}, {"latency", "throughput", "fenced"})
    for skb in ("skb_crc32c_linear", "skb_crc32c_nonlinear"):
        assert plan(skb)[0] == {64, 256, 1420, 16384}
    assert plan("csum_partial")[0] == {40, 64, 256, 1500, 4096, 65536}
    assert plan("csum_fold")[0] == {4}  # beside the lab's default: at its own sizes
    assert (out / "plots" / "crc32c-crc32c-throughput.svg").is_file()


def test_every_primitive_of_a_lab_is_reachable(cli):
    """Lab membership is the runner's listing: csum_fold is the csum lab's."""
    res = cli("csum", "--primitive", "csum_fold", "--rounds", "5", "--no-store", "--json")
    assert res.status == 0, res.err
    figs = res.json()["figures"]
    assert {f["primitive"] for f in figs} == {"csum_fold"}
    assert {f["size"] for f in figs} == {4}  # its own default size, not the lab's 40
    res = cli("csum", "--rounds", "5", "--no-store", "--json")
    assert {f["primitive"] for f in res.json()["figures"]} == {"csum_partial"}
    res = cli("csum", "--primitive", "crc32c", "--no-store")
    assert res.status == 2
    assert "allowed: csum_partial, csum_fold" in res.err


def test_list(cli):
    res = cli("list", "csum")
    assert res.status == 0
    assert "kernel-5.17" in res.out and "skipped: needs avx512bw" in res.out
    assert "add-chain" not in res.out


def test_list_crc32c(cli):
    res = cli("list", "crc32c")
    assert res.status == 0
    for name in ("crc32c / crc32c", "crc32c / crc32c_combine", "crc32c / skb_crc32c_linear",
                 "crc32c / skb_crc32c_nonlinear", "generic-gf2mul", "chained"):  # fmt: skip
        assert name in res.out
    assert "csum_partial" not in res.out and "add-chain" not in res.out


def test_crc32c_lab_defaults(cli):
    doc = cli("crc32c", "--rounds", "5", "--modes", "latency", "--json", "--no-store").json()
    validate(doc)
    assert doc["labs"] == ["crc32c"]
    sizes = {(f["primitive"], f["size"]) for f in doc["figures"]}
    assert {s for p, s in sizes if p == "crc32c"} == {64, 256, 1420, 16384}
    assert {f["align"] for f in doc["figures"]} == {0}
    assert "crc32c" in cli("--help").out


def test_plot_dir(cli, tmp_path: Path):
    cli("csum", "--rounds", "10", "--sizes", "40,256", "--no-store", "--plot", str(tmp_path / "p"))
    assert (tmp_path / "p" / "csum-csum_partial-latency.svg").is_file()


@pytest.mark.parametrize("slots", ["0", "3", "2097152", "x"])
def test_avc_slots_refused(cli, tmp_path: Path, slots):
    db = tmp_path / "h.sqlite"
    res = cli("avc", "--slots", slots, "--db", str(db))
    assert res.status == 2
    assert f"--slots '{slots}': allowed: a power of two, 1..1048576" in res.err
    assert not db.exists()


def test_avc_lab_runs(cli):
    res = cli("avc", "--rounds", "5", "--no-store", "--json")
    assert res.status == 0, res.err
    figs = res.json()["figures"]
    assert {f["primitive"] for f in figs} == {"avc_lookup"}
    assert {f["size"] for f in figs} == {512, 2048, 8192}
