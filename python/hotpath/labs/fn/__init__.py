# SPDX-License-Identifier: GPL-2.0-only
"""The fn lab: kernel hot functions (CRCs, hashes, copies, searches), one
runner primitive each, named as the kernel names the function (c/fn/,
docs/labs/fn.md). The kernel's own objects are attached as variants by
the catalogue (hotpath.kernelsrc.catalogue)."""
