# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath machines`, `history --machine` and compare across two machines,
on a history of runs of two machines (one run stored under the first rule's
key, as an older history holds it)."""

import json
import sqlite3
from pathlib import Path

import pytest

from hotpath.errors import UsageError
from hotpath.machine_keys import resolve_key
from hotpath.store import Store
from test_store import make_run


def intel_run(day: int):
    run = make_run(model=106)
    fp = run.machine
    fp.vendor, fp.family, fp.stepping, fp.model_name = "GenuineIntel", 6, 6, "Intel Xeon"
    fp.microcode, fp.kernel, fp.hypervisor, fp.logical_cpus = "0xd0003a5", "6.1.0", "none", 8
    fp.cpu_features = ["sse4.2", "avx2"]
    run.started = f"2025-02-{day:02d}T00:00:00+00:00"
    return run


def amd_run(day: int, kernel: str = "6.12.0"):
    run = make_run(model=17)
    run.machine.kernel, run.machine.microcode, run.machine.logical_cpus = kernel, "0xa0011d1", 4
    run.machine.cpu_features = ["sse4.2", "pclmulqdq", "avx2", "avx512f"]
    run.machine.tsc_hz = 2.6e9 + day  # a clock moves: the key does not
    run.started = f"2025-01-{day:02d}T00:00:00+00:00"
    return run


AMD = amd_run(1).machine
INTEL = intel_run(4).machine


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """Runs 1-3 of the AMD VM (run 1 under its first-rule key), 4-5 of the
    Intel machine."""
    db = tmp_path / "h.sqlite"
    store = Store.open(db)
    for run in (amd_run(1), amd_run(2), amd_run(3), intel_run(4), intel_run(5)):
        store.save(run)
    store.close()
    conn = sqlite3.connect(db)  # as a history written before issue 27 holds it
    with conn:
        conn.execute("UPDATE runs SET machine_key = ? WHERE id = 1", (AMD.legacy_key(),))
    conn.close()
    return db


def test_keys_do_not_split_a_machine():
    assert AMD.key() == amd_run(3).machine.key()  # another TSC reading, the same key
    assert AMD.key() != INTEL.key()
    assert AMD.key() != amd_run(1, kernel="6.13.0").machine.key()


def test_machines_lists_every_machine_with_its_runs(cli, history: Path):
    before = history.read_bytes()
    res = cli("machines", "--db", str(history))
    assert res.status == 0, res.err
    lines = res.out.splitlines()
    assert lines[0] == f"2 machine(s) in {history}, the one with the newest run first:"
    assert lines[2] == f"{INTEL.key()}  Intel Xeon"
    assert lines[3] == "  runs: 2, first 2025-02-04T00:00:00+00:00, last 2025-02-05T00:00:00+00:00"
    assert lines[4] == (
        "  vendor GenuineIntel; family 6; model 106; stepping 6; microcode 0xd0003a5; "
        "features sse4.2 avx2; logical CPUs 8; kernel 6.1.0; virtualization metal"
    )
    assert lines[6] == f"{AMD.key()}  AMD EPYC (kvm)"
    assert "runs: 3, first 2025-01-01" in lines[7]  # the run stored under the first rule too
    assert "virtualization vm" in lines[8] and "microcode 0xa0011d1" in lines[8]
    doc = cli("machines", "--db", str(history), "--json").json()["machines"]
    assert [(m["key"], m["runs"]) for m in doc] == [(INTEL.key(), 2), (AMD.key(), 3)]
    assert doc[1]["parts"] == AMD.key_parts() and doc[1]["machine"] == "AMD EPYC (kvm)"
    assert doc[1]["stored_keys"] == [AMD.key(), AMD.legacy_key()]
    assert doc[1]["first"].startswith("2025-01-01") and doc[1]["last"].startswith("2025-01-03")
    assert history.read_bytes() == before  # read-only


def test_machines_without_runs(cli, tmp_path: Path):
    missing = tmp_path / "none.sqlite"
    res = cli("machines", "--db", str(missing))
    assert res.status == 0 and res.out == f"no runs recorded yet in {missing}\n"
    assert cli("machines", "--db", str(missing), "--json").json() == {
        "schema": "hotpath.machines/1",
        "machines": [],
    }
    assert not missing.exists()  # never created
    empty = tmp_path / "empty.sqlite"
    Store.open(empty).close()
    assert cli("machines", "--db", str(empty)).out == f"no runs recorded yet in {empty}\n"


def test_history_of_one_machine(cli, history: Path):
    rows = cli("history", "--db", str(history), "--machine", AMD.key(), "--json").json()["runs"]
    assert [r["run_id"] for r in rows] == [3, 2, 1]
    assert {r["machine_key"] for r in rows} == {AMD.key()}  # run 1 keyed again
    rows = cli("history", "--db", str(history), "--machine", INTEL.key()[:5], "--json").json()[
        "runs"
    ]
    assert [r["run_id"] for r in rows] == [5, 4]
    limited = cli("history", "--db", str(history), "--machine", AMD.key()[:8], "--limit", "1")
    assert limited.status == 0
    assert [line.split()[0] for line in limited.out.splitlines()[1:]] == ["3"]
    assert AMD.key()[:8] in limited.out  # the key column: what --machine takes
    every = cli("history", "--db", str(history), "--json").json()["runs"]
    assert [r["machine_key"] for r in every] == [INTEL.key()] * 2 + [AMD.key()] * 3


def test_history_of_an_unknown_machine_names_the_keys(cli, history: Path):
    res = cli("history", "--db", str(history), "--machine", "zz9")
    assert res.status == 2 and res.out == ""
    assert "--machine 'zz9': no machine key starts with it" in res.err
    assert f"{INTEL.key()} (Intel Xeon)" in res.err and f"{AMD.key()} (AMD EPYC (kvm))" in res.err
    # the first rule's key is no key now
    assert cli("history", "--db", str(history), "--machine", AMD.legacy_key()).status == 2


def test_a_key_start_must_be_unique(tmp_path: Path):
    keys = {"ab12-x": "one", "ab34-y": "two"}
    assert resolve_key("ab3", keys, tmp_path) == "ab34-y"
    assert resolve_key(" ab12-x ", keys, tmp_path) == "ab12-x"
    with pytest.raises(UsageError, match="'ab': several machine keys start with it"):
        resolve_key("ab", keys, tmp_path)
    with pytest.raises(UsageError, match="no machine key starts with it"):
        resolve_key("", keys, tmp_path)


def test_compare_across_two_machines_says_so_first(cli, history: Path):
    res = cli("compare", "1", "5", "--db", str(history))
    assert res.status == 0, res.err
    first = res.out.splitlines()[0]
    assert first.startswith("DIFFERENT MACHINES: A (run 1) and B (run 5) come from two machines")
    assert "(vendor AuthenticAMD vs GenuineIntel; family 25 vs 6; model 17 vs 106; 6 more" in first
    assert f"[{INTEL.key()}]" in res.out.splitlines()[2]
    doc = json.loads(cli("compare", "1", "5", "--db", str(history), "--json").out)
    assert doc["same_machine"] is False
    # runs 1 (stored under the first rule's key) and 3: one machine
    same = cli("compare", "1", "3", "--db", str(history))
    assert same.out.splitlines()[0].startswith("machine: AMD EPYC")
    assert "DIFFERENT MACHINES" not in same.out


def test_the_aa_floor_of_a_history_keyed_by_the_first_rule(cli, tmp_path: Path):
    db = tmp_path / "h.sqlite"
    store = Store.open(db)
    replicated = amd_run(1)
    replicated.figures[0].replica_medians = [m * 10.0 for m in (1.0, 1.01, 1.025)]
    for run in (replicated, amd_run(2), amd_run(3)):
        store.save(run)
    store.close()
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE runs SET machine_key = ? WHERE id = 1", (AMD.legacy_key(),))
    conn.close()
    doc = cli("compare", "2", "3", "--db", str(db), "--json").json()
    assert doc["figures"][0]["floor"] == pytest.approx(0.025)  # run 1's replicas
    assert "this figure's A/A spread in 1 run(s)" in doc["figures"][0]["floor_source"]
