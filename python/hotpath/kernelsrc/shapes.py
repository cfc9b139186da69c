# SPDX-License-Identifier: GPL-2.0-only
"""The shapes of what hotpath takes from a kernel tree (plain data).

A component is one piece of the kernel's x86 code in one file layout:
the tree files it is made of, the symbols they must contain, and its
entries (each a variant: its primitive and the symbol the runner calls).
A Kbuild component adds how the tree's own Kbuild builds it: the
single-object targets and hotpath's glue. The labs' components are in
layouts.py, the catalogue's in catalogue.py.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    """One variant a component gives: `suffix` "" is the kernel's own entry."""

    primitive: str
    symbol: str
    suffix: str
    where: str  # the tree file the timed code is in
    desc: str
    needs: tuple[str, ...] = ()
    promise: int = 0  # the primitive's promise value (c/include/hotpath/<lab>.h)
    min_len: int = 0  # the shortest length it is defined for


@dataclass(frozen=True)
class Component:
    name: str
    lab: str
    kernels: str  # the releases with this layout, for messages
    files: tuple[str, ...]  # tree files the code is in: each must be there
    symbols: tuple[tuple[str, str], ...]  # (file, text) each must contain
    entries: tuple[Entry, ...]


@dataclass(frozen=True)
class KbuildComponent:
    """A layout's code as Kbuild builds it: the tree's objects, the glue."""

    layout: Component  # the files and symbols a tree must have, the entries
    targets: tuple[str, ...]  # single-object make targets of the tree
    glue: str | None  # the glue source in the repository, built with M= (None: none needed)
    includes: tuple[str, ...] = ()  # tree files the glue #includes whole
    init: str | None = None  # run once when the image loads
    include_dirs: tuple[str, ...] = ()  # tree folders for the included files' own headers
    needs: tuple[str, ...] = ()  # tree objects built first (they generate headers)
    # The included file's functions that are not timed reach symbols no
    # runtime has: they become traps (stubs), named in the origin line.
    stub_unreached: bool = False
