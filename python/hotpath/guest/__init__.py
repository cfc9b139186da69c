# SPDX-License-Identifier: GPL-2.0-only
"""The guest-kernel runner: a Debian kernel booted in QEMU with a generated
busybox initramfs, one command run inside, its results brought back.

    bundle = kernel_bundle()                      # downloaded and cached once
    ko = build_module(Path("kmod"), bundle, out)  # against that kernel's headers
    result = run_guest(bundle, "insmod /work/m.ko && cat /proc/x > /out/x",
                       files={"/work/m.ko": ko})
    result.exit_kind, result.status, result.outputs["x"], result.emulated

Under software emulation (result.emulated) a timing from the guest is not a
performance figure: say so wherever one is shown.
"""

from hotpath.guest.build import build_module
from hotpath.guest.kernel import KernelBundle, cache_root, kernel_bundle
from hotpath.guest.qemu import GuestResult, run_guest

__all__ = [
    "GuestResult",
    "KernelBundle",
    "build_module",
    "cache_root",
    "kernel_bundle",
    "run_guest",
]
