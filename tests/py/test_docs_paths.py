# SPDX-License-Identifier: GPL-2.0-only
"""Every file the README and the reference pages name exists in the tree.

A page that says `c/crc32c/crc32c_hotpath.c` or links docs/engine.md sends
its reader there; a file renamed or removed leaves the page pointing at
nothing. The dated notes (docs/notes/) are left out: they say what was
true on their day. Paths inside a kernel tree (arch/x86/lib/...,
lib/crc/..., security/selinux/...) are not hotpath's and are not checked.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The pages a reader follows: the front door and the reference pages.
PAGES = sorted(
    [
        ROOT / "README.md",
        ROOT / "CHANGELOG.md",
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "docs" / "labs").glob("*.md"),
    ]
)

EXTENSIONS = "c|h|S|py|md|sh|toml|mk|txt|json|gz|dot|png|map|in|lds|pc"
# A relative path with at least one folder and a file name with a known
# extension; not the tail of an absolute, home, variable or parent path.
PATH = re.compile(
    r"(?<![\w./~$<>*{}-])((?:[\w.+-]+/)+[\w.+-]*\w\.(?:" + EXTENSIONS + r"))(?![\w/-])"
)
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")

# First folders of paths inside a kernel tree: named by the pages as the
# kernel's files, never hotpath's.
KERNEL_TOP = {
    "arch",
    "lib",
    "include",
    "security",
    "crypto",
    "net",
    "kernel",
    "drivers",
    "fs",
    "mm",
    "tools",
    "block",
    "init",
    "debian",
}
# Where a page's path may be relative to, besides the root and the page's
# own folder: the Python package, the C tree and the profiles, as the
# pages shorten them.
BASES = ("python/hotpath", "c", "profiles")
# The project's shared folder (the seeds) lies beside the repository, not
# in it; a path up and out of the tree is not the tree's either.
OUTSIDE = ("shared/", "../")


def named_paths(text: str) -> set[str]:
    found = set(PATH.findall(text))
    for target in LINK.findall(text):
        if "://" not in target and not target.startswith("mailto:"):
            found.add(target)
    return found


def exists(page: Path, path: str) -> bool:
    candidates = [ROOT / path, page.parent / path] + [ROOT / b / path for b in BASES]
    return any(c.exists() for c in candidates)


def missing_paths(page: Path) -> list[str]:
    missing = []
    for path in sorted(named_paths(page.read_text())):
        if path.startswith(OUTSIDE):
            continue
        if path.split("/")[0] in KERNEL_TOP and not (ROOT / path).exists():
            continue
        if not exists(page, path):
            missing.append(path)
    return missing


def test_the_pattern_finds_paths_and_skips_others() -> None:
    text = (
        "See `c/crc32c/crc32c_hotpath.c`, [engine](docs/engine.md) and "
        "python/hotpath/labs/crossing/report.py. Not ~/.cache/x/y.json, "
        "/proc/sys/a.c, $HOME/lib/b.pc, ../shared/c.txt, c/<lab>/ref.c, "
        "profiles/*.toml or https://example.org/a/b.html."
    )
    assert {p for p in named_paths(text) if not p.startswith(OUTSIDE)} == {
        "c/crc32c/crc32c_hotpath.c",
        "docs/engine.md",
        "python/hotpath/labs/crossing/report.py",
    }


def test_a_missing_path_is_reported(tmp_path: Path) -> None:
    page = ROOT / "docs" / "page-that-is-not-there.md"
    fake = tmp_path / "page.md"
    fake.write_text("Code: `c/crossing/no_such_file.c`, `python/hotpath/labs/crossing.py`.\n")
    found = sorted(p for p in named_paths(fake.read_text()) if not exists(page, p))
    assert found == ["c/crossing/no_such_file.c", "python/hotpath/labs/crossing.py"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_named_path_exists(page: Path) -> None:
    assert page.exists(), f"{page.name} is not in this tree"
    assert missing_paths(page) == [], (
        f"{page.relative_to(ROOT)} names files that are not in the tree"
    )


# The README is the front door (issue 38, item 6): short, its table cells
# readable, every docs page one link away, no dated timing (those are
# docs/testing.md's and the notes').
README = ROOT / "README.md"
CELL = re.compile(r"(?<!\\)\|")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")


def table_cells(text: str) -> list[str]:
    cells = []
    for line in text.splitlines():
        if line.startswith("|"):
            cells += [c.strip() for c in CELL.split(line)[1:-1]]
    return cells


def test_readme_is_short_with_readable_cells() -> None:
    text = README.read_text()
    assert len(text.splitlines()) < 200
    longest = max(table_cells(text), key=len)
    assert len(longest) <= 300, longest


def test_readme_links_every_docs_page() -> None:
    linked = set(LINK.findall(README.read_text()))
    pages = [
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "docs" / "labs").glob("*.md"),
        ROOT / "docs" / "notes" / "README.md",
    ]
    unlinked = sorted(
        str(p.relative_to(ROOT)) for p in pages if str(p.relative_to(ROOT)) not in linked
    )
    assert unlinked == []


def test_readme_names_the_test_command_and_no_dated_timing() -> None:
    text = README.read_text()
    assert "make test" in text
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    # A date may name a folder of raw runs, never a figure in the text.
    prose = re.sub(r"docs/measurements/[^)\s]*", "", text)
    assert DATE.findall(prose) == []


# A module or a name in one, as the pages write it in backticks:
# `hotpath.labs.tune.ranktest`, `hotpath.stats.summarize`.
MODULE = re.compile(r"`(hotpath(?:\.[A-Za-z_]\w*)+)`")
PACKAGE = ROOT / "python"


def module_exists(dotted: str) -> bool:
    """The module (a file or a package), or a top-level name defined in it."""
    parts = dotted.split(".")
    as_path = PACKAGE.joinpath(*parts)
    if as_path.with_suffix(".py").exists() or (as_path / "__init__.py").exists():
        return True
    module = PACKAGE.joinpath(*parts[:-1])
    for source in (module.with_suffix(".py"), module / "__init__.py"):
        if source.exists():
            name = re.escape(parts[-1])
            found = re.search(
                rf"^(?:def|class|async def) {name}\b|^{name}\b", source.read_text(), re.M
            )
            return found is not None
    return False


def test_a_missing_module_is_reported() -> None:
    assert module_exists("hotpath.stats.summarize")
    assert module_exists("hotpath.labs")
    assert not module_exists("hotpath.labs.crossing.no_such_name")
    assert not module_exists("hotpath.no_such_module")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_named_module_exists(page: Path) -> None:
    assert page.exists(), f"{page.name} is not in this tree"
    named = sorted(set(MODULE.findall(page.read_text())))
    assert [m for m in named if not module_exists(m)] == []
