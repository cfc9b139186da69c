# SPDX-License-Identifier: GPL-2.0-only
"""The avc lab: the SELinux AVC cache of seed 004, lookups per hash function.

One runner primitive so far, avc_lookup (c/avc/registry_avc_lookup.c): the
cost of avc_search_node() in a cache holding SIZE nodes (the size column)
in --slots buckets, for each hash (orig, muladd, murmur3 as Linux 6.19's
av_hash, jhash, hotpath's own); and --stats, the model's hash_stats
(hotpath.labs.avc.stats), over a synthetic workload or a recorded --trace;
--seed-table, seed 004's tables (hotpath.labs.avc.seed_table); and
--recommend, the slot count and hash to choose (hotpath.labs.avc.recommend).
See docs/labs/avc.md.
"""

import argparse
from pathlib import Path

from hotpath.errors import UsageError
from hotpath.inputs import ascii_int, shown
from hotpath.labs.lab import Lab, Suite

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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--slots",
        default=str(DEFAULT_SLOTS),
        metavar="S",
        help=f"buckets of the cache, a power of two (default {DEFAULT_SLOTS}, the kernel's); "
        "the sizes are the nodes it holds",
    )

    parser.add_argument(
        "--stats",
        action="store_true",
        help="no timing: the cache model's hash_stats per hash (buckets used, longest "
        "chain) beside a random hash's, over the synthetic workload; with one hash "
        "(--variants) and one size, hash_stats and cache_stats as the kernel prints them",
    )
    parser.add_argument(
        "--checks",
        type=int,
        default=DEFAULT_CHECKS,
        metavar="C",
        help=f"--stats: permission checks the workload makes (default {DEFAULT_CHECKS})",
    )

    parser.add_argument(
        "--trace",
        type=Path,
        default=None,
        metavar="FILE",
        help="--stats: play a recorded workload instead, one 'ssid,tsid,tclass' per line "
        "('#' starts a comment)",
    )

    parser.add_argument(
        "--seed-table",
        action="store_true",
        help="seed 004's two tables: utilisation/longest chain (model, with the random "
        "limit) and avc_search_node() latency (timed) for the seed's configurations, "
        "the seed's figures beside",
    )

    parser.add_argument(
        "--recommend",
        action="store_true",
        help="the slot count (2^9..2^14) and hash whose lookups are within 5%% of the "
        "fastest for the fewest bytes, for N nodes (--sizes, default 512) under the "
        "synthetic workload or --trace; with the table it chose from",
    )

    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="R",
        help="--stats: workload seeds the means are taken over (default 1; the seed table "
        "takes 8: a longest chain moves by a node from one seed to the next)",
    )


def runner_args(args: argparse.Namespace) -> list[str]:
    return ["--param", f"slots={_slots(args.slots)}"]


LAB = Lab(
    name="avc",
    title="SELinux AVC cache lookups per hash function (seed 004)",
    default_sizes=(512, 2048, 8192),
    default_aligns=(0,),
    suite=Suite(sizes=(512, 2048, 8192), aligns=(0,), rounds=200, quick_rounds=40),
    sizes_are_bytes=False,
    size_unit="nodes",
    show_align=False,
    add_arguments=add_arguments,
    runner_args=runner_args,
    own_command="hotpath.labs.avc.command:run",
    # The kernel's own lookup (avc.c of Debian's trees, kernelsrc.kbuilt)
    # beside the re-implementation of the same hash.
    counterparts={"avc_lookup": {"orig": "linux-6.12"}},
)
