# SPDX-License-Identifier: GPL-2.0-only
"""The avc lab: the SELinux AVC cache of seed 004, lookups per hash function.

One runner primitive so far, avc_lookup (c/avc/registry_avc_lookup.c): the
cost of avc_search_node() in a cache holding SIZE nodes (the size column)
in --slots buckets, for each hash (orig, muladd, murmur3 as Linux 6.19's
av_hash, jhash, hotpath's own); and --stats, the model's hash_stats
(hotpath.labs.avc.stats; the runner's analyze, c/avc/registry_avc_analyze.c),
over a synthetic workload or a recorded --trace;
--seed-table, seed 004's tables (hotpath.labs.avc.seed_table); and
--recommend, the slot count and hash to choose (hotpath.labs.avc.recommend).
See docs/labs/avc.md.

Here: the constants and checks its modules share; spec.py: the lab as
data; hooks.py: its options and its own modes (command.py).
"""

from hotpath.errors import UsageError
from hotpath.inputs import ascii_int, shown

PRIMITIVE = "avc_lookup"  # the runner's primitive of the lab
MAX_SLOTS = 1 << 20
DEFAULT_SLOTS = 512
DEFAULT_CHECKS = 1_000_000  # --stats: permission checks of the workload


def _slots(text: str) -> int:
    value = ascii_int(text) or 0
    if not 1 <= value <= MAX_SLOTS or value & (value - 1):
        raise UsageError(
            f"--slots '{shown(text)}': allowed: a power of two, 1..{MAX_SLOTS} (the kernel's "
            "Kconfig allows 512..16384; the wider range is for study)"
        )
    return value
