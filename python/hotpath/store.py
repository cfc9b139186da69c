# SPDX-License-Identifier: GPL-2.0-only
"""The run history: runs with their figures and samples, in one SQLite file
(the default) or a PostgreSQL database (--db postgresql://...).

Every measured run is kept with its machine fingerprint and clock so that
`hotpath compare` can test two runs long after they were made. Samples are
stored as zlib-compressed little-endian float64 arrays. One schema for both
databases (hotpath.db.schema, SQLAlchemy Core), migrated by Alembic
(hotpath.db.migrate): a writer brings an older history to the newest
schema inside the transaction that stores its run, so nothing in it is
lost and a run is stored whole or not at all; many writers at once are
safe (SQLite's write lock, PostgreSQL's transactions and an advisory lock
while migrating). The location is checked (hotpath.db.access) before any
measurement starts, and nothing is created until a run is saved, so bad
input never leaves a file behind. Commands that only read (history,
compare, report, trend, the width history) open the history read-only
(Store.open(create=False)): they never create, initialise or upgrade one.
"""

import json
import os
import sys
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from hotpath.db import migrate, schema
from hotpath.db.access import (
    DB_ERRORS,
    SCHEMA_VERSION,
    check_db_path,
    open_engine,
    refuse_unusable,
    store_error,
)
from hotpath.db.location import DbLocation, masked
from hotpath.db.rows import (
    CorruptRunError,
    column_problems,
    command_text,
    figure_from_row,
    figure_row,
    json_column,
    machine_from_row,
    run_from_row,
    run_problems,
    run_values,
)
from hotpath.errors import StoreError, UsageError
from hotpath.inputs import ascii_int, shown
from hotpath.results import FigureResult, RunResult
from hotpath.safetext import escaped

# The PostgreSQL advisory lock taken while a history's schema is migrated.
MIGRATION_LOCK = 0x686F7470  # "hotp"
# Test hook: write this file and sleep when half a run's figures are inserted.
PAUSE_HOOK = "HOTPATH_TEST_PAUSE_MID_RUN"


@dataclass(frozen=True)
class RunRow:
    """One line of `hotpath history`."""

    run_id: int
    started: str
    command: str
    command_line: str
    machine: str
    machine_key: str
    figures: int
    labs: list[str]  # the calibration's pseudo-lab left out


@dataclass
class Checked:
    """What `hotpath db check` found: counts, and each problem in words."""

    counts: dict[str, int]
    problems: list[str]


class Store:
    """A history opened for writing (Store.open) or only reading (create=False).

    `path` is where it is: a file, or the database URL (its password
    masked when shown).
    """

    def __init__(self, where: DbLocation, read_only: bool) -> None:
        self.path = where
        self.read_only = read_only
        self.engine, self._state = open_engine(where, read_only)
        self._conn: sa.Connection | None = None
        self._tx: sa.RootTransaction | None = None
        self._columns: dict[str, set[str]] = {}
        self._skipped: set[object] = set()
        # What the history was before this store's last write migrated it (None: not migrated).
        self.migrated: migrate.Found | None = None

    @classmethod
    def open(cls, path: DbLocation, create: bool = True) -> "Store":
        """Open the history for writing, making it (file, tables) or bringing
        it to the newest schema if needed, in one transaction.

        With create=False, open an existing hotpath history read-only
        instead: nothing is created, initialised or upgraded, and a missing
        file (or a database without hotpath's tables) is a UsageError, an
        empty or foreign one a StoreError.
        """
        if not create:
            return cls._open_read_only(path)
        check_db_path(path)
        store = cls(path, read_only=False)
        try:
            if not store.schema().at_head:
                with store._writing():
                    store._begin()
                    store._commit()
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def _open_read_only(cls, path: DbLocation) -> "Store":
        check_db_path(path, write=False)
        if isinstance(path, Path) and not path.exists():
            raise UsageError(f"database '{path}' does not exist: no runs recorded there yet")
        store = cls(path, read_only=True)
        try:
            found = store.schema()
            refuse_unusable(found, path)
            if found.empty:
                raise UsageError(
                    f"database '{path}' holds no hotpath history: no runs recorded there yet"
                )
        except BaseException:
            store.close()
            raise
        return store

    def close(self) -> None:
        self._abandon()
        if self._conn is not None:
            with suppress(*DB_ERRORS):
                self._conn.close()
            self._conn = None
        self.engine.dispose()

    # -- connections and transactions ------------------------------------------

    def _new_file(self) -> bool:
        """A history file that does not exist yet."""
        return self._conn is None and isinstance(self.path, Path) and not self.path.exists()

    def _connection(self) -> sa.Connection:
        if self._conn is None:
            if isinstance(self.path, Path) and not self.read_only:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = self.engine.connect()
        return self._conn

    @contextmanager
    def _reading(self) -> Iterator[sa.Connection]:
        """The connection in a read transaction of its own (unless a write is
        open); database errors (a lock held too long, a damaged file, a
        server gone) as StoreError."""
        try:
            conn = self._connection()
            if conn.in_transaction():
                yield conn
            else:
                with conn.begin():
                    yield conn
        except DB_ERRORS as err:
            raise store_error(self.path, "read", err) from err

    def _rows(self, query: str, **params: Any) -> list[Any]:
        """All rows of a query; none from a history that does not exist yet."""
        if self._new_file():
            return []
        with self._reading() as conn:
            return list(conn.execute(sa.text(query), params).all())

    def _has_column(self, table: str, column: str) -> bool:
        if self._new_file():
            return column in schema.metadata.tables[table].c
        if table not in self._columns:
            with self._reading() as conn:
                names = {c["name"] for c in sa.inspect(conn).get_columns(table)}
            self._columns[table] = names
        return column in self._columns[table]

    def _begin(self) -> sa.Connection:
        """A write transaction, the history created or migrated to the newest
        schema first, in it. SQLite: the write lock at once (BEGIN
        IMMEDIATE); PostgreSQL: an advisory lock while migrating."""
        if self.read_only:
            raise StoreError(f"database '{self.path}' was opened read-only")
        conn = self._connection()
        self.migrated = None
        self._state["write"] = True
        try:
            self._tx = conn.begin()
        finally:
            self._state["write"] = False
        found = migrate.inspect_schema(conn)
        refuse_unusable(found, self.path)
        if not found.at_head:
            if conn.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
                found = migrate.inspect_schema(conn)
            if not found.at_head:  # as found under the lock: no other writer did it first
                migrate.upgrade(conn, found)
                self.migrated = found
            self._columns = {}
        return conn

    def _commit(self) -> None:
        assert self._tx is not None
        self._tx.commit()
        self._tx = None

    def _abandon(self) -> None:
        """Roll back whatever is open; the connection may be gone already."""
        if self._tx is not None:
            with suppress(*DB_ERRORS):
                self._tx.rollback()
            self._tx = None

    @contextmanager
    def _writing(self, run: RunResult | None = None) -> Iterator[None]:
        """Any failure rolls back (run.run_id None); database errors as StoreError."""
        try:
            yield
        except BaseException as err:
            if run is not None:
                run.run_id = None
            self._abandon()
            if isinstance(err, DB_ERRORS):
                raise store_error(self.path, "written", err) from err
            raise

    # -- writing ---------------------------------------------------------------

    def save(self, run: RunResult) -> int:
        """Insert the run and commit it, one transaction; StoreError (run.run_id
        None) if it cannot be."""
        with self._writing(run):
            rows = self._checked_rows(run)
            conn = self._begin()
            run.run_id = self._insert(conn, *rows)
            self._commit()
        assert run.run_id is not None
        return run.run_id

    def insert(self, run: RunResult) -> int:
        """Insert the run in a transaction left open (run.run_id set): commit() keeps
        it, rollback() (or closing the store) drops it. StoreError if it cannot be."""
        with self._writing(run):
            rows = self._checked_rows(run)
            conn = self._begin()
            run.run_id = self._insert(conn, *rows)
        return run.run_id

    def commit(self, run: RunResult) -> None:
        with self._writing(run):
            self._commit()

    def rollback(self, run: RunResult) -> None:
        run.run_id = None
        # Nothing was written, or the connection is gone: no row either way.
        self._abandon()

    def _checked_rows(self, run: RunResult) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The run's row and its figures' rows, read back as a reader would
        before anything is written: StoreError naming what would not be."""
        values = run_values(run)
        figures = [figure_row(0, seq, f) for seq, f in enumerate(run.figures)]
        problems = run_problems("to be stored", values, figures)
        if problems:
            raise StoreError(
                f"database '{self.path}': the run was not written, it could not be read back: "
                + "; ".join(problems)
            )
        return values, figures

    def _insert(self, conn: sa.Connection, values: dict[str, Any], figures: list[Any]) -> int:
        statement = sa.insert(schema.runs).returning(schema.runs.c.id)
        run_id = int(conn.execute(statement, values).scalar_one())
        _insert_figures(conn, [f | {"run_id": run_id} for f in figures])
        return run_id

    def copy_in(self, run_row: dict[str, Any], figure_rows: list[dict[str, Any]]) -> int | None:
        """Store a run as another history keeps it (export()), in one
        transaction: its new id, or None when a run of its uid is here
        already. StoreError naming each problem, nothing written, for a run
        that could not be read back; a password in its command line is masked."""
        problems = run_problems(run_row.get("id"), run_row, figure_rows)
        if problems:
            raise StoreError("; ".join(problems))
        values = {k: v for k, v in run_row.items() if k != "id" and k in schema.runs.c}
        values["command_line"] = masked(values["command_line"])
        new_id = None
        with self._writing():
            conn = self._begin()
            statement = _insert_new_run(conn.dialect.name)
            new_id = conn.execute(statement, values).scalar()
            if new_id is not None:
                keep = schema.figures.c
                rows = [
                    {k: v for k, v in row.items() if k in keep} | {"run_id": new_id}
                    for row in figure_rows
                ]
                _insert_figures(conn, rows)
            self._commit()
        return int(new_id) if new_id is not None else None

    # -- reading ---------------------------------------------------------------

    def schema(self) -> migrate.Found:
        """The history's tables and versions (nothing, for a file not made yet)."""
        if self._new_file():
            return migrate.Found(frozenset(), None, None)
        with self._reading() as conn:
            return migrate.inspect_schema(conn)

    def require_uids(self) -> None:
        """UsageError unless the runs have uids (schema 4), which push matches runs by."""
        if not self._has_column("runs", "uid"):
            raise UsageError(
                f"database '{self.path}' is at schema {self.schema().effective}: its runs have "
                f"no uid yet, which push matches runs by; run `hotpath db upgrade --db "
                f"'{self.path}'` first"
            )

    def export(self, run_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """A run's row and its figures' rows as they are stored, for another
        history (copy_in); UsageError if its runs have no uid (schema < 4)."""
        self.require_uids()
        found = self._rows("SELECT * FROM runs WHERE id = :id", id=run_id)
        if not found:
            raise UsageError(f"run '{run_id}': no such run in '{self.path}'")
        figures = self._rows("SELECT * FROM figures WHERE run_id = :id ORDER BY seq", id=run_id)
        return dict(found[0]._mapping), [dict(row._mapping) for row in figures]

    def runs(self, limit: int | None = None) -> list[RunRow]:
        query = (
            "SELECT r.id, r.started, r.command, r.command_line, r.machine_json, r.machine_key,"
            " (SELECT count(*) FROM figures f WHERE f.run_id = r.id AND f.status = 'ok')"
            " AS figures,"
            " r.labs_json"
            " FROM runs r ORDER BY r.id DESC"
        )
        rows = self._rows(query + " LIMIT :limit", limit=limit) if limit else self._rows(query)
        listed = []
        for row in rows:
            try:
                listed.append(_run_row(row))
            except CorruptRunError as err:
                self.skipped(err)
        return listed

    def skipped(self, err: CorruptRunError) -> None:
        """Say on stderr (once per run) that a corrupt run is left out."""
        if err.run_id not in self._skipped:
            self._skipped.add(err.run_id)
            print(f"hotpath: skipped {err} (hotpath db check lists it)", file=sys.stderr)

    def loaded(self, run_id: int) -> RunResult | None:
        """The run, or None when it cannot be read back (said, and skipped)."""
        try:
            return self.load(run_id)
        except CorruptRunError as err:
            self.skipped(err)
            return None

    def ids(self) -> list[int]:
        """Every run's id, newest first."""
        return [int(row[0]) for row in self._rows("SELECT id FROM runs ORDER BY id DESC")]

    def resolve(self, ref: str) -> int:
        """A run id from "12", "last" or "last~N"; UsageError names what exists."""
        ids = self.ids()
        text = ref.strip()
        back = (text[5:] or "0") if text == "last" or text.startswith("last~") else None
        # ASCII digits only: str.isdigit() also takes fullwidth digits and "²" (int() refuses it)
        number = ascii_int(back if back is not None else text)
        if number is None or number < 0:
            raise UsageError(f"run '{shown(ref)}': allowed: a run id, 'last' or 'last~N'")
        if back is not None:
            if number >= len(ids):
                raise UsageError(
                    f"run '{shown(ref)}': only {len(ids)} run(s) in '{self.path}' "
                    "(see hotpath history)"
                )
            return ids[number]
        if number not in ids:
            raise UsageError(
                f"run '{shown(ref)}': no such run in '{self.path}' (see hotpath history)"
            )
        return number

    def _figure_order(self, prefix: str = "") -> str:
        """The figures' stored order: seq since schema 4, SQLite's rowid before."""
        if self._has_column("figures", "seq"):
            return f"{prefix}seq"
        return f"{prefix}rowid" if isinstance(self.path, Path) else f"{prefix}run_id"

    def replicated_figures(self, machine_key: str, limit: int = 50) -> list[list[FigureResult]]:
        """Figures with two or more replica medians, per run, from the newest
        `limit` runs of this machine that have any: the A/A evidence."""
        if not self._has_column("figures", "replica_medians"):
            return []
        rows = self._rows(
            "SELECT f.* FROM figures f JOIN runs r ON r.id = f.run_id"
            " WHERE r.machine_key = :key AND f.replica_medians LIKE '[%,%]'"
            " AND f.run_id IN (SELECT newest.run_id FROM (SELECT DISTINCT f2.run_id"
            "  FROM figures f2 JOIN runs r2 ON r2.id = f2.run_id WHERE r2.machine_key = :key"
            "  AND f2.replica_medians LIKE '[%,%]' ORDER BY f2.run_id DESC LIMIT :limit) newest)"
            f" ORDER BY f.run_id, {self._figure_order('f.')}",
            key=machine_key,
            limit=limit,
        )
        runs: dict[int, list[FigureResult]] = {}
        for row in rows:
            fig = row._mapping
            try:
                runs.setdefault(int(fig["run_id"]), []).append(figure_from_row(fig))
            except CorruptRunError as err:
                self.skipped(err)
        return [figures for run_id, figures in runs.items() if run_id not in self._skipped]

    def width_references(self, machine_key: str, limit: int = 20) -> list[float]:
        """Full width (core cycles per probe iteration) that the newest `limit`
        runs of this machine learnt for themselves, one per primitive run.
        A hint for the probe, so none when the history cannot be read now."""
        found: list[float] = []
        try:
            rows = self._rows(
                "SELECT clock_json FROM runs WHERE machine_key = :key ORDER BY id DESC"
                " LIMIT :limit",
                key=machine_key,
                limit=limit,
            )
        except StoreError:
            return []
        for (clocks,) in rows:
            try:
                doc = json.loads(clocks)
            except (TypeError, ValueError):
                continue  # a corrupt run (db check names it): no hint from it
            for clock in doc.values() if isinstance(doc, dict) else ():
                width = clock.get("width") if isinstance(clock, dict) else None
                value = width.get("learnt_cycles_per_iteration") if width else None
                if isinstance(value, int | float) and value > 0:
                    found.append(float(value))
        return found

    def load(self, run_id: int) -> RunResult:
        # By name: a history of an older version (opened read-only, never
        # upgraded) lacks the newer columns.
        found = self._rows("SELECT * FROM runs WHERE id = :id", id=run_id)
        if not found:
            raise UsageError(f"run '{run_id}': no such run in '{self.path}'")
        run = run_from_row(found[0]._mapping, run_id)
        figures = self._rows(
            f"SELECT * FROM figures WHERE run_id = :id ORDER BY {self._figure_order()}", id=run_id
        )
        run.figures = [figure_from_row(fig._mapping) for fig in figures]
        return run

    def _count(self, query: str) -> int:
        return int(self._rows(query)[0][0])

    def check(self) -> Checked:
        """The history's health for `hotpath db check`: schema at head, every
        figure with its run, every run with one uid and whole JSON, every
        sample blob readable as float64s."""
        problems: list[str] = []
        found = self.schema()
        if found.bad_version is not None:
            problems.append(
                f"schema_version holds {found.bad_version!r}, not a version number "
                "(a writer, `hotpath db upgrade`, sets it again)"
            )
        if not found.at_head:
            problems.append(
                f"schema {found.effective} (Alembic revision {found.revision}), not "
                f"{SCHEMA_VERSION} ({schema.HEAD}): run `hotpath db upgrade`"
            )
        for table in ("runs", "figures"):
            columns = schema.metadata.tables[table].c.keys()
            missing = [c for c in columns if not self._has_column(table, c)]
            if missing:
                problems.append(f"table {table} lacks column(s) {', '.join(missing)}")
        counts = {
            "runs": self._count("SELECT count(*) FROM runs"),
            "figures": self._count("SELECT count(*) FROM figures"),
            "runs without figures": self._count(
                "SELECT count(*) FROM runs r WHERE NOT EXISTS"
                " (SELECT 1 FROM figures f WHERE f.run_id = r.id)"
            ),
        }
        orphans = self._count(
            "SELECT count(*) FROM figures f WHERE NOT EXISTS"
            " (SELECT 1 FROM runs r WHERE r.id = f.run_id)"
        )
        if orphans:
            problems.append(f"{orphans} figure row(s) belong to no run")
        if self._has_column("runs", "uid"):
            no_uid = self._count("SELECT count(*) FROM runs WHERE uid IS NULL")
            if no_uid:
                problems.append(f"{no_uid} run(s) without a uid")
            twice = self._count(
                "SELECT count(*) FROM (SELECT uid FROM runs WHERE uid IS NOT NULL"
                " GROUP BY uid HAVING count(*) > 1) d"
            )
            if twice:
                problems.append(f"{twice} uid(s) stored more than once")
        problems += self._check_runs() + self._check_samples(counts)
        return Checked(counts, problems)

    def _check_runs(self) -> list[str]:
        """Each run read back as a reader would (hotpath.db.rows.run_problems)."""
        problems = []
        for row in self._rows("SELECT * FROM runs ORDER BY id"):
            figures = self._rows(
                f"SELECT * FROM figures WHERE run_id = :id ORDER BY {self._figure_order()}",
                id=row.id,
            )
            problems += run_problems(row.id, row._mapping, [f._mapping for f in figures])
        return problems

    def _check_samples(self, counts: dict[str, int]) -> list[str]:
        """Count the samples; a blob of a figure without its run (the runs'
        own are read by _check_runs) that does not read is a problem."""
        problems = []
        samples = 0
        query = (
            "SELECT f.run_id, f.samples, r.id FROM figures f LEFT JOIN runs r ON r.id = f.run_id"
            " WHERE f.samples IS NOT NULL"
        )
        for run_id, blob, owner in self._rows(query):
            try:
                raw = zlib.decompress(blob)
            except (zlib.error, TypeError) as err:
                if owner is None:
                    problems.append(f"run {run_id}: a sample blob does not decompress ({err})")
                continue
            if len(raw) % 8 and owner is None:
                problems.append(f"run {run_id}: a sample blob is not float64s ({len(raw)} bytes)")
            samples += len(raw) // 8
        counts["samples"] = samples
        return problems


def _run_row(row: Any) -> RunRow:
    """A line of `hotpath history` from its columns; CorruptRunError if it does not read."""
    columns = row._mapping
    wrong = column_problems("runs", columns)
    if wrong:
        raise CorruptRunError(row.id, wrong[0])
    labs = json_column(columns, "labs_json", row.id)
    return RunRow(
        run_id=row.id,
        started=escaped(row.started),
        command=escaped(row.command),
        command_line=command_text(row.command_line),
        machine=machine_from_row(columns, row.id).short_name(),
        machine_key=escaped(row.machine_key),
        figures=row.figures,
        labs=[lab for lab in labs if lab != "calibrate"],
    )


def _insert_new_run(dialect: str) -> sa.Insert:
    """INSERT INTO runs ... unless a run of the same uid is there (then no id)."""
    from sqlalchemy.dialects import postgresql, sqlite

    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(schema.runs).on_conflict_do_nothing(index_elements=["uid"])
    return statement.returning(schema.runs.c.id)


def _insert_figures(conn: sa.Connection, rows: list[dict[str, Any]]) -> None:
    """A run's figure rows, in two halves: a writer killed between them (the
    test hook PAUSE_HOOK waits there) must leave no partial run."""
    half = len(rows) // 2
    if rows[:half]:
        conn.execute(sa.insert(schema.figures), rows[:half])
    hook = os.environ.get(PAUSE_HOOK)
    if hook:
        Path(hook).write_text(f"{os.getpid()}\n")
        time.sleep(60)
    if rows[half:]:
        conn.execute(sa.insert(schema.figures), rows[half:])


def upgrade_history(where: DbLocation) -> tuple[int | None, int]:
    """`hotpath db upgrade`: the history at `where` brought to the newest
    schema (a new one created) in one transaction; (version before, after).
    Before is what this writer found under the lock and migrated, so of
    several at once only the one that did it says it (the rest: after, after)."""
    check_db_path(where)
    store = Store(where, read_only=False)
    try:
        with store._writing():
            conn = store._begin()
            after = migrate.inspect_schema(conn).effective
            store._commit()
    finally:
        store.close()
    assert after is not None
    return (store.migrated.effective, after) if store.migrated is not None else (after, after)
