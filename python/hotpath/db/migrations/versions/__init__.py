# SPDX-License-Identifier: GPL-2.0-only
"""One revision per schema version: 0001 is the first release's schema."""
