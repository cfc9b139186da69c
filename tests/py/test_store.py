# SPDX-License-Identifier: GPL-2.0-only
"""SQLite store: round trip, run references, schema versions, bad paths."""

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from conftest import newer_history
from hotpath.db.access import check_db_path
from hotpath.errors import StoreError, UsageError
from hotpath.machine import Fingerprint
from hotpath.protocol import Failure, Variant
from hotpath.results import Bound, BoundModel, FigureResult, Graph, RunResult, VariantResult
from hotpath.store import SCHEMA_VERSION, Store

# The columns schemas 2 and 3 added (migrations 0002 and 0003), oldest
# first: dropping them from a new history makes one as those versions
# wrote it.
V2_COLUMNS = (
    ("figures", "samples_taken"),
    ("figures", "kept_fraction"),
    ("figures", "min_share"),
    ("figures", "short"),
    ("figures", "replica_medians"),
)
V3_COLUMNS = (("figures", "better"), ("figures", "bound_json"), ("runs", "extras_json"))


def make_run(
    scale: float = 1.0, model: int = 17, replicas: list[float] | None = None, base: float = 10.0
) -> RunResult:
    """A run of one figure near `base` cycles; `replicas`: replica medians / base."""
    fp = Fingerprint(vendor="AuthenticAMD", family=25, model=model, stepping=1,
                     model_name="AMD EPYC", hypervisor="kvm", tsc_hz=2.6e9)  # fmt: skip
    run = RunResult(command="csum", started="2025-01-01T00:00:00+00:00", machine=fp,
                    labs=["csum"], command_line="hotpath csum")  # fmt: skip
    failure = Failure(length=3, align=1, seed=5, expected=1, got=2, what="mismatch")
    run.variants = [
        VariantResult("csum", "csum_partial", Variant("ref", "d", "o", [], [], "ok", None, 10,
                                                      None)),
        VariantResult("csum", "csum_partial", Variant("bad", "d", "o", [], [], "wrong", None, 10,
                                                      failure)),
    ]  # fmt: skip
    rng = np.random.default_rng(1)
    samples = (base + rng.exponential(base / 200, 200)) * scale
    fig = FigureResult("csum", "csum_partial", "ref", 40, 0, "latency", "cycles", "ok",
                       n=200, median=float(np.median(samples)), min=float(samples.min()),
                       p10=1.0, p90=2.0, ci_lo=0.99 * base * scale, ci_hi=1.01 * base * scale,
                       samples=samples,
                       replica_medians=[m * base * scale for m in replicas or []])  # fmt: skip
    skipped = FigureResult("csum", "csum_partial", "bad", 40, 0, "latency", "cycles",
                           "not timed", reason="variant is wrong")  # fmt: skip
    run.figures = [fig, skipped]
    return run


def test_round_trip(tmp_path: Path):
    path = tmp_path / "sub" / "h.sqlite"
    store = Store.open(path)
    run = make_run()
    run_id = store.save(run)
    loaded = store.load(run_id)
    assert loaded.run_id == run_id and run.run_id == run_id
    assert loaded.machine == run.machine
    assert loaded.command_line == "hotpath csum"
    assert [v.info.name for v in loaded.variants] == ["ref", "bad"]
    assert loaded.variants[1].info.failure == run.variants[1].info.failure
    assert loaded.figures[0].samples.dtype == np.float64
    assert np.array_equal(loaded.figures[0].samples, run.figures[0].samples)
    assert loaded.figures[0].to_json() == run.figures[0].to_json()
    assert loaded.figures[1].samples.size == 0
    rows = store.runs()
    assert rows[0].figures == 1 and rows[0].machine == "AMD EPYC (kvm)"
    assert rows[0].labs == ["csum"]
    store.close()


def test_resolve_references(tmp_path: Path):
    store = Store.open(tmp_path / "h.sqlite")
    ids = [store.save(make_run()) for _ in range(3)]
    assert store.resolve("last") == ids[-1]
    assert store.resolve("last~1") == ids[-2]
    assert store.resolve(str(ids[0])) == ids[0]
    for bad in ("last~3", "99", "first", "last~x"):
        with pytest.raises(UsageError, match=bad):
            store.resolve(bad)


def test_newer_schema_refused(tmp_path: Path):
    path = newer_history(tmp_path / "h.sqlite")
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}"):
        check_db_path(path)
    with pytest.raises(StoreError, match="newer hotpath"):
        Store.open(path)


def test_foreign_sqlite_refused(tmp_path: Path):
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    with pytest.raises(StoreError, match="not a hotpath history"):
        check_db_path(path)


@pytest.mark.parametrize("kind", ["directory", "text file", "under a file"])
def test_bad_paths(tmp_path: Path, kind: str):
    if kind == "directory":
        path = tmp_path
    elif kind == "text file":
        path = tmp_path / "notes.txt"
        path.write_text("hello, not a database\n")
    else:
        (tmp_path / "afile").write_text("x")
        path = tmp_path / "afile" / "h.sqlite"
    with pytest.raises(StoreError, match=str(path)):
        check_db_path(path)
    assert not (tmp_path / "afile" / "h.sqlite").exists()


def _with_extras(run: RunResult) -> RunResult:
    """`run` with what the history keeps beside the figures since version 3."""
    run.figures[0].bound = Bound("ok", 9.0, chain_cycles=9, binds="chain")
    run.bound_models["csum_partial"] = BoundModel(
        "csum_partial", "bound", "legend", "latency", (40,), (0,), "40 B", details={"tool": "mca"}
    )
    run.graphs.append(Graph("csum", "csum_partial", "ref", 40, 0, "ref, 40 B", "digraph {}"))
    run.sections["crossing"] = {"kernel": "6.1.0", "notes": ["a note"]}
    run.figures.append(
        FigureResult(
            "avc", "model", "hash", 512, 0, "trace", "count", "ok", median=3.0, better="none"
        )
    )
    return run


def test_round_trip_keeps_bounds_graphs_sections(tmp_path: Path):
    store = Store.open(tmp_path / "h.sqlite")
    run = _with_extras(make_run())
    loaded = store.load(store.save(run))
    assert loaded.extras_kept
    assert [f.to_json() for f in loaded.figures] == [f.to_json() for f in run.figures]
    assert (
        loaded.bound_models["csum_partial"].to_json() == run.bound_models["csum_partial"].to_json()
    )
    assert loaded.graphs == run.graphs and loaded.sections == run.sections
    store.close()


@pytest.mark.parametrize("version", [1, 2])
def test_older_history_upgraded_in_place(tmp_path: Path, version: int):
    """A history of schema 1 or 2 gains the new columns when next written to;
    every figure and sample in it is unchanged, and it says it kept no extras."""
    path = tmp_path / "h.sqlite"
    store = Store.open(path)
    old_id = store.save(make_run(replicas=[1.0, 1.01]))
    before = store.load(old_id)
    store.close()
    conn = sqlite3.connect(path)
    dropped = V3_COLUMNS if version == 2 else V2_COLUMNS + V3_COLUMNS
    for table, column in dropped:
        conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    conn.execute("UPDATE schema_version SET version = ?", (version,))
    conn.commit()
    conn.close()
    read_only = Store.open(path, create=False).load(old_id)  # read, never upgraded
    assert not read_only.extras_kept
    store = Store.open(path)  # a writer upgrades it
    assert store.schema().version == SCHEMA_VERSION and store.schema().at_head
    after = store.load(old_id)
    for was, now in zip(before.figures, after.figures, strict=True):
        was_doc, now_doc = was.to_json(), now.to_json()
        if version == 1:  # version 1 kept no probe or replica columns
            for key in ("samples_taken", "kept_fraction", "min_share", "short", "replica_medians"):
                was_doc.pop(key), now_doc.pop(key)
        assert was_doc == now_doc
        assert np.array_equal(was.samples, now.samples)
    new = store.load(store.save(_with_extras(make_run())))
    assert new.extras_kept and new.sections["crossing"]["kernel"] == "6.1.0"
    store.close()


# -- histories of earlier releases, migrated by Alembic ------------------------

# The schema as the first release (schema 1) and the current one (schema 2)
# created it, verbatim from their store.py: the same but for the columns
# schema 2 added to figures.
_RELEASE_SQL = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    hotpath_version TEXT NOT NULL,
    command TEXT NOT NULL,
    command_line TEXT NOT NULL,
    machine_json TEXT NOT NULL,
    machine_key TEXT NOT NULL,
    clock_json TEXT NOT NULL,
    labs_json TEXT NOT NULL,
    settings_json TEXT NOT NULL,
    variants_json TEXT NOT NULL,
    calibration_json TEXT
);
CREATE TABLE IF NOT EXISTS figures (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    lab TEXT NOT NULL, primitive TEXT NOT NULL, variant TEXT NOT NULL,
    size INTEGER NOT NULL, align INTEGER NOT NULL, mode TEXT NOT NULL,
    unit TEXT NOT NULL, status TEXT NOT NULL, reason TEXT,
    n INTEGER NOT NULL, median REAL, min REAL, p10 REAL, p90 REAL,
    ci_lo REAL, ci_hi REAL, noisy INTEGER NOT NULL,
    calls_per_sample INTEGER, samples BLOB{added}
);
CREATE INDEX IF NOT EXISTS figures_by_run ON figures(run_id);
"""
RELEASE_SQL = {
    1: _RELEASE_SQL.format(added=""),
    2: _RELEASE_SQL.format(
        added=",\n    samples_taken INTEGER NOT NULL DEFAULT 0, kept_fraction REAL, min_share REAL,"
        "\n    short INTEGER NOT NULL DEFAULT 0, replica_medians TEXT"
    ),
}
V2_FIGURE_KEYS = ("samples_taken", "kept_fraction", "min_share", "short", "replica_medians")


def release_rows(tmp_path: Path, version: int) -> tuple[list[RunResult], list[tuple]]:
    """Three runs as this hotpath loads them, and their rows as a release of
    schema `version` stored them: (run row, figure rows) each, the columns
    that release had, in the order it wrote them."""
    store = Store.open(tmp_path / f"source-{version}.sqlite")
    runs = [make_run(scale=1.0 + i / 10, model=17 + i, replicas=[1.0, 1.0 + i / 100])
            for i in range(3)]  # fmt: skip
    runs[1].figures.append(FigureResult("csum", "csum_partial", "ref", 1500, 1, "throughput",
                                        "cycles", "ok", n=3, median=2.5,
                                        samples=np.array([2.5, 2.25, 3.0])))  # fmt: skip
    loaded, rows = [], []
    for run in runs:
        run_id = store.save(run)
        loaded.append(store.load(run_id))
        rows.append(store.export(run_id))
    store.close()
    run_drop = {"extras_json", "uid"}
    figure_drop = {"better", "bound_json", "seq"} | (set(V2_FIGURE_KEYS) if version == 1 else set())
    return loaded, [
        ({k: v for k, v in run.items() if k not in run_drop},
         [{k: v for k, v in f.items() if k not in figure_drop} for f in figures])
        for run, figures in rows
    ]  # fmt: skip


def insert_release_rows(conn, rows: list[tuple], version: int) -> None:
    """Write the rows as that release did (a SQLAlchemy connection, any database)."""
    import sqlalchemy as sa

    for run, figures in rows:
        conn.execute(sa.text(f"INSERT INTO runs ({', '.join(run)}) VALUES "
                             f"({', '.join(':' + k for k in run)})"), run)  # fmt: skip
        for fig in figures:
            conn.execute(sa.text(f"INSERT INTO figures ({', '.join(fig)}) VALUES "
                                 f"({', '.join(':' + k for k in fig)})"), fig)  # fmt: skip


def write_release_history(path: Path, rows: list[tuple], version: int) -> None:
    import sqlalchemy as sa

    conn = sqlite3.connect(path)
    conn.executescript(RELEASE_SQL[version])
    conn.execute("INSERT INTO schema_version VALUES (?)", (version,))
    conn.commit()
    conn.close()
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as sa_conn:
        insert_release_rows(sa_conn, rows, version)
    engine.dispose()


def assert_same_runs(expected: list[RunResult], got: list[RunResult], version: int) -> None:
    """Every figure and sample unchanged; a schema 1 history never had the
    probe and replica columns, and before 3 no run kept its extras."""
    assert len(expected) == len(got)
    for was, now in zip(expected, got, strict=True):
        assert now.machine == was.machine and now.command_line == was.command_line
        assert now.started == was.started and now.clocks == was.clocks
        assert now.settings == was.settings and now.labs == was.labs
        assert [v.to_json() for v in now.variants] == [v.to_json() for v in was.variants]
        assert not now.extras_kept
        assert len(now.figures) == len(was.figures)
        for f_was, f_now in zip(was.figures, now.figures, strict=True):
            was_doc, now_doc = f_was.to_json(), f_now.to_json()
            if version == 1:
                for key in V2_FIGURE_KEYS:
                    was_doc.pop(key), now_doc.pop(key)
            assert was_doc == now_doc
            assert f_now.samples.dtype == np.float64
            assert np.array_equal(f_was.samples, f_now.samples)


@pytest.mark.parametrize("version", [1, 2])
def test_release_history_migrates_with_nothing_lost(tmp_path: Path, cli, version: int):
    """A history written by the first release (schema 1) or the current one
    (schema 2): read as it is by the read-only commands, then brought to the
    newest schema by `hotpath db upgrade`, every figure and sample unchanged,
    every run given a uid; `hotpath db check` finds it clean."""
    expected, rows = release_rows(tmp_path, version)
    path = tmp_path / "old.sqlite"
    write_release_history(path, rows, version)
    before = path.read_bytes()
    store = Store.open(path, create=False)
    assert store.schema().effective == version
    assert_same_runs(expected, [store.load(i) for i in (1, 2, 3)], version)
    store.close()
    assert path.read_bytes() == before  # read-only: nothing upgraded
    res = cli("db", "check", "--db", str(path))
    assert res.status == 1 and "db upgrade" in res.out
    shared = tmp_path / "shared.sqlite"
    res = cli("push", str(shared), "--db", str(path))  # its runs have no uid yet
    assert res.status == 2 and "hotpath db upgrade" in res.err and not shared.exists()
    assert path.read_bytes() == before
    res = cli("db", "upgrade", "--db", str(path))
    assert res.status == 0 and f"from schema {version} to {SCHEMA_VERSION}" in res.out, res.err
    store = Store.open(path, create=False)
    assert store.schema().at_head
    assert_same_runs(expected, [store.load(i) for i in (1, 2, 3)], version)
    assert store.check().problems == []
    uids = {store.export(i)[0]["uid"] for i in (1, 2, 3)}
    assert len(uids) == 3 and all(len(u) == 32 for u in uids)
    store.close()
    res = cli("db", "check", "--db", str(path))
    assert res.status == 0 and "clean" in res.out and "3 runs" in res.out, res.out
    res = cli("db", "upgrade", "--db", str(path))
    assert res.status == 0 and "nothing to do" in res.out


def test_db_check_lists_problems(tmp_path: Path, cli):
    path = tmp_path / "h.sqlite"
    store = Store.open(path)
    store.save(make_run())
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO figures (run_id, lab, primitive, variant, size, align, mode, unit,"
                 " status, n, noisy, samples) VALUES (99, 'csum', 'p', 'v', 1, 0, 'latency',"
                 " 'cycles', 'ok', 1, 0, x'0102')")  # fmt: skip
    conn.execute("UPDATE runs SET uid = NULL")
    conn.commit()
    conn.close()
    res = cli("db", "check", "--db", str(path))
    assert res.status == 1, res.out
    assert "1 figure row(s) belong to no run" in res.out
    assert "1 run(s) without a uid" in res.out
    assert "does not decompress" in res.out and "3 problem(s)" in res.out


def test_push_between_sqlite_histories_stores_each_run_once(tmp_path: Path, cli):
    local, shared = tmp_path / "local.sqlite", tmp_path / "shared.sqlite"
    store = Store.open(local)
    runs = [_with_extras(make_run(scale=s)) for s in (1.0, 1.1, 1.2)]
    for run in runs:
        store.save(run)
    store.close()
    res = cli("push", str(shared), "last", "--db", str(local))
    assert res.status == 0 and "pushed 1 run(s)" in res.out, res.err
    res = cli("push", str(shared), "--db", str(local))
    assert res.status == 0 and "pushed 2 run(s)" in res.out and "1 were there" in res.out
    res = cli("push", str(shared), "--db", str(local))
    assert res.status == 0 and "pushed 0 run(s)" in res.out
    target = Store.open(shared, create=False)
    got = {target.load(i).started + str(target.load(i).figures[0].median): target.load(i)
           for i in target.ids()}  # fmt: skip
    assert len(got) == 3
    for run in runs:
        twin = got[run.started + str(run.figures[0].median)]
        assert [f.to_json() for f in twin.figures] == [f.to_json() for f in run.figures]
        assert all(np.array_equal(a.samples, b.samples)
                   for a, b in zip(twin.figures, run.figures, strict=True))  # fmt: skip
        assert twin.sections == run.sections and twin.graphs == run.graphs
    assert target.check().problems == []
    target.close()
    res = cli("push", str(local), "--db", str(local))
    assert res.status == 2 and "is the history the runs come from" in res.err


@pytest.mark.parametrize(
    "value", ["mysql://me@host/db", "http://example.org/h", "sqlite://", "postgresql://host",
              "postgresql:oops", "postgresql+psycopg2://u@/db"]
)  # fmt: skip
def test_database_urls_never_taken_for_paths(tmp_path: Path, cli, monkeypatch, value: str):
    """A URL hotpath does not store to: exit 2 naming it and what is
    allowed, before anything runs; no folder named after it is made."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    for args in (["history"], ["db", "check"], ["csum", "--rounds", "5"], ["push", value]):
        res = cli(*args, "--db", value)
        assert res.status == 2, (args, res.err)
        assert "postgresql://" in res.err and "Traceback" not in res.err
    assert list(here.iterdir()) == []


def test_sqlite_url_and_environment(tmp_path: Path, cli, monkeypatch):
    path = tmp_path / "env.sqlite"
    store = Store.open(path)
    store.save(make_run())
    store.close()
    res = cli("history", "--db", f"sqlite:///{path}")
    assert res.status == 0 and "hotpath csum" in res.out
    monkeypatch.setenv("HOTPATH_DB", str(path))
    res = cli("history")
    assert res.status == 0 and "hotpath csum" in res.out
    monkeypatch.setenv("HOTPATH_DB", "ftp://x/y")
    res = cli("history")
    assert res.status == 2 and "HOTPATH_DB 'ftp://x/y'" in res.err


def test_old_machine_keys_rekeyed_on_upgrade(tmp_path: Path):
    """Schema 5 re-keys runs stored under the old rule (brand string and
    hypervisor name hashed) by the rule that does not drift."""
    path = tmp_path / "h.sqlite"
    store = Store.open(path)
    run = make_run()
    run_id = store.save(run)
    store.close()
    legacy = run.machine.legacy_key()
    assert legacy != run.machine.key()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE runs SET machine_key = ?", (legacy,))
    conn.execute("UPDATE schema_version SET version = 4")
    conn.execute("UPDATE alembic_version SET version_num = '0004'")
    conn.commit()
    conn.close()
    Store.open(path).close()  # a writer upgrades it
    conn = sqlite3.connect(path)
    (key,) = conn.execute("SELECT machine_key FROM runs WHERE id = ?", (run_id,)).fetchone()
    conn.close()
    assert key == run.machine.key()
