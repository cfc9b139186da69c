# SPDX-License-Identifier: GPL-2.0-only
"""libhpsum as a user links it: `make install PREFIX=...`, pkg-config, the
README's example program built against the installed copy, and an ABI of
exactly the two functions of <hpsum.h>."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.skipif(
    shutil.which("pkg-config") is None or shutil.which("cc") is None,
    reason="needs pkg-config and a C compiler (scripts/setup.sh installs both)",
)


def rfc1071_folded(data: bytes) -> int:
    """The Internet checksum, written here independently of the C code."""
    total = sum(data[i] | (data[i + 1] << 8) for i in range(0, len(data) - 1, 2))
    if len(data) % 2:
        total += data[-1]
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def test_installed_library_links_and_runs(tmp_path: Path):
    prefix = tmp_path / "prefix"
    subprocess.run(["make", "-s", "-C", str(ROOT), "install", f"PREFIX={prefix}"], check=True)
    lib = prefix / "lib"
    assert (lib / "libhpsum.so.1").is_symlink() and (prefix / "include" / "hpsum.h").is_file()
    env = {**os.environ, "PKG_CONFIG_PATH": str(lib / "pkgconfig")}
    flags = subprocess.run(
        ["pkg-config", "--cflags", "--libs", "hpsum"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    exe = tmp_path / "hpsum_example"
    example = ROOT / "docs" / "examples" / "hpsum_example.c"
    subprocess.run(["cc", str(example), *flags, "-o", str(exe)], check=True)
    out = subprocess.run(
        [str(exe)], env={**env, "LD_LIBRARY_PATH": str(lib)},
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "crc32c check value: 0xE3069283" in out
    assert f"internet checksum:  0x{rfc1071_folded(b'123456789'):04X}" in out
    soname = subprocess.run(
        ["objdump", "-p", str(lib / "libhpsum.so.1")], capture_output=True, text=True, check=True
    ).stdout
    assert "SONAME               libhpsum.so.1" in soname
    exported = subprocess.run(
        ["nm", "-D", "--defined-only", str(lib / "libhpsum.so.1")],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    names = {line.split()[-1].split("@")[0] for line in exported.splitlines()}
    assert names - {"HPSUM_1"} == {"hp_csum", "hp_crc32c"}
