# SPDX-License-Identifier: GPL-2.0-only
"""The avc lab as data (hotpath.labs.lab.Lab)."""

from hotpath.labs.lab import Lab, Suite
from hotpath.seedtable_spec import SeedTable

# Seed 004's two tables: measured by the lab's own mode (hooks.py), a cache
# model beside timed lookups and a fitted cost, not engine cells.
SEED_TABLE = SeedTable(
    flag="seed-table",
    help="seed 004's two tables: utilisation/longest chain (model, with the random "
    "limit) and avc_search_node() latency (timed) for the seed's configurations, "
    "the seed's figures beside",
    seed="seed 004: the SELinux AVC's hash, utilisation and lookup cost",
    tables=(),
    modes=("latency",),
    own=True,
)

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
    seed_tables=(SEED_TABLE,),
)
