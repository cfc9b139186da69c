# SPDX-License-Identifier: GPL-2.0-only
"""A Debian kernel for the guest: its packages downloaded (never installed),
unpacked into the cache, its vmlinux extracted; everything kept so that the
second use costs nothing.

Cache layout, under $HOTPATH_GUEST_CACHE or ${XDG_CACHE_HOME:-~/.cache}/hotpath:

    kernels/<version>/tree/     dpkg-deb -x of linux-image, linux-headers
                                (flavour and common) and linux-kbuild
    kernels/<version>/vmlinux   the uncompressed kernel QEMU boots
    kernels/<version>/READY     written last: the entry is complete
"""

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hotpath.errors import HotpathError, UsageError
from hotpath.guest.vmlinux import extract_vmlinux

# uname -r of a Debian kernel: 6.1.0-28-amd64, 6.1.0-28-cloud-amd64, ...
VERSION_RE = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+-[0-9]+-[a-z0-9-]*amd64$")

Log = Callable[[str], None]


def _stderr(message: str) -> None:
    print(f"guest: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class KernelBundle:
    """A guest kernel ready to boot, with what building a module against it needs."""

    version: str  # uname -r in the guest, e.g. "6.1.0-28-amd64"
    vmlinux: Path  # the uncompressed kernel
    modules_dir: Path  # the package's lib/modules/<version>
    build_dir: Path  # `make -C build_dir M=... modules` works here


def cache_root() -> Path:
    """Where kernels are kept; HOTPATH_GUEST_CACHE wins (tests share one)."""
    explicit = os.environ.get("HOTPATH_GUEST_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "hotpath"


def _apt(*args: str) -> str:
    if shutil.which(args[0]) is None:
        raise HotpathError(f"{args[0]} not found: the guest kernel comes from Debian's archive")
    done = subprocess.run(list(args), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise HotpathError(f"{' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


APT_LISTS = Path("/var/lib/apt/lists")


def default_version() -> str:
    """The kernel linux-image-amd64 points at: the newest Debian offers.

    apt-cache takes most of a second, so the answer is kept beside the
    kernels and asked again only once apt's package lists have changed."""
    remembered = cache_root() / "kernels" / "default.json"
    lists_mtime = APT_LISTS.stat().st_mtime if APT_LISTS.is_dir() else 0.0
    try:
        known = json.loads(remembered.read_text())
        if known["lists_mtime"] == lists_mtime and VERSION_RE.match(known["version"]):
            return str(known["version"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    depends = _apt("apt-cache", "depends", "linux-image-amd64")
    match = re.search(r"Depends: linux-image-(\S+-amd64)\b", depends)
    if match is None:
        raise HotpathError(
            "apt-cache does not know linux-image-amd64's kernel; run apt-get update first"
        )
    remembered.parent.mkdir(parents=True, exist_ok=True)
    partial = remembered.with_name(f"default.json.{os.getpid()}")
    partial.write_text(json.dumps({"lists_mtime": lists_mtime, "version": match.group(1)}))
    partial.replace(remembered)
    return match.group(1)


def _package_version(package: str) -> str | None:
    """The candidate version of a package, None when apt does not know it."""
    done = subprocess.run(
        ["apt-cache", "policy", package], capture_output=True, text=True, check=False
    )
    match = re.search(r"Candidate: (\S+)", done.stdout)
    if match is None or match.group(1) == "(none)":
        return None
    return match.group(1)


def packages_for(version: str) -> list[str]:
    """Image, headers and what the headers depend on (their common part, kbuild)."""
    image = f"linux-image-{version}"
    headers = f"linux-headers-{version}"
    if _package_version(image) is None:
        raise UsageError(
            f"kernel version {version!r}: apt knows no package {image}; allowed: the versions "
            "of `apt-cache search --names-only '^linux-image-[0-9.]+-[0-9]+-amd64$'`"
        )
    depends = _apt("apt-cache", "depends", headers)
    wanted = [image, headers]
    for name in re.findall(r"^\s*Depends: (linux-(?:headers|kbuild)-\S+)$", depends, re.M):
        if name not in wanted:
            wanted.append(name)
    return wanted


def _download(packages: list[str], into: Path) -> None:
    command = ["apt-get", "download", "-o", "APT::Sandbox::User=root", *packages]
    done = subprocess.run(command, cwd=into, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise HotpathError(
            f"apt-get download {' '.join(packages)} failed (apt-get update, if the package "
            f"lists are old, lets it find the current files): {done.stderr.strip()}"
        )


def _point_headers_at(tree: Path, version: str) -> None:
    """The flavour's Makefile includes the common part by its absolute
    /usr/src path; in the cache it must name the unpacked copy instead."""
    makefile = tree / "usr" / "src" / f"linux-headers-{version}" / "Makefile"
    text = makefile.read_text()
    fixed = re.sub(r"^include /usr/src/", f"include {tree}/usr/src/", text, flags=re.M)
    makefile.write_text(fixed)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One process fills a cache entry; the others wait for it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _size_mib(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 2**20
    total = sum(p.lstat().st_size for p in path.rglob("*") if not p.is_symlink())
    return total / 2**20


def _fill(entry: Path, version: str, packages: list[str], log: Log) -> None:
    work = entry.with_name(f"{entry.name}.partial-{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    debs = work / "debs"
    tree = entry / "tree"  # final location: the Makefile fix names it
    debs.mkdir(parents=True)
    try:
        start = time.monotonic()
        _download(packages, debs)
        fetched = time.monotonic() - start
        log(
            f"downloaded {len(packages)} packages ({', '.join(packages)}): "
            f"{_size_mib(debs):.1f} MiB in {fetched:.1f} s"
        )
        start = time.monotonic()
        for deb in sorted(debs.glob("*.deb")):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(work / "tree")], check=True)
        vmlinuz = work / "tree" / "boot" / f"vmlinuz-{version}"
        if not vmlinuz.is_file():
            raise HotpathError(f"linux-image-{version} has no boot/vmlinuz-{version}")
        extract_vmlinux(vmlinuz, work / "vmlinux")
        shutil.rmtree(debs)
        shutil.rmtree(entry, ignore_errors=True)
        work.rename(entry)
        _point_headers_at(tree, version)
        unpacked = time.monotonic() - start
        facts = {"packages": packages, "download_s": fetched, "unpack_s": unpacked}
        (entry / "READY").write_text(json.dumps(facts) + "\n")
        log(
            f"unpacked into {entry}: {_size_mib(entry):.0f} MiB "
            f"(vmlinux {_size_mib(entry / 'vmlinux'):.1f} MiB) in {unpacked:.1f} s"
        )
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def bundle_at(entry: Path, version: str) -> KernelBundle:
    tree = entry / "tree"
    return KernelBundle(
        version=version,
        vmlinux=entry / "vmlinux",
        modules_dir=tree / "lib" / "modules" / version,
        build_dir=tree / "usr" / "src" / f"linux-headers-{version}",
    )


def kernel_bundle(version: str | None = None, *, log: Log = _stderr) -> KernelBundle:
    """The guest kernel `version` (None: the newest linux-image-amd64 Debian
    offers), downloaded and unpacked into the cache on first use."""
    if version is not None and not VERSION_RE.match(version):
        raise UsageError(
            f"kernel version {version!r}: allowed: a Debian amd64 kernel's uname -r, "
            "e.g. 6.1.0-28-amd64"
        )
    if version is None:
        version = default_version()
    entry = cache_root() / "kernels" / version
    if not (entry / "READY").is_file():
        packages = packages_for(version)  # an unknown version is refused before any write
        with _locked(entry.with_name(f"{version}.lock")):
            if not (entry / "READY").is_file():
                log(f"first use of kernel {version}: fetching it from Debian's archive")
                _fill(entry, version, packages, log)
    return bundle_at(entry, version)
