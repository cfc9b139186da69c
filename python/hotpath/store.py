# SPDX-License-Identifier: GPL-2.0-only
"""The run history: one SQLite file, runs with their figures and samples.

Every measured run is kept with its machine fingerprint and clock so that
`hotpath compare` can test two runs long after they were made. Samples are
stored as zlib-compressed little-endian float64 arrays. The path is checked
(check_db_path) before any measurement starts, and nothing is created until
a run is saved, so bad input never leaves a file behind. Commands that only
read (history, compare, the width history) open the file read-only
(Store.open(create=False)): they never create, initialise or upgrade one.
"""

import json
import os
import sqlite3
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hotpath.destination import can_write, pseudo_root
from hotpath.errors import StoreError, UsageError
from hotpath.inputs import ascii_int, shown
from hotpath.machine import Fingerprint
from hotpath.protocol import parse_variant
from hotpath.results import Bound, BoundModel, FigureResult, Graph, RunResult, VariantResult

SCHEMA_VERSION = 3
# Columns added since version 1, oldest first: (table, column, declaration).
# An older history gains them, empty, when it is next written to; nothing
# in it is lost. Version 2: the width probe and replicas. Version 3: every
# lab's figures (which way is better), bounds, graphs and lab sections.
ADDED_COLUMNS = (
    ("figures", "samples_taken", "INTEGER NOT NULL DEFAULT 0"),
    ("figures", "kept_fraction", "REAL"),
    ("figures", "min_share", "REAL"),
    ("figures", "short", "INTEGER NOT NULL DEFAULT 0"),
    ("figures", "replica_medians", "TEXT"),
    ("figures", "better", "TEXT NOT NULL DEFAULT 'lower'"),
    ("figures", "bound_json", "TEXT"),
    ("runs", "extras_json", "TEXT"),
)
SQLITE_HEADER = b"SQLite format 3\x00"
ALLOWED = (
    "--db wants a SQLite file hotpath created, or (to store a run) a new file in a writable folder"
)
# How long to wait for another process's lock on the history before giving up.
LOCK_TIMEOUT_S = 10.0

SCHEMA_SQL = """
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
    calibration_json TEXT,
    extras_json TEXT
);
CREATE TABLE IF NOT EXISTS figures (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    lab TEXT NOT NULL, primitive TEXT NOT NULL, variant TEXT NOT NULL,
    size INTEGER NOT NULL, align INTEGER NOT NULL, mode TEXT NOT NULL,
    unit TEXT NOT NULL, status TEXT NOT NULL, reason TEXT,
    n INTEGER NOT NULL, median REAL, min REAL, p10 REAL, p90 REAL,
    ci_lo REAL, ci_hi REAL, noisy INTEGER NOT NULL,
    calls_per_sample INTEGER, samples BLOB,
    samples_taken INTEGER NOT NULL DEFAULT 0, kept_fraction REAL, min_share REAL,
    short INTEGER NOT NULL DEFAULT 0, replica_medians TEXT,
    better TEXT NOT NULL DEFAULT 'lower', bound_json TEXT
);
CREATE INDEX IF NOT EXISTS figures_by_run ON figures(run_id);
"""


def default_db_path() -> Path:
    """$XDG_STATE_HOME/hotpath/history.sqlite; the XDG spec says a relative
    (or empty) XDG_STATE_HOME is ignored: then ~/.local/state."""
    state = Path(os.environ.get("XDG_STATE_HOME") or "")
    if not state.is_absolute():
        state = Path.home() / ".local" / "state"
    return state / "hotpath" / "history.sqlite"


def db_path(args: Any) -> Path:
    """The history a command's --db names, else the default one."""
    path: Path | None = getattr(args, "db", None)
    return path if path is not None else default_db_path()


def storing(args: Any) -> bool:
    """Whether a command keeps its run (no --no-store)."""
    return not getattr(args, "no_store", False)


def pack_samples(samples: np.ndarray) -> bytes:
    return zlib.compress(np.asarray(samples, dtype="<f8").tobytes())


def unpack_samples(blob: bytes | None) -> np.ndarray:
    if not blob:
        return np.empty(0, dtype=np.float64)
    return np.frombuffer(zlib.decompress(blob), dtype="<f8").astype(np.float64)


def _failure(path: Path, doing: str, err: Exception) -> StoreError:
    """StoreError for SQLite's `err` while `doing` ("read", "written"): a lock
    held by another process says so, anything else adds what --db allows."""
    if "locked" in str(err):
        return StoreError(
            f"database '{path}' cannot be {doing}: another process holds a lock on it ({err}); "
            "try again when it is done, or use another --db"
        )
    return StoreError(f"database '{path}' cannot be {doing} ({err}); {ALLOWED}")


def _schema_version(conn: sqlite3.Connection, path: Path) -> int | None:
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if "schema_version" not in tables:
            return None
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    except sqlite3.DatabaseError as err:
        raise _failure(path, "read", err) from err
    return int(row[0]) if row and row[0] is not None else None


def _check_version(version: int | None, path: Path, has_tables: bool) -> None:
    if version is not None and version > SCHEMA_VERSION:
        raise StoreError(
            f"database '{path}' has schema version {version}; this hotpath reads up to "
            f"version {SCHEMA_VERSION}: use a newer hotpath or another --db"
        )
    if version is None and has_tables:
        raise StoreError(f"database '{path}' is not a hotpath history; {ALLOWED}")


def _connect_ro(path: Path) -> sqlite3.Connection:
    """A read-only connection: SQLite creates and changes nothing through it."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=LOCK_TIMEOUT_S)


def check_db_path(path: Path, write: bool = True) -> None:
    """Raise StoreError unless `path` can hold the history. Writes nothing.

    With write (the measuring commands), the file or the folder it goes in
    must be writable and no other process may hold a write lock on it now.
    Without (history, compare), an existing file must already be a hotpath
    history: an empty file or another program's database is refused.
    """
    root = pseudo_root(path)
    if root is not None:
        raise StoreError(f"database '{path}' is under {root}, a kernel file system; {ALLOWED}")
    if path.is_dir():
        raise StoreError(f"database '{path}' is a directory; {ALLOWED}")
    if path.exists():
        if not path.is_file():
            raise StoreError(f"database '{path}' is not a regular file; {ALLOWED}")
        try:
            with open(path, "rb") as handle:
                header = handle.read(len(SQLITE_HEADER))
        except OSError as err:
            raise StoreError(
                f"database '{path}' cannot be read ({err.strerror}); {ALLOWED}"
            ) from err
        if header and header != SQLITE_HEADER:
            raise StoreError(f"database '{path}' is not a SQLite file; {ALLOWED}")
        if not header and not write:
            raise StoreError(
                f"database '{path}' is not a hotpath history (an empty file); {ALLOWED}"
            )
        if header:
            conn = _connect_ro(path)
            try:
                tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                version = _schema_version(conn, path)
                _check_version(version, path, tables > 0 or not write)
            except sqlite3.DatabaseError as err:
                raise _failure(path, "read", err) from err
            finally:
                conn.close()
        if write:
            _check_writable(path, bool(header))
        return
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise StoreError(f"database '{path}' cannot be created: '{ancestor}' is not a folder")
    if write and not can_write(ancestor):
        raise StoreError(f"database '{path}' cannot be created: '{ancestor}' is not writable")


def _check_writable(path: Path, initialised: bool) -> None:
    """The existing file `path` can take a run: writable, its folder too (SQLite
    writes its journal beside it), and no other process holding it locked."""
    if not os.access(path, os.W_OK):
        raise StoreError(f"database '{path}' is not writable; {ALLOWED}")
    folder = path.absolute().parent
    if not can_write(folder):
        raise StoreError(
            f"database '{path}' cannot be written: its folder '{folder}' is not writable "
            f"(SQLite writes a journal beside the file); {ALLOWED}"
        )
    if not initialised:
        return
    conn = sqlite3.connect(path, timeout=LOCK_TIMEOUT_S, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")  # the write lock, taken and given back: no change
        conn.execute("ROLLBACK")
    except sqlite3.Error as err:
        raise _failure(path, "written", err) from err
    finally:
        conn.close()


@contextmanager
def _reading(path: Path) -> Iterator[None]:
    """SQLite errors while reading (a lock held too long, a damaged file) as StoreError."""
    try:
        yield
    except sqlite3.Error as err:
        raise _failure(path, "read", err) from err


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


class Store:
    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    @classmethod
    def open(cls, path: Path, create: bool = True) -> "Store":
        """Open the database for writing, making it (and its tables) if needed.

        With create=False, open an existing hotpath history read-only
        instead: nothing is created, initialised or upgraded, and a missing
        file is a UsageError, an empty or foreign one a StoreError.
        """
        if not create:
            return cls._open_read_only(path)
        check_db_path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, timeout=LOCK_TIMEOUT_S)
            conn.execute("PRAGMA foreign_keys = ON")
            version = _schema_version(conn, path)
            if version is None:
                with conn:
                    conn.executescript(SCHEMA_SQL)
                    conn.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            else:
                _check_version(version, path, True)
                if version < SCHEMA_VERSION:
                    _upgrade(conn)
        except (OSError, sqlite3.Error) as err:
            raise _failure(path, "opened", err) from err
        return cls(conn, path)

    @classmethod
    def _open_read_only(cls, path: Path) -> "Store":
        check_db_path(path, write=False)
        if not path.exists():
            raise UsageError(f"database '{path}' does not exist: no runs recorded there yet")
        try:
            conn = _connect_ro(path)
            _check_version(_schema_version(conn, path), path, True)
        except (OSError, sqlite3.Error) as err:
            raise _failure(path, "opened", err) from err
        return cls(conn, path)

    def close(self) -> None:
        self.conn.close()

    def save(self, run: RunResult) -> int:
        """Insert the run and commit it; StoreError (run.run_id None) if it cannot be."""
        self.insert(run)
        self.commit(run)
        assert run.run_id is not None
        return run.run_id

    def insert(self, run: RunResult) -> int:
        """Insert the run in a transaction left open (run.run_id set): commit() keeps
        it, rollback() (or closing the store) drops it. StoreError if it cannot be."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            run.run_id = self._insert(run)
        except sqlite3.Error as err:
            self.rollback(run)
            raise _failure(self.path, "written", err) from err
        return run.run_id

    def commit(self, run: RunResult) -> None:
        try:
            self.conn.commit()
        except sqlite3.Error as err:
            self.rollback(run)
            raise _failure(self.path, "written", err) from err

    def rollback(self, run: RunResult) -> None:
        run.run_id = None
        # Nothing was written, or the connection is gone: no row either way.
        with suppress(sqlite3.Error):
            self.conn.rollback()

    def _insert(self, run: RunResult) -> int:
        cursor = self.conn.execute(
            "INSERT INTO runs (started, hotpath_version, command, command_line,"
            " machine_json, machine_key, clock_json, labs_json, settings_json,"
            " variants_json, calibration_json, extras_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                run.started,
                run.version,
                run.command,
                run.command_line,
                json.dumps(run.machine.to_json()),
                run.machine.key(),
                json.dumps(run.clocks),
                json.dumps(run.labs),
                json.dumps(run.settings),
                json.dumps([v.to_json() for v in run.variants]),
                json.dumps(run.calibration) if run.calibration is not None else None,
                json.dumps(_extras(run)),
            ),
        )
        run_id = int(cursor.lastrowid or 0)
        self.conn.executemany(
            f"INSERT INTO figures VALUES ({','.join('?' * 27)})",
            [_figure_row(run_id, f) for f in run.figures],
        )
        return run_id

    def _rows(self, query: str, params: tuple[Any, ...] = ()) -> list[Any]:
        """All rows of a query; StoreError when the file cannot be read now."""
        with _reading(self.path):
            return self.conn.execute(query, params).fetchall()

    def runs(self, limit: int | None = None) -> list[RunRow]:
        query = (
            "SELECT r.id, r.started, r.command, r.command_line, r.machine_json, r.machine_key,"
            " (SELECT count(*) FROM figures f WHERE f.run_id = r.id AND f.status = 'ok'),"
            " r.labs_json"
            " FROM runs r ORDER BY r.id DESC"
        )
        rows = self._rows(query + (" LIMIT ?" if limit else ""), (limit,) if limit else ())
        return [
            RunRow(
                run_id=row[0],
                started=row[1],
                command=row[2],
                command_line=row[3],
                machine=Fingerprint.from_json(json.loads(row[4])).short_name(),
                machine_key=row[5],
                figures=row[6],
                labs=[lab for lab in json.loads(row[7]) if lab != "calibrate"],
            )
            for row in rows
        ]

    def resolve(self, ref: str) -> int:
        """A run id from "12", "last" or "last~N"; UsageError names what exists."""
        query = "SELECT id FROM runs ORDER BY id DESC"
        ids: list[int] = [int(row[0]) for row in self._rows(query)]
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

    def replicated_figures(self, machine_key: str, limit: int = 50) -> list[list[FigureResult]]:
        """Figures with two or more replica medians, per run, from the newest
        `limit` runs of this machine that have any: the A/A evidence."""
        have = {row[1] for row in self._rows("PRAGMA table_info(figures)")}
        if "replica_medians" not in have:
            return []
        rows = self._rows(
            "SELECT f.* FROM figures f JOIN runs r ON r.id = f.run_id"
            " WHERE r.machine_key = ? AND f.replica_medians LIKE '[%,%]'"
            " AND f.run_id IN (SELECT DISTINCT f2.run_id FROM figures f2 JOIN runs r2"
            "  ON r2.id = f2.run_id WHERE r2.machine_key = ?"
            "  AND f2.replica_medians LIKE '[%,%]' ORDER BY f2.run_id DESC LIMIT ?)"
            " ORDER BY f.run_id",
            (machine_key, machine_key, limit),
        )
        runs: dict[int, list[FigureResult]] = {}
        for row in rows:
            runs.setdefault(int(row[0]), []).append(_figure_from_row(row))
        return list(runs.values())

    def width_references(self, machine_key: str, limit: int = 20) -> list[float]:
        """Full width (core cycles per probe iteration) that the newest `limit`
        runs of this machine learnt for themselves, one per primitive run.
        A hint for the probe, so none when the history cannot be read now."""
        found: list[float] = []
        try:
            rows = self._rows(
                "SELECT clock_json FROM runs WHERE machine_key = ? ORDER BY id DESC LIMIT ?",
                (machine_key, limit),
            )
        except StoreError:
            return []
        for (text,) in rows:
            for clock in json.loads(text).values():
                width = clock.get("width") if isinstance(clock, dict) else None
                value = width.get("learnt_cycles_per_iteration") if width else None
                if isinstance(value, int | float) and value > 0:
                    found.append(float(value))
        return found

    def load(self, run_id: int) -> RunResult:
        # By name: a history of an older version (opened read-only, never
        # upgraded) lacks the newer columns.
        with _reading(self.path):
            cursor = self.conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,))
            found = cursor.fetchone()
            names = [d[0] for d in cursor.description]
        if found is None:
            raise UsageError(f"run '{run_id}': no such run in '{self.path}'")
        row = dict(zip(names, found, strict=True))
        run = RunResult(
            command=row["command"],
            started=row["started"],
            machine=Fingerprint.from_json(json.loads(row["machine_json"])),
            labs=json.loads(row["labs_json"]),
            clocks=json.loads(row["clock_json"]),
            settings=json.loads(row["settings_json"]),
            calibration=json.loads(row["calibration_json"]) if row["calibration_json"] else None,
            run_id=run_id,
            version=row["hotpath_version"],
            command_line=row["command_line"],
        )
        run.variants = [_variant_from_json(v) for v in json.loads(row["variants_json"])]
        if row.get("extras_json") is None:  # stored before version 3
            run.extras_kept = False
        else:
            _load_extras(run, json.loads(row["extras_json"]))
        for fig in self._rows("SELECT * FROM figures WHERE run_id = ? ORDER BY rowid", (run_id,)):
            run.figures.append(_figure_from_row(fig))
        return run


def _upgrade(conn: sqlite3.Connection) -> None:
    """An older version to this one: the columns it lacks (ADDED_COLUMNS)."""
    with conn:
        for table in dict.fromkeys(t for t, _, _ in ADDED_COLUMNS):
            have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
            for name, kind in ((c, k) for t, c, k in ADDED_COLUMNS if t == table):
                if name not in have:
                    conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))


def _extras(run: RunResult) -> dict[str, Any]:
    """What a run holds beside its figures and variants: bound models,
    graphs and each lab's section."""
    return {
        "bound_models": {p: m.to_json() for p, m in run.bound_models.items()},
        "graphs": [g.to_json() for g in run.graphs],
        "sections": run.sections,
    }


def _load_extras(run: RunResult, doc: dict[str, Any]) -> None:
    run.bound_models = {
        p: BoundModel.from_json(p, m) for p, m in doc.get("bound_models", {}).items()
    }
    run.graphs = [Graph.from_json(g) for g in doc.get("graphs", [])]
    run.sections = doc.get("sections", {})


def _figure_row(run_id: int, f: FigureResult) -> tuple[Any, ...]:
    return (
        run_id, f.lab, f.primitive, f.variant, f.size, f.align, f.mode, f.unit, f.status,
        f.reason, f.n, f.median, f.min, f.p10, f.p90, f.ci_lo, f.ci_hi, int(f.noisy),
        f.calls_per_sample, pack_samples(f.samples) if f.samples.size else None,
        f.samples_taken, f.kept_fraction, f.min_share, int(f.short),
        json.dumps(f.replica_medians), f.better,
        json.dumps(f.bound.to_json()) if f.bound is not None else None,
    )  # fmt: skip


def _figure_from_row(row: tuple[Any, ...]) -> FigureResult:
    return FigureResult(
        lab=row[1], primitive=row[2], variant=row[3], size=row[4], align=row[5], mode=row[6],
        unit=row[7], status=row[8], reason=row[9], n=row[10], median=row[11], min=row[12],
        p10=row[13], p90=row[14], ci_lo=row[15], ci_hi=row[16], noisy=bool(row[17]),
        calls_per_sample=row[18], samples=unpack_samples(row[19]),
        samples_taken=row[20] if len(row) > 20 else 0,
        kept_fraction=row[21] if len(row) > 21 else None,
        min_share=row[22] if len(row) > 22 else None,
        short=bool(row[23]) if len(row) > 23 else False,
        replica_medians=json.loads(row[24]) if len(row) > 24 and row[24] else [],
        better=row[25] if len(row) > 25 and row[25] else "lower",
        bound=Bound.from_json(json.loads(row[26])) if len(row) > 26 and row[26] else None,
    )  # fmt: skip


def _variant_from_json(data: dict[str, Any]) -> VariantResult:
    return VariantResult(lab=data["lab"], primitive=data["primitive"], info=parse_variant(data))
