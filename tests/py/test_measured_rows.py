# SPDX-License-Identifier: GPL-2.0-only
"""The row measured on this machine (`hotpath dispatch --save`): kept under
a CPU key without clock rates, taken by the runner and by a program
linking libhpsum when they load, refused when others could have written
it, and shown by `dispatch --show` and `list`. Nothing here measures."""

import os
import re
import subprocess
from pathlib import Path

import pytest

from hotpath import measured_rows
from hotpath.errors import UsageError
from hotpath.measure import listing
from hotpath.runner import locate_runner
from test_install import CHECK_VALUE, hpsum_program

ROW = """name = mine
csum.even = scalar 0, avx2 512
csum.odd = scalar 0, avx2 1024
crc32c = sse42 0, sse42-3way 96, fold8 2048
"""

pytestmark = [pytest.mark.runner, pytest.mark.usefixtures("real_runner")]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder


def dispatch_listing(**env: str) -> dict[str, str]:
    with pytest.MonkeyPatch.context() as mp:
        for name, value in env.items():
            mp.setenv(name, value)
        row = listing(locate_runner()).dispatch
    assert row is not None
    return row


def runner_stderr() -> str:
    return subprocess.run([str(locate_runner().executable), "list"], capture_output=True,
                          text=True, check=True).stderr  # fmt: skip


def test_the_key_names_the_cpu_and_code_never_a_clock(cache: Path):
    row = dispatch_listing()
    key = row["key"]
    # VENDOR-FAMILY-MODEL-STEPPING-MICROCODE-fFEATURES-cCODE
    assert re.fullmatch(r"[A-Za-z]+-\d+-\d+-\d+-[^-/]+-f[0-9a-f]+-c[0-9a-f]{12}", key), key
    assert "Hz" not in key and "mips" not in key.lower()
    assert row["user_row"] == f"{cache}/hotpath/dispatch/{key}.row"
    assert row["system_row"] == f"/var/cache/hotpath/dispatch/{key}.row"


def test_hidden_features_give_another_key(cache: Path):
    whole = dispatch_listing()["key"]
    assert dispatch_listing(HOTPATH_CPU_HIDE="sse4.2")["key"] != whole


def test_a_saved_row_is_taken_and_one_others_could_write_is_not(cache: Path):
    where = measured_rows.places(dispatch_listing())
    assert where is not None and where.user is not None
    path = measured_rows.save(where, "# measured: here\n" + ROW, system=False)
    assert path == where.user and path.stat().st_mode & 0o777 == 0o644
    row = dispatch_listing()
    assert (row["name"], row["source"]) == ("mine", str(path))
    path.chmod(0o666)
    assert dispatch_listing()["source"] == "built-in"
    assert f"hotpath: measured row '{path}': writable by others; not used" in runner_stderr()
    path.chmod(0o644)
    path.parent.chmod(0o777)
    assert dispatch_listing()["source"] == "built-in"
    assert "its folder is writable by others" in runner_stderr()
    path.parent.chmod(0o755)
    with pytest.raises(UsageError, match="writable by others"):
        path.parent.chmod(0o775)
        measured_rows.save(where, ROW, system=False)


def test_system_rows_are_roots(tmp_path: Path, monkeypatch):
    where = measured_rows.Places("k", None, tmp_path / "system" / "k.row")
    with pytest.raises(UsageError, match="no HOME"):
        measured_rows.save(where, ROW, system=False)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(UsageError, match="only root may write"):
        measured_rows.save(where, ROW, system=True)
    assert not (tmp_path / "system").exists()
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    if tmp_path.stat().st_uid == 0:  # the tests run as root
        assert measured_rows.save(where, ROW, system=True).read_text() == ROW


def test_show_and_list_say_where_the_row_comes_from(cli, cache: Path):
    res = cli("dispatch", "--show")
    assert res.status == 0, res.err
    assert "(built-in)" in res.out and "`hotpath dispatch --save` measures one" in res.out
    where = measured_rows.places(dispatch_listing())
    assert where is not None
    header = measured_rows.header("a test machine", 20, 0.5, "")
    path = measured_rows.save(where, header + ROW, system=False)
    res = cli("dispatch", "--show")
    assert f"dispatch row in use: mine ({path})" in res.out
    assert "measured: " in res.out and "by hotpath dispatch --rounds 20" in res.out
    assert "neighbour: 50% of the width probes saw one (over 20%" in res.out
    assert f"user row: {path}\n" in res.out
    assert f"dispatch row in use: mine ({path})" in cli("list").out
    assert cli("dispatch", "--show", "--save").status == 2


@pytest.mark.parametrize(
    "spoil, why",
    [
        (lambda path: path.chmod(0o666), "writable by others"),
        (lambda path: path.parent.chmod(0o777), "its folder is writable by others"),
        (lambda path: path.write_text("name = broken\n"), "missing csum.even"),
        (lambda path: (path.unlink(), os.mkfifo(path, 0o644)), "not a regular file"),
    ],
    ids=["mode-0666", "writable-folder", "corrupt", "fifo"],
)
def test_a_refused_row_is_said_refused_with_why(cli, cache: Path, spoil, why):
    where = measured_rows.places(dispatch_listing())
    assert where is not None and where.user is not None
    path = measured_rows.save(where, ROW, system=False)
    spoil(path)
    try:
        for command in (("dispatch", "--show"), ("list",)):
            res = cli(*command)
            assert res.status == 0, res.err
            assert "dispatch row in use: " in res.out and "(built-in)" in res.out
            assert f"measured row {path} refused: {why}" in res.out, res.out
            assert "no row measured" not in res.out
        assert f"user row: {path} (refused)" in cli("dispatch", "--show").out
    finally:
        path.parent.chmod(0o755)


def test_a_program_linking_libhpsum_reads_this_cpus_row(tmp_path: Path, cache: Path):
    """The library finds the row by the same key as the runner: a bad row
    there is named (and the built-in row used), a good one taken silently."""
    exe = hpsum_program(tmp_path)
    where = measured_rows.places(dispatch_listing())
    assert where is not None and where.user is not None
    env = {"PATH": os.environ["PATH"], "XDG_CACHE_HOME": str(cache)}
    measured_rows.save(where, "name = broken\n", system=False)
    res = subprocess.run([str(exe)], env=env, capture_output=True, text=True, check=True)
    assert CHECK_VALUE in res.stdout
    assert res.stderr == f"hotpath: measured row '{where.user}': missing csum.even; not used\n"
    measured_rows.save(where, ROW, system=False)
    res = subprocess.run([str(exe)], env=env, capture_output=True, text=True, check=True)
    assert CHECK_VALUE in res.stdout and res.stderr == ""
