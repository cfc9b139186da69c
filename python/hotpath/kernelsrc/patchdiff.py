# SPDX-License-Identifier: GPL-2.0-only
"""Which catalogue functions a commit range of a kernel tree touched.

`hotpath patch DIR@A..B` reads `git diff A B` (no build): a catalogue
function is touched when its definition's file changed, or a file its
component is built from that is no other function's own (the object's
other sources, a generator, the headers its layout names). Within a
function's own file the hunks narrow it: when every
changed line of that file lies inside the definitions of some catalogue
functions (a C body from its opening line to the `}` in column 0, an
assembly SYM_FUNC_START to its SYM_FUNC_END), only those are touched;
a change outside any (a static helper, a table, an include) touches
every catalogue function the file defines, since each is built from it.
A header the diff changed that no layout names is looked up in Kbuild's
dependency lists of side A's objects (including: that needs A built),
and a change that touches no catalogue function is told what it did
touch: its files, and the functions git names as the hunks' context.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hotpath.errors import UsageError
from hotpath.kernelsrc import kbuilt
from hotpath.kernelsrc.catalogue import BY_NAME
from hotpath.kernelsrc.git import git
from hotpath.kernelsrc.kbuild import PreparedTree
from hotpath.kernelsrc.layouts import KBUILD_COMPONENTS
from hotpath.kernelsrc.shapes import Component, Entry
from hotpath.kernelsrc.trees import UserTree

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")


@dataclass
class FileChange:
    """One file's changed lines on each side, and git's context words."""

    path: str
    old: list[tuple[int, int]] = field(default_factory=list)  # [first, last] lines of A
    new: list[tuple[int, int]] = field(default_factory=list)  # of B
    contexts: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Touched:
    """What the range did to the catalogue: the functions, and why each."""

    functions: dict[str, str]  # catalogue name -> why (the file and how)
    files: tuple[str, ...]  # every file the range changed
    others: tuple[str, ...]  # the other functions git names as the hunks' context


def _span(start: int, count: int) -> tuple[int, int] | None:
    """A hunk side's lines; None for a side with none (pure add or delete)."""
    if count == 0:
        return (start, start)  # the change sits after line `start`
    return (start, start + count - 1)


def diff(root: Path, a: str, b: str) -> list[FileChange]:
    """The changed files of A..B with their hunks (git diff -U0, no renames)."""
    done = git(root, "diff", "-U0", "--no-renames", "--no-color", "--no-ext-diff", a, b, "--")
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        raise UsageError(f"git diff {a} {b} in {root}: {said[0] if said else 'failed'}")
    changes: list[FileChange] = []
    for line in done.stdout.splitlines():
        if line.startswith(b"diff --git "):
            changes.append(FileChange(path=""))
        elif line.startswith((b"--- a/", b"+++ b/")) and changes and not changes[-1].path:
            changes[-1].path = line[6:].decode(errors="replace")
        elif line.startswith(b"@@") and changes:
            match = _HUNK.match(line)
            if not match:
                continue
            old = _span(int(match[1]), int(match[2] or 1))
            new = _span(int(match[3]), int(match[4] or 1))
            if old:
                changes[-1].old.append(old)
            if new:
                changes[-1].new.append(new)
            context = match[5].decode(errors="replace").strip()
            if context:
                changes[-1].contexts.append(context)
    return [c for c in changes if c.path]


def definitions(text: str, symbols: Iterable[str]) -> dict[str, tuple[int, int]]:
    """Where each symbol is defined in a C or assembly file: [first, last] line."""
    lines = text.splitlines()
    found: dict[str, tuple[int, int]] = {}
    for symbol in symbols:
        c_head = re.compile(rf"^[A-Za-z_].*\b{re.escape(symbol)}\s*\([^;]*$")
        asm_head = re.compile(rf"^SYM_[A-Z_]*FUNC_START[A-Z_]*\({re.escape(symbol)}\)")
        asm_end = re.compile(rf"^SYM_FUNC_END\({re.escape(symbol)}\)")
        for number, line in enumerate(lines, 1):
            if asm_head.match(line):
                end = next(
                    (n for n, x in enumerate(lines[number:], number + 1) if asm_end.match(x)),
                    len(lines),
                )
                found[symbol] = (number, end)
                break
            if c_head.match(line) and not line.lstrip().startswith(("static inline", "#")):
                end = next((n for n, x in enumerate(lines[number:], number + 1) if x == "}"), 0)
                if end:
                    found[symbol] = (number, end)
                    break
    return found


def _inside(spans: list[tuple[int, int]], defs: dict[str, tuple[int, int]]) -> set[str] | None:
    """The symbols whose definitions hold every span; None if one lies outside all."""
    hit: set[str] = set()
    for first, last in spans:
        holders = {s for s, (lo, hi) in defs.items() if lo <= first and last <= hi}
        if not holders:
            return None
        hit |= holders
    return hit


def touched(tree_a: UserTree, tree_b: UserTree, changes: list[FileChange]) -> Touched:
    """The catalogue functions A..B touched (see the module's docstring):
    every component's entries, a function's other forms (crc_t10dif's
    PCLMUL driver beside its generic table) included."""
    by_path = {c.path: c for c in changes}
    functions: dict[str, str] = {}
    for component in KBUILD_COMPONENTS:
        layout = component.layout
        if not any(path in by_path for path in layout.files):
            continue
        if all(kbuilt.layout_problem(t.read, component) for t in (tree_a, tree_b)):
            continue  # on neither side in a form hotpath builds
        for entry in layout.entries:
            name = entry.primitive  # a catalogue function's name is its primitive's
            if name in functions or name not in BY_NAME:
                continue
            why = _why(tree_a, tree_b, by_path, layout, entry)
            if why is not None:
                functions[name] = why
    words = (_function_word(ctx) for change in changes for ctx in change.contexts)
    named = tuple(dict.fromkeys(w for w in words if w and w not in functions))
    return Touched(functions, tuple(c.path for c in changes), named)


def _why(
    tree_a: UserTree,
    tree_b: UserTree,
    by_path: dict[str, FileChange],
    layout: Component,
    entry: Entry,
) -> str | None:
    """Why the range touched this entry of the layout, or None."""
    for path in layout.files:
        change = by_path.get(path)
        if change is None:
            continue
        if path != entry.where:
            if path in {e.where for e in layout.entries}:
                continue  # another function's own file
            return f"{path} changed (built into {layout.name})"
        narrowed = _narrowed(tree_a, tree_b, change, layout.entries)
        if narrowed is None or {entry.symbol, entry.primitive} & narrowed:
            how = "its definition" if narrowed else "outside any catalogue function"
            return f"{path} changed ({how})"
    return None


def _narrowed(
    tree_a: UserTree, tree_b: UserTree, change: FileChange, entries: tuple[Entry, ...]
) -> set[str] | None:
    """The catalogue symbols whose definitions hold every change of the file
    on both sides; None when a change lies outside them all."""
    symbols = {e.symbol for e in entries if not e.symbol.startswith("hp_glue_")}
    symbols |= {e.primitive for e in entries}
    hit: set[str] = set()
    for tree, spans in ((tree_a, change.old), (tree_b, change.new)):
        text = tree.read(change.path)
        if text is None:
            return None
        inside = _inside(spans, definitions(text.decode(errors="replace"), symbols))
        if inside is None:
            return None
        hit |= inside
    return hit


def _function_word(context: str) -> str | None:
    """The function a hunk's context line names: `u32 crc32_le(...` -> crc32_le."""
    match = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", context)
    return match.group(1) if match else None


def unplaced_headers(touched_: Touched) -> list[str]:
    """The changed headers no layout names: only a build can say who includes them."""
    named = {f for c in KBUILD_COMPONENTS for f in c.layout.files}
    return [p for p in touched_.files if p.endswith(".h") and p not in named]


def including(
    prepared: PreparedTree, headers: list[str], repo: Path, known: dict[str, str]
) -> dict[str, str]:
    """The catalogue functions whose objects (built in `prepared`, side A)
    include one of `headers` by Kbuild's dependency lists, beside `known`."""
    found = dict(known)
    for component in KBUILD_COMPONENTS:
        names = [e.primitive for e in component.layout.entries if not e.suffix]
        if all(name in found for name in names):
            continue
        deps = kbuilt.object_deps(prepared, component, repo)
        hit = next((h for h in headers if h in deps), None)
        if hit is None:
            continue
        for name in names:
            found.setdefault(name, f"{hit} changed (its object includes it)")
    return found
