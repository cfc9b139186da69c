# SPDX-License-Identifier: GPL-2.0-only
"""The csum lab as data (hotpath.labs.lab.Lab)."""

from hotpath.labs.csum.seed_table import SEED_TABLE
from hotpath.labs.lab import Lab, Suite

LAB = Lab(
    name="csum",
    title="Internet checksum (csum_partial)",
    default_sizes=(40,),
    default_aligns=(0, 1),
    align_names={0: "even", 1: "odd"},
    suite=Suite(
        sizes=(40, 64, 256, 1500, 4096, 65536),
        aligns=(0, 1),
        rounds=200,
        quick_rounds=40,
    ),
    seed_tables=(SEED_TABLE,),
    # csum_fold, ip_fast_csum, csum_ipv6_magic and csum_partial_copy are
    # reached with --primitive, at their own sizes.
    default_primitives=("csum_partial",),
    # kernel-5.17-rc is the seed's broken release candidate, not a release.
    kernel_lineage={"csum_partial": ("kernel-5.17", "kernel-2023", "kernel-2024")},
    # Debian's 6.1 has the 5.17 rewrite, 6.12 the 2024 one (docs/labs/csum.md).
    counterparts={"csum_partial": {"kernel-5.17": "linux-6.1", "kernel-2024": "linux-6.12"}},
)
