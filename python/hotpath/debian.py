# SPDX-License-Identifier: GPL-2.0-only
"""Debian's archive as a source of kernel packages, and the cache they land in.

Two users: the guest-kernel runner (hotpath.guest.kernel: linux-image and
headers, booted in QEMU) and the kernel-source labs (hotpath.kernelsrc:
linux-source, a few files of it built in user space). Packages are
downloaded with `apt-get download` (never installed) into the cache:

    $HOTPATH_GUEST_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/hotpath
"""

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hotpath.errors import HotpathError
from hotpath.processes import end_group, start_group


def cache_root() -> Path:
    """Where downloads are kept; HOTPATH_GUEST_CACHE wins (tests share one)."""
    explicit = os.environ.get("HOTPATH_GUEST_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "hotpath"


def apt(*args: str) -> str:
    """An apt command's output; HotpathError with its message when it fails."""
    if shutil.which(args[0]) is None:
        raise HotpathError(f"{args[0]} not found: kernel packages come from Debian's archive")
    done = subprocess.run(list(args), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise HotpathError(f"{' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def package_version(package: str) -> str | None:
    """The candidate version of a package, None when apt does not know it."""
    if shutil.which("apt-cache") is None:
        return None
    done = subprocess.run(
        ["apt-cache", "policy", package], capture_output=True, text=True, check=False
    )
    match = re.search(r"Candidate: (\S+)", done.stdout)
    if match is None or match.group(1) == "(none)":
        return None
    return match.group(1)


APT_LISTS = Path("/var/lib/apt/lists")


def candidate_version(package: str) -> str | None:
    """package_version(), remembered in the cache until apt's lists change:
    apt-cache takes half a second, and every lab run asks."""
    remembered = cache_root() / "apt-candidates.json"
    lists_mtime = APT_LISTS.stat().st_mtime if APT_LISTS.is_dir() else 0.0
    try:
        known = json.loads(remembered.read_text())
        if known.get("lists_mtime") != lists_mtime:
            known = {}
    except (OSError, ValueError, AttributeError):
        known = {}
    if package in known.get("versions", {}):
        return str(known["versions"][package]) if known["versions"][package] else None
    version = package_version(package)
    versions = {**known.get("versions", {}), package: version}
    try:
        remembered.parent.mkdir(parents=True, exist_ok=True)
        partial = remembered.with_name(f"{remembered.name}.{os.getpid()}")
        partial.write_text(json.dumps({"lists_mtime": lists_mtime, "versions": versions}))
        partial.replace(remembered)
    except OSError:
        pass  # a read-only cache: asked again next time
    return version


# A download that stalls (a dead mirror or proxy that keeps the connection
# open) or trickles must end with a message, never block a lab for ever;
# one that goes on at any pace runs until the whole limit. The kernel
# packages are 80 MiB.
DOWNLOAD_STALL_S = 120.0  # no byte arrived in this long: stalled
DOWNLOAD_LIMIT_S = 1800.0  # the whole download, however it goes
_POLL_S = 0.5


def download(packages: list[str], into: Path) -> None:
    """`apt-get download` of each package into the folder `into`."""
    command = ["apt-get", "download", "-o", "APT::Sandbox::User=root", *packages]
    try:
        # A group of its own: apt-get's http methods are its children.
        proc = start_group(command, cwd=into)
    except OSError as err:
        raise HotpathError(f"cannot run apt-get: {err}") from err
    try:
        stderr = _await_download(proc, into, f"apt-get download {' '.join(packages)}")
    finally:
        end_group(proc)
    if proc.returncode != 0:
        raise HotpathError(
            f"apt-get download {' '.join(packages)} failed (apt-get update, if the package "
            f"lists are old, lets it find the current files): {stderr.strip()}"
        )


def _await_download(proc: "subprocess.Popen[str]", into: Path, what: str) -> str:
    """apt-get's stderr once it ends; HotpathError when no byte reaches
    `into` (apt writes into its partial/ folder) for DOWNLOAD_STALL_S, or
    the whole takes longer than DOWNLOAD_LIMIT_S."""
    start = last_growth = time.monotonic()
    size = _bytes_under(into)
    while True:
        try:
            return proc.communicate(timeout=_POLL_S)[1]
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        grown = _bytes_under(into)
        if grown != size:
            size, last_growth = grown, now
        where = "Debian's archive (or a proxy in apt's configuration)"
        if now - last_growth > DOWNLOAD_STALL_S:
            raise HotpathError(
                f"{what}: no data for {DOWNLOAD_STALL_S:.0f} s: {where} stopped sending; "
                "stopped it, try again later"
            )
        if now - start > DOWNLOAD_LIMIT_S:
            raise HotpathError(
                f"{what}: not done after {DOWNLOAD_LIMIT_S:.0f} s ({size} bytes arrived): "
                f"{where} is too slow; stopped it, try again later"
            )


def _bytes_under(folder: Path) -> int:
    """The bytes of the files under `folder` (one moved meanwhile: not counted)."""
    total = 0
    for base, _, names in os.walk(folder):
        for name in names:
            with contextlib.suppress(OSError):
                total += (Path(base) / name).lstat().st_size
    return total


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """One process fills a cache entry; the others wait for it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
