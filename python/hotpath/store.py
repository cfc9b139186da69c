# SPDX-License-Identifier: GPL-2.0-only
"""The run history: one SQLite file, runs with their figures and samples.

Every measured run is kept with its machine fingerprint and clock so that
`hotpath compare` can test two runs long after they were made. Samples are
stored as zlib-compressed little-endian float64 arrays. The path is checked
(check_db_path) before any measurement starts, and nothing is created until
a run is saved, so bad input never leaves a file behind.
"""

import json
import os
import sqlite3
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hotpath.errors import StoreError, UsageError
from hotpath.machine import Fingerprint
from hotpath.protocol import parse_variant
from hotpath.results import FigureResult, RunResult, VariantResult

SCHEMA_VERSION = 2
# Columns version 2 added to figures (the width probe and replicas); a
# version 1 history gains them, empty, when it is next written to.
FIGURE_COLUMNS_V2 = (
    ("samples_taken", "INTEGER NOT NULL DEFAULT 0"),
    ("kept_fraction", "REAL"),
    ("min_share", "REAL"),
    ("short", "INTEGER NOT NULL DEFAULT 0"),
    ("replica_medians", "TEXT"),
)
SQLITE_HEADER = b"SQLite format 3\x00"
ALLOWED = "--db wants a SQLite file hotpath created, or a new file in a writable folder"

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
    calibration_json TEXT
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
    short INTEGER NOT NULL DEFAULT 0, replica_medians TEXT
);
CREATE INDEX IF NOT EXISTS figures_by_run ON figures(run_id);
"""


def default_db_path() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "hotpath" / "history.sqlite"


def pack_samples(samples: np.ndarray) -> bytes:
    return zlib.compress(np.asarray(samples, dtype="<f8").tobytes())


def unpack_samples(blob: bytes | None) -> np.ndarray:
    if not blob:
        return np.empty(0, dtype=np.float64)
    return np.frombuffer(zlib.decompress(blob), dtype="<f8").astype(np.float64)


def _schema_version(conn: sqlite3.Connection, path: Path) -> int | None:
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if "schema_version" not in tables:
            return None
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    except sqlite3.DatabaseError as err:
        raise StoreError(f"database '{path}' cannot be read ({err}); {ALLOWED}") from err
    return int(row[0]) if row and row[0] is not None else None


def _check_version(version: int | None, path: Path, has_tables: bool) -> None:
    if version is not None and version > SCHEMA_VERSION:
        raise StoreError(
            f"database '{path}' has schema version {version}; this hotpath reads up to "
            f"version {SCHEMA_VERSION}: use a newer hotpath or another --db"
        )
    if version is None and has_tables:
        raise StoreError(f"database '{path}' is not a hotpath history; {ALLOWED}")


def check_db_path(path: Path) -> None:
    """Raise StoreError unless `path` can hold the history. Writes nothing."""
    if path.is_dir():
        raise StoreError(f"database '{path}' is a directory; {ALLOWED}")
    if path.exists():
        try:
            with open(path, "rb") as handle:
                header = handle.read(len(SQLITE_HEADER))
        except OSError as err:
            raise StoreError(
                f"database '{path}' cannot be read ({err.strerror}); {ALLOWED}"
            ) from err
        if header and header != SQLITE_HEADER:
            raise StoreError(f"database '{path}' is not a SQLite file; {ALLOWED}")
        if header:
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            try:
                tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                _check_version(_schema_version(conn, path), path, tables > 0)
            except sqlite3.DatabaseError as err:
                raise StoreError(f"database '{path}' cannot be read ({err}); {ALLOWED}") from err
            finally:
                conn.close()
        return
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise StoreError(f"database '{path}' cannot be created: '{ancestor}' is not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise StoreError(f"database '{path}' cannot be created: '{ancestor}' is not writable")


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


class Store:
    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    @classmethod
    def open(cls, path: Path, create: bool = True) -> "Store":
        """Open (and with create, make) the database, checking its schema version."""
        check_db_path(path)
        if not path.exists() and not create:
            raise UsageError(f"database '{path}' does not exist: no runs recorded there yet")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path)
            conn.execute("PRAGMA foreign_keys = ON")
            version = _schema_version(conn, path)
            if version is None:
                with conn:
                    conn.executescript(SCHEMA_SQL)
                    conn.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            else:
                _check_version(version, path, True)
                if create and version < SCHEMA_VERSION:
                    _upgrade(conn)
        except (OSError, sqlite3.Error) as err:
            raise StoreError(f"database '{path}' cannot be opened ({err}); {ALLOWED}") from err
        return cls(conn, path)

    def close(self) -> None:
        self.conn.close()

    def save(self, run: RunResult) -> int:
        with self.conn:
            cursor = self.conn.execute(
                "INSERT INTO runs (started, hotpath_version, command, command_line,"
                " machine_json, machine_key, clock_json, labs_json, settings_json,"
                " variants_json, calibration_json) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
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
                ),
            )
            run_id = int(cursor.lastrowid or 0)
            self.conn.executemany(
                "INSERT INTO figures VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [_figure_row(run_id, f) for f in run.figures],
            )
        run.run_id = run_id
        return run_id

    def runs(self, limit: int | None = None) -> list[RunRow]:
        query = (
            "SELECT r.id, r.started, r.command, r.command_line, r.machine_json, r.machine_key,"
            " (SELECT count(*) FROM figures f WHERE f.run_id = r.id AND f.status = 'ok')"
            " FROM runs r ORDER BY r.id DESC"
        )
        rows = self.conn.execute(query + (" LIMIT ?" if limit else ""), (limit,) if limit else ())
        return [
            RunRow(
                run_id=row[0],
                started=row[1],
                command=row[2],
                command_line=row[3],
                machine=Fingerprint.from_json(json.loads(row[4])).short_name(),
                machine_key=row[5],
                figures=row[6],
            )
            for row in rows
        ]

    def resolve(self, ref: str) -> int:
        """A run id from "12", "last" or "last~N"; UsageError names what exists."""
        query = "SELECT id FROM runs ORDER BY id DESC"
        ids: list[int] = [int(row[0]) for row in self.conn.execute(query)]
        text = ref.strip()
        if text == "last" or text.startswith("last~"):
            back_text = text[5:] or "0"
            if not back_text.isdigit():
                raise UsageError(f"run '{ref}': allowed: a run id, 'last' or 'last~N'")
            back = int(back_text)
            if back >= len(ids):
                raise UsageError(
                    f"run '{ref}': only {len(ids)} run(s) in '{self.path}' (see hotpath history)"
                )
            return ids[back]
        if not text.isdigit():
            raise UsageError(f"run '{ref}': allowed: a run id, 'last' or 'last~N'")
        if int(text) not in ids:
            raise UsageError(f"run '{ref}': no such run in '{self.path}' (see hotpath history)")
        return int(text)

    def replicated_figures(self, machine_key: str, limit: int = 50) -> list[list[FigureResult]]:
        """Figures with two or more replica medians, per run, from the newest
        `limit` runs of this machine that have any: the A/A evidence."""
        have = {row[1] for row in self.conn.execute("PRAGMA table_info(figures)")}
        if "replica_medians" not in have:
            return []
        rows = self.conn.execute(
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
        runs of this machine learnt for themselves, one per primitive run."""
        found: list[float] = []
        rows = self.conn.execute(
            "SELECT clock_json FROM runs WHERE machine_key = ? ORDER BY id DESC LIMIT ?",
            (machine_key, limit),
        )
        for (text,) in rows:
            for clock in json.loads(text).values():
                width = clock.get("width") if isinstance(clock, dict) else None
                value = width.get("learnt_cycles_per_iteration") if width else None
                if isinstance(value, int | float) and value > 0:
                    found.append(float(value))
        return found

    def load(self, run_id: int) -> RunResult:
        row = self.conn.execute(
            "SELECT started, hotpath_version, command, command_line, machine_json, clock_json,"
            " labs_json, settings_json, variants_json, calibration_json FROM runs WHERE id = ?",
            (run_id,),
        ).fetchone()
        if row is None:
            raise UsageError(f"run '{run_id}': no such run in '{self.path}'")
        run = RunResult(
            command=row[2],
            started=row[0],
            machine=Fingerprint.from_json(json.loads(row[4])),
            labs=json.loads(row[6]),
            clocks=json.loads(row[5]),
            settings=json.loads(row[7]),
            calibration=json.loads(row[9]) if row[9] else None,
            run_id=run_id,
            version=row[1],
            command_line=row[3],
        )
        run.variants = [_variant_from_json(v) for v in json.loads(row[8])]
        for fig in self.conn.execute(
            "SELECT * FROM figures WHERE run_id = ? ORDER BY rowid", (run_id,)
        ):
            run.figures.append(_figure_from_row(fig))
        return run


def _upgrade(conn: sqlite3.Connection) -> None:
    """Version 1 to 2: the figures' probe and replica columns."""
    have = {row[1] for row in conn.execute("PRAGMA table_info(figures)")}
    with conn:
        for name, kind in FIGURE_COLUMNS_V2:
            if name not in have:
                conn.execute(f"ALTER TABLE figures ADD COLUMN {name} {kind}")
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))


def _figure_row(run_id: int, f: FigureResult) -> tuple[Any, ...]:
    return (
        run_id, f.lab, f.primitive, f.variant, f.size, f.align, f.mode, f.unit, f.status,
        f.reason, f.n, f.median, f.min, f.p10, f.p90, f.ci_lo, f.ci_hi, int(f.noisy),
        f.calls_per_sample, pack_samples(f.samples) if f.samples.size else None,
        f.samples_taken, f.kept_fraction, f.min_share, int(f.short),
        json.dumps(f.replica_medians),
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
    )  # fmt: skip


def _variant_from_json(data: dict[str, Any]) -> VariantResult:
    return VariantResult(lab=data["lab"], primitive=data["primitive"], info=parse_variant(data))
