# SPDX-License-Identifier: GPL-2.0-only
"""Kernel versions in order (the labs' kernel lineage, trend's axis, the
trees): standard library only, so a spec or a renderer can sort by them."""

import re


def version_key(version: str) -> tuple[int, ...]:
    """6.12.117 -> (6, 12, 117); an -rc sorts below its release."""
    numbers = [int(n) for n in re.findall(r"\d+", version.split("-", 1)[0])][:3]
    numbers += [0] * (3 - len(numbers))
    rc = re.search(r"-rc(\d+)", version)
    return (*numbers, int(rc.group(1)) if rc else 1_000)
