# SPDX-License-Identifier: GPL-2.0-only
"""hotpath: evidence for Linux kernel hot-path work, measured from user space.

The C runner (build/hotpath-bench) does every timed thing; this package
validates input, starts the runner, reads its JSON (docs/runner-protocol.md),
computes statistics, stores runs in SQLite and writes tables, plots and
reports.
"""

__version__ = "0.1.0"
