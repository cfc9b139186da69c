# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath patch`: what a commit did to the catalogue's hot functions.

The range's touched functions (kernelsrc.patchdiff, from `git diff`, no
build), both revisions built by their own Kbuild and loaded as the
kernel loads them (kernelsrc.variants), each checked against hotpath's
reference (a WRONG side is said with its case) and timed with the
reference beside them, in `repeat` runner processes over each
function's default sizes. One run is stored, its `sections["patch"]`
naming the tree, both revisions with their commit ids, and the
functions; the verdicts are compare's, B's variant against A's within
that run. `hotpath patch --show` reads those runs back from every
machine that measured the same pair of commits.
"""

import argparse
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hotpath import compare
from hotpath.errors import UsageError
from hotpath.kernelsrc.catalogue import BY_NAME
from hotpath.results import RunResult, VariantResult

SECTION = "patch"
DEFAULT_MODES = ("latency", "throughput")


@dataclass(frozen=True)
class Range:
    """`[TREE][@A..B]` as the user wrote it, A and B spelt as given."""

    root: Path
    a: str
    b: str

    def spec(self) -> str:
        return f"{self.root}@{self.a}..{self.b}"


def parse_range(text: str) -> Range:
    """TREE, TREE@A..B, TREE@B (B~1..B), @A..B; the default: .@HEAD~1..HEAD."""
    if Path(text or ".").is_dir():
        return Range(Path(text or "."), "HEAD~1", "HEAD")
    # The first @ after which the rest is the range: a folder may hold an
    # @, and a revision may too (HEAD@{1}).
    for at in (i for i, ch in enumerate(text) if ch == "@"):
        folder = text[:at] or "."
        if Path(folder).is_dir():
            return _revisions(Path(folder), text[at + 1 :], text)
    raise UsageError(
        f"hotpath patch '{text}': no such folder; allowed: [TREE][@A..B] (TREE a git checkout "
        "of a kernel tree, default the current folder; A..B default HEAD~1..HEAD)"
    )


def _revisions(root: Path, revs: str, text: str) -> Range:
    if "..." in revs:
        raise UsageError(
            f"hotpath patch '{text}': A...B (a symmetric difference); allowed: A..B or B"
        )
    a, sep, b = revs.partition("..")
    if not sep:
        a, b = f"{revs}~1", revs
    if not a or not b:
        raise UsageError(f"hotpath patch '{text}': an empty revision; allowed: A..B or B")
    return Range(root, a, b)


@dataclass
class Side:
    rev: str  # as written
    commit: str  # its full id
    variant: str  # the runner's name for it: linux-HEAD~1


@dataclass
class Evidence:
    """One patch run: its range, sides, touched functions and verdicts."""

    range: Range
    before: Side
    after: Side
    functions: dict[str, str]  # catalogue name -> why touched
    run: RunResult
    comparison: compare.Comparison
    wrong: list[VariantResult] = field(default_factory=list)
    command: str = ""  # the command that reproduces it


def section(rng: Range, before: Side, after: Side, functions: dict[str, str]) -> dict[str, Any]:
    """What a patch run keeps of its range (`RunResult.sections["patch"]`)."""
    return {
        "tree": str(rng.root.resolve()),
        "before": {"rev": before.rev, "commit": before.commit, "variant": before.variant},
        "after": {"rev": after.rev, "commit": after.commit, "variant": after.variant},
        "functions": functions,
    }


def reproduce(args: argparse.Namespace, before: "Side", after: "Side") -> str:
    """The command that measures the same again in any clone of the tree
    (the commits by id: a revision such as HEAD~1 moves), quoted for a shell."""
    words = ["hotpath", "patch", f"@{before.commit[:12]}..{after.commit[:12]}"]
    if args.repeat != 3:
        words += ["--repeat", str(args.repeat)]
    if args.sizes:
        words += ["--sizes", args.sizes]
    if args.modes:
        words += ["--modes", args.modes]
    if args.kernel_config != "auto":
        words += ["--kernel-config", args.kernel_config]
    if args.mitigations != "off":
        words += ["--mitigations", args.mitigations]
    return " ".join(shlex.quote(w) for w in words)


def lab_of(name: str) -> str:
    return BY_NAME[name].lab


def primitive_of(name: str) -> str:
    return BY_NAME[name].primitive


# The CPU flags the kernel's alternatives and drivers choose by, for
# these functions (/proc/cpuinfo's words): named in the commit block.
KERNEL_FLAGS = ("rep_good", "erms", "fsrm", "fsrs", "sse4_2", "pclmulqdq", "avx2", "avx512f",
                "avx512bw", "vpclmulqdq", "bmi2")  # fmt: skip


def kernel_cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> list[str]:
    """Which of KERNEL_FLAGS this CPU has, as the running kernel reports them."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return []
    line = next((x for x in text.splitlines() if x.startswith("flags")), "")
    have = set(line.partition(":")[2].split())
    return [flag for flag in KERNEL_FLAGS if flag in have]


_HEX = frozenset("0123456789abcdef")


def commits_for_show(rng: Range) -> tuple[str, str]:
    """A..B as commit ids: resolved in the tree where it is a repository
    that has them, else taken as ids (or their first 7 or more digits)."""
    from hotpath.kernelsrc.git import git

    found = []
    for rev in (rng.a, rng.b):
        done = git(rng.root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        if done.returncode == 0:
            found.append(done.stdout.decode().strip())
        elif len(rev) >= 7 and set(rev.lower()) <= _HEX:
            found.append(rev.lower())
        else:
            raise UsageError(
                f"hotpath patch --show: '{rev}' is not a commit of {rng.root}; allowed: a "
                "revision there, or a commit id (7 or more hex digits)"
            )
    return found[0], found[1]


def stored(store: Any, commits: tuple[str, str]) -> list[RunResult]:
    """The newest patch run of the pair per machine (ids match by prefix)."""
    newest: dict[str, RunResult] = {}
    for row in store.runs():
        if row.command != "patch":
            continue
        run = store.loaded(row.run_id)
        section = run.sections.get(SECTION) if run is not None else None
        if run is None or not isinstance(section, dict):
            continue
        ids = (
            section.get("before", {}).get("commit", ""),
            section.get("after", {}).get("commit", ""),
        )
        if all(isinstance(i, str) and i.startswith(c) for i, c in zip(ids, commits, strict=True)):
            newest.setdefault(run.machine.key(), run)  # runs() lists the newest first
    return list(newest.values())


def from_run(run: RunResult, threshold: float) -> Evidence:
    """A stored patch run's evidence, its verdicts computed again."""
    section = run.sections[SECTION]
    sides = [
        Side(str(section[k]["rev"]), str(section[k]["commit"]), str(section[k]["variant"]))
        for k in ("before", "after")
    ]
    tree = Path(str(section.get("tree", ".")))
    comparison = compare.compare_runs(run, run, threshold, None, sides[0].variant, sides[1].variant)
    wrong = [v for v in run.wrong_variants() if "kernel" in v.info.flags]
    return Evidence(
        Range(tree, sides[0].rev, sides[1].rev), sides[0], sides[1],
        dict(section.get("functions", {})), run, comparison, wrong, str(section.get("command", "")),
    )  # fmt: skip
