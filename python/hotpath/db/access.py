# SPDX-License-Identifier: GPL-2.0-only
"""Opening the history: where --db points, whether it can hold a run, and
engines to read or write it (hotpath.store keeps the runs themselves).

check_db_path() runs before any measurement and writes nothing: a file
path must be a hotpath SQLite history (or a new file in a writable
folder), not under a kernel file system, not locked by another writer; a
database URL must answer and hold a hotpath history or nothing of ours.
Database errors come back as StoreError in the driver's words, with what
--db allows.
"""

import os
import sqlite3
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.pool import NullPool

from hotpath.db import migrate, schema
from hotpath.db.location import (
    LOCK_TIMEOUT_S,
    DbLocation,
    DbUrl,
    connect_args,
    from_environment,
    masked,
    parse_location,
)
from hotpath.destination import can_write, pseudo_root
from hotpath.errors import StoreError, UsageError

SCHEMA_VERSION = schema.SCHEMA_VERSION
SQLITE_HEADER = b"SQLite format 3\x00"
ALLOWED = (
    "--db wants a SQLite file hotpath created, or (to store a run) a new file in a writable folder"
)
ALLOWED_URL = "check the URL, that the server is up and that its role may connect (docs/history.md)"


def default_db_path() -> Path:
    """$XDG_STATE_HOME/hotpath/history.sqlite; the XDG spec says a relative
    (or empty) XDG_STATE_HOME is ignored: then ~/.local/state."""
    state = Path(os.environ.get("XDG_STATE_HOME") or "")
    if not state.is_absolute():
        state = Path.home() / ".local" / "state"
    return state / "hotpath" / "history.sqlite"


def db_path(args: Any) -> DbLocation:
    """The history a command's --db names, else $HOTPATH_DB, else the default one."""
    given = getattr(args, "db", None)
    try:
        if isinstance(given, str):
            return parse_location(given)
        if given is not None:
            return given  # type: ignore[no-any-return]
        return from_environment() or default_db_path()
    except ValueError as err:
        raise UsageError(str(err)) from err


def storing(args: Any) -> bool:
    """Whether a command keeps its run (no --no-store)."""
    return not getattr(args, "no_store", False)


def driver_words(err: BaseException) -> str:
    """The driver's words for a database error, on one line, any password
    in them masked (a driver may quote the URL or its parameters)."""
    orig = getattr(err, "orig", None) or err
    return masked(" ".join(str(orig).split()))


def store_error(where: DbLocation, doing: str, err: BaseException) -> StoreError:
    """StoreError for a database error while `doing` ("read", "written"): a lock
    held by another process says so, anything else adds what --db allows."""
    why = driver_words(err)
    if "locked" in why or "lock timeout" in why:
        return StoreError(
            f"database '{where}' cannot be {doing}: another process holds a lock on it "
            f"(waited {LOCK_TIMEOUT_S:g} s: {why}); try again when it is done, "
            "or use another --db"
        )
    allowed = ALLOWED_URL if isinstance(where, DbUrl) else ALLOWED
    return StoreError(f"database '{where}' cannot be {doing} ({why}); {allowed}")


DB_ERRORS = (sa.exc.SQLAlchemyError, sqlite3.Error, OSError)


def refuse_unusable(found: migrate.Found, where: DbLocation, empty_ok: bool = True) -> None:
    """Refuse a history newer than this hotpath, or a database that is not
    one: a SQLite file with tables but no schema version (or, unless
    empty_ok, none at all); a PostgreSQL database with hotpath's table names
    but no version (other tables beside a new history are fine there)."""
    if found.newer:
        said = (
            f"schema version {found.version}"
            if found.version is not None and found.version > SCHEMA_VERSION
            else f"schema revision '{found.revision}'"
        )
        raise StoreError(
            f"database '{where}' has {said}; this hotpath reads up to "
            f"version {SCHEMA_VERSION}: use a newer hotpath or another --db"
        )
    if found.effective is not None:
        return
    allowed = ALLOWED_URL if isinstance(where, DbUrl) else ALLOWED
    if found.bad_version is not None:
        raise StoreError(
            f"database '{where}': its schema_version holds {found.bad_version!r}, not a version "
            f"number, and it has no Alembic revision to go by; {allowed}"
        )
    if isinstance(where, DbUrl):
        if not found.empty:
            raise StoreError(f"database '{where}' is not a hotpath history; {ALLOWED_URL}")
    elif found.tables or not empty_ok:
        raise StoreError(f"database '{where}' is not a hotpath history; {ALLOWED}")


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection: SQLite creates and changes nothing through it."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=LOCK_TIMEOUT_S, isolation_level=None)


def open_engine(where: DbLocation, read_only: bool) -> tuple[sa.Engine, dict[str, bool]]:
    """An engine for the history, and the switch that makes its next
    transaction a write (SQLite: BEGIN IMMEDIATE, the write lock at once)."""
    state = {"write": False}
    if isinstance(where, DbUrl):
        args = connect_args(read_only)
        return sa.create_engine(where.url, poolclass=NullPool, connect_args=args), state

    def connect() -> sqlite3.Connection:
        if read_only:
            return connect_read_only(where)
        conn = sqlite3.connect(where, timeout=LOCK_TIMEOUT_S, isolation_level=None)
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    engine = sa.create_engine("sqlite://", creator=connect, poolclass=NullPool)

    @event.listens_for(engine, "begin")
    def begin(conn: sa.Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if state["write"] else "BEGIN")

    return engine, state


def inspect_history(where: DbLocation) -> migrate.Found:
    """What the history holds, read without writing anything."""
    engine, _ = open_engine(where, read_only=True)
    try:
        with engine.connect() as conn:
            return migrate.inspect_schema(conn)
    except DB_ERRORS as err:
        raise store_error(where, "read", err) from err
    finally:
        engine.dispose()


def check_db_path(path: DbLocation, write: bool = True) -> None:
    """Raise StoreError unless `path` can hold the history. Writes nothing.

    With write (the measuring commands), the file or the folder it goes in
    must be writable and no other process may hold a write lock on it now;
    a database URL must answer. Without (history, compare), an existing
    file must already be a hotpath history: an empty file or another
    program's database is refused.
    """
    if isinstance(path, DbUrl):
        found = inspect_history(path)
        refuse_unusable(found, path)
        if write:
            check_role_writes(path, found)
        return
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
            refuse_unusable(inspect_history(path), path, empty_ok=write)
        if write:
            check_writable(path, bool(header))
        return
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise StoreError(f"database '{path}' cannot be created: '{ancestor}' is not a folder")
    if write and not can_write(ancestor):
        raise StoreError(f"database '{path}' cannot be created: '{ancestor}' is not writable")


def check_role_writes(where: DbUrl, found: migrate.Found) -> None:
    """The PostgreSQL role at `where` can store a run, as check_writable()
    asks of a file: its sessions are not read-only, and it may insert into
    the tables, or create them in a new history, or (an older one) upgrade
    them as their owner. Asked of the server's privileges; writes nothing."""
    engine, _ = open_engine(where, read_only=False)
    try:
        with engine.connect() as conn:
            why = _unwritable(conn, found)
    except DB_ERRORS as err:
        raise store_error(where, "written", err) from err
    finally:
        engine.dispose()
    if why:
        raise StoreError(f"database '{where}' cannot be written: {why}; {ALLOWED_URL}")


def _unwritable(conn: sa.Connection, found: migrate.Found) -> str | None:
    """Why the role of `conn` cannot store a run, or None."""

    def ask(query: str) -> Any:
        return conn.execute(sa.text(query)).scalar()

    role = ask("SELECT current_user")
    if ask("SELECT current_setting('transaction_read_only')") == "on":
        return (
            f"the sessions of role '{role}' are read-only (default_transaction_read_only, "
            "or a standby server)"
        )
    if found.empty:
        if not ask("SELECT coalesce(has_schema_privilege(current_schema(), 'CREATE'), false)"):
            return f"role '{role}' may not create the history's tables (CREATE on its schema)"
        return None
    for table in ("runs", "figures"):
        if not ask(f"SELECT has_table_privilege('{table}', 'INSERT')"):
            return f"role '{role}' may not insert into table {table}"
    if not ask("SELECT has_sequence_privilege(pg_get_serial_sequence('runs', 'id'), 'USAGE')"):
        return f"role '{role}' may not number new runs (USAGE on the runs.id sequence)"
    if not found.at_head and not ask(
        "SELECT pg_has_role(relowner, 'USAGE') FROM pg_class WHERE oid = 'runs'::regclass"
    ):
        return (
            f"the history is at schema {found.effective} and only the tables' owner, not role "
            f"'{role}', may upgrade it (hotpath db upgrade as the owner)"
        )
    return None


def check_writable(path: Path, initialised: bool) -> None:
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
        raise store_error(path, "written", err) from err
    finally:
        conn.close()
