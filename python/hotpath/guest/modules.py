# SPDX-License-Identifier: GPL-2.0-only
"""Which of a kernel package's modules to load, in order.

The package ships no modules.dep (depmod writes it at install time, and we
never install), so the dependencies come from each module's own .modinfo
section ("depends=a,b"), read from the ELF file here.
"""

import struct
from collections.abc import Sequence
from pathlib import Path

from hotpath.errors import HotpathError, UsageError


def _section(elf: bytes, wanted: str) -> bytes:
    """The contents of a named section of a 64-bit little-endian ELF file."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise HotpathError("not a 64-bit little-endian ELF file")
    shoff = struct.unpack_from("<Q", elf, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)

    def header(index: int) -> tuple[int, int, int]:
        base = shoff + index * shentsize
        name = struct.unpack_from("<I", elf, base)[0]
        offset, size = struct.unpack_from("<QQ", elf, base + 0x18)
        return name, offset, size

    _, names_at, _ = header(shstrndx)
    for index in range(shnum):
        name, offset, size = header(index)
        end = elf.index(b"\0", names_at + name)
        if elf[names_at + name : end].decode() == wanted:
            return elf[offset : offset + size]
    raise HotpathError(f"no {wanted} section")


def modinfo(path: Path) -> dict[str, str]:
    """The key=value pairs of a module's .modinfo (the last value per key)."""
    try:
        raw = _section(path.read_bytes(), ".modinfo")
    except HotpathError as exc:
        raise HotpathError(f"{path}: {exc}") from exc
    info: dict[str, str] = {}
    for item in raw.split(b"\0"):
        key, sep, value = item.decode(errors="replace").partition("=")
        if sep:
            info[key] = value
    return info


def _canonical(name: str) -> str:
    # The kernel treats - and _ in module names as the same character.
    return name.replace("-", "_")


def module_index(modules_dir: Path) -> dict[str, Path]:
    """Module name -> .ko path, for every module the package ships."""
    return {_canonical(ko.name[: -len(".ko")]): ko for ko in modules_dir.rglob("*.ko")}


def builtin_names(modules_dir: Path) -> set[str]:
    """Modules compiled into the kernel (modules.builtin): nothing to load."""
    listing = modules_dir / "modules.builtin"
    if not listing.is_file():
        return set()
    return {_canonical(Path(line).name.removesuffix(".ko")) for line in listing.read_text().split()}


def load_order(modules_dir: Path, names: Sequence[str]) -> list[Path]:
    """The .ko files to insmod for names, each after its dependencies;
    modules built into the kernel are left out."""
    index = module_index(modules_dir)
    builtin = builtin_names(modules_dir)
    order: list[Path] = []
    seen: set[str] = set()

    def visit(name: str, chain: tuple[str, ...]) -> None:
        key = _canonical(name)
        if key in seen or (key in builtin and key not in index):
            return
        if key in chain:
            raise HotpathError(f"module dependency cycle: {' -> '.join((*chain, key))}")
        if key not in index:
            raise UsageError(
                f"module {name!r}: not among the {len(index)} modules of {modules_dir}"
            )
        for dependency in filter(None, modinfo(index[key]).get("depends", "").split(",")):
            visit(dependency, (*chain, key))
        seen.add(key)
        order.append(index[key])

    for name in names:
        visit(name, ())
    return order
