# SPDX-License-Identifier: GPL-2.0-only
"""A guest's initramfs: a cpio archive (the kernel's "newc" format) written
here, so that no cpio program is needed, from a table of entries.

The kernel unpacks an uncompressed newc archive directly; under software
emulation that is faster than making the guest decompress one.
"""

import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_TRAILER = "TRAILER!!!"


@dataclass(frozen=True)
class Entry:
    """One file, directory or symlink of the archive (path without leading /)."""

    path: str
    mode: int  # full st_mode: type bits and permissions
    data: bytes = b""  # file contents, or the symlink's target


def directory(path: str) -> Entry:
    return Entry(path.strip("/"), stat.S_IFDIR | 0o755)


def file(path: str, data: bytes, executable: bool = False) -> Entry:
    return Entry(path.strip("/"), stat.S_IFREG | (0o755 if executable else 0o644), data)


def symlink(path: str, target: str) -> Entry:
    return Entry(path.strip("/"), stat.S_IFLNK | 0o777, target.encode())


def host_file(path: str, source: Path) -> Entry:
    """A host file, keeping its executable bit."""
    executable = bool(source.stat().st_mode & 0o111)
    return file(path, source.read_bytes(), executable)


def _pad4(length: int) -> bytes:
    return b"\0" * (-length % 4)


def _header(ino: int, entry: Entry, nlink: int) -> bytes:
    name = entry.path.encode() + b"\0"
    fields = (ino, entry.mode, 0, 0, nlink, 0, len(entry.data), 0, 0, 0, 0, len(name), 0)
    head = b"070701" + b"".join(b"%08X" % value for value in fields)
    return head + name + _pad4(len(head) + len(name))


def parents(entries: Iterable[Entry]) -> list[Entry]:
    """Directories that entries need and do not list, parents first."""
    listed = {entry.path for entry in entries}
    missing: set[str] = set()
    for entry in entries:
        parts = entry.path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            parent = "/".join(parts[:depth])
            if parent not in listed:
                missing.add(parent)
    return [directory(path) for path in sorted(missing, key=lambda p: (p.count("/"), p))]


def write_cpio(entries: list[Entry], out: Path) -> Path:
    """Write entries (with their missing parent directories) as newc cpio."""
    with out.open("wb") as sink:
        for ino, entry in enumerate(parents(entries) + entries, start=1):
            nlink = 2 if stat.S_ISDIR(entry.mode) else 1
            sink.write(_header(ino, entry, nlink))
            sink.write(entry.data + _pad4(len(entry.data)))
        sink.write(_header(0, Entry(_TRAILER, 0), 1))
    return out
