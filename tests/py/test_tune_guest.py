# SPDX-License-Identifier: GPL-2.0-only
"""hotpath tune on a real kernel: Debian's, booted in QEMU (hotpath.guest).

The host's / is shared read-only at /host with the guest's own /proc, /sys
and a tmpfs /tmp over it, so `chroot /host python -m hotpath tune ...`
writes the GUEST's settings; the host's are never touched. The state folder
is in the guest's /tmp. `python -m hotpath tune` (not the `hotpath` script,
which is not in the guest's PATH): the CLI loads tune's command alone, and
no numpy, which stops with SIGILL on the emulated CPU.

Two boots, about 60 s under software emulation together: the seed's profile
applies, verifies and reverts cleanly (a guest without block devices); and
with loop devices, where the kernel refuses ktweak's nr_requests=512
(EINVAL: the loop queue's tag depth is 128 without an I/O scheduler), the
writes before it are rolled back.
"""

import sys

import pytest

from conftest import MACHINE_CACHE
from hotpath.guest import KernelBundle, kernel_bundle, run_guest

# Taken before the autouse fixture points XDG_CACHE_HOME at a fresh folder.
# This interpreter (the venv's, whose path points at this checkout) seen
# through the guest's /host.
TUNE = f"chroot /host {sys.executable} -m hotpath tune"
# ktweak turns ASLR and SYN cookies off: apply refuses that unless told (the
# guest's own settings, thrown away with it).
ALLOW = "--allow-security-loss aslr,syncookies"
# debugfs for the sched_*_ns knobs and scheduler features (moved there in 5.13).
DEBUGFS = "mount -t debugfs debugfs /host/sys/kernel/debug || exit 97\n"


@pytest.fixture(scope="module")
def bundle() -> KernelBundle:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOTPATH_GUEST_CACHE", str(MACHINE_CACHE))
        return kernel_bundle()


def run(bundle: KernelBundle, script: str, modules: tuple[str, ...] = ()) -> dict[str, str]:
    result = run_guest(
        bundle, DEBUGFS + script, share_host_root=True, modules=modules, time_limit_s=400
    )
    assert result.exit_kind == "done", (result.detail, result.console[-2000:])
    assert result.status == 0, result.console[-2000:]
    return {name: data.decode() for name, data in result.outputs.items()}


def step(name: str, command: str) -> str:
    """One command, its output in /out/NAME and its exit status in /out/NAME.rc."""
    return f"{TUNE} {command} > /out/{name} 2>&1; echo $? > /out/{name}.rc\n"


def test_ktweak_applies_verifies_reverts_in_guest(bundle):
    out = run(
        bundle,
        step("before", "diff ktweak")
        + step("apply", f"apply ktweak --state-dir /tmp/state {ALLOW}")
        + step("verify", "verify ktweak")
        + step("revert", "revert --state-dir /tmp/state")
        + step("after", "diff ktweak")
        + "ls /host/tmp/state > /out/state-left\n",
    )
    assert out["apply.rc"].strip() == "0", out["apply"]
    changed = int(out["apply"].split("applied 'ktweak': ")[1].split()[0])
    # Debian 6.1 (CFS): the sched_*_ns knobs in debugfs, the features, sysctls.
    assert changed >= 25, out["apply"]
    assert "wrote debugfs:sched/latency_ns" in out["apply"]
    assert "wrote sched_feature:NEXT_BUDDY" in out["apply"]
    assert (
        "skipped kernel.sched_upmigrate: not on this kernel (Android kernels only)" in out["apply"]
    )
    assert out["verify.rc"].strip() == "0", out["verify"]
    assert "DIFFERS" not in out["verify"]
    assert out["revert.rc"].strip() == "0", out["revert"]
    assert f"reverted 'ktweak': {changed} restored" in out["revert"]
    assert "REFUSED" not in out["revert"]
    assert out["after"] == out["before"]  # every value as it was
    assert out["state-left"] == ""  # the snapshot is gone once everything is back


def test_refused_write_rolls_back_on_a_real_kernel(bundle):
    out = run(
        bundle,
        step("before", "diff ktweak")
        + step("apply", f"apply ktweak --state-dir /tmp/state {ALLOW}")
        + step("after", "diff ktweak")
        + "ls /host/tmp/state > /out/state-left\n",
        modules=("loop",),
    )
    assert out["apply.rc"].strip() == "1", out["apply"]
    assert (
        "writing block:loop0:nr_requests = 512 failed: Invalid argument (errno 22)" in out["apply"]
    )
    assert "rolled back: " in out["apply"] and "kernel.perf_cpu_time_max_percent" in out["apply"]
    assert "ROLLBACK REFUSED" not in out["apply"]
    assert out["after"] == out["before"]
    assert out["state-left"] == ""
