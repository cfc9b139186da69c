# SPDX-License-Identifier: GPL-2.0-only
"""The csum lab's hooks: each variant's dependency-chain bound beside its figures."""

from hotpath.labs.csum.bound import attach_bounds
from hotpath.labs.hooks import LabHooks

HOOKS = LabHooks(attach_bounds=attach_bounds)
