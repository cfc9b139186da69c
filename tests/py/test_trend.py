# SPDX-License-Identifier: GPL-2.0-only
"""hotpath trend: change points on synthetic series (the acceptance counts),
and the command on histories built here (bad input, --json, --html, --all).

The noise: this machine's A/A evidence, the replica medians of identical
runner processes its history keeps (Store.replicated_figures, Emerald
Rapids under KVM, 2026-11-26: 380 replicated figures), have a relative
standard deviation of 0.26% at the median and 0.97% at the 95th percentile;
eleven separate runs of `hotpath csum --repeat 3` (docs/trend.md) spread
0.24% to 0.70% across their eight figures.
The series here take 1%, the 95th percentile, rounded up. A statistics
test with a fixed seed, not a timing test: it never measures anything.
"""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from hotpath.machine import Fingerprint
from hotpath.results import FigureResult, RunResult
from hotpath.store import Store
from hotpath.trend import Settings, detect

NOISE = 0.01  # relative sd of one run's median between identical runs (see above)
SERIES = 100
RUNS = 20
STEP_AT = 10


def synthetic(rng: np.random.Generator, step: float, noise: float = NOISE) -> np.ndarray:
    values = 100.0 * (1.0 + rng.normal(0.0, noise, RUNS))
    values[STEP_AT:] *= 1.0 + step
    return values


def steps_found(noise: float = NOISE) -> tuple[int, int]:
    """Of SERIES series with a 5% step at run STEP_AT + 1: how many have it,
    alone, at that run, and how many within one run of it."""
    rng = np.random.default_rng(20261126)
    found = [
        [c.index for c in detect(synthetic(rng, 0.05, noise), Settings()).changes]
        for _ in range(SERIES)
    ]
    exact = sum(f == [STEP_AT] for f in found)
    return exact, sum(len(f) == 1 and abs(f[0] - STEP_AT) <= 1 for f in found)


def flat_quiet(noise: float = NOISE) -> int:
    """Of SERIES flat series: how many have no change point."""
    rng = np.random.default_rng(20261127)
    return sum(not detect(synthetic(rng, 0.0, noise), Settings()).changes for _ in range(SERIES))


def test_five_percent_step_found_at_its_run():
    found, _ = steps_found()
    assert found >= 95, f"a 5% step at run {STEP_AT + 1} found there in {found} of {SERIES}"


def test_flat_series_have_no_change_point():
    quiet = flat_quiet()
    assert quiet >= 95, f"flat series without a change point: {quiet} of {SERIES}"


def test_one_spike_is_an_outlier_not_a_change():
    values = [100.0, 100.4, 99.8, 100.1, 99.9, 108.0, 100.2, 99.7, 100.3, 100.0, 99.9, 100.1]
    found = detect(values, Settings())
    assert found.changes == []
    assert [o.index for o in found.outliers] == [5]
    assert found.outliers[0].deviation == pytest.approx(0.08, abs=0.005)
    # With a segment of one run allowed, the spike is its own segment instead.
    assert [c.index for c in detect(values, Settings(min_segment=1)).changes] in ([], [5, 6])


def test_min_magnitude_drops_a_small_step():
    values = [100.0 + 0.01 * (i % 2) for i in range(10)] + [
        101.0 + 0.01 * (i % 2) for i in range(10)
    ]
    assert detect(values, Settings()).changes == []  # 1%, below the default 2%
    assert [c.index for c in detect(values, Settings(min_magnitude=0.005)).changes] == [10]


# ------------------------------------------------------------ the command

MACHINE = Fingerprint(vendor="GenuineIntel", family=6, model=207, stepping=2,
                      model_name="Intel Xeon", hypervisor="kvm", logical_cpus=2)  # fmt: skip
OTHER = Fingerprint(vendor="AuthenticAMD", family=25, model=1, stepping=1,
                    model_name="AMD EPYC", hypervisor="kvm", logical_cpus=2)  # fmt: skip


def figure(variant: str, median: float, size: int = 256) -> FigureResult:
    return FigureResult("csum", "csum_partial", variant, size, 0, "latency", "cycles", "ok",
                        n=400, median=median, ci_lo=median * 0.999,
                        ci_hi=median * 1.001)  # fmt: skip


def save_history(path: Path, mine: list[float], machine: Fingerprint = MACHINE,
                 kernels: list[str] | None = None) -> list[int]:  # fmt: skip
    """One run per value of `mine` (my_csum's median), an hour apart; the
    reference variant flat beside it. Returns the run ids."""
    rng = np.random.default_rng(7)
    start = datetime(2026, 11, 1, tzinfo=UTC)
    store = Store.open(path)
    ids = []
    try:
        for i, value in enumerate(mine):
            fp = Fingerprint(
                **{**machine.__dict__, "kernel": (kernels or ["6.1.0"] * len(mine))[i]}
            )
            run = RunResult(command="csum", started=(start + timedelta(hours=i)).isoformat(),
                            machine=fp, labs=["csum"], command_line="hotpath csum")  # fmt: skip
            ref = 154.0 * (1.0 + rng.normal(0.0, 0.003))
            run.figures = [figure("my_csum", value), figure("rfc1071-ref", ref),
                           figure("my_csum", value / 4.0, size=64)]  # fmt: skip
            ids.append(store.save(run))
    finally:
        store.close()
    return ids


def noisy(n: int, seed: int = 3, base: float = 262.0) -> list[float]:
    rng = np.random.default_rng(seed)
    return [float(v) for v in base * (1.0 + rng.normal(0.0, NOISE / 3, n))]


ONE = ("--lab", "csum", "--variant", "my_csum", "--size", "256")


def test_one_slower_run_is_marked(cli, tmp_path):
    """Twelve runs, the seventh of a build 8% slower: trend marks that run
    (an outlier: one run alone is no change point) and nothing else."""
    db = tmp_path / "h.sqlite"
    values = noisy(12)
    values[6] *= 1.08
    ids = save_history(db, values)
    result = cli("trend", "--db", str(db), *ONE, "--json")
    assert result.status == 0, result.err
    doc = result.json()
    fig = doc["figures"][0]
    assert fig["change_points"] == []
    assert [o["run_id"] for o in fig["outliers"]] == [ids[6]]
    assert fig["outliers"][0]["direction"] == "slower"
    assert [p["outlier"] for p in fig["points"]].count(True) == 1
    table = cli("trend", "--db", str(db), *ONE)
    assert table.status == 0
    assert "core cycles" in table.out and f"run {ids[6]} (" in table.out
    assert table.out.count("outlier: +7.") == 1  # 8% over the mean, 7.4% over the median
    assert "change points: none" in table.out
    listed = cli("trend", "--db", str(db), "--all")
    assert "no figure has a change point" in listed.out
    assert f"256 B, align 0, latency: run {ids[6]} +7." in listed.out
    assert "rfc1071-ref" not in listed.out
    doc = cli("trend", "--db", str(db), "--all", "--json").json()
    assert doc["figures"] == [] and len(doc["outlying"]) == 2  # 64 and 256 bytes


def test_slower_build_from_a_run_on_is_a_change_point(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    values = noisy(12)
    values[6:] = [v * 1.08 for v in values[6:]]
    ids = save_history(db, values)
    doc = cli("trend", "--db", str(db), *ONE, "--json").json()
    assert doc["schema"] == "hotpath.trend/1"
    assert doc["method"]["library"].startswith("apache-otava ")
    assert {"max_pvalue", "min_magnitude", "min_segment", "window_len"} <= set(doc["method"])
    (change,) = doc["figures"][0]["change_points"]
    assert change["run_id"] == ids[6] and change["index"] == 6
    assert change["magnitude"] == pytest.approx(0.08, abs=0.01)
    low, high = change["interval"]
    assert low < change["magnitude"] < high and low > 0.05
    assert change["pvalue"] < 0.001 and change["direction"] == "slower"
    assert doc["figures"][0]["unit_name"] == "core cycles"
    # The same series ordered by kernel release: 6.9 < 6.10, the change where 6.10 begins.
    kernels = ["6.9.1"] * 6 + ["6.10.2"] * 6
    db2 = tmp_path / "k.sqlite"
    ids2 = save_history(db2, values, kernels=kernels[::-1])  # newest runs on the older kernel
    doc = cli("trend", "--db", str(db2), *ONE, "--by", "kernel", "--json").json()
    points = doc["figures"][0]["points"]
    assert [p["kernel"] for p in points] == sorted(kernels, key=lambda k: k != "6.9.1")
    (change,) = doc["figures"][0]["change_points"]
    assert change["run_id"] == ids2[0] and change["magnitude"] < 0
    assert len(doc["machine_keys"]) == 2  # one machine, two kernel releases
    # --exact-key: the newest run's key only (6.9.1, the last six runs)
    doc = cli("trend", "--db", str(db2), *ONE, "--exact-key", "--json").json()
    assert [p["run_id"] for p in doc["figures"][0]["points"]] == ids2[6:]
    assert doc["machine_keys"] == [doc["machine_key"]] and "k6.9.1" in doc["machine_key"]


def test_all_lists_figures_with_a_change_largest_first(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    values = noisy(12)
    values[6:] = [v * 1.08 for v in values[6:]]
    save_history(db, values)
    result = cli("trend", "--db", str(db), "--all")
    assert result.status == 0, result.err
    assert "2 figure(s) with a change point" in result.out
    assert "rfc1071-ref" not in result.out  # flat
    doc = cli("trend", "--db", str(db), "--all", "--json").json()
    assert [f["variant"] for f in doc["figures"]] == ["my_csum", "my_csum"]
    sizes = [f["size"] for f in doc["figures"]]
    magnitudes = [abs(f["change_points"][0]["magnitude"]) for f in doc["figures"]]
    assert magnitudes == sorted(magnitudes, reverse=True) and sorted(sizes) == [64, 256]
    quiet = tmp_path / "q.sqlite"
    save_history(quiet, noisy(12))
    result = cli("trend", "--db", str(quiet), "--all")
    assert result.status == 0 and "no figure has a change point" in result.out


def test_html_page(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    values = noisy(12)
    values[6:] = [v * 1.08 for v in values[6:]]
    values[2] *= 0.9
    save_history(db, values)
    out = tmp_path / "page"
    result = cli("trend", "--db", str(db), *ONE, "--html", str(out))
    assert result.status == 0, result.err
    page = (out / "trend.html").read_text()
    assert page.count("<svg") == 1 and "first run after a change point" in page
    assert 'class="out">outlier -9.' in page and "core cycles" in page
    assert [p.name for p in out.iterdir()] == ["trend.html"]  # nothing staged left


def test_machine_key(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    values = noisy(8)
    save_history(db, values)
    save_history(db, noisy(3), machine=OTHER)  # newest: the AMD
    amd, intel = (
        Fingerprint(**{**fp.__dict__, "kernel": "6.1.0"}).key() for fp in (OTHER, MACHINE)
    )
    newest = cli("trend", "--db", str(db), *ONE, "--json").json()
    assert newest["machine_key"] == amd and len(newest["figures"][0]["points"]) == 3
    doc = cli("trend", "--db", str(db), *ONE, "--machine", intel[:6], "--json").json()
    assert doc["machine_key"] == intel and len(doc["figures"][0]["points"]) == 8


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--min-segment", "0"), "--min-segment '0': allowed: runs, 1..1000"),
        (("--min-magnitude", "1.5"), "--min-magnitude '1.5': allowed: a fraction in [0, 1)"),
        (("--min-magnitude", "nan"), "--min-magnitude: 'nan': allowed"),
        (("--max-pvalue", "0"), "--max-pvalue '0.0': allowed: a probability in (0, 1)"),
        (("--size", "-4"), "--size '-4': allowed"),
        (("--lab", "nope"), "--lab 'nope': no timed figure"),
        (("--lab", "csum", "--variant", "mine"), "allowed: my_csum, rfc1071-ref"),
        (("--lab", "csum", "--size", "999"), "--size '999'"),
        (("--lab", "csum"), "3 figures match; allowed: options that pick one"),
        (("--machine", "zz"), "--machine 'zz': no machine key starts with it"),
        (("--by", "date"), "invalid choice: 'date'"),
    ],
)
def test_bad_input(cli, tmp_path, args, message):
    db = tmp_path / "h.sqlite"
    save_history(db, noisy(4))
    before = db.read_bytes()
    result = cli("trend", "--db", str(db), *args)
    assert result.status == 2
    assert message in result.err
    assert db.read_bytes() == before


def test_missing_or_foreign_db(cli, tmp_path):
    result = cli("trend", "--db", str(tmp_path / "none.sqlite"), *ONE)
    assert result.status == 2 and "does not exist" in result.err
    assert not (tmp_path / "none.sqlite").exists()
    foreign = tmp_path / "f.sqlite"
    foreign.write_text("not a database")
    result = cli("trend", "--db", str(foreign), *ONE)
    assert result.status == 2 and "not a SQLite file" in result.err


def test_json_is_one_document(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    save_history(db, noisy(6))
    out = tmp_path / "p"
    result = cli("trend", "--db", str(db), *ONE, "--json", "--html", str(out))
    assert result.status == 0
    json.loads(result.out)  # the page's path goes to stderr
    assert str(out / "trend.html") in result.err
