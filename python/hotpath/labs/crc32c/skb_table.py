# SPDX-License-Identifier: GPL-2.0-only
"""Seed 002's two sk_buff tables as data, for `hotpath crc32c --skb-table`.

Eric Biggers' "net: add skb_crc32c()" printed __skb_checksum against
skb_crc32c for linear and non-linear sk_buffs at four lengths, measured on
AMD Zen 5. This module says which of our variants fill those columns, keeps
the patch's figures to print beside ours, and lists the directions the
patch draws from them; hotpath.seedtables checks them against a run.
"""

from hotpath.seedtable_spec import Axis, Claim, Published, SeedTable, TableSpec

SIZES = (64, 256, 1420, 16384)

# Our columns, in the patch's order, then hotpath's own and the 2013 combine.
COLUMNS = (
    Axis("generic", "__skb_checksum", variant="generic-gf2mul", short="__skb_checksum"),
    Axis("chained", "skb_crc32c", variant="chained", short="skb_crc32c"),
    Axis("hotpath", "hotpath", variant="hotpath", short="hotpath"),
    Axis("matrix", "matrix combine", variant="generic-matrix", short="matrix combine"),
)
ROWS = tuple(Axis(str(size), str(size), size=size, short=f"{size} B") for size in SIZES)

SOURCE = (
    'seed 002\'s figures: AMD Zen 5, "cycles" as the patch printed them, mode not stated, '
    "kernel with IBRS (no retpoline)"
)
SEED_COLUMNS = {"generic": "Zen 5 __skb_checksum", "chained": "Zen 5 skb_crc32c"}


def _published(figures: dict[int, tuple[int, int]]) -> Published:
    """One of the patch's two tables: per length, (__skb_checksum, skb_crc32c)."""
    return Published(
        mode=None,
        source=SOURCE,
        columns=SEED_COLUMNS,
        values={str(n): {"generic": g, "chained": c} for n, (g, c) in figures.items()},
    )


LINEAR = _published({64: (43, 18), 256: (94, 77), 1420: (204, 161), 16384: (1735, 1642)})
NONLINEAR = _published({64: (579, 22), 256: (829, 77), 1420: (1506, 194), 16384: (4365, 1682)})

COLUMN_NOTES = (
    "__skb_checksum = generic-gf2mul: the walk through skb_checksum_ops (indirect update "
    "and combine calls) with crc32_generic_shift, the kernel's combine from 2014 to 2025, "
    "which the patch replaced; skb_crc32c = chained: the patch's one CRC chained through "
    "the pieces by direct calls (kernel-x86 crc32c); hotpath = the same chaining with "
    "hp_crc32c; matrix combine = generic-matrix: the same walk with zlib's matrix "
    "crc32c_combine (Linux 2013)",
    "user space: our indirect calls are plain indirect branches (no retpoline, no IBRS), "
    "so the walk's call overhead is lower than in the kernel; the combine costs the same",
)

SKB_TABLE = SeedTable(
    flag="skb-table",
    help="seed 002's sk_buff tables (__skb_checksum vs skb_crc32c) with our figures "
    "beside the patch's",
    seed="seed 002: Eric Biggers, [PATCH v2 02/10] net: add skb_crc32c()",
    modes=("latency",),
    tables=(
        TableSpec(
            title="Linear sk_buffs",
            primitive="skb_crc32c_linear",
            row_header="Length in bytes",
            rows=ROWS,
            columns=COLUMNS,
            published=(LINEAR,),
            claims=(
                Claim(
                    "linear, 64 bytes: skb_crc32c (direct calls) cheaper than __skb_checksum "
                    "(through the ops structure)",
                    cheaper="chained",
                    dearer="generic",
                    at=("64",),
                ),
            ),
            notes=COLUMN_NOTES,
        ),
        TableSpec(
            title="Nonlinear sk_buffs (even split between head and one fragment)",
            primitive="skb_crc32c_nonlinear",
            row_header="Length in bytes",
            rows=ROWS,
            columns=COLUMNS,
            published=(NONLINEAR,),
            claims=(
                Claim(
                    "non-linear: skb_crc32c cheaper than __skb_checksum at every length",
                    cheaper="chained",
                    dearer="generic",
                ),
                Claim(
                    "non-linear: skb_crc32c far cheaper than __skb_checksum at every length",
                    cheaper="chained",
                    dearer="generic",
                    factor=2.0,
                ),
            ),
            notes=(
                *COLUMN_NOTES,
                "our non-linear sk_buff: the second half in page fragments cut at page "
                "boundaries, so at 16384 bytes the 8192-byte half is two fragments "
                "(docs/labs/crc32c.md)",
            ),
        ),
    ),
)
