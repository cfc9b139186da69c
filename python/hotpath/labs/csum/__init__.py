# SPDX-License-Identifier: GPL-2.0-only
"""The csum lab: the Internet checksum (csum_partial and friends), seed 000.

Alignment 0 and 1 are the seed's "even" and "odd" buffer columns: the
kernel's odd-address path was both slow and (for non-zero seeds) wrong.
The runner files five primitives under this lab (csum_partial, csum_fold,
ip_fast_csum, csum_ipv6_magic, csum_partial_copy); `hotpath csum` times
csum_partial unless --primitive names another. Beside the 40-byte latency
figures: each variant's dependency-chain bound
(hotpath.labs.csum.bound, computed by hotpath.labs.csum.chainbound).
"""

from hotpath.labs.csum.bound import attach_bounds
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
    attach_bounds=attach_bounds,
    # csum_fold, ip_fast_csum, csum_ipv6_magic and csum_partial_copy are
    # reached with --primitive, at their own sizes.
    default_primitives=("csum_partial",),
    # kernel-5.17-rc is the seed's broken release candidate, not a release.
    kernel_lineage={"csum_partial": ("kernel-5.17", "kernel-2023", "kernel-2024")},
    # Debian's 6.1 has the 5.17 rewrite, 6.12 the 2024 one (docs/labs/csum.md).
    counterparts={"csum_partial": {"kernel-5.17": "linux-6.1", "kernel-2024": "linux-6.12"}},
)
