# SPDX-License-Identifier: GPL-2.0-only
"""The crc32c lab as data (hotpath.labs.lab.Lab)."""

from hotpath.labs.crc32c.skb_table import SKB_TABLE
from hotpath.labs.lab import Lab, Part, Suite

SEED_SIZES = (64, 256, 1420, 16384)

LAB = Lab(
    name="crc32c",
    title="CRC32C (iSCSI, SCTP, ext4), its combine and skb_crc32c",
    default_sizes=SEED_SIZES,
    default_aligns=(0,),
    align_names={0: "aligned"},
    suite=Suite(
        sizes=SEED_SIZES,
        aligns=(0,),
        rounds=200,
        quick_rounds=40,
        parts={
            "crc32c": Part(
                sizes=(64, 256, 1420, 4096, 16384, 65536, 1048576),
                modes=("latency", "throughput"),
            ),
            "crc32c_combine": Part(sizes=(1420, 16384)),
        },
    ),
    seed_tables=(SKB_TABLE,),
    # kernel-x86 re-implements the crc32c-intel driver that 6.1 and 6.12 ship.
    counterparts={"crc32c": {"kernel-x86": "linux-6.12"}},
)
