# SPDX-License-Identifier: GPL-2.0-only
"""A throwaway PostgreSQL cluster for the tests: Debian's server (the
postgresql package, installed by scripts/setup.sh), initdb and pg_ctl in a
temporary folder, listening on a Unix socket there only (no TCP port), and
removed afterwards. PostgreSQL refuses to run as root: as root, the server
runs as the `postgres` user Debian's package makes (else `nobody`), via
setpriv; the tests connect as role `hotpath` with trust authentication,
whatever user they are."""

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROLE = "hotpath"


def server_bin() -> Path | None:
    """The newest installed server's bin folder (initdb, pg_ctl), or None."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    return found[-1].parent if found else None


def _as_server_user() -> tuple[list[str], int | None, int | None]:
    """The prefix that runs a command as the server's user, and its ids."""
    if os.geteuid() != 0:
        return [], None, None
    for name in ("postgres", "nobody"):
        try:
            user = pwd.getpwnam(name)
        except KeyError:
            continue
        prefix = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
        return prefix, user.pw_uid, user.pw_gid
    raise RuntimeError("running as root and neither a postgres nor a nobody user exists")


class Cluster:
    def __init__(self, root: Path, bin_dir: Path, prefix: list[str]) -> None:
        self.root = root
        self.bin = bin_dir
        self.prefix = prefix
        self.data = root / "data"
        self.socket = root / "sock"
        self.made = 0

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.prefix, *args], capture_output=True, text=True, check=True, timeout=120,
            env={**os.environ, "LC_ALL": "C"},
        )  # fmt: skip

    def url(self, database: str) -> str:
        return f"postgresql://{ROLE}@/{database}?host={self.socket}"

    def new_database(self, name: str | None = None) -> str:
        """A fresh empty database; its URL."""
        self.made += 1
        name = name or f"h{self.made}"
        self.psql("postgres", f'CREATE DATABASE "{name}"')
        return self.url(name)

    def psql(self, database: str, sql: str) -> str:
        done = subprocess.run(
            [str(self.bin / "psql"), "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1",
             "-h", str(self.socket), "-U", ROLE, "-d", database, "-c", sql],
            capture_output=True, text=True, check=True, timeout=60,
        )  # fmt: skip
        return done.stdout.strip()


@contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    """Start a cluster in a new temporary folder; stop and remove it after."""
    bin_dir = server_bin()
    if bin_dir is None:
        raise FileNotFoundError("no PostgreSQL server under /usr/lib/postgresql (scripts/setup.sh)")
    prefix, uid, gid = _as_server_user()
    root = Path(tempfile.mkdtemp(prefix="hotpath-pg-"))
    cluster = Cluster(root, bin_dir, prefix)
    cluster.socket.mkdir()
    if uid is not None:
        for path in (root, cluster.socket):
            os.chown(path, uid, gid or 0)
    try:
        cluster.run(str(bin_dir / "initdb"), "-D", str(cluster.data), "-U", ROLE,
                    "--auth=trust", "-E", "UTF8", "--no-sync")  # fmt: skip
        options = f"-k {cluster.socket} -c listen_addresses='' -c fsync=off -c max_connections=60"
        cluster.run(str(bin_dir / "pg_ctl"), "-D", str(cluster.data), "-l",
                    str(root / "server.log"), "-o", options, "-w", "-t", "60", "start")  # fmt: skip
        try:
            yield cluster
        finally:
            subprocess.run(
                [*prefix, str(bin_dir / "pg_ctl"), "-D", str(cluster.data), "-m", "immediate",
                 "-w", "stop"],
                capture_output=True, check=False, timeout=60,
            )  # fmt: skip
    finally:
        shutil.rmtree(root, ignore_errors=True)
