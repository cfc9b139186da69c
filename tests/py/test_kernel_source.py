# SPDX-License-Identifier: GPL-2.0-only
"""The labs' real-kernel variants: trees prepared by their own Kbuild,
their objects loaded by the runner (hotpath.kernelsrc, c/kload).

Debian's linux-6.1 and linux-6.12 come from the cache the set-up filled
(`hotpath kernels prepare`). A developer's tree is the test repository
of linux-source-6.12 (conftest.kernel_repo, made once into the cache):
its revisions `good` and `broken` each prepared in a git worktree of
the cache, and a clean working tree of its files (conftest.clean_612)
built with O=. What is refused before anything is built (a folder, a
revision, a layout) is refused from small trees made here. Statuses and
values only, never speed.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import (
    BROKEN_CSUM,
    KERNEL_BROKEN,
    KERNEL_GOOD,
    KERNEL_TEST_CACHE,
    timed_or_spoiled,
    write_tree,
)
from hotpath.debian import locked
from hotpath.errors import UsageError
from hotpath.kernelsrc import contain, devtrees, kbuild, kbuilt, layouts, trees
from hotpath.kernelsrc.layouts import timed_files
from hotpath.versions import version_key

pytestmark = [pytest.mark.runner, pytest.mark.usefixtures("real_runner")]

CSUM_PRIMITIVES = ("csum_partial", "csum_fold", "ip_fast_csum", "csum_ipv6_magic",
                   "csum_partial_copy")  # fmt: skip


def debian_tree(short: str) -> kbuild.PreparedTree:
    have = kbuild.cached(short)
    assert have, (
        f"linux-{short} is not prepared in {kbuild.kbuild_root()}: scripts/setup.sh "
        "prepares it (hotpath kernels prepare)"
    )
    return have[0][1]


def run_json(cli, *args):
    res = cli(*args, "--rounds", "3", "--modes", "latency", "--json", "--no-store")
    return res, (res.json() if res.out.strip() else None)


@pytest.mark.parametrize("short", kbuild.SHORTS)
def test_both_debian_trees_have_the_csum_crc32c_and_avc_layouts(short):
    tree = debian_tree(short)
    assert tree.name == f"linux-{short}" and tree.version.startswith(f"{short}.")
    fit = [c.layout for lab in ("csum", "crc32c", "avc") for c in kbuilt.fitting_kbuild(tree, lab)]
    assert fit == [layouts.CSUM, layouts.CRC32C_INTEL, layouts.AVC]


@pytest.mark.parametrize("primitive", CSUM_PRIMITIVES)
def test_the_gate_passes_the_debian_kernels_csum(cli, primitive):
    res, doc = run_json(cli, "csum", "--primitive", primitive, "--variants", "linux-6.1,linux-6.12")
    assert res.status == 0, res.err
    status = {v["name"]: v for v in doc["variants"]}
    for name in ("linux-6.1", "linux-6.12"):
        assert status[name]["status"] == "ok", status[name]
        assert "kernel" in status[name]["flags"]
        assert f"Linux {name.removeprefix('linux-')}." in status[name]["origin"]
        assert "Kbuild objects loaded by hotpath" in status[name]["origin"]


def test_the_gate_passes_the_debian_kernels_crc32c_and_each_path(cli):
    names = [f"linux-{v}{p}" for v in ("6.1", "6.12") for p in ("", ":crc32q", ":pcl")]
    res, doc = run_json(
        cli, "crc32c", "--primitive", "crc32c", "--sizes", "64,512,4096",
        "--variants", ",".join(names),
    )  # fmt: skip
    assert res.status == 0, res.err
    status = {v["name"]: v["status"] for v in doc["variants"]}
    assert {n: status[n] for n in names} == dict.fromkeys(names, "ok")
    origin = {v["name"]: v["origin"] for v in doc["variants"]}
    for name in names:  # Kbuild's objects, unpatched: 6.1's absolute jump-table load too
        assert "Kbuild objects loaded by hotpath" in origin[name], origin[name]
        assert "mitigations off" in origin[name]


def test_the_loader_mends_zeropad_past_a_page_end_through_the_gate(cli):
    """csum_partial() reads a tail of 1 to 7 bytes with load_unaligned_zeropad():
    one 8-byte load that, for a buffer whose last byte is a page's last,
    runs into the next page, and the kernel's exception table (EX_TYPE_ZEROPAD)
    mends the fault with zeros. The gate puts every length's last byte
    against a guard page (c/bench/gate.c), so the Kbuild object passes only
    if the loader's fixup (c/kload/extable.c) does what the kernel does."""
    tree = debian_tree("6.12")
    (obj,) = kbuild.build_objects(tree, ["arch/x86/lib/csum-partial_64.o"])
    relocations = subprocess.run(
        ["readelf", "-rW", str(obj)], capture_output=True, text=True, check=True
    ).stdout
    assert "'.rela__ex_table'" in relocations  # the zeropad load's entry
    res, doc = run_json(
        cli, "csum", "--primitive", "csum_partial", "--sizes", "3,13,4093",
        "--variants", "linux-6.12",
    )  # fmt: skip
    assert res.status == 0, res.err
    (variant,) = [v for v in doc["variants"] if v["name"] == "linux-6.12"]
    assert variant["status"] == "ok", variant


def test_csum_times_the_debian_kernels_by_default(cli):
    res, doc = run_json(cli, "csum", "--sizes", "40")
    assert res.status in (0, 1), res.err  # 1: some variant of the seed's is WRONG
    names = {v["name"] for v in doc["variants"]}
    assert {"linux-6.1", "linux-6.12", "kernel-2024", "hp-csum"} <= names
    res, doc = run_json(cli, "csum", "--sizes", "40", "--no-debian-kernels")
    assert not any(v["name"].startswith("linux-") for v in doc["variants"])


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def test_two_revisions_built_in_worktrees_side_by_side_the_broken_one_wrong(cli, kernel_repo):
    head = git(kernel_repo, "rev-parse", "HEAD")
    res, doc = run_json(
        cli, "csum", "--kernel-tree", f"{kernel_repo}@{KERNEL_GOOD},{KERNEL_BROKEN}",
        "--no-debian-kernels", "--primitive", "csum_partial", "--sizes", "40,64",
        "--variants", "linux-good,linux-broken",
    )  # fmt: skip
    assert res.status == 1, res.err  # a kernel tree's variant is WRONG
    by_name = {v["name"]: v for v in doc["variants"]}
    good, broken = by_name["linux-good"], by_name["linux-broken"]
    assert good["status"] == "ok", good
    assert broken["status"] == "wrong"
    assert broken["failure"]["what"] == "mismatch" and broken["failure"]["len"] % 8
    for variant, rev in ((good, KERNEL_GOOD), (broken, KERNEL_BROKEN)):
        origin = variant["origin"]
        assert f"at {rev} (commit" in origin and "Linux 6.12." in origin, origin
        assert "in a git worktree" in origin and "git describe" in origin
        assert "Kbuild objects loaded by hotpath" in origin and "kernel" in variant["flags"]
    assert all(f["n"] == 0 for f in doc["figures"] if f["variant"] == "linux-broken")
    good_figures = [f for f in doc["figures"] if f["variant"] == "linux-good"]
    assert good_figures and all(timed_or_spoiled(f) for f in good_figures)
    assert git(kernel_repo, "rev-parse", "HEAD") == head  # the repository as it was
    # Both mitigation modes of a revision: named +host, the mode in the origin.
    res, doc = run_json(
        cli, "csum", "--kernel-tree", f"{kernel_repo}@{KERNEL_GOOD}", "--no-debian-kernels",
        "--primitive", "csum_partial", "--sizes", "40", "--mitigations", "off,host",
        "--variants", "linux-good,linux-good+host",
    )  # fmt: skip
    assert res.status == 0, res.err
    origin = {v["name"]: v["origin"] for v in doc["variants"] if v["status"] == "ok"}
    assert "mitigations off" in origin["linux-good"]
    assert "mitigations host" in origin["linux-good+host"]


def test_a_working_tree_is_built_with_o_and_timed(cli, clean_612):
    version = trees.makefile_version((clean_612 / "Makefile").read_text(), "t")
    name = f"linux-{version}"  # not a git checkout: named after its Makefile's version
    res, doc = run_json(
        cli, "csum", "--kernel-tree", str(clean_612), "--kernel-config", "defconfig",
        "--no-debian-kernels", "--primitive", "csum_partial", "--sizes", "40",
        "--variants", name,
    )  # fmt: skip
    assert res.status == 0, res.err
    (variant,) = [v for v in doc["variants"] if v["name"] == name]
    assert variant["status"] == "ok", variant
    origin = variant["origin"]
    assert "working tree as it is, make defconfig, built in" in origin, origin
    assert "not a git checkout" in origin and "Kbuild objects loaded by hotpath" in origin
    if os.geteuid() == 0:  # its build ran contained, as nobody (contain.py)
        out = Path(re.search(r"built in (/\S+?)[;,]", origin)[1])
        assert (out / "arch/x86/lib/csum-partial_64.o").stat().st_uid == contain.BUILD_UID


@pytest.fixture(scope="module")
def configured_checkout(kernel_repo, kernel_good, clean_612) -> Path:
    """A git checkout of `good` configured in place (its own .config, Debian's
    6.12 as prepared), its files hard links of clean_612's (no room taken)."""
    checkout = KERNEL_TEST_CACHE / "configured-6.12"
    with locked(KERNEL_TEST_CACHE / "configured.lock"):
        if not (checkout / ".git" / "hotpath-ready").is_file():
            subprocess.run(["rm", "-rf", str(checkout)], check=True)
            subprocess.run(["cp", "-al", str(clean_612), str(checkout)], check=True)
            (checkout / "hotpath-ready").unlink()
            subprocess.run(
                ["git", "clone", "-q", "--shared", "--no-checkout", str(kernel_repo),
                 str(checkout / "git-tmp")],
                check=True,
            )  # fmt: skip
            (checkout / "git-tmp" / ".git").rename(checkout / ".git")
            (checkout / "git-tmp").rmdir()
            subprocess.run(["git", "-C", str(checkout), "reset", "-q", KERNEL_GOOD], check=True)
            (checkout / ".config").write_bytes((kernel_good.root / ".config").read_bytes())
            (checkout / ".git" / "hotpath-ready").write_text("")
    return checkout


def test_a_checkout_configured_in_place_is_built_as_head_with_its_changes(cli, configured_checkout):
    source = configured_checkout / "arch/x86/lib/csum-partial_64.c"
    good = source.read_text()

    def timed(name: str) -> dict:
        res, doc = run_json(
            cli, "csum", "--kernel-tree", str(configured_checkout), "--no-debian-kernels",
            "--primitive", "csum_partial", "--sizes", "40,64", "--variants", name,
        )  # fmt: skip
        assert res.status in (0, 1), res.err
        (variant,) = [v for v in doc["variants"] if v["name"] == name]
        return variant

    try:
        source.unlink()  # a file of its own, not a hard link of the clean tree's
        source.write_text(good.replace(*BROKEN_CSUM))
        dirty = timed("linux-HEAD+dirty")
        assert dirty["status"] == "wrong", dirty  # the uncommitted edit is what was built
        assert "its own .config" in dirty["origin"] or ".config" in dirty["origin"]
    finally:
        source.unlink()
        source.write_text(good)
    clean = timed("linux-HEAD")
    assert clean["status"] == "ok", clean
    # Nothing was written to the checkout: no objects, the .config as it was.
    assert not (configured_checkout / "arch/x86/lib/csum-partial_64.o").exists()
    status = subprocess.run(
        ["git", "-C", str(configured_checkout), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert status == ""


@pytest.fixture(scope="module")
def clean_broken(clean_612) -> Path:
    """A second clean tree of `good`'s files whose csum-partial_64.c does not
    compile (its own file: the others are hard links)."""
    broken = KERNEL_TEST_CACHE / "clean-6.12-unbuildable"
    with locked(KERNEL_TEST_CACHE / "clean-unbuildable.lock"):
        if not (broken / "hotpath-ready").is_file():
            subprocess.run(["rm", "-rf", str(broken)], check=True)
            subprocess.run(["cp", "-al", str(clean_612), str(broken)], check=True)
            (broken / "hotpath-ready").unlink()
            source = broken / "arch/x86/lib/csum-partial_64.c"
            text = source.read_text()
            source.unlink()  # a file of its own, not the worktree's
            source.write_text(text.replace("return csum_finalize_sum(", "return csum_finalize(", 1))
            (broken / "hotpath-ready").write_text("")
    return broken


def test_a_tree_that_does_not_compile_is_refused_with_the_command_and_first_error(
    cli, clean_broken
):
    res = cli(
        "csum", "--kernel-tree", str(clean_broken), "--kernel-config", "defconfig",
        "--no-debian-kernels", "--primitive", "csum_partial", "--rounds", "3",
    )  # fmt: skip
    assert res.status == 2, (res.out, res.err)
    assert "Traceback" not in res.err
    said = next(line for line in res.err.splitlines() if "cannot be built or loaded" in line)
    assert f"--kernel-tree '{clean_broken}'" in said
    assert "make -C" in said and "arch/x86/lib/csum-partial_64.o" in said
    assert "csum-partial_64.c:" in said and "error:" in said and "csum_finalize" in said
    tree = devtrees.prepare_working(clean_broken, "defconfig")  # prepared, and kept
    assert not (tree.objtree / "arch/x86/lib/csum-partial_64.o").exists()


def test_a_tree_that_cannot_be_prepared_is_refused_and_leaves_no_entry(cli, tmp_path):
    root = write_tree(tmp_path / "tree", {"Makefile": MAKEFILE, "Kconfig": ""})
    for path in layouts.CSUM.files:  # the layout is there; Kbuild is not
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("".join(s for f, s in layouts.CSUM.symbols if f == path))
    before = set(kbuild.kbuild_root().glob("out/*"))
    res = cli("csum", "--kernel-tree", str(root), "--kernel-config", "defconfig",
              "--no-debian-kernels", "--rounds", "3")  # fmt: skip
    assert res.status == 2, (res.out, res.err)
    assert f"--kernel-tree '{root}': linux-6.18.0-rc1 cannot be prepared" in res.err
    assert "defconfig failed" in res.err and "No rule to make target" in res.err
    left = set(kbuild.kbuild_root().glob("out/*")) - before
    assert all(p.suffix in (".log", ".lock") for p in left), left  # make's output, kept
    assert any(p.suffix == ".log" and p.name in res.err for p in left)
    for path in left:  # this test's own, not to pile up in the machine's cache
        path.unlink()


def test_a_working_tree_is_named_after_head_and_dirty(tmp_path):
    repo = write_tree(tmp_path / "linux", {"Makefile": MAKEFILE, **dict.fromkeys(
        timed_files("csum"), "/* */\n")})  # fmt: skip
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    (tree,) = trees.parse_kernel_tree(str(repo), timed_files("csum"))
    assert tree.name == "linux-HEAD" and tree.rev is None
    assert "as committed" in tree.said and "git describe" in tree.said
    (repo / "arch/x86/lib/csum-partial_64.c").write_text("/* edited */\n")
    (tree,) = trees.parse_kernel_tree(str(repo), timed_files("csum"))
    assert tree.name == "linux-HEAD+dirty" and "uncommitted changes" in tree.said
    git(repo, "commit", "-qam", "two")
    revs = trees.parse_kernel_tree(f"{repo}@HEAD~1,HEAD", ())
    assert [t.name for t in revs] == ["linux-HEAD~1", "linux-HEAD"]  # as written
    assert revs[0].read("arch/x86/lib/csum-partial_64.c") == b"/* */\n"
    with pytest.raises(UsageError, match=r"revision 'HEAD\$\(id\)'; allowed: letters"):
        trees.parse_kernel_tree(f"{repo}@HEAD$(id)", ())
    plain = write_tree(tmp_path / "plain", {"Makefile": MAKEFILE})
    (tree,) = trees.parse_kernel_tree(str(plain), ())
    assert tree.name == "linux-6.18.0-rc1" and tree.said == "not a git checkout"


def refused(cli, tmp_path, files: dict[str, str], lab="csum", spec=None) -> str:
    root = write_tree(tmp_path / f"tree-{len(list(tmp_path.iterdir()))}", files)
    res = cli(lab, "--kernel-tree", spec or str(root), "--no-debian-kernels", "--rounds", "3")
    assert res.status == 2, (res.out, res.err)
    assert "Traceback" not in res.err
    return res.err


MAKEFILE = "VERSION = 6\nPATCHLEVEL = 18\nSUBLEVEL = 0\nEXTRAVERSION = -rc1\n"


def test_an_unknown_layout_is_refused_naming_what_is_missing(cli, tmp_path):
    err = refused(cli, tmp_path, {"Makefile": MAKEFILE})
    assert "no arch/x86/lib/csum-partial_64.c" in err and "linux-6.18.0-rc1" in err
    # The CRC library of 6.14 and later: no Kbuild component yet.
    err = refused(cli, tmp_path, {"Makefile": MAKEFILE, "lib/crc/x86/crc32.h": ""}, "crc32c")
    assert "no arch/x86/crypto/crc32c-" in err and "crc32c-intel layout" in err
    err = refused(cli, tmp_path, {"README": "no kernel here\n"})
    assert "Makefile" in err


def test_a_file_without_the_symbol_is_refused_naming_it(cli, tmp_path):
    source = debian_tree("6.12").root
    files = {path: (source / path).read_text() for path in ("Makefile", *timed_files("csum"))}
    path = "arch/x86/include/asm/checksum_64.h"
    files[path] = files[path].replace("csum_fold(", "csum_fold_renamed(")
    err = refused(cli, tmp_path, files)
    assert "checksum_64.h has no csum_fold" in err


def test_bad_kernel_tree_arguments_are_refused(cli, tmp_path, kernel_repo):
    for spec, words in (
        (str(tmp_path / "nowhere"), "no such folder"),
        (f"{kernel_repo}@no-such-rev", "not a commit"),
        (f"{kernel_repo}@{KERNEL_GOOD},", "empty revision"),
        (f"{tmp_path}@HEAD", "not the top of a git checkout"),
    ):
        res = cli("csum", "--kernel-tree", spec, "--no-debian-kernels")
        assert res.status == 2 and words in res.err, (spec, res.err)
    spec = f"{kernel_repo}@{KERNEL_GOOD}"
    res = cli("csum", "--kernel-tree", spec, "--kernel-tree", spec, "--no-debian-kernels")
    assert res.status == 2 and "two kernels named 'linux-good'" in res.err, res.err


def test_bad_kernel_config_values_are_refused(cli, tmp_path):
    for value, words in (("tinyconfig", "no such choice or file"), (str(tmp_path), "not a file")):
        res = cli("csum", "--kernel-config", value, "--no-debian-kernels")
        assert res.status == 2, res.err
        assert f"'{value}': {words}" in res.err
        assert "allowed: auto, debian-6.12, debian-6.1, defconfig, or a kernel config file" in (
            " ".join(res.err.split())
        )
    with pytest.raises(UsageError, match="tinyconfig"):
        devtrees.check_config("tinyconfig")


def test_the_help_says_that_building_a_tree_runs_its_code(cli):
    res = cli("csum", "--help")
    text = " ".join(res.out.split())
    assert text.count("Building a tree runs its code") == 2, text
    assert "as root, contained (bubblewrap: as nobody, no network" in text
    assert "--trust-tree" in text


def test_without_network_and_cache_the_run_says_so_once_and_goes_on(cli, tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool, script in (
        ("apt-cache", "echo '  Candidate: 6.12.999-1'"),
        ("apt-get", "echo 'E: Failed to fetch: Temporary failure resolving' >&2; exit 100"),
    ):
        (bin_dir / tool).write_text(f"#!/bin/sh\n{script}\n")
        (bin_dir / tool).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin")
    monkeypatch.setenv("HOTPATH_GUEST_CACHE", str(tmp_path / "empty-cache"))
    # No --variants: the real kernels are asked for (a --variants naming no
    # linux-* would not even look for them).
    res, doc = run_json(cli, "csum", "--sizes", "40")
    assert res.status == 0, res.err
    said = [line for line in res.err.splitlines() if "real kernels were not available" in line]
    assert len(said) == 1 and "Temporary failure resolving" in said[0]
    names = [v["name"] for v in doc["variants"]]
    assert "kernel-2024" in names and not [n for n in names if n.startswith("linux-")]


def test_variants_that_name_no_real_kernel_load_no_kernel_source(cli, tmp_path, monkeypatch):
    """(issue 38): `--variants kernel-2024` neither prepares nor loads a tree."""
    monkeypatch.setenv("HOTPATH_GUEST_CACHE", str(tmp_path / "empty-cache"))
    res, doc = run_json(cli, "csum", "--sizes", "40", "--variants", "kernel-2024")
    assert res.status == 0, res.err
    assert "real kernels" not in res.err
    assert [v["name"] for v in doc["variants"]] == ["kernel-2024"]


def test_makefile_versions_and_their_order():
    assert trees.makefile_version(MAKEFILE, "t") == "6.18.0-rc1"
    keys = [version_key(v) for v in ("6.1.192", "6.12.117", "6.18.0-rc1", "6.18.0")]
    assert keys == sorted(keys)
    with pytest.raises(UsageError, match="no kernel version"):
        trees.makefile_version("all:\n", "t")


def test_kernels_command_lists_the_prepared_trees_and_each_labs_variants(cli, tmp_path):
    res = cli("kernels")
    assert res.status == 0, res.err
    assert "linux-6.12:pcl (crc32c)" in res.out and "linux-6.1 (csum_partial)" in res.out
    assert "linux-6.12 (avc_lookup)" in res.out
    assert str(debian_tree("6.12").root) in res.out
    # A tree of the user's, checked and not built: what it lacks.
    root = write_tree(tmp_path / "tree", {"Makefile": MAKEFILE})
    res = cli("kernels", "--kernel-tree", str(root))
    assert res.status == 0, res.err
    assert "linux-6.18.0-rc1: Linux 6.18.0-rc1" in res.out
    assert "csum: not built: no csum layout: no arch/x86/lib/csum-partial_64.c" in res.out
    assert cli("kernels", "fetch").status == 2  # gone: `hotpath kernels prepare`


def test_a_prepared_tree_records_how_it_was_made():
    tree = debian_tree("6.12")
    facts = json.loads((tree.entry / "READY").read_text())
    assert facts["kind"] == "debian" and facts["kernelrelease"] == tree.version
    assert facts["packages"]["linux-source-6.12"] == facts["debian_version"]
    assert "total" in facts["seconds"] and tree.root.is_dir()


def test_a_fifo_a_device_or_a_huge_file_in_a_tree_is_refused_at_once(tmp_path):
    """Regular files only, never blocking, and a size limit (issue 40, items
    8 and 9): before, a FIFO as the Makefile hung `hotpath kernels`, and a
    link to /dev/zero was read until memory ran out."""
    hotpath = Path(sys.executable).with_name("hotpath")
    cases = {}
    fifo = write_tree(tmp_path / "fifo", {"Kconfig": ""})
    os.mkfifo(fifo / "Makefile")
    cases[fifo] = "not a regular file"
    zero = write_tree(tmp_path / "zero", {"Kconfig": ""})
    (zero / "Makefile").symlink_to("/dev/zero")
    cases[zero] = "not a regular file"
    huge = write_tree(tmp_path / "huge", {"Kconfig": "", "Makefile": MAKEFILE})
    (huge / "arch/x86/lib").mkdir(parents=True)
    with (huge / "arch/x86/lib/csum-partial_64.c").open("wb") as sparse:
        sparse.truncate(3 << 30)  # 3 GB, sparse
    cases[huge] = "bytes; allowed: at most"
    for root, words in cases.items():
        done = subprocess.run(
            [str(hotpath), "csum", "--kernel-tree", str(root), "--no-debian-kernels"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 2, (root, done.stderr)
        assert words in done.stderr and str(root) in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
