# SPDX-License-Identifier: GPL-2.0-only
"""hotpath tune evaluate on a fake tree, and the rank test it uses.

The workload here is a shell command that sleeps as long as a fake knob
says (vm.fake_delay x 40 ms): so "a setting known to hurt" is known by
construction, and A/A is A/A. The real workloads and a
real setting are measured by hand (docs/labs/tune.md); tests never change
the host's settings.
"""

import itertools
import math
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import history_rows, stored_run
from hotpath.labs.tune import comparison, evaluate, workloads
from hotpath.labs.tune import profile as profile_mod
from hotpath.labs.tune.plan import make_plan
from hotpath.labs.tune.ranktest import mann_whitney_u
from hotpath.render import tune_evaluate
from tune_tree import REPO, evaluate_args, make_root, profile, setting, tree


def sleeper(root) -> str:
    """A workload that sleeps vm.fake_delay x 40 ms (far above a loaded machine's jitter)."""
    knob = root / "proc/sys/vm/fake_delay"
    return f"slow=sleep $(( $(cat {knob}) * 40 ))e-3"


def test_rank_test_exact_and_approximate():
    # Complete separation of 3 and 3: 2 of the 20 orderings are as extreme.
    assert mann_whitney_u([1, 2, 3], [4, 5, 6]) == (0.0, pytest.approx(0.1))
    assert mann_whitney_u([4, 5, 6], [1, 2, 3])[1] == pytest.approx(0.1)
    assert mann_whitney_u([1, 2, 3], [1, 2, 3])[1] == 1.0  # ties: approximation
    assert mann_whitney_u([5, 5], [5, 5]) == (2.0, 1.0)
    # 10 vs 10 separated: 2 / C(20, 10).
    assert mann_whitney_u(range(10), range(10, 20))[1] == pytest.approx(2 / math.comb(20, 10))
    # Against the permutation distribution itself: every split of 12 values.
    a = [1.1, 2.3, 3.0, 4.7, 8.4, 9.9]
    b = [5.2, 6.6, 7.1, 10.5, 11.0, 12.2]
    assert mann_whitney_u(a, b)[1] == pytest.approx(permutation_p(a, b, exhaustive=True))
    # Ties: the normal approximation, against a sampled permutation test.
    a = [1, 2, 2, 3, 3, 3, 4, 5, 5, 6, 7, 7, 8, 9, 9]
    b = [3, 4, 5, 5, 6, 6, 7, 8, 8, 9, 9, 10, 11, 11, 12]
    assert mann_whitney_u(a, b)[1] == pytest.approx(permutation_p(a, b), abs=0.02)


def permutation_p(a, b, exhaustive=False):
    """Two-sided p of the rank-sum by relabelling (all splits, or 20000 random ones)."""
    values = list(a) + list(b)
    ranks = [sum(v > w for w in values) + (sum(v == w for w in values) + 1) / 2 for v in values]
    mean = len(a) * (len(values) + 1) / 2
    observed = abs(sum(ranks[: len(a)]) - mean)
    if exhaustive:
        splits = list(itertools.combinations(range(len(values)), len(a)))
    else:
        rng = random.Random(1)
        splits = [rng.sample(range(len(values)), len(a)) for _ in range(20000)]
    hits = sum(abs(sum(ranks[i] for i in s) - mean) >= observed - 1e-9 for s in splits)
    return hits / len(splits)


def test_hurting_setting_found_and_named_settings_restored(cli, tmp_path):
    root = make_root(tmp_path)
    before = tree(root)
    prof = profile(
        tmp_path,
        setting('"vm.fake_delay"', "4") + setting('"vm.swappiness"', "10"),
    )
    # The threshold keeps a neighbour's few percent (the test suite beside a
    # busy vCPU once called swappiness, which does nothing here, "worse")
    # from a verdict; the delay's effect is many times larger.
    res = cli(*evaluate_args(prof, root, 8, sleeper(root), "--per-setting", "--json",
                             "--threshold", "0.15"))  # fmt: skip
    assert res.status == 0, res.err
    data = res.json()
    by = {(c["base"], c["other"]): c for c in data["comparisons"]}
    assert by[("A", "B")]["verdict"] == "worse"
    assert by[("A", "B")]["ratio"] > 2
    assert by[("A", "A+vm.fake_delay")]["verdict"] == "worse"
    assert by[("A", "A+vm.swappiness")]["verdict"] in ("no evidence", "below the threshold")
    assert data["alpha"] == pytest.approx(0.05 / 3)
    assert tree(root) == before  # A restored at the end
    assert not (root / "var/lib/hotpath/tune/snapshot.json").exists()


def test_report_names_the_settings_that_carry_the_effect():
    w = workloads.custom("slow=true")
    verdicts = [
        comparison.Verdict(w, "A", "B", 2.0, (1.5, 2.5), 0.001, "worse", None),
        comparison.Verdict(w, "A", "A+x", 2.0, (1.5, 2.5), 0.001, "worse", "x"),
        comparison.Verdict(w, "A", "A+y", 1.0, (0.9, 1.1), 0.5, "no evidence", "y"),
    ]
    samples = {(c, "slow"): [1.0, 2.0, 3.0] for c in ("A", "B", "A+x", "A+y")}
    ev = comparison.Evaluation("p", 3, None, 0.0167, 0.02, "AMD EPYC, 2 CPUs", samples, verdicts)
    text = tune_evaluate.render(ev)
    assert "slow: worse; settings with an effect of their own: x (worse)" in text
    assert "slow: wall clock of the whole run, in s, lower is better" in text
    assert "machine: AMD EPYC, 2 CPUs" in text
    assert "2 s [1.2..2.8]" in text  # median [p10..p90] with the unit


def test_leave_one_out_configurations(tmp_path):
    root = make_root(tmp_path)
    prof = profile_mod.load(
        str(profile(tmp_path, setting('"vm.fake_delay"', "4") + setting('"vm.swappiness"', "10")))
    )
    items = make_plan(prof, root).items
    cfgs, pairs = evaluate.configs(items, "leave-one-out")
    values = {c.label: c.values for c in cfgs}
    assert values == {
        "A": {"vm.fake_delay": "1", "vm.swappiness": "60"},
        "B": {"vm.fake_delay": "4", "vm.swappiness": "10"},
        "B-vm.fake_delay": {"vm.fake_delay": "1", "vm.swappiness": "10"},
        "B-vm.swappiness": {"vm.fake_delay": "4", "vm.swappiness": "60"},
    }
    # Each pair reads as "adding the setting": base without it, other with it.
    assert pairs == [("A", "B"), ("B-vm.fake_delay", "B"), ("B-vm.swappiness", "B")]
    cfgs, pairs = evaluate.configs(items, "alone")
    assert [c.label for c in cfgs] == ["A", "B", "A+vm.fake_delay", "A+vm.swappiness"]
    assert pairs == [("A", "B"), ("A", "A+vm.fake_delay"), ("A", "A+vm.swappiness")]


def test_a_a_gives_no_evidence(cli, tmp_path):
    root = make_root(tmp_path)
    prof = profile(tmp_path, setting('"vm.swappiness"', "60"))  # what the tree has: A = B
    # A neighbour that comes and goes can part A and B by a few percent
    # in five rounds (1.033 [1.003, 1.089] once beside a busy vCPU): the
    # threshold keeps that from a verdict, as a user's would.
    res = cli(*evaluate_args(prof, root, 5, sleeper(root), "--threshold", "0.15"))
    assert res.status == 0, res.err
    assert "an A/A run" in res.err
    verdict = res.out.split("verdict", 1)[1].replace("(lower is better)", "")
    assert "worse" not in verdict and "better" not in verdict
    assert "no evidence" in verdict or "below the 15% threshold" in verdict


def test_failing_workload_restores_settings(cli, tmp_path):
    root = make_root(tmp_path)
    before = tree(root)
    prof = profile(tmp_path, setting('"vm.fake_delay"', "2"))
    knob = root / "proc/sys/vm/fake_delay"
    res = cli(*evaluate_args(prof, root, 3, f"flaky=test $(cat {knob}) -eq 1"))
    assert res.status == 1
    assert "workload flaky failed (exit 1)" in res.err
    assert "restored vm.fake_delay" in res.err
    assert tree(root) == before


def evaluating(
    prof: Path, root: Path, rounds: int, command: str, ready: Callable[[], bool]
) -> "subprocess.Popen[str]":
    """`hotpath tune evaluate` of `command` in the background, returned once
    `ready()` holds (or 30 s have passed)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotpath", *evaluate_args(prof, root, rounds, command)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not ready() and time.monotonic() < deadline:
        time.sleep(0.01)
    return proc


def test_ctrl_c_restores_settings(tmp_path):
    root = make_root(tmp_path)
    before = tree(root)
    prof = profile(tmp_path, setting('"vm.fake_delay"', "50"))
    knob = root / "proc/sys/vm/fake_delay"
    proc = evaluating(prof, root, 50, sleeper(root), lambda: knob.read_text() == "50\n")
    assert knob.read_text() == "50\n", "B was never applied"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert tree(root) == before
    assert not (root / "var/lib/hotpath/tune/snapshot.json").exists()


def _alive(pid: int) -> bool:
    """A running process, not a zombie waiting for its parent."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_evaluate_ends_the_whole_workload(tmp_path, signum):
    # The workload's shell starts a child and waits for it: a signal to
    # hotpath alone (kill PID, not Ctrl-C at a terminal) must end both.
    root = make_root(tmp_path)
    prof = profile(tmp_path, setting('"vm.fake_delay"', "2"))
    pidfile = tmp_path / "child.pid"
    command = f"sl=sleep 60 & echo $! > {pidfile}.new && mv {pidfile}.new {pidfile}; wait"
    proc = evaluating(prof, root, 3, command, pidfile.exists)
    child = int(pidfile.read_text())
    try:
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 128 + signum, err
        deadline = time.monotonic() + 10  # the child's new parent reaps it
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not _alive(child), f"workload child {child} still running"
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


def test_an_interrupted_workload_may_clean_up_first(tmp_path):
    # SIGTERM before SIGKILL: a workload that starts its own process group
    # (the hotpath-csum workload's runner) must get to end it.
    root = make_root(tmp_path)
    prof = profile(tmp_path, setting('"vm.fake_delay"', "2"))
    started, cleaned = tmp_path / "started", tmp_path / "cleaned"
    command = (f"sl=trap 'echo yes > {cleaned}; exit 1' TERM; "
               f"sleep 60 & touch {started}; wait")  # fmt: skip
    proc = evaluating(prof, root, 3, command, started.exists)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert cleaned.exists(), "the workload was killed without a SIGTERM first"


def test_missing_workloads_named_and_skipped(monkeypatch, capsys):
    monkeypatch.setenv("PATH", "/nonexistent")
    chosen, skipped = workloads.select("hackbench,memcpy,hotpath-csum", [], quick=True)
    assert [w.name for w in chosen] == ["hotpath-csum"]
    assert skipped == [
        "hackbench: hackbench not installed (Debian package rt-tests)",
        "memcpy: perf not installed (Debian package linux-perf)",
    ]


def test_real_system_needs_confirmation(cli, tmp_path, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("the confirmation comes after the root check")
    prof = profile(tmp_path, setting('"vm.swappiness"', "1"))
    swappiness = Path("/proc/sys/vm/swappiness")
    before = swappiness.read_text()
    with open(os.devnull) as devnull:
        monkeypatch.setattr(evaluate.sys, "stdin", devnull)  # not a terminal
        res = cli("tune", "evaluate", str(prof), "--command", "x=true")
    assert res.status == 2
    assert "allowed: --yes to confirm" in res.err
    assert "vm.swappiness" in res.err
    assert swappiness.read_text() == before


def test_workload_outputs_parsed():
    by = {w.name: w for w in workloads.builtin(quick=True)}
    assert by["hackbench"].parse("Running in process mode...\nTime: 0.542\n") == 0.542
    assert by["sched-messaging"].parse("     Total time: 0.984 [sec]\n") == 0.984
    # perf bench picks the unit by magnitude: a slow run prints MB/sec.
    assert by["memcpy"].parse("       7.800215 GB/sec\n") == 7.800215
    assert by["memcpy"].parse("     812.5 MB/sec\n") == pytest.approx(0.8125)
    doc = '{"figures": [{"status": "ok", "median": 76.5}]}\nhotpath: building the runner\n'
    assert by["hotpath-csum"].parse(doc) == 76.5


def test_a_difference_within_the_threshold_is_said_with_its_size():
    # Ten rounds each, B 1% above A every time: the rank test and the
    # interval show it; within --threshold 0.02 it is said, not "no evidence".
    w = workloads.custom("slow=true")
    a = [100.0 + 0.01 * i for i in range(10)]
    b = [101.0 + 0.01 * i for i in range(10)]
    small = evaluate.judge(w, "A", "B", a, b, 0.05, 0.02, None)
    assert small.verdict.startswith("1.0% higher [") and small.verdict.endswith(
        "below the 2% threshold"
    )
    assert evaluate.judge(w, "A", "B", a, b, 0.05, 0.0, None).verdict == "worse"
    assert evaluate.judge(w, "A", "B", a, a, 0.05, 0.02, None).verdict == "no evidence"


# The history: evaluate keeps each run, and `hotpath compare` judges two of them.

KINDS = ("faster", "slower", "better", "worse", "higher", "lower", "same value",
         "below the threshold", "within one unit", "no evidence of a difference")  # fmt: skip


def stored_args(tmp_path: Path, root: Path, *extra: str) -> list[str]:
    """Two workloads (one the knob slows, one it does not), three rounds: the
    figures are what is checked, never which verdict a busy machine gives."""
    prof = profile(tmp_path, setting('"vm.fake_delay"', "2"))
    return evaluate_args(prof, root, 3, sleeper(root), "--command", "quick=true", *extra)


def test_two_evaluations_stored_and_compared(cli, tmp_path):
    from hotpath.labs.tune import stored

    root = make_root(tmp_path)
    db = tmp_path / "h.sqlite"
    first = cli(*stored_args(tmp_path, root, "--db", str(db)))
    assert first.status == 0, first.err
    table, tail = first.out.split("stored as run ", 1)
    assert tail == f"1 in {db}\n"
    second = cli(*stored_args(tmp_path, root, "--db", str(db), "--json"))
    assert second.status == 0, second.err
    doc = second.json()
    assert doc["schema"] == "hotpath.tune-evaluate/1" and doc["run_id"] == 2

    lines = history_rows(cli, db)
    assert [(line[0], line[2], line[3]) for line in lines] == [
        ("2", "tune", "6"),
        ("1", "tune", "6"),
    ]
    assert all("tune evaluate" in " ".join(line) for line in lines)

    # What is kept: each figure in its unit and with its better side, the
    # lab's section; the printed table comes back from it as it was.
    run = stored_run(db, 1)
    assert run.command == "tune evaluate" and run.labs == ["tune"]
    figs = {(f.variant, f.mode): f for f in run.figures}
    assert sorted(figs) == sorted((v, m) for v in ("A", "B", "B/A") for m in ("slow", "quick"))
    assert {(f.primitive, f.lab, f.better) for f in run.figures} == {("test", "tune", "lower")}
    for mode in ("slow", "quick"):
        assert figs[("A", mode)].unit == "s" and figs[("A", mode)].samples.size == 3
        ratio = figs[("B/A", mode)]
        assert ratio.unit == "ratio" and ratio.samples.size == 0
        comparison = next(c for c in run.sections["tune"]["comparisons"] if c["workload"] == mode)
        assert (ratio.median, [ratio.ci_lo, ratio.ci_hi]) == (comparison["ratio"], comparison["ci"])
        assert ratio.median == figs[("B", mode)].median / figs[("A", mode)].median
    section = run.sections["tune"]
    assert [c["values"] for c in section["configs"]] == [
        {"vm.fake_delay": "1"},
        {"vm.fake_delay": "2"},
    ]
    assert {c["workload"]: c["verdict"] for c in section["comparisons"]} == {
        r["workload"]: figs[("B/A", r["workload"])].reason for r in section["comparisons"]
    }
    assert tune_evaluate.render(stored.from_run(run)) + "\n" == table

    res = cli("compare", "1", "2", "--db", str(db), "--json")
    assert res.status == 0, res.err
    got = {(f["variant"], f["mode"]): f for f in res.json()["figures"]}
    assert sorted(got) == sorted(figs)
    for (variant, _), f in got.items():
        assert f["unit"] == ("ratio" if variant == "B/A" else "s")
        assert f["verdict"] in KINDS
        assert f["method"] == ("intervals" if variant == "B/A" else "single runs")

    # The acceptance: a verdict per workload figure, each in its own unit.
    res = cli("compare", "last~1", "last", "--db", str(db))
    assert res.status == 0, res.err
    rows = [line for line in res.out.splitlines() if line.startswith("test ")]
    assert len(rows) == 6
    for (variant, mode), f in got.items():
        row = next(r for r in rows if r.split()[1:3] == [mode, variant])
        assert (" x " if variant == "B/A" else " s ") in row
        assert row.rstrip().endswith(f["verdict_text"]), row
    assert "units: ratio, seconds of wall clock," in res.out


def test_bad_db_refused_before_any_setting_changes(cli, tmp_path):
    root = make_root(tmp_path)
    before = tree(root)
    ran = tmp_path / "ran"
    prof = profile(tmp_path, setting('"vm.fake_delay"', "2"))
    res = cli(*evaluate_args(prof, root, 3, f"mark=touch {ran}", "--db", str(tmp_path)))
    assert res.status == 2
    assert "is a directory" in res.err
    assert tree(root) == before
    assert not ran.exists()  # no workload ran
    assert not (root / "var/lib/hotpath/tune").exists()  # no snapshot taken either


def test_no_store_keeps_nothing(cli, tmp_path):
    root = make_root(tmp_path)
    db = tmp_path / "h.sqlite"
    res = cli(*stored_args(tmp_path, root, "--db", str(db), "--no-store"))
    assert res.status == 0, res.err
    assert "stored as run" not in res.out
    assert not db.exists()
    res = cli(*stored_args(tmp_path, root, "--no-store", "--json"))
    assert res.status == 0, res.err
    assert res.json()["run_id"] is None
    assert not (tmp_path / "home/state/hotpath/history.sqlite").exists()


def test_a_failed_store_still_prints_the_evaluation(cli, tmp_path, monkeypatch):
    from hotpath.errors import StoreError
    from hotpath.labs.tune import stored

    def refuse(run, path):
        raise StoreError(f"database '{path}' cannot be written (disk full)")

    monkeypatch.setattr(stored, "save", refuse)
    root = make_root(tmp_path)
    before = tree(root)
    res = cli(*stored_args(tmp_path, root, "--db", str(tmp_path / "h.sqlite")))
    assert res.status == 1
    assert "verdict" in res.out and "stored as run" not in res.out
    assert "the run was not stored: database" in res.err
    assert "the results are printed above" in res.err
    assert tree(root) == before
