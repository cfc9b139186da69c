# SPDX-License-Identifier: GPL-2.0-only
"""The history in a real PostgreSQL server: a throwaway cluster (tests/py/pg.py)
started once for this module and removed after it.

Round trip; histories of the first release (schema 1) and the current one
(schema 2) migrated in PostgreSQL and pushed from SQLite, every figure and
sample unchanged; four processes measuring and pushing into one store at
once, each run present once; a writer killed with SIGKILL halfway through
a run's figures leaves no partial run; the schema the migrations build is
the one hotpath.db.schema declares. Issue 40: a password in the URL never
stored or shown; a role that cannot write refused before measuring; a
reader gives up on another client's lock; of three upgrades at once only
the upgrader says so.
"""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa

from hotpath.db import migrate
from hotpath.db.location import parse_location
from hotpath.db.schema import metadata, revision
from hotpath.store import Store
from pg import server_bin, throwaway_cluster
from test_store import (
    SCHEMA_VERSION,
    _with_extras,
    assert_same_runs,
    insert_release_rows,
    make_run,
    release_rows,
    write_release_history,
)

pytestmark = pytest.mark.skipif(
    server_bin() is None or shutil.which("setpriv") is None,
    reason="no PostgreSQL server (scripts/setup.sh installs Debian's postgresql)",
)

CSUM = ["csum", "--rounds", "5", "--sizes", "64", "--align", "0", "--modes", "latency"]


@pytest.fixture(scope="module")
def cluster():
    with throwaway_cluster() as running:
        yield running


def hotpath(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "hotpath", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def finished(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def engine(url: str) -> sa.Engine:
    location = parse_location(url)
    assert not isinstance(location, Path)
    return sa.create_engine(location.url)


def test_round_trip(cluster, cli):
    url = cluster.new_database()
    store = Store.open(parse_location(url))
    run = _with_extras(make_run(replicas=[1.0, 1.02]))
    run_id = store.save(run)
    loaded = store.load(run_id)
    assert [f.to_json() for f in loaded.figures] == [f.to_json() for f in run.figures]
    assert np.array_equal(loaded.figures[0].samples, run.figures[0].samples)
    assert loaded.sections == run.sections and loaded.graphs == run.graphs
    assert store.resolve("last") == run_id and store.runs()[0].figures == 2
    store.close()
    res = cli("history", "--db", url)
    assert res.status == 0 and "hotpath csum" in res.out
    res = cli("db", "check", "--db", url)
    assert res.status == 0 and "clean" in res.out, res.out
    # Passwords are never shown; a database without hotpath's tables has no runs.
    empty = cluster.new_database()
    res = cli("history", "--db", empty)
    assert res.status == 0 and "no runs recorded yet" in res.out, res.err


def test_migrations_build_the_declared_schema(cluster, tmp_path):
    """From nothing, PostgreSQL and SQLite alike: the migrations' tables are
    hotpath.db.schema's (Alembic's autogenerate finds nothing to add)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    for where in (cluster.new_database(), f"sqlite:///{tmp_path / 'h.sqlite'}"):
        Store.open(parse_location(where)).close()
        bind = engine(where) if where.startswith("postgresql") else sa.create_engine(where)
        with bind.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), metadata)
            found = migrate.inspect_schema(conn)
        bind.dispose()
        assert found.at_head
        assert [d for d in diff if d[0] != "remove_table"] == [], (where, diff)


@pytest.mark.parametrize("version", [1, 2])
def test_release_histories_migrate_in_postgresql(cluster, tmp_path, cli, version):
    """Schema 1 and 2 histories in PostgreSQL (built by the migrations up to
    that revision, rows as that release wrote them) upgraded in place; and
    the same history in SQLite, upgraded and pushed into PostgreSQL: every
    figure and sample unchanged either way."""
    from alembic import command

    expected, rows = release_rows(tmp_path, version)
    url = cluster.new_database()
    bind = engine(url)
    with bind.begin() as conn:
        config = migrate._config(conn)
        command.upgrade(config, revision(version))
        insert_release_rows(conn, rows, version)
    bind.dispose()
    store = Store.open(parse_location(url), create=False)  # read as it is
    assert store.schema().effective == version
    assert_same_runs(expected, [store.load(i) for i in (1, 2, 3)], version)
    store.close()
    res = cli("db", "upgrade", "--db", url)
    assert res.status == 0 and f"from schema {version} to {SCHEMA_VERSION}" in res.out, res.err
    store = Store.open(parse_location(url), create=False)
    assert_same_runs(expected, [store.load(i) for i in (1, 2, 3)], version)
    assert store.check().problems == []
    store.close()

    path = tmp_path / "old.sqlite"
    write_release_history(path, rows, version)
    assert cli("db", "upgrade", "--db", str(path)).status == 0
    shared = cluster.new_database()
    for _ in range(2):  # pushing twice stores each run once
        res = cli("push", shared, "--db", str(path))
        assert res.status == 0, res.err
    assert "pushed 0 run(s)" in res.out and "3 were there already" in res.out
    store = Store.open(parse_location(shared), create=False)
    assert len(store.ids()) == 3
    assert_same_runs(expected, [store.load(i) for i in sorted(store.ids())], version)
    store.close()


def test_four_writers_at_once(cluster, tmp_path, fake_runner):
    """Four processes into one new PostgreSQL store at once, each measuring a
    small lab and pushing a local history (two of them the same runs, from
    two copies of one history): every run present once, db check clean."""
    url = cluster.new_database()
    locals_ = []
    for i in range(3):
        path = tmp_path / f"local{i}.sqlite"
        store = Store.open(path)
        for j in range(3):
            store.save(make_run(scale=1.0 + i + j / 10))
        store.close()
        locals_.append(path)
    twin = tmp_path / "twin.sqlite"
    shutil.copy(locals_[0], twin)  # the same runs (uids) as local0
    sources = [*locals_, twin]
    script = (
        f'"{sys.executable}" -m hotpath {" ".join(CSUM)} --db "{url}" && '
        f'"{sys.executable}" -m hotpath push "{url}" --db "$SOURCE"'
    )
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    procs = [
        subprocess.Popen(script, shell=True, env={**os.environ, "SOURCE": str(s)}, **pipes)
        for s in sources
    ]
    results = [finished(p) for p in procs]
    for status, out, err in results:
        assert status == 0, (out, err)
    store = Store.open(parse_location(url), create=False)
    rows = store.runs()
    measured = [r for r in rows if "--rounds" in r.command_line]
    pushed = [r for r in rows if r.command_line == "hotpath csum"]
    assert len(measured) == 4 and len(pushed) == 9, [r.command_line for r in rows]
    checked = store.check()
    assert checked.problems == [] and checked.counts["runs"] == 13
    store.close()


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
def test_writer_killed_mid_run_leaves_no_partial_run(cluster, tmp_path, fake_runner, backend):
    """SIGKILL while half a run's figures are written (a test hook holds the
    writer there): the history has the runs it had, no figure without its
    run, and db check finds it clean."""
    if backend == "postgresql":
        where = cluster.new_database()
    else:
        where = str(tmp_path / "h.sqlite")
    status, _, err = finished(hotpath(*CSUM, "--db", where))
    assert status == 0, err
    marker = tmp_path / "halfway"
    proc = hotpath(*CSUM, "--sizes", "64,128,256", "--db", where,
                   env={"HOTPATH_TEST_PAUSE_MID_RUN": str(marker)})  # fmt: skip
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    store = Store.open(parse_location(where), create=False)
    checked = store.check()
    assert checked.problems == [] and checked.counts["runs"] == 1, checked
    assert checked.counts["runs without figures"] == 0
    figures = len(store.load(store.resolve("last")).figures)
    assert checked.counts["figures"] == figures
    store.close()
    status, _, err = finished(hotpath(*CSUM, "--db", where))  # the store takes runs again
    assert status == 0, err


@pytest.mark.runner
@pytest.mark.usefixtures("real_runner")
def test_every_lab_into_postgresql(cluster, cli, tmp_path, monkeypatch):
    """Everywhere --db FILE works, a PostgreSQL URL does: each of the five
    labs stores there, history lists them, compare judges each pair."""
    from test_history_labs import every_lab

    every_lab(cli, tmp_path, monkeypatch, cluster.new_database())


# -- issue 40 ----------------------------------------------------------------

SECRET = "Tr0ub4dor"


def database_of(url: str) -> str:
    return url.split("@/", 1)[1].split("?")[0]


def stop_sleepers(cluster, name: str) -> None:
    """End the sessions of `name` that hold a lock in pg_sleep (a test's holder)."""
    cluster.psql(name, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                       " WHERE query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()")  # fmt: skip


def wait_for_locks(cluster, name: str, query: str, count: int) -> None:
    deadline = time.monotonic() + 60
    while int(cluster.psql(name, query)) < count:
        assert time.monotonic() < deadline, query
        time.sleep(0.1)


def test_password_in_the_url_never_stored_or_shown(cluster, cli, tmp_path, fake_runner):
    """Item 1: a run measured with --db postgresql://ROLE:PASSWORD@...: the
    stored command line, history, report.md/html and results.json all
    say *** (trust authentication here takes any password)."""
    url = cluster.new_database()
    with_password = url.replace("hotpath@", f"hotpath:{SECRET}@")
    res = cli(*CSUM, "--db", with_password)
    assert res.status == 0 and SECRET not in res.out + res.err, res.err
    stored = cluster.psql(database_of(url), "SELECT command_line FROM runs")
    assert SECRET not in stored and "hotpath:***@" in stored, stored
    res = cli("history", "--db", with_password)
    assert res.status == 0 and SECRET not in res.out + res.err and "***" in res.out
    out = tmp_path / "report"
    res = cli("report", "last", "--db", with_password, "--out", str(out))
    assert res.status == 0 and SECRET not in res.out + res.err, res.err
    for name in ("report.md", "report.html", "results.json"):
        assert SECRET not in (out / name).read_text(), name
    from test_tune_evaluate import make_root, stored_args

    res = cli(*stored_args(tmp_path, make_root(tmp_path), "--db", with_password))
    assert res.status == 0 and SECRET not in res.out + res.err, res.err
    stored = cluster.psql(database_of(url), "SELECT command_line FROM runs WHERE id = 2")
    assert stored.startswith("hotpath tune evaluate") and SECRET not in stored, stored


def test_unwritable_role_refused_before_measuring(cluster, cli, fake_runner):
    """Item 6: a role that may only read, a role whose sessions are
    read-only, a role that may not create the tables of a new history: each
    refused with exit 2 before anything is measured (nothing printed on
    stdout), as an unwritable SQLite file is; the owner's runs still go."""
    url = cluster.new_database()
    name = database_of(url)
    Store.open(parse_location(url)).close()  # the tables, owned by hotpath
    cluster.psql(name, "CREATE ROLE reader LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public"
                       " TO reader; CREATE ROLE frozen LOGIN SUPERUSER;"
                       " ALTER ROLE frozen SET default_transaction_read_only = on")  # fmt: skip
    empty = database_of(cluster.new_database())
    cluster.psql(empty, "REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    cases = [
        (url.replace("hotpath@", "reader@"), "reader"),
        (url.replace("hotpath@", "frozen@"), "read-only"),
        (url.replace("hotpath@", "reader@").replace(f"/{name}?", f"/{empty}?"), "create"),
    ]
    for where, said in cases:
        res = cli(*CSUM, "--db", where)
        assert res.status == 2 and res.out == "", (where, res.out, res.err)
        assert "cannot be written" in res.err and said in res.err, res.err
        res = cli("db", "upgrade", "--db", where)
        assert res.status == 2 and "cannot be written" in res.err, res.err
    assert cli(*CSUM, "--db", url).status == 0


def test_reader_does_not_wait_forever_for_a_lock(cluster, cli, monkeypatch):
    """Item 11: another client holds a lock on runs; history gives up after
    hotpath's lock timeout, saying so (exit 2), instead of waiting."""
    import hotpath.db.access

    url = cluster.new_database()
    name = database_of(url)
    store = Store.open(parse_location(url))
    store.save(make_run())
    store.close()
    holder = subprocess.Popen(
        [str(cluster.bin / "psql"), "-X", "-h", str(cluster.socket), "-U", "hotpath", "-d", name,
         "-c", "BEGIN; LOCK TABLE runs IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(40); COMMIT;"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        held = "SELECT count(*) FROM pg_locks WHERE relation = 'runs'::regclass AND granted"
        wait_for_locks(cluster, name, held, 1)
        monkeypatch.setattr(hotpath.db.access, "LOCK_TIMEOUT_S", 1)
        start = time.monotonic()
        res = cli("history", "--db", url)
        assert time.monotonic() - start < 20
        assert res.status == 2 and "holds a lock" in res.err, (res.out, res.err)
    finally:
        stop_sleepers(cluster, name)
        holder.wait(timeout=30)


def test_concurrent_upgrades_only_the_upgrader_says_so(cluster):
    """Item 19: three `db upgrade` at once on a schema 3 history (another
    session holds the migration lock until all three wait for it): one says
    it upgraded from 3, the others that it was at the newest already."""
    from alembic import command

    from hotpath.store import MIGRATION_LOCK

    url = cluster.new_database()
    name = database_of(url)
    bind = engine(url)
    with bind.begin() as conn:
        command.upgrade(migrate._config(conn), revision(3))
    bind.dispose()
    holder = subprocess.Popen(
        [str(cluster.bin / "psql"), "-X", "-h", str(cluster.socket), "-U", "hotpath", "-d", name,
         "-c", f"SELECT pg_advisory_lock({MIGRATION_LOCK}); SELECT pg_sleep(60);"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    advisory = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
    try:
        wait_for_locks(cluster, name, advisory + "granted", 1)
        procs = [hotpath("db", "upgrade", "--db", url) for _ in range(3)]
        wait_for_locks(cluster, name, advisory + "NOT granted", 3)
    finally:
        stop_sleepers(cluster, name)
        holder.wait(timeout=30)
    results = [finished(p) for p in procs]
    for status, _, err in results:
        assert status == 0, err
    said = [out for _, out, _ in results if f"upgraded from schema 3 to {SCHEMA_VERSION}" in out]
    assert len(said) == 1, [out for _, out, _ in results]
    assert sum("already" in out for _, out, _ in results) == 2


def test_patch_show_gives_one_table_for_every_machine_in_postgresql(cluster, cli):
    """Three people's `hotpath patch` runs of one pair in a shared history:
    `--show` by commit ids (no tree at hand) makes one block, a column
    group per machine, each machine's newest run."""
    from test_patch import MACHINES, patch_run

    url = cluster.new_database()
    store = Store.open(parse_location(url))
    for name, family, after in MACHINES:
        store.save(patch_run(name, family, after))
    store.save(patch_run("AMD EPYC 7R13", 25, 8.5))  # the Zen 3 again, later: this one counts
    store.close()
    res = cli("patch", "@aaaaaaa..bbbbbbb", "--show", "--db", url)
    assert res.status == 0, res.err
    rows = [line for line in res.out.splitlines() if line.startswith("crc32_le 64 B")]
    assert rows and "-15.0% F" in rows[-1] and "+20.0% S" not in rows[-1], rows
    res = cli("patch", "@aaaaaaa..ccccccc", "--show", "--db", url)
    assert res.status == 2 and "no run of aaaaaaa..ccccccc" in res.err, res.err
