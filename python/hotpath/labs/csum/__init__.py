# SPDX-License-Identifier: GPL-2.0-only
"""The csum lab: the Internet checksum (csum_partial and friends), seed 000.

Alignment 0 and 1 are the seed's "even" and "odd" buffer columns: the
kernel's odd-address path was both slow and (for non-zero seeds) wrong.
The runner files five primitives under this lab (csum_partial, csum_fold,
ip_fast_csum, csum_ipv6_magic, csum_partial_copy); `hotpath csum` times
csum_partial unless --primitive names another. Beside the 40-byte latency
figures: each variant's dependency-chain bound
(hotpath.labs.csum.bound, computed by hotpath.labs.csum.chainbound).

spec.py: the lab as data; hooks.py: the bounds set beside a run's figures.
"""
