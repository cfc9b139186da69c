# SPDX-License-Identifier: GPL-2.0-only
"""One history for all five labs: runs of csum, crc32c, avc (the model's
statistics), crossing and tune evaluate kept in one store, listed by
`hotpath history` with their labs, and `hotpath compare` judging two runs
of any one of them figure by figure in the figure's unit. Against the real
runner and crossing program, tiny workloads; no verdict is asserted (a
busy machine may move any timing)."""

import pytest

from hotpath.results import UNITS
from test_crossing import PROGRAM
from tune_tree import evaluate_args, make_root, profile, setting

KINDS = ("faster", "slower", "better", "worse", "higher", "lower", "same value",
         "below the threshold", "within one unit", "no evidence of a difference")  # fmt: skip


@pytest.mark.runner
@pytest.mark.usefixtures("real_runner")
def test_every_lab_in_one_history(cli, tmp_path, monkeypatch):
    every_lab(cli, tmp_path, monkeypatch, str(tmp_path / "h.sqlite"))


def every_lab(cli, tmp_path, monkeypatch, db: str) -> None:
    """Two runs of each lab into `db` (a file or a PostgreSQL URL), then
    history and compare over them."""
    if not PROGRAM.is_file():
        pytest.fail(f"{PROGRAM} is not built: run make")
    monkeypatch.setenv("HOTPATH_CROSSING", str(PROGRAM))
    root = make_root(tmp_path)
    prof = profile(tmp_path, setting('"vm.swappiness"', "10"))
    commands = {
        "csum": ("csum", "--sizes", "64", "--rounds", "20", "--modes", "latency"),
        "crc32c": ("crc32c", "--sizes", "64", "--rounds", "20", "--modes", "latency"),
        "avc": ("avc", "--stats", "--sizes", "512", "--checks", "2000"),
        "crossing": ("crossing", "--count", "8", "--iterations", "3"),
        "tune": evaluate_args(prof, root, 3, "quick=true"),
    }
    for lab, args in commands.items():
        for _ in range(2):
            res = cli(*args, "--db", db)
            assert res.status == 0, f"{lab}: {res.err}"
    listed = cli("history", "--db", db, "--json").json()["runs"]
    assert sorted(lab for row in listed for lab in row["labs"]) == sorted(2 * list(commands))
    for pair, lab in enumerate(commands):
        older, newer = 2 * pair + 1, 2 * pair + 2
        doc = cli("compare", str(older), str(newer), "--db", db, "--json").json()
        assert doc["figures"], lab
        for row in doc["figures"]:
            assert row["lab"] == lab and row["verdict"] in KINDS, row
            assert row["unit"] in UNITS or lab == "tune", row  # a workload's own unit
        text = cli("compare", str(older), str(newer), "--db", db).out
        assert "units: " in text
