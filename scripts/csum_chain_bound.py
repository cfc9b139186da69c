#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Dependency-chain bound of csum_partial variants on their 40-byte path.

A thin wrapper: the analysis is hotpath.labs.csum.chainbound (python/hotpath/
labs/csum/chainbound.py), the same code the csum lab uses for its "bound" column.
Runs in hotpath's Python environment (.venv: the lab package imports numpy),
gcc and llvm-mca.

Usage: scripts/csum_chain_bound.py [--variants a,b] [--odd] [--dot-dir DIR]
       [--mcpu znver2] [--cc gcc] [--no-cache]
Output (stdout): JSON {variant: {"bound_cycles", "chain_cycles",
       "mca_cycles", "model", "method", "instructions", "dot"}}
Exit status 2 with one line on stderr for a bad argument.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

from hotpath.labs.csum.chainbound import main

if __name__ == "__main__":
    sys.exit(main())
