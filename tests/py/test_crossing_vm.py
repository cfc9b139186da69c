# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath crossing --kernel vm` for real: one guest boot (Debian's kernel in
QEMU, hotpath.guest), the module built against it, loaded with dir=, gated
on its file's bytes, timed, refusing a file outside its folder, unloaded;
the user-space paths run beside it by the same static program. Then
`--kernel host` run inside a guest (the host's / shared read-only, under
chroot), so the host path is proven without loading anything into this
machine's kernel. Small workloads keep each boot near 10 s under software
emulation.

hotpath.guest is imported here on purpose: without the guest runner this
test fails, it is not skipped.
"""

import json
from pathlib import Path

from conftest import MACHINE_CACHE
from hotpath import guest
from hotpath.cli import build_parser
from hotpath.labs.crossing import check_workload
from hotpath.labs.crossing import vm as crossing_vm
from hotpath.render import crossing as shown

# The kernel packages are cached per machine (as tests/py/test_guest.py does),
# taken before the autouse fixture points XDG_CACHE_HOME at a fresh folder.
ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "build" / "hotpath-crossing-static"
EMULATED = "emulated: not a performance figure"


def test_crossing_in_a_guest_kernel(monkeypatch):
    assert PROGRAM.is_file(), f"{PROGRAM} is not built: run make"
    monkeypatch.setenv("HOTPATH_GUEST_CACHE", str(MACHINE_CACHE))
    monkeypatch.setenv("HOTPATH_CROSSING", str(PROGRAM))
    args = build_parser().parse_args(
        ["crossing", "--kernel", "vm", "--count", "64", "--iterations", "3"]
    )
    result = crossing_vm.run(args, check_workload(args))  # one boot, both renderings
    doc = json.loads(shown.to_json(result))
    assert doc["where"] == "vm" and doc["fs_type"] == "tmpfs"
    assert doc["kernel"] == doc["guest"]["kernel"]  # the program ran in the guest
    by = {p["name"]: p for p in doc["paths"]}
    assert set(by) == {"write", "pwrite", "writev", "io_uring", "kernel_write"}
    kernel = by["kernel_write"]
    assert kernel["status"] == "ok", kernel
    assert len(kernel["samples"]) == 3 and kernel["speedup_vs_write"] is not None
    for name in ("write", "pwrite", "writev"):
        assert by[name]["status"] == "ok" and len(by[name]["samples"]) == 3, by[name]
    assert by["io_uring"]["status"] in ("ok", "unavailable"), by["io_uring"]
    assert any("was refused" in n for n in doc["notes"]), doc["notes"]
    assert any("= OE: as expected" in n for n in doc["notes"]), doc["notes"]
    assert not any("rmmod failed" in n for n in doc["notes"]), doc["notes"]
    assert doc["emulated"] == (doc["accel"] == "tcg")

    # The terminal table: under TCG every figure carries the warning, under
    # KVM none does.
    text = shown.render_text(result)
    rows = [line for line in text.splitlines() if line.startswith(tuple(by))]
    rows += [line for line in text.splitlines() if line.startswith("one system call")]
    timed = [row for row in rows if "WRONG" not in row and "unavailable" not in row]
    assert len(timed) >= 5
    assert all((EMULATED in row) == doc["emulated"] for row in timed), timed
    assert doc["verdict"].endswith(f"({EMULATED})") == doc["emulated"]


def test_kernel_host_path_inside_a_guest_kernel(tmp_path, monkeypatch):
    """`--kernel host` for real without touching this machine's kernel: the
    host's / is shared read-only into a guest and `hotpath crossing --kernel
    host` runs there under chroot, against the guest's kernel. The module is
    built here (compiling under emulation is slow) and handed over with
    HOTPATH_CROSSING_KO; busybox gives the insmod/rmmod the host may lack."""
    monkeypatch.setenv("HOTPATH_GUEST_CACHE", str(MACHINE_CACHE))
    bundle = guest.kernel_bundle()
    ko = guest.build_module(ROOT / "kmod", bundle, tmp_path)
    release = bundle.version
    inner = (
        f"export PATH=/tmp/bin:$PATH HOME=/tmp; mkdir -p /tmp/mods/{release}"
        f" && ln -s {bundle.build_dir} /tmp/mods/{release}/build && cd {ROOT}"
        " && HOTPATH_MODULES_ROOT=/tmp/mods HOTPATH_CROSSING_KO=/tmp/hotpath_crossing.ko"
        f" HOTPATH_CROSSING={PROGRAM} .venv/bin/hotpath crossing --kernel host --count 64"
        " --iterations 3 --json > /tmp/out.json 2> /tmp/err.txt; echo $? > /tmp/rc;"
        " cat /proc/modules > /tmp/modules; ls /tmp > /tmp/left"
    )
    script = "\n".join(
        [
            "mkdir -p /host/tmp/bin && cp /bin/busybox /host/tmp/bin/",
            "ln -s busybox /host/tmp/bin/insmod && ln -s busybox /host/tmp/bin/rmmod",
            "cp /crossing/hotpath_crossing.ko /host/tmp/",
            f"chroot /host /bin/sh -c '{inner}'",
            "cp /host/tmp/out.json /host/tmp/err.txt /host/tmp/rc /host/tmp/modules"
            " /host/tmp/left /out/",
        ]
    )
    result = guest.run_guest(
        bundle,
        script,
        files={"/crossing/hotpath_crossing.ko": ko},
        share_host_root=True,
        time_limit_s=300,
    )
    assert result.exit_kind == "done", result.detail
    out = {k: v.decode() for k, v in result.outputs.items()}
    assert out["rc"].strip() == "0", out["err.txt"]
    doc = json.loads(out["out.json"])
    assert doc["where"] == "host" and doc["kernel"] == release
    kernel = next(p for p in doc["paths"] if p["name"] == "kernel_write")
    assert kernel["status"] == "ok" and len(kernel["samples"]) == 3, kernel
    assert "hotpath_crossing" not in out["modules"]  # unloaded
    assert "hotpath-crossing-" not in out["left"]  # its folder removed
