# SPDX-License-Identifier: GPL-2.0-only
"""SQLite store: round trip, run references, schema versions, bad paths."""

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from hotpath import store as store_module
from hotpath.errors import StoreError, UsageError
from hotpath.machine import Fingerprint
from hotpath.protocol import Failure, Variant
from hotpath.results import Bound, BoundModel, FigureResult, Graph, RunResult, VariantResult
from hotpath.store import SCHEMA_VERSION, Store, check_db_path


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
    path = tmp_path / "h.sqlite"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    conn.commit()
    conn.close()
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
    dropped = [(t, c) for t, c, _ in store_module.ADDED_COLUMNS]
    if version == 2:
        dropped = dropped[store_module.ADDED_COLUMNS.index(
            next(c for c in store_module.ADDED_COLUMNS if c[1] == "better")):]  # fmt: skip
    for table, column in dropped:
        conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    conn.execute("UPDATE schema_version SET version = ?", (version,))
    conn.commit()
    conn.close()
    read_only = Store.open(path, create=False).load(old_id)  # read, never upgraded
    assert not read_only.extras_kept
    store = Store.open(path)  # a writer upgrades it
    assert store.conn.execute("SELECT version FROM schema_version").fetchone()[0] == SCHEMA_VERSION
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
