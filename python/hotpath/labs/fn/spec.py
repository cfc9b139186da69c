# SPDX-License-Identifier: GPL-2.0-only
"""The fn lab as data (hotpath.labs.lab.Lab).

Its primitives are the runner's (c/fn/): crc32_le ... find_next_bit, each
with its kind's default sizes; `hotpath fn --primitive NAME` times one.
No suite: twenty primitives of references and glibc would cost `hotpath
run` far more than its budget allows, and the lab's figures matter beside
a kernel's own code, which `hotpath patch` and `hotpath fn` bring.
"""

from hotpath.labs.lab import Lab

LAB = Lab(
    name="fn",
    title="kernel hot functions by kernel name (CRCs, hashes, copies, searches)",
    default_sizes=(16, 64, 256, 1500, 4096),
    default_aligns=(0,),
    align_names={0: "aligned"},
    suite=None,
    # The others are reached with --primitive, at their own (their kind's) sizes.
    default_primitives=("crc32_le",),
)
