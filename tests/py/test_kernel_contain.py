# SPDX-License-Identifier: GPL-2.0-only
"""A kernel tree's code runs contained when hotpath runs as root
(hotpath.kernelsrc.contain, issue 40 item 2): as nobody, with no network,
everything read-only but its build folder, a private /tmp, nothing of
root's in sight; `--trust-tree` runs it as root. Also what a tree can say
back: its version's text (item 3) and compiler errors quoting files
outside it (item 2), and a revision's huge file (item 9)."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from hotpath import measure
from hotpath.errors import HotpathError, UsageError
from hotpath.kernelsrc import contain, kbuild, trees
from hotpath.protocol import parse_listing
from hotpath.runner import locate_runner

as_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="containment is for hotpath run as root; else the user's own rights"
)

SNOOP = """
id -u > "$OUT/uid"
tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' > "$OUT/net"
(echo x > "$TREE/written") 2>/dev/null && echo yes > "$OUT/tree-writable"
cat "$SECRET" > "$OUT/secret" 2>/dev/null
cat "$TREE/f" > "$OUT/tree-read"
echo t > /tmp/hotpath-contain-probe && ls -A /tmp > "$OUT/tmp"
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A folder only root may enter (as /root is), holding a tree, a build
    folder and a secret of root's."""
    home = tmp_path / "home"
    (home / "tree").mkdir(parents=True)
    (home / "tree" / "f").write_text("tree file\n")
    (home / "entry").mkdir()
    (home / "secret").write_text("root's secret\n")
    (home / "secret").chmod(0o600)
    home.chmod(0o700)
    return home


@as_root
def test_a_contained_command_is_nobody_offline_and_writes_only_its_folder(home):
    assert contain.active()
    tree, entry = home / "tree", home / "entry"
    argv = contain.wrap(["sh", "-c", SNOOP], cwd=tree, writable=[entry], readable=[tree])
    env = {**os.environ, "OUT": str(entry), "TREE": str(tree), "SECRET": str(home / "secret")}
    subprocess.run(argv, env=env, check=True, capture_output=True)
    assert (entry / "uid").read_text().strip() == str(contain.BUILD_UID)
    assert (entry / "net").read_text().split() == ["lo"]
    assert not (entry / "tree-writable").exists() and not (tree / "written").exists()
    assert (entry / "secret").read_text() == ""
    assert (entry / "tree-read").read_text() == "tree file\n"
    way = {home.relative_to("/tmp").parts[0]} if home.is_relative_to("/tmp") else set()
    assert set((entry / "tmp").read_text().split()) == {"hotpath-contain-probe", *way}
    assert (entry / "uid").stat().st_uid == contain.BUILD_UID  # handed over first


MAKEFILE = """
probe:
\tid -u > $(OUT)/uid
\t-touch $(CURDIR)/written
kernelrelease:
\t@printf '6.12.0\\033]0;owned\\007\\n'
"""


@pytest.fixture
def make_tree(tmp_path: Path) -> tuple[Path, Path]:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "Makefile").write_text(MAKEFILE)
    entry = tmp_path / "entry"
    entry.mkdir()
    return tree, entry


@as_root
def test_kbuilds_make_runs_the_trees_makefile_contained(make_tree):
    tree, entry = make_tree
    kbuild.make(tree, ["probe", f"OUT={entry}"], entry / "log", entry)
    assert (entry / "uid").read_text().strip() == str(contain.BUILD_UID)
    assert not (tree / "written").exists()  # the tree is read-only to its build


@as_root
def test_trust_tree_runs_the_makefile_as_root(make_tree):
    tree, entry = make_tree
    contain.trust(True)
    try:
        assert not contain.active()
        kbuild.make(tree, ["probe", f"OUT={entry}"], entry / "log", entry)
    finally:
        contain.trust(False)
    assert (entry / "uid").read_text().strip() == "0"
    assert (tree / "written").exists()


def test_a_kernelrelease_with_escapes_is_refused(make_tree):
    tree, entry = make_tree
    with pytest.raises(HotpathError, match=r"said '6\.12\.0\\x1b\]0;owned\\x07'") as err:
        kbuild.kernelrelease(tree, [], entry / "log", entry)
    assert "\x1b" not in str(err.value)


@pytest.mark.parametrize("extra", ["-rc1\x1b]0;T\x07", "<script>alert(1)</script>"])
def test_a_makefile_version_with_escapes_or_markup_is_refused(extra):
    text = f"VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION = {extra}\n"
    with pytest.raises(UsageError, match="EXTRAVERSION is '") as err:
        trees.makefile_version(text, "--kernel-tree 'x'")
    assert ascii(extra) in str(err.value) and "\x1b" not in str(err.value)
    assert trees.makefile_version(text.replace(extra, "-rc1+"), "x") == "6.12.0-rc1+"


def test_a_compiler_error_in_a_file_outside_the_tree_does_not_quote_it(tmp_path):
    tree = tmp_path / "tree"
    outside = "/etc/passwd:1:5: error: unknown type name 'root'"
    inside = "arch/x86/lib/csum.c:4:2: error: 'x' undeclared"
    said = kbuild.first_error(f"In file included from a.c:1:\n{outside}\n", tree, [tree])
    assert said.startswith("/etc/passwd:1: error in a file outside the tree")
    assert "root" not in said
    assert kbuild.first_error(inside, tree, [tree]) == inside


def test_the_runner_sees_its_build_and_the_objects_a_spec_names(tmp_path):
    build, objects, elsewhere = tmp_path / "build", tmp_path / "objects", tmp_path / "elsewhere"
    for folder in (build, objects, elsewhere):
        folder.mkdir()
    spec = elsewhere / "x.kload"
    spec.write_text(f"object {objects / 'a.o'}\nobject {build / 'kruntime.o'}\nalt 12\n")
    argv = contain.runner_command([str(build / "hotpath-bench"), "--with", f"{spec}:sym"], build)
    binds = {argv[i + 1] for i, word in enumerate(argv) if word == "--ro-bind"}
    assert binds == {"/", str(build), str(objects), str(elsewhere)}
    assert "--unshare-net" in argv and argv[-3:] == [str(build / "hotpath-bench"), "--with",
                                                    f"{spec}:sym"]  # fmt: skip


@as_root
def test_a_contained_runner_takes_the_row_the_same_runner_takes_uncontained(home):
    """The set-up's measured row is in the user's cache, under a folder only
    root may enter: a runner contained for a kernel tree (HOME the private
    /tmp) took the built-in row instead, so hp_csum() and hp_crc32c() beside
    a tree's code were timed with a row nobody chose. Likewise a file
    HOTPATH_DISPATCH names there."""
    runner = locate_runner()
    dispatch = measure.listing(runner).dispatch or {}
    cache = home / "cache"
    folder = cache / "hotpath" / "dispatch"
    folder.mkdir(parents=True)
    text = re.sub(r"(?m)^name = .*$", "name = contained-test", dispatch["text"])
    row = folder / f"{dispatch['key']}.row"
    row.write_text(text)

    def contained(env: dict[str, str]) -> dict[str, str]:
        env = {**os.environ, **env}
        argv = contain.runner_command([str(runner.executable), "list"], runner.build, env)
        out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
        return parse_listing(json.loads(out)).dispatch or {}

    taken = contained({"XDG_CACHE_HOME": str(cache)})
    assert (taken["name"], taken["source"]) == ("contained-test", str(row))
    taken = contained({"XDG_CACHE_HOME": "", "HOME": str(home), "HOTPATH_DISPATCH": str(row)})
    assert (taken["name"], taken["source"]) == ("contained-test", str(row))
    # no measured row for this key: the built-in one, as uncontained
    row.rename(folder / "other-key.row")
    assert contained({"XDG_CACHE_HOME": str(cache)})["source"] == "built-in"


def test_a_revisions_file_over_the_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """(issue 40, item 9, git blobs): `git show` read it whole before."""
    monkeypatch.setattr(trees, "MAX_TREE_FILE", 1 << 10)
    repo = tmp_path / "linux"
    repo.mkdir()
    (repo / "Makefile").write_text("VERSION = 6\nPATCHLEVEL = 12\n" + "#" * 2048 + "\n")
    for args in (["init", "-q", "."], ["add", "-A"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"],
        cwd=repo,
        check=True,
    )
    with pytest.raises(UsageError, match=r"Makefile has 2077 bytes; allowed: at most 1024"):
        trees.parse_kernel_tree(f"{repo}@HEAD", ("Makefile",))
