# SPDX-License-Identifier: GPL-2.0-only
"""libhpsum as a user links it: `make install PREFIX=...`, pkg-config, the
README's example program built against the installed copy, and an ABI of
exactly the two functions of <hpsum.h>. And what it does at load with
HOTPATH_DISPATCH: never read in a set-uid program, a bad file named by
its line and never shown, a FIFO not waited on."""

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT
from hotpath.runner import build_dir

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
    subprocess.run(["make", "-s", "-C", str(ROOT), f"BUILD={build_dir(ROOT)}", "install",
                    f"PREFIX={prefix}"], check=True)  # fmt: skip
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


# A program that links libhpsum: the row is chosen when the library loads,
# before main; euid says whether the set-uid bit took.
PROGRAM = r"""
#include <hpsum.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("euid %d crc %08x\n", (int)geteuid(), ~hp_crc32c(~0u, "123456789", 9));
	return 0;
}
"""
CHECK_VALUE = "crc e3069283"


def hpsum_program(folder: Path) -> Path:
    """PROGRAM linked against the built libhpsum, copied beside it into
    `folder` and found there by an absolute run path (one that a set-uid
    program's loader follows too)."""
    lib = build_dir(ROOT) / "libhpsum.so.1.0.0"
    subprocess.run(["make", "-s", "-C", str(ROOT), f"BUILD={build_dir(ROOT)}", str(lib)],
                   check=True)  # fmt: skip
    shutil.copy(lib, folder / "libhpsum.so.1")
    source, exe = folder / "program.c", folder / "program"
    source.write_text(PROGRAM)
    subprocess.run(["cc", str(source), f"-I{ROOT / 'c' / 'include'}", str(folder / "libhpsum.so.1"),
                    f"-Wl,-rpath,{folder}", "-o", str(exe)], check=True)  # fmt: skip
    return exe


def run_program(exe: Path, dispatch: Path, user: pwd.struct_passwd | None = None,
                **env: str) -> subprocess.CompletedProcess:  # fmt: skip
    """The program with HOTPATH_DISPATCH=`dispatch` (as `user` if given); a
    deadline, for a program that blocks at load never reaches main."""
    as_user = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []} if user else {}
    return subprocess.run(
        [str(exe)], env={"PATH": os.environ["PATH"], "HOTPATH_DISPATCH": str(dispatch), **env},
        capture_output=True, text=True, timeout=30, check=True, **as_user,
    )  # fmt: skip


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A temporary folder another user may enter (pytest's is root's alone)."""
    with tempfile.TemporaryDirectory(prefix="hotpath-hpsum-") as name:
        folder = Path(name)
        folder.chmod(0o755)
        yield folder


def test_a_set_uid_program_ignores_hotpath_dispatch_and_cpu_hide(open_folder: Path):
    # Read with getenv, a set-uid root program run by anyone opened the file
    # HOTPATH_DISPATCH named with root's rights and printed its first line.
    if os.geteuid() != 0:
        pytest.skip("making a set-uid root copy needs root (the tests run as root)")
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no unprivileged user 'nobody' to run the set-uid copy as")
    exe = hpsum_program(open_folder)
    secret = open_folder / "secret"
    secret.write_text("SECRET-FIRST-LINE\n")
    secret.chmod(0o600)
    set_uid = open_folder / "program-set-uid"
    shutil.copy(exe, set_uid)
    os.chown(set_uid, 0, 0)
    set_uid.chmod(0o4755)
    # the same program without the bit reads both variables, as nobody
    plain = run_program(exe, secret, nobody, HOTPATH_CPU_HIDE="bogus")
    assert f"HOTPATH_DISPATCH '{secret}': Permission denied" in plain.stderr
    assert "HOTPATH_CPU_HIDE: 'bogus' is not a CPU feature" in plain.stderr
    res = run_program(set_uid, secret, nobody, HOTPATH_CPU_HIDE="bogus")
    if not res.stdout.startswith("euid 0 "):
        pytest.skip(f"the set-uid bit did not take here ({res.stdout.strip()}): "
                    "a nosuid mount or no_new_privs")  # fmt: skip
    # neither variable read: nothing said of either, the file's line unseen
    assert CHECK_VALUE in res.stdout
    assert "HOTPATH_" not in res.stderr and "SECRET" not in res.stderr, res.stderr


def test_a_bad_row_file_is_named_by_its_line_never_shown(tmp_path: Path):
    exe = hpsum_program(tmp_path)
    row = tmp_path / "row.txt"
    row.write_text("# a comment\nSECRET-LINE\n")
    res = run_program(exe, row)
    assert CHECK_VALUE in res.stdout
    assert (f"hotpath: HOTPATH_DISPATCH '{row}': line 2: expected KEY = VALUE; "
            "using the built-in row\n") in res.stderr  # fmt: skip
    assert "SECRET" not in res.stderr


def test_a_fifo_folder_or_device_as_hotpath_dispatch_is_named_not_waited_on(tmp_path: Path):
    exe = hpsum_program(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, what in ((fifo, "not a regular file"), (tmp_path, "is a directory"),
                       (Path("/dev/zero"), "not a regular file")):  # fmt: skip
        res = run_program(exe, path)
        assert CHECK_VALUE in res.stdout
        assert (f"hotpath: HOTPATH_DISPATCH '{path}': {what}, expected a row file; using the "
                "built-in row\n") in res.stderr  # fmt: skip
