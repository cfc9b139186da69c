# SPDX-License-Identifier: GPL-2.0-only
"""The crc32c lab: CRC32C, its combine and the sk_buff walk of seed 002.

Four runner primitives (c/crc32c/, docs/labs/crc32c.md): crc32c itself
from bitwise to PCLMULQDQ folding, crc32c_combine (size = the second
piece's length), and skb_crc32c over linear and non-linear sk_buffs, where
seed 002 compared __skb_checksum with skb_crc32c. The suite gives each its
own sizes: crc32c up to 1 MiB for the bytes-per-cycle curve, the combine at
two lengths, the sk_buffs at the seed's four.

spec.py: the lab as data; it has no hooks (the engine does it all).
"""
