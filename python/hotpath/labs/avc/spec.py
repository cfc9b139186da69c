# SPDX-License-Identifier: GPL-2.0-only
"""The avc lab as data (hotpath.labs.lab.Lab)."""

from hotpath.labs.lab import Lab, Suite

LAB = Lab(
    name="avc",
    title="SELinux AVC cache lookups per hash function (seed 004)",
    default_sizes=(512, 2048, 8192),
    default_aligns=(0,),
    suite=Suite(sizes=(512, 2048, 8192), aligns=(0,), rounds=200, quick_rounds=40),
    sizes_are_bytes=False,
    size_unit="nodes",
    show_align=False,
    # The kernel's own lookup (avc.c of Debian's trees, kernelsrc.kbuilt)
    # beside the re-implementation of the same hash.
    counterparts={"avc_lookup": {"orig": "linux-6.12"}},
)
