# SPDX-License-Identifier: GPL-2.0-only
"""Debian's linux-source packages: downloaded once, a few files kept.

Each package (linux-source-6.1, linux-source-6.12: a .deb of about 140
MB holding the whole tree as one tar.xz) is downloaded with `apt-get
download`, and only the files the shim builds (layouts.SOURCE_FILES) are
extracted from it, streamed (dpkg-deb | tar | tar -xJ), into

    <cache>/kernel-source/<package>/<Debian version>/tree/
    <cache>/kernel-source/<package>/<Debian version>/READY   (written last)

The .deb is not kept. An entry whose READY lacks a file a newer hotpath
wants is fetched again when it can be, and used as it is when it cannot.
`hotpath kernels fetch` (run by scripts/setup.sh) fills the cache; a lab
run uses what is there, and tries to fetch a package that is missing.
"""

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from hotpath.debian import cache_root, candidate_version, download, locked
from hotpath.errors import HotpathError
from hotpath.kernelsrc.layouts import LINUX_SOURCE_PACKAGES, SOURCE_FILES
from hotpath.kernelsrc.trees import KernelTree, folder_tree


@dataclass(frozen=True)
class Entry:
    package: str
    version: str  # Debian's: 6.12.117-1~deb12u1
    root: Path

    @property
    def tree_dir(self) -> Path:
        return self.root / "tree"

    def files(self) -> list[str]:
        try:
            return list(json.loads((self.root / "READY").read_text())["files"])
        except (OSError, ValueError, KeyError, TypeError):
            return []

    def tree(self) -> KernelTree:
        short = self.package.removeprefix("linux-source-")
        return folder_tree(self.tree_dir, f"linux-{short}", f"Debian {self.package} {self.version}")


def package_dir(package: str) -> Path:
    return cache_root() / "kernel-source" / package


def cached(package: str) -> list[Entry]:
    """The complete entries of a package in the cache, newest first."""
    folder = package_dir(package)
    found = (
        [
            Entry(package, child.name, child)
            for child in folder.iterdir()
            if (child / "READY").is_file()
        ]
        if folder.is_dir()
        else []
    )
    return sorted(found, key=lambda e: e.root.stat().st_mtime, reverse=True)


def _extract(deb: Path, package: str, into: Path) -> list[str]:
    """The wanted files of the package's inner tarball, into `into`."""
    inner = f"./usr/src/{package}.tar.xz"
    top = package  # the tarball's top folder: linux-source-6.12/
    into.mkdir(parents=True)
    outer = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    middle = subprocess.Popen(
        ["tar", "-xOf", "-", inner], stdin=outer.stdout, stdout=subprocess.PIPE
    )
    assert outer.stdout is not None and middle.stdout is not None
    outer.stdout.close()
    wanted = [f"{top}/{path}" for path in SOURCE_FILES]
    # tar exits 2 for a wanted file the tree does not have; the rest is extracted.
    subprocess.run(
        ["tar", "-xJf", "-", "-C", str(into), "--strip-components=1", *wanted],
        stdin=middle.stdout,
        capture_output=True,
        check=False,
    )
    middle.stdout.close()
    if middle.wait() != 0 or outer.wait() != 0:
        raise HotpathError(f"{deb.name}: could not read {inner} from the package")
    return [path for path in SOURCE_FILES if (into / path).is_file()]


def fetch(package: str, version: str) -> Entry:
    """Download the package and extract its files into a new cache entry."""
    entry = package_dir(package) / version
    with locked(package_dir(package) / f"{version}.lock"):
        ready = Entry(package, version, entry)
        if (entry / "READY").is_file() and _complete(ready):
            return ready  # another process fetched it meanwhile
        work = entry.with_name(f"{version}.partial-{os.getpid()}")
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        try:
            start = time.monotonic()
            download([f"{package}={version}"], work)
            debs = sorted(work.glob("*.deb"))
            if not debs:
                raise HotpathError(f"apt-get download {package}={version} left no .deb")
            files = _extract(debs[0], package, work / "tree")
            for deb in debs:
                deb.unlink()
            facts = {
                "package": package,
                "version": version,
                "files": files,
                "wanted": list(SOURCE_FILES),
                "seconds": round(time.monotonic() - start, 1),
            }
            (work / "READY").write_text(json.dumps(facts) + "\n")
            shutil.rmtree(entry, ignore_errors=True)
            work.rename(entry)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    return Entry(package, version, entry)


def _known_absent(entry: Entry) -> bool:
    """The entry was extracted wanting every file this hotpath wants:
    what it lacks, the package does not have."""
    try:
        wanted = json.loads((entry.root / "READY").read_text()).get("wanted", [])
    except (OSError, ValueError, AttributeError):
        return False
    return set(SOURCE_FILES) <= set(wanted)


def _complete(entry: Entry) -> bool:
    return set(SOURCE_FILES) <= set(entry.files()) or _known_absent(entry)


def locate(package: str, allow_fetch: bool = True) -> tuple[Entry | None, str]:
    """The entry to use for a package, and what was done or why there is none.

    The candidate apt knows is used when cached (complete); else fetched
    when `allow_fetch` and apt can; else the newest cached entry; else None.
    """
    have = cached(package)
    candidate = candidate_version(package)
    for entry in have:
        if entry.version == candidate and _complete(entry):
            return entry, "cached"
    problem = "apt knows no such package (apt-get update?)" if candidate is None else ""
    if candidate is not None and allow_fetch:
        try:
            return fetch(package, candidate), "downloaded"
        except HotpathError as err:
            problem = str(err).splitlines()[0]
    if have:
        return have[0], f"cached {have[0].version} (newer not fetched: {problem or 'not tried'})"
    return None, problem or "not in the cache (hotpath kernels fetch)"


def debian_trees(allow_fetch: bool = True) -> tuple[list[KernelTree], list[str]]:
    """The Debian kernels to time, and a line for each that is missing."""
    trees, missing = [], []
    for package in LINUX_SOURCE_PACKAGES:
        entry, how = locate(package, allow_fetch)
        if entry is None:
            missing.append(f"{package}: {how}")
        else:
            trees.append(entry.tree())
    return trees, missing
