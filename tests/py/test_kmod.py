# SPDX-License-Identifier: GPL-2.0-only
"""kmod/hotpath_crossing.ko: built against Debian's headers, then loaded,
driven and unloaded in one guest boot (the checks below read its results).

Never loaded into the host's kernel.
"""

import re
import shutil
from pathlib import Path

import pytest

from conftest import MACHINE_CACHE
from hotpath.errors import HotpathError
from hotpath.guest import (
    GuestResult,
    KernelBundle,
    build_module,
    kernel_bundle,
    run_guest,
)
from hotpath.guest.modules import modinfo

ROOT = Path(__file__).resolve().parents[2]
KMOD = ROOT / "kmod"
TAINT_OOT_MODULE = 4096  # O: out-of-tree
TAINT_UNSIGNED_MODULE = 8192  # E: unsigned, on a kernel that signs its own

# Each case: its name, then the request written to /proc/hotpath_crossing/run.
# `try NAME REQUEST` leaves /out/NAME.rc (the write's status) and NAME.err.
GUEST_SCRIPT = r"""
try() {
    name=$1; shift
    echo "$*" > /proc/hotpath_crossing/run 2> /out/$name.err
    echo $? > /out/$name.rc
}
mkdir -p /tmp/x /tmp/y
insmod /work/hotpath_crossing.ko 2> /out/load-no-dir.err; echo $? > /out/load-no-dir.rc
insmod /work/hotpath_crossing.ko dir=tmp/x 2> /out/load-relative.err
echo $? > /out/load-relative.rc
insmod /work/hotpath_crossing.ko dir=/tmp/x; echo $? > /out/load.rc
cat /proc/sys/kernel/tainted > /out/tainted
cat /proc/hotpath_crossing/results > /out/results-before

try relative file=f chunk=1024 count=100 iterations=3
stat -c %s /tmp/x/f > /out/relative.size
cmp -s -n 102400 /tmp/x/f /dev/zero; echo $? > /out/relative.zeros
try absolute file=/tmp/x/g chunk=4096 count=3 iterations=5
stat -c %s /tmp/x/g > /out/absolute.size
cmp -s -n 12288 /tmp/x/g /dev/zero; echo $? > /out/absolute.zeros
cat /proc/hotpath_crossing/results > /out/results-after

try outside file=/tmp/y/f chunk=1 count=1 iterations=1
try dotdot file=/tmp/x/../y/f chunk=1 count=1 iterations=1
ln -s /tmp/y/target /tmp/x/link-out
try symlink-out file=link-out chunk=1 count=1 iterations=1
ln -s /tmp/y /tmp/x/dir-out
try symlinked-dir file=dir-out/f chunk=1 count=1 iterations=1
ls -A /tmp/y > /out/outside-listing
cat /proc/hotpath_crossing/results > /out/results-after-refusals

try chunk-zero file=f chunk=0 count=1 iterations=1
try chunk-big file=f chunk=1048577 count=1 iterations=1
try count-zero file=f chunk=1 count=0 iterations=1
try iterations-big file=f chunk=1 count=1 iterations=4097
try unknown-key file=f chunk=1 count=1 iterations=1 colour=blue
try no-file chunk=1 count=1 iterations=1

rmmod hotpath_crossing; echo $? > /out/unload.rc
cat /proc/sys/kernel/tainted > /out/tainted-end
[ -e /proc/hotpath_crossing ]; echo $? > /out/proc-gone
grep -c hotpath_crossing /proc/modules > /out/still-listed
exit 0
"""


@pytest.fixture(scope="module")
def bundle() -> KernelBundle:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOTPATH_GUEST_CACHE", str(MACHINE_CACHE))
        return kernel_bundle()


@pytest.fixture(scope="module")
def ko(bundle, tmp_path_factory) -> Path:
    return build_module(KMOD, bundle, tmp_path_factory.mktemp("kmod-out"))


@pytest.fixture(scope="module")
def guest(bundle, ko) -> GuestResult:
    result = run_guest(
        bundle, GUEST_SCRIPT, files={"/work/hotpath_crossing.ko": ko}, time_limit_s=120
    )
    assert (result.exit_kind, result.status) == ("done", 0), result.console[-3000:]
    return result


def out(guest: GuestResult, name: str) -> str:
    return guest.outputs[name].decode().strip()


def results_table(text: str) -> tuple[dict[str, str], list[tuple[int, int]]]:
    header, *rows = text.strip().split("\n")
    assert header.startswith("# hotpath_crossing 1 ")
    fields = dict(word.split("=", 1) for word in header.split()[3:])
    return fields, [(int(a), int(b)) for a, b in (row.split() for row in rows)]


def test_module_builds_against_the_debian_headers(ko, bundle):
    info = modinfo(ko)
    assert info["license"] == "GPL v2"
    assert info["vermagic"].split()[0] == bundle.version
    assert info["name"] == "hotpath_crossing"
    assert info["parmtype"] == "dir:charp"


def test_build_failure_carries_the_compilers_message(bundle, tmp_path):
    source = tmp_path / "broken"
    shutil.copytree(KMOD, source, ignore=shutil.ignore_patterns("*.ko", "*.o"))
    path = source / "hotpath_crossing.c"
    path.write_text(path.read_text() + "\nthis is not C;\n")
    with pytest.raises(HotpathError, match=r"hotpath_crossing\.c:\d+:\d+: error"):
        build_module(source, bundle, tmp_path / "out")


def test_loading_needs_an_absolute_dir(guest):
    assert out(guest, "load-no-dir.rc") != "0"
    assert out(guest, "load-relative.rc") != "0"
    assert out(guest, "load.rc") == "0"


def test_taint_is_out_of_tree_and_unsigned(guest):
    assert int(out(guest, "tainted")) == TAINT_OOT_MODULE | TAINT_UNSIGNED_MODULE


def test_results_empty_before_a_run(guest):
    assert out(guest, "results-before") == "# hotpath_crossing 1 none"


@pytest.mark.parametrize(
    ("case", "size"),
    [("relative", 1024 * 100), ("absolute", 4096 * 3)],
)
def test_run_writes_count_times_chunk_zero_bytes(guest, case, size):
    assert out(guest, f"{case}.rc") == "0", out(guest, f"{case}.err")
    assert int(out(guest, f"{case}.size")) == size
    assert out(guest, f"{case}.zeros") == "0"  # cmp against /dev/zero: identical


def test_results_report_the_last_run(guest):
    fields, rows = results_table(out(guest, "results-after"))
    assert fields == {
        "file": "/tmp/x/g",
        "chunk": "4096",
        "count": "3",
        "iterations": "5",
        "bytes_per_iteration": "12288",
    }
    assert [index for index, _ in rows] == list(range(5))
    assert all(ns > 0 for _, ns in rows)


@pytest.mark.parametrize("case", ["outside", "dotdot", "symlink-out", "symlinked-dir"])
def test_paths_outside_dir_are_refused(guest, case):
    assert out(guest, f"{case}.rc") != "0"
    assert re.search(r"Permission denied|Operation not permitted", out(guest, f"{case}.err"))


def test_refusals_create_nothing_and_leave_no_stale_results(guest):
    assert out(guest, "outside-listing") == ""
    assert out(guest, "results-after-refusals") == "# hotpath_crossing 1 none"


@pytest.mark.parametrize(
    "case",
    ["chunk-zero", "chunk-big", "count-zero", "iterations-big", "unknown-key", "no-file"],
)
def test_bad_values_are_einval(guest, case):
    assert out(guest, f"{case}.rc") != "0"
    assert "Invalid argument" in out(guest, f"{case}.err")


def test_unloads_cleanly(guest):
    assert out(guest, "unload.rc") == "0"
    assert out(guest, "proc-gone") == "1"  # [ -e ] false: the entry is gone
    assert out(guest, "still-listed") == "0"
    # No WARN (W, 512) or oops (D, 128) on the way: the taint did not change.
    assert int(out(guest, "tainted-end")) == TAINT_OOT_MODULE | TAINT_UNSIGNED_MODULE
    assert "BUG" not in guest.console and "WARNING" not in guest.console
