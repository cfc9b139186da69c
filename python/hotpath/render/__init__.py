# SPDX-License-Identifier: GPL-2.0-only
"""Output formats of a run: terminal text, commit-message tables, HTML.

blocks.py builds the format-neutral table model (one block per primitive
and mode, rows = variants, columns = size x alignment); each format module
only lays that model out.
"""
