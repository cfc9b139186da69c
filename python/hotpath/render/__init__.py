# SPDX-License-Identifier: GPL-2.0-only
"""Output formats of a run: terminal text, commit-message tables, HTML.

blocks.py builds the format-neutral table model (one block per primitive
and mode, rows = variants, columns = size x alignment); each format module
only lays that model out. seedtable.py lays out a seed's own table
(hotpath.seedtables: our figures beside the seed's, its directions checked).
"""
