# SPDX-License-Identifier: GPL-2.0-only
"""Every bad input: exit 2, a message naming the value, nothing written."""

from pathlib import Path

import pytest

from conftest import newer_history

pytestmark = pytest.mark.usefixtures("fake_runner")

CASES = [
    (["--sizes", "-1"], "-1"),
    (["--sizes", "1073741825"], "1073741825"),
    (["--sizes", "40,abc"], "abc"),
    (["--sizes", "4.5"], "4.5"),
    (["--sizes", ""], "size"),
    (["--sizes", "64..8"], "64..8"),
    (["--sizes", "1..x"], "1..x"),
    (["--sizes", "0..1073741825"], "0..1073741825"),
    (["--align", "4096"], "4096"),
    (["--align", "-3"], "-3"),
    (["--variants", "nope"], "nope"),
    (["--modes", "latency,warp"], "warp"),
    (["--rounds", "0"], "0"),
    (["--rounds", "many"], "many"),
    (["--with", "nocolon.c"], "nocolon.c"),
    (["--with", "/no/such/file.c:fn"], "/no/such/file.c"),
    (["--primitive", "crc32c"], "crc32c"),
    (["--noisy-threshold", "2"], "2"),
]


@pytest.mark.parametrize(("args", "named"), CASES)
def test_csum_bad_input(cli, tmp_path: Path, args, named):
    db = tmp_path / "h.sqlite"
    res = cli("csum", *args, "--db", str(db))
    assert res.status == 2, res.err
    assert named in res.err
    assert not db.exists()


def test_unknown_variant_lists_known(cli, tmp_path: Path):
    res = cli("csum", "--variants", "nope", "--db", str(tmp_path / "h.sqlite"))
    assert "kernel-5.17" in res.err and "rfc1071-ref" in res.err


def test_unknown_mode_lists_modes(cli):
    res = cli("csum", "--modes", "warp", "--no-store")
    assert "latency, throughput, fenced" in res.err


def test_unknown_lab(cli):
    assert cli("list", "nolab").status == 2
    assert "nolab" in cli("list", "nolab").err
    res = cli("nolab")
    assert res.status == 2 and "nolab" in res.err


@pytest.mark.parametrize("kind", ["directory", "text file", "under a file", "newer schema"])
def test_bad_database(cli, tmp_path: Path, kind):
    if kind == "directory":
        db = tmp_path / "dir"
        db.mkdir()
    elif kind == "text file":
        db = tmp_path / "notes.txt"
        db.write_text("not sqlite")
    elif kind == "under a file":
        (tmp_path / "file").write_text("x")
        db = tmp_path / "file" / "h.sqlite"
    else:
        db = newer_history(tmp_path / "new.sqlite", 5)
    before = db.read_bytes() if db.is_file() else None
    for args in (["csum", "--rounds", "5"], ["calibrate", "--rounds", "5"], ["history"]):
        res = cli(*args, "--db", str(db))
        assert res.status == 2, (args, res.err)
        assert str(db) in res.err
    assert (db.read_bytes() if db.is_file() else None) == before


def test_compare_bad_runs(cli, tmp_path: Path):
    db = tmp_path / "h.sqlite"
    cli("csum", "--rounds", "5", "--modes", "latency", "--db", str(db))
    for ref in ("7", "last~4", "yesterday"):
        res = cli("compare", "1", ref, "--db", str(db))
        assert res.status == 2 and ref in res.err
    res = cli("compare", "1", "1", "--db", str(db), "--threshold", "-1")
    assert res.status == 2 and "-1" in res.err


def test_run_out_is_a_file(cli, tmp_path: Path):
    target = tmp_path / "file"
    target.write_text("x")
    res = cli("run", "--quick", "--out", str(target), "--db", str(tmp_path / "h.sqlite"))
    assert res.status == 2 and str(target) in res.err
    assert not (tmp_path / "h.sqlite").exists()
