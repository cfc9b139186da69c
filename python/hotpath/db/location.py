# SPDX-License-Identifier: GPL-2.0-only
"""A --db value: a SQLite file path, or a URL that is never taken for one.

`postgresql://USER@/DB?host=/run/postgresql` once became folders named
`postgresql:` under the current directory; now anything with "://" (or that
starts with a database scheme) is a URL: postgresql:// and
postgresql+psycopg:// name a PostgreSQL database, sqlite:///PATH a file,
and every other scheme is refused before anything runs or is created.
SQLAlchemy is imported only when a URL is given.
"""

import argparse
import os
import re
from dataclasses import dataclass
from pathlib import Path

from hotpath.errors import StoreError

ENV = "HOTPATH_DB"
ALLOWED_URLS = (
    "a file path, sqlite:///PATH, or postgresql://[USER[:PASSWORD]@][HOST][:PORT]/DATABASE"
    "[?host=SOCKET_FOLDER]"
)
SCHEMES = ("postgresql", "postgres", "sqlite")


@dataclass(frozen=True)
class DbUrl:
    """A PostgreSQL database: `url` for the driver (postgresql+psycopg, the
    password in it), `shown` for messages (the password masked)."""

    url: str
    shown: str

    def __str__(self) -> str:
        return self.shown

    def exists(self) -> bool:
        """Whether the database holds a hotpath history (its tables), as
        Path.exists() says it of a file; StoreError if it cannot be read."""
        import sqlalchemy as sa
        from sqlalchemy.pool import NullPool

        from hotpath.db.migrate import inspect_schema

        engine = sa.create_engine(self.url, poolclass=NullPool, connect_args=connect_args(True))
        try:
            with engine.connect() as conn:
                return not inspect_schema(conn).empty
        except sa.exc.SQLAlchemyError as err:
            why = masked(" ".join(str(getattr(err, "orig", None) or err).split()))
            raise StoreError(f"database '{self}' cannot be read ({why})") from err
        finally:
            engine.dispose()

    def is_file(self) -> bool:
        """As exists(), but False when the database cannot be read (as
        Path.is_file() is for a file that cannot be reached)."""
        try:
            return self.exists()
        except StoreError:
            return False


DbLocation = Path | DbUrl
# How long to wait for a PostgreSQL server to answer.
CONNECT_TIMEOUT_S = 10
# How long to wait for another process's lock on the history before giving
# up: SQLite's busy timeout (db/access.py), PostgreSQL's lock_timeout here.
LOCK_TIMEOUT_S = 10.0


def connect_args(read_only: bool) -> dict[str, object]:
    """psycopg's connection arguments: a time limit on connecting and on
    waiting for a lock (LOCK_TIMEOUT_S: a client holding a lock on a shared
    store must not stop every reader for good); a read-only session cannot
    write."""
    options = f"-c lock_timeout={int(LOCK_TIMEOUT_S * 1000)}"
    if read_only:
        options += " -c default_transaction_read_only=on"
    return {
        "connect_timeout": CONNECT_TIMEOUT_S,
        "application_name": "hotpath",
        "options": options,
    }


def looks_like_url(value: str) -> bool:
    head = value.split(":", 1)[0].lower()
    return "://" in value or (":" in value and head.split("+", 1)[0] in SCHEMES)


# A URL's password, wherever it stands in a text (a command line, the
# driver's words): after SCHEME: or SCHEME:// and a user, up to the last @
# of the word (a password may hold an unencoded @ or /), and any
# password= parameter. Malformed URLs (postgresql:u:pw@h) are masked too:
# they end in error messages that quote them.
_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*:(?://)?[^\s:@/?'\"]*):[^\s'\"]*@")
_PARAMETER = re.compile(r"([?&;\s]password=)[^&\s'\"]*", re.IGNORECASE)


def masked(text: str) -> str:
    """`text` with every database password in it (a URL's, a password=
    parameter's) shown as ***."""
    return _PARAMETER.sub(r"\1***", _USERINFO.sub(r"\1:***@", text))


def parse_location(value: str, what: str = "--db") -> DbLocation:
    """`value` as a history location; ValueError naming it and what is allowed."""
    if not looks_like_url(value):
        if not value:
            raise ValueError(f"{what} '': allowed: {ALLOWED_URLS}")
        return Path(value)
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(value)
    except (ArgumentError, ValueError) as err:
        raise ValueError(
            f"{what} '{masked(value)}' is not a URL ({masked(str(err))}); allowed: {ALLOWED_URLS}"
        ) from err
    scheme = url.drivername.lower()
    if scheme == "sqlite":
        if not url.database or url.database == ":memory:" or url.query or url.host:
            raise ValueError(f"{what} '{masked(value)}' names no file; allowed: {ALLOWED_URLS}")
        return Path(url.database)
    if scheme not in ("postgresql", "postgres", "postgresql+psycopg"):
        raise ValueError(
            f"{what} '{masked(value)}': hotpath stores to SQLite "
            f"and PostgreSQL only (driver psycopg); allowed: {ALLOWED_URLS}"
        )
    if not url.database:
        raise ValueError(f"{what} '{masked(value)}' names no database; allowed: {ALLOWED_URLS}")
    url = url.set(drivername="postgresql+psycopg")
    return DbUrl(url=url.render_as_string(hide_password=False), shown=masked(value))


def location_type(value: str) -> DbLocation:
    """argparse type= for --db: a bad URL is a usage error (exit 2)."""
    try:
        return parse_location(value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from err


def from_environment() -> DbLocation | None:
    """$HOTPATH_DB, the history when --db is not given; ValueError if bad."""
    value = os.environ.get(ENV)
    return parse_location(value, ENV) if value else None
