# SPDX-License-Identifier: GPL-2.0-only
"""The tuning lab: profiles of kernel settings with their reasons; a crash-safe
apply/verify/revert under a root; an A/B evaluation; export to sysctl.d/tuned.

Here: what its modules and its renderer (hotpath.render.tune_evaluate) share."""

# An evaluation's verdict where the evidence says neither better nor worse.
NO_EVIDENCE = "no evidence"
