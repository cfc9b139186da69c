# SPDX-License-Identifier: GPL-2.0-only
"""Where results go, when it fails: refused before measuring where it can be
(exit 2, nothing written), and where it can only fail afterwards (a lock, a
full disk, an interrupt) no traceback, the results not lost, and a history
row only for a run whose report and plots were written.

Tests run as root here, which DAC permissions do not stop: an unwritable
folder is simulated by `read_only` (os.access says no for it, as it does on
a read-only mount, even to root); /proc and /sys are real.
"""

import errno
import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hotpath import measure
from hotpath import report as report_module
from hotpath.cli import main
from hotpath.db import access as store_access
from hotpath.render import symbols
from hotpath.store import Store
from test_store import V2_COLUMNS, V3_COLUMNS

pytestmark = pytest.mark.usefixtures("fake_runner")

Q = ["--sizes", "40", "--align", "0", "--rounds", "1", "--modes", "latency"]
Q += ["--variants", "rfc1071-ref"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def read_only(monkeypatch):
    """Mark folders unwritable: os.access(W_OK) fails in and under them."""
    real_access = os.access
    marked: list[Path] = []

    def access(path, mode, **kwargs):
        where = Path(path).absolute()
        if mode & os.W_OK and any(where == m or m in where.parents for m in marked):
            return False
        return real_access(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", access)
    return marked.append


@pytest.fixture
def quick_plots(monkeypatch):
    """`hotpath run` with a stand-in for matplotlib (the real one takes 20 s)."""

    def plot_run(run, folder):
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "stub.svg"
        path.write_text("<svg></svg>\n")
        return [path]

    monkeypatch.setattr(report_module, "plot_run", plot_run)


@pytest.fixture
def fast_locks(monkeypatch):
    monkeypatch.setattr(store_access, "LOCK_TIMEOUT_S", 0.1)


def runs_in(db: Path) -> int:
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM runs").fetchone()[0])
    finally:
        conn.close()


def tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def hold_lock(db: Path, how: str = "EXCLUSIVE") -> sqlite3.Connection:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute(f"BEGIN {how}")
    return conn


def stored_history(cli, db: Path) -> None:
    assert cli("csum", *Q, "--db", str(db)).status == 0
    assert runs_in(db) == 1


# -- refused before measuring ------------------------------------------------


def test_run_in_read_only_current_folder(cli, tmp_path, monkeypatch, read_only):
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    read_only(here)
    db = tmp_path / "h.sqlite"
    res = cli("run", "--quick", "--db", str(db))
    assert res.status == 2, res.err
    assert "report folder 'hotpath-report-" in res.err and str(here) in res.err
    assert "not writable" in res.err and "--out DIR" in res.err
    assert res.out == "" and "progress" not in res.err and "%" not in res.err
    assert list(here.iterdir()) == [] and not db.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a folder of mode 0555")
def test_run_in_unwritable_folder_for_real(cli, tmp_path, monkeypatch):
    here = tmp_path / "here"
    here.mkdir()
    here.chmod(0o555)
    monkeypatch.chdir(here)
    try:
        res = cli("run", "--quick", "--no-store")
    finally:
        here.chmod(0o755)
    assert res.status == 2 and "not writable" in res.err
    assert list(here.iterdir()) == []


@pytest.mark.parametrize("where", ["/proc/hotpath-test", "/sys/hotpath-test", "read-only"])
def test_out_and_plot_unwritable(cli, tmp_path, read_only, where):
    if where == "read-only":
        read_only(tmp_path / "ro")
        (tmp_path / "ro").mkdir()
        where = str(tmp_path / "ro" / "new" / "folder")
    db = tmp_path / "h.sqlite"
    res = cli("run", "--quick", "--out", where, "--db", str(db))
    assert res.status == 2 and f"--out '{where}'" in res.err, res.err
    res = cli("csum", *Q, "--plot", where, "--db", str(db))
    assert res.status == 2 and f"--plot '{where}'" in res.err, res.err
    assert res.out == "" and not db.exists() and not Path(where).exists()
    assert "allowed:" in res.err and len(res.err.splitlines()) == 1


@pytest.mark.parametrize("where", ["/proc/hotpath.sqlite", "/sys/kernel/hotpath.sqlite",
                                   "/proc/self/status"])  # fmt: skip
def test_db_on_kernel_file_systems(cli, where):
    res = cli("csum", *Q, "--db", where)
    assert res.status == 2 and where in res.err and "kernel file system" in res.err
    assert res.out == ""


@pytest.mark.parametrize("kind", ["new file", "existing file", "folder of existing file"])
def test_db_unwritable(cli, tmp_path, read_only, kind):
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "h.sqlite"
    if kind != "new file":
        stored_history(cli, db)
    before = db.read_bytes() if db.exists() else None
    read_only(db if kind == "existing file" else folder)
    res = cli("csum", *Q, "--db", str(db))
    assert res.status == 2 and str(db) in res.err and "writable" in res.err, res.err
    assert res.out == ""
    assert (db.read_bytes() if db.exists() else None) == before
    # Reading needs no write access.
    if kind != "new file":
        assert cli("history", "--db", str(db)).status == 0


def test_db_special_file(cli):
    res = cli("csum", *Q, "--db", "/dev/null")
    assert res.status == 2 and "'/dev/null' is not a regular file" in res.err


def test_locked_db_refused_before_measuring(cli, tmp_path, fast_locks):
    db = tmp_path / "h.sqlite"
    stored_history(cli, db)
    for how, history_reads in (("IMMEDIATE", True), ("EXCLUSIVE", False)):
        holder = hold_lock(db, how)
        try:
            res = cli("csum", *Q, "--db", str(db))
            assert res.status == 2 and "another process holds a lock" in res.err, res.err
            assert res.out == ""
            hist = cli("history", "--db", str(db))
            assert hist.status == (0 if history_reads else 2), hist.err
            if not history_reads:
                assert "lock" in hist.err and "Traceback" not in hist.err
        finally:
            holder.close()
    assert runs_in(db) == 1


# -- failing after measuring -------------------------------------------------


@pytest.fixture
def lock_after_measuring(monkeypatch):
    """release = lock_after_measuring(db): from now on, another process takes
    the history's write lock while a run measures (after the checks passed),
    and holds it until release()."""
    holders: list[sqlite3.Connection] = []
    real_new_run = measure.new_run

    def release() -> None:
        while holders:
            holders.pop().close()

    def arm(db: Path):
        def new_run(*args, **kwargs):
            holders.append(hold_lock(db))
            return real_new_run(*args, **kwargs)

        monkeypatch.setattr(measure, "new_run", new_run)
        return release

    yield arm
    release()


@pytest.fixture
def work(tmp_path):
    """An empty folder for the test's files (tmp_path also holds home/ and fake-build/)."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_lock_after_measuring_prints_the_run(cli, fast_locks, lock_after_measuring, work, fmt):
    db, plots = work / "h.sqlite", work / "plots"
    stored_history(cli, db)
    release = lock_after_measuring(db)
    as_json = ["--json"] if fmt == "json" else []
    res = cli("csum", *Q, "--db", str(db), "--plot", str(plots), *as_json)
    assert res.status == 1, res.err
    assert "Traceback" not in res.err and len(res.err.strip().splitlines()) == 1
    assert "the run was not stored" in res.err and "another process holds a lock" in res.err
    assert "printed above" in res.err
    if fmt == "json":
        doc = res.json()
        assert doc["run_id"] is None and doc["figures"]
    else:
        assert "rfc1071-ref" in res.out and "stored as run" not in res.out
    # A failed store leaves the plots.
    assert (plots / "csum-csum_partial-latency.svg").is_file()
    assert not [p for p in plots.iterdir() if p.name.startswith(".")]
    release()
    assert runs_in(db) == 1


def test_plots_fail_after_measuring(cli, work, monkeypatch):
    """A full disk while plotting: the run is printed, no row is stored, and
    no plot file (or partial file) of this run is left."""
    import matplotlib.figure

    calls = []
    real_savefig = matplotlib.figure.Figure.savefig

    def savefig(self, fname, *args, **kwargs):
        calls.append(fname)
        if len(calls) > 1:  # the PNG is written, then the disk fills
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_savefig(self, fname, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    db, plots = work / "h.sqlite", work / "plots"
    res = cli("csum", *Q, "--db", str(db), "--plot", str(plots))
    assert res.status == 1
    assert res.err.strip() == (
        f"hotpath: plots could not be written to '{plots}' (No space left on device); "
        "the run was not stored; the results are printed above"
    )
    assert "rfc1071-ref" in res.out and "stored as run" not in res.out
    assert list(plots.iterdir()) == []
    assert not db.exists() or runs_in(db) == 0


def test_report_fails_after_measuring(cli, work, monkeypatch, quick_plots):
    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(report_module.html_format, "render_page", full_disk)
    out, db = work / "reports" / "one", work / "h.sqlite"
    res = cli("run", "--quick", "--out", str(out), "--db", str(db))
    assert res.status == 1
    assert res.err.strip().splitlines()[-1] == (
        f"hotpath: report folder '{out}' could not be written (No space left on device); "
        "the run was not stored; the results are printed above"
    )
    assert "csum_partial, latency mode" in res.out  # the tables, not lost
    assert tree(work) == []


@pytest.mark.parametrize("when", ["pages", "results.json", "moving into place"])
def test_interrupt_while_writing_report(cli, work, monkeypatch, quick_plots, when):
    """SIGINT (KeyboardInterrupt) while the report is written: no folder, no
    hidden stage, no history row."""
    out, db = work / "out", work / "h.sqlite"
    stored_history(cli, db)

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    if when == "pages":
        monkeypatch.setattr(report_module.html_format, "render_page", interrupt)
    elif when == "results.json":  # after the row is inserted, before it is committed
        monkeypatch.setattr(report_module.destination, "write_file", interrupt)
    else:
        monkeypatch.setattr(report_module.destination.StagedFolder, "commit", interrupt)
    res = cli("run", "--quick", "--out", str(out), "--db", str(db))
    assert res.status == 130 and "interrupted" in res.err
    assert tree(work) == ["h.sqlite"]
    assert runs_in(db) == 1


def test_store_fails_after_report(cli, work, quick_plots, fast_locks, lock_after_measuring):
    """Store last: a store that fails leaves the report (run_id null) and says so."""
    db, out = work / "h.sqlite", work / "out"
    stored_history(cli, db)
    release = lock_after_measuring(db)
    res = cli("run", "--quick", "--out", str(out), "--db", str(db))
    assert res.status == 1
    assert res.out.strip().splitlines()[-1] == str(out)
    assert "the run was not stored" in res.err and "the report has it" in res.err
    assert "Traceback" not in res.err
    assert json.loads((out / "results.json").read_text())["run_id"] is None
    assert {"report.md", "report.html", "results.json"} <= set(tree(out))
    assert sorted(p.name for p in work.iterdir()) == ["h.sqlite", "out"]
    release()
    assert runs_in(db) == 1


def test_commit_fails_after_report_in_place(cli, work, monkeypatch, quick_plots):
    """The row fails at its commit (a full disk), after the folder moved into
    place: results.json is rewritten to say run_id null."""
    from hotpath.errors import StoreError

    def commit(self, run):
        self.rollback(run)
        raise StoreError(f"database '{self.path}' cannot be written (database or disk is full)")

    monkeypatch.setattr(Store, "commit", commit)
    out, db = work / "out", work / "h.sqlite"
    res = cli("run", "--quick", "--out", str(out), "--db", str(db))
    assert res.status == 1 and "disk is full" in res.err
    assert json.loads((out / "results.json").read_text())["run_id"] is None
    assert runs_in(db) == 0


def test_report_into_existing_folder_keeps_its_files(cli, work, quick_plots):
    out, db = work / "out", work / "h.sqlite"
    (out / "plots").mkdir(parents=True)
    (out / "notes.txt").write_text("mine\n")
    (out / "plots" / "old.svg").write_text("<svg></svg>\n")
    res = cli("run", "--quick", "--out", str(out), "--db", str(db))
    assert res.status == 0, res.err
    assert set(tree(out)) >= {"notes.txt", "plots/old.svg", "plots/stub.svg", "results.json"}
    assert not [p for p in out.rglob(".*")]
    assert json.loads((out / "results.json").read_text())["run_id"] == 1 == runs_in(db)
    assert (out / "results.json").stat().st_mode & 0o777 == 0o666 & ~_umask()


def test_new_nested_report_folder(cli, work, quick_plots):
    out = work / "a" / "b" / "report"
    res = cli("run", "--quick", "--out", str(out), "--no-store")
    assert res.status == 0, res.err
    assert (out / "results.json").is_file() and (out / "report.md").is_file()
    assert [p.name for p in work.iterdir()] == ["a"]
    assert (work / "a").stat().st_mode & 0o777 == 0o777 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# -- history and compare only read -------------------------------------------


@pytest.mark.parametrize("limit", ["99999999999999999999", "0", "-1", "1000000001"])
def test_history_limit_out_of_range(cli, tmp_path, limit):
    db = tmp_path / "h.sqlite"
    stored_history(cli, db)
    res = cli("history", "--limit", limit, "--db", str(db))
    assert res.status == 2 and f"--limit '{limit}'" in res.err
    assert "allowed: 1..1000000000" in res.err and "Traceback" not in res.err
    assert cli("history", "--limit", "1000000000", "--db", str(db)).status == 0


def _v1_history(cli, db: Path) -> None:
    """A history as version 1 of the schema wrote it."""
    stored_history(cli, db)
    conn = sqlite3.connect(db)
    for table, name in V2_COLUMNS + V3_COLUMNS:
        conn.execute(f"ALTER TABLE {table} DROP COLUMN {name}")
    conn.execute("UPDATE schema_version SET version = 1")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("kind", ["0 bytes", "empty sqlite", "foreign sqlite", "version 1"])
def test_read_only_commands_change_nothing(cli, work, kind):
    db = work / "h.sqlite"
    if kind == "0 bytes":
        db.write_bytes(b"")
    elif kind == "version 1":
        _v1_history(cli, db)
    else:
        conn = sqlite3.connect(db)
        conn.execute("PRAGMA user_version = 7")  # a header, no tables
        if kind == "foreign sqlite":
            conn.execute("CREATE TABLE notes (x)")
        conn.commit()
        conn.close()
    before = db.read_bytes()
    hist = cli("history", "--db", str(db))
    cmp = cli("compare", "1", "1", "--db", str(db))
    if kind == "version 1":
        assert hist.status == 0 and "hotpath csum" in hist.out, hist.err
        assert cmp.status == 0, cmp.err
    else:
        for res in (hist, cmp):
            assert res.status == 2, res.err
            assert f"database '{db}' is not a hotpath history" in res.err
    # A measuring command that does not store reads the width history: no change either.
    assert cli("csum", *Q, "--no-store", "--db", str(db)).status == 0
    assert db.read_bytes() == before
    assert tree(work) == ["h.sqlite"]


def test_compare_missing_db_not_created(cli, work):
    db = work / "none" / "h.sqlite"
    res = cli("compare", "1", "2", "--db", str(db))
    assert res.status == 2 and "does not exist" in res.err
    assert tree(work) == []


# -- locale, XDG_STATE_HOME, matplotlib ----------------------------------------


def test_ascii_locale_subprocess(tmp_path):
    env = dict(os.environ, LC_ALL="C", PYTHONIOENCODING="ascii")
    res = subprocess.run(
        [sys.executable, "-m", "hotpath", "csum", *Q, "--no-store"],
        env=env, capture_output=True, text=True, encoding="ascii", errors="strict",
        check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    assert "median +-95% CI" in res.stdout and " +-0." in res.stdout


def test_ascii_stdout_in_process(monkeypatch):
    """Every renderer's output (tables, order lines, footnotes) through one
    ASCII stream: the spellings, and the stream given back as it was."""
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="strict", write_through=True)
    monkeypatch.setattr(sys, "stdout", stream)
    status = main(["csum", "--sizes", "40", "--rounds", "3", "--modes", "latency", "--no-store"])
    assert status == 0
    assert stream.errors == "strict"
    out = raw.getvalue().decode("ascii")
    assert " +-" in out and " ~= " in out and "'~=' where they overlap" in out
    raw.seek(0)
    raw.truncate()
    assert main(["csum", *Q, "--no-store", "--markdown"]) == 0
    assert "+-" in raw.getvalue().decode("ascii")


def test_ascii_spellings():
    assert symbols.ascii_spelling("9.1 \u00b10.2 \u2248 x\u00e9") == "9.1 +-0.2 ~= x\\xe9"
    latin1 = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    assert symbols.ascii_fallback(latin1) == "strict"
    latin1.write(f"{symbols.PLUS_MINUS} {symbols.APPROX}")
    latin1.flush()
    assert latin1.buffer.getvalue() == "\u00b1 ~=".encode("latin-1")
    utf8 = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    assert symbols.ascii_fallback(utf8) is None and utf8.errors == "strict"


@pytest.mark.parametrize("value", ["relative/state", "state", "./x", ""])
def test_relative_xdg_state_home_ignored(cli, monkeypatch, tmp_path, private_home, value):
    monkeypatch.setenv("XDG_STATE_HOME", value)
    monkeypatch.chdir(tmp_path)
    expected = private_home / ".local" / "state" / "hotpath" / "history.sqlite"
    assert store_access.default_db_path() == expected
    res = cli("csum", *Q)
    assert res.status == 0 and f"stored as run 1 in {expected}" in res.out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake-build", "home"]


BAD_INPUTS = [
    ["csum", "--sizes", "0x"],
    ["csum", "--plot", "/proc/plots"],
    ["run", "--out", "/proc/report"],
    ["history", "--limit", "0"],
]


@pytest.mark.parametrize("args", BAD_INPUTS)
def test_bad_input_leaves_home_empty(tmp_path, args):
    """No matplotlib (nor anything else) in a fresh HOME after bad input."""
    home = tmp_path / "fresh-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "MPL"))}
    env["HOME"] = str(home)
    probe = (
        "import sys; from hotpath.cli import main; status = main(sys.argv[1:]); "
        "print('matplotlib' in sys.modules); sys.exit(status)"
    )
    res = subprocess.run(
        [sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True,
        check=False, cwd=tmp_path,
    )  # fmt: skip
    assert res.returncode == 2, res.stderr
    assert res.stdout.strip() == "False"
    assert list(home.iterdir()) == []


@pytest.mark.parametrize(
    "command",
    [["history"], ["machines"], ["kernels"], ["dispatch", "--show"], ["tune", "list"]],
)
def test_a_full_disk_on_standard_output_is_one_line_and_exit_1(command, tmp_path):
    """`> /dev/full` (issue 40, item 13): before, OSError's traceback."""
    env = {**os.environ, "HOTPATH_DB": str(tmp_path / "h.sqlite")}
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "hotpath", *command],
            stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stderr == "hotpath: cannot write the output: No space left on device\n"


@pytest.mark.parametrize(
    "command",
    [
        ["report", "last", "--out", ""],
        ["run", "--out", ""],
        ["compare", "last:a", "last:b", "--html", ""],
        ["trend", "--all", "--html", ""],
        ["csum", "--plot", ""],
        ["dispatch", "--try", ""],
        ["dispatch", "--write", ""],
    ],
)
def test_an_empty_path_is_refused_not_taken_as_the_current_folder(cli, command, tmp_path):
    """(issue 40, item 18): before, `report --out ''` wrote into the current
    folder and `dispatch --try ''` said "'.': is a directory"."""
    res = cli(*command)
    assert res.status == 2, (res.out, res.err)
    assert "'': allowed: a path" in res.err
