# SPDX-License-Identifier: GPL-2.0-only
"""Lets `python -m hotpath` work where the console script is not installed."""

from hotpath.cli import main

raise SystemExit(main())
