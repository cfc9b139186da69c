# SPDX-License-Identifier: GPL-2.0-only
"""Graphviz dot: a graph's source drawn as SVG (`dot -Tsvg`), cached.

The report page's dependency-chain graphs (RunResult.graphs, the csum
lab's 40-byte paths) are drawn here before the page is made
(hotpath.report), so the page's renderer only lays out what it is given.
$HOTPATH_DOT names a dot to use instead of the one on PATH.
"""

import hashlib
import os
import subprocess
from pathlib import Path

from hotpath.tools import find_tool

DOT_ENV = "HOTPATH_DOT"
TIMEOUT_S = 60


class GraphvizError(Exception):
    """dot is missing or failed: the message says which, and why."""


def find_dot() -> str:
    """Graphviz dot's path, or GraphvizError with the reason."""
    return find_tool(DOT_ENV, ("dot",), "Graphviz dot", "graphviz", GraphvizError)


def cache_dir() -> Path:
    """Where drawings are kept (beside the chain bound's results, as ever)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hotpath" / "chain-bound"


def svg(dot_source: str, use_cache: bool = True) -> str:
    """The graph drawn by Graphviz (dot -Tsvg), cached; GraphvizError when dot is missing."""
    exe = find_dot()
    digest = hashlib.sha256(exe.encode() + b"\0" + dot_source.encode()).hexdigest()[:24]
    path = cache_dir() / f"{digest}.svg"
    if use_cache:
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            pass
    try:
        done = subprocess.run(
            [exe, "-Tsvg"], input=dot_source, capture_output=True, text=True, check=False,
            timeout=TIMEOUT_S,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as err:
        raise GraphvizError(f"Graphviz dot failed: {err}") from err
    if done.returncode != 0 or "<svg" not in done.stdout:
        first = (done.stderr.strip().splitlines() or ["no output"])[0]
        raise GraphvizError(f"Graphviz dot failed: {first}")
    if use_cache:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(done.stdout, encoding="utf-8")
        except OSError:
            pass
    return done.stdout


def drawings(sources: list[str]) -> dict[str, str | GraphvizError]:
    """Each source drawn, or why it could not be (the page says so in its place)."""
    drawn: dict[str, str | GraphvizError] = {}
    for source in sources:
        if source not in drawn:
            try:
                drawn[source] = svg(source)
            except GraphvizError as err:
                drawn[source] = err
    return drawn
