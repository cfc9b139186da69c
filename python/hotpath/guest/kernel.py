# SPDX-License-Identifier: GPL-2.0-only
"""A Debian kernel for the guest: its packages downloaded (never installed),
unpacked into the cache, its vmlinux extracted; everything kept so that the
second use costs nothing.

Cache layout, under hotpath.debian.cache_root():

    kernels/<version>/tree/     dpkg-deb -x of linux-image, linux-headers
                                (flavour and common) and linux-kbuild
    kernels/<version>/vmlinux   the uncompressed kernel QEMU boots
    kernels/<version>/READY     written last: the entry is complete
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hotpath.debian import APT_LISTS, apt, cache_root, download, locked, package_version
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
    depends = apt("apt-cache", "depends", "linux-image-amd64")
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


def packages_for(version: str) -> list[str]:
    """Image, headers and what the headers depend on (their common part, kbuild)."""
    image = f"linux-image-{version}"
    headers = f"linux-headers-{version}"
    if package_version(image) is None:
        raise UsageError(
            f"kernel version {version!r}: apt knows no package {image}; allowed: the versions "
            "of `apt-cache search --names-only '^linux-image-[0-9.]+-[0-9]+-amd64$'`"
        )
    depends = apt("apt-cache", "depends", headers)
    wanted = [image, headers]
    for name in re.findall(r"^\s*Depends: (linux-(?:headers|kbuild)-\S+)$", depends, re.M):
        if name not in wanted:
            wanted.append(name)
    return wanted


def _point_headers_at(tree: Path, version: str) -> None:
    """The flavour's Makefile includes the common part by its absolute
    /usr/src path; in the cache it must name the unpacked copy instead."""
    makefile = tree / "usr" / "src" / f"linux-headers-{version}" / "Makefile"
    text = makefile.read_text()
    fixed = re.sub(r"^include /usr/src/", f"include {tree}/usr/src/", text, flags=re.M)
    makefile.write_text(fixed)


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
        download(packages, debs)
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
        with locked(entry.with_name(f"{version}.lock")):
            if not (entry / "READY").is_file():
                log(f"first use of kernel {version}: fetching it from Debian's archive")
                _fill(entry, version, packages, log)
    return bundle_at(entry, version)
