# SPDX-License-Identifier: GPL-2.0-only
"""Whole kernel trees prepared by their own Kbuild (hotpath.kernelsrc.kbuild).

Debian's linux-6.12, downloaded and prepared into the machine's cache the
first time (under a minute), found there after that; its objects and
glue objects are built by its Kbuild and read back with readelf/objdump.
Developer trees: a commit of the test repository of linux-source-6.12
(conftest.kernel_repo: made once, about two and a half minutes the first
time) prepared in a git worktree, and a clean tree of its files built
with O=.
"""

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from conftest import KERNEL_BROKEN, KERNEL_GOOD
from hotpath.debian import locked
from hotpath.errors import HotpathError, UsageError
from hotpath.kernelsrc import devtrees, kbuild

GLUE_C = textwrap.dedent("""\
    #include <linux/module.h>
    #include <net/checksum.h>
    __sum16 hp_glue_csum_fold(__wsum s);
    __sum16 hp_glue_csum_fold(__wsum s) { return csum_fold(s); }
""")


@pytest.fixture(scope="module")
def tree_612() -> kbuild.PreparedTree:
    return kbuild.prepare_debian("6.12", log=lambda line: None)


def tool(*args: str) -> str:
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def sections(obj: Path) -> set[str]:
    names = set()
    for line in tool("readelf", "-SW", str(obj)).splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 1 and fields[0].startswith("[") and fields[0] != "[Nr]":
            names.add(fields[1])
    return names


def test_the_debian_tree_is_prepared_with_the_changes_listed(tree_612):
    assert tree_612.name == "linux-6.12"
    assert tree_612.version.startswith("6.12.")
    assert "Debian linux-source-6.12 " in tree_612.where
    assert "config.amd64_none_amd64" in tree_612.where
    facts = json.loads((tree_612.entry / "READY").read_text())
    assert [c["option"] for c in facts["changes"]] == [
        f"CONFIG_{option}" for option, _, _ in kbuild.CONFIG_CHANGES
    ]
    config = (tree_612.root / ".config").read_text()
    assert "CONFIG_DEBUG_INFO_BTF=y" not in config
    assert "# CONFIG_MODULE_SIG_ALL is not set" in config
    assert tree_612.entry.name.endswith(tree_612.config_digest)
    assert (tree_612.root / "scripts/module.lds").is_file()  # modules_prepare ran
    assert not list(kbuild.kbuild_root().glob("6.12-*.partial-*"))


def test_a_prepared_tree_is_found_without_make(tree_612, monkeypatch):
    real_run, real_popen = subprocess.run, subprocess.Popen

    def no_make(run):
        def checked(args, *rest, **kw):
            assert "make" not in [Path(str(a)).name for a in args], args  # contained or not
            return run(args, *rest, **kw)

        return checked

    monkeypatch.setattr(subprocess, "run", no_make(real_run))
    monkeypatch.setattr(subprocess, "Popen", no_make(real_popen))
    assert kbuild.prepare_debian("6.12", allow_fetch=False) == tree_612
    assert kbuild.prepare_debian("6.12") == tree_612


def test_a_tree_object_carries_the_kernel_relocations(tree_612):
    (obj,) = kbuild.build_objects(tree_612, ["arch/x86/lib/csum-partial_64.o"])
    assert obj == tree_612.root / "arch/x86/lib/csum-partial_64.o"
    names = sections(obj)
    assert "__mcount_loc" in names
    # A built-in object of an IBT kernel: objtool runs on vmlinux.o, not on
    # it (Makefile.lib's delay-objtool), so it has no .return_sites of its own.
    assert ".return_sites" not in names
    relocs = tool("readelf", "-rW", str(obj))
    fentry = [line for line in relocs.splitlines() if "__fentry__" in line]
    assert fentry
    assert all("R_X86_64_PLT32" in line or "R_X86_64_32S" in line for line in fentry)
    assert "__x86_return_thunk" in relocs


def test_a_built_object_is_stamped_and_not_built_again(tree_612, monkeypatch):
    kbuild.build_objects(tree_612, ["arch/x86/lib/csum-partial_64.o"])
    monkeypatch.setattr(kbuild, "make", lambda *a: pytest.fail("make called again"))
    (obj,) = kbuild.build_objects(tree_612, ["arch/x86/lib/csum-partial_64.o"])
    assert obj.is_file()


def test_a_bad_object_name_is_refused(tree_612):
    for target in ("/etc/passwd.o", "../x.o", "lib/crc32.c"):
        with pytest.raises(UsageError):
            kbuild.build_objects(tree_612, [target])


def test_a_glue_file_is_built_as_a_module_object(tree_612, tmp_path):
    source = tmp_path / "glue.c"
    source.write_text(GLUE_C)
    obj = kbuild.build_glue(tree_612, source, "hp_glue_csum")
    assert obj.name == "hp_glue_csum.o" and obj.parent.parent == tree_612.entry / "hotpath-glue"
    code = tool("objdump", "-dr", str(obj))
    assert "R_X86_64_PLT32\t__fentry__" in code
    assert "jmp" in code and "__x86_return_thunk" in code
    # A module's single object: objtool ran on it.
    assert {"__mcount_loc", ".return_sites", ".orc_unwind", ".ibt_endbr_seal"} <= sections(obj)
    assert kbuild.build_glue(tree_612, source, "hp_glue_csum") == obj  # kept


def test_a_glue_wraps_a_static_function_of_a_tree_file(tree_612, tmp_path):
    selinux = tree_612.root / "security/selinux"
    source = tmp_path / "avc_glue.c"
    source.write_text(
        f'#include "{selinux}/avc.c"\n'
        "u32 hp_glue_avc_hash(u32 ssid, u32 tsid, u16 tclass);\n"
        "u32 hp_glue_avc_hash(u32 ssid, u32 tsid, u16 tclass)\n"
        "{ return avc_hash(ssid, tsid, tclass); }\n"
    )
    obj = kbuild.build_glue(
        tree_612,
        source,
        "hp_glue_avc",
        ccflags=[f"-I{selinux}", f"-I{selinux}/include"],
        needs=["security/selinux/avc.o"],  # makes flask.h and av_permissions.h
    )
    symbols = tool("nm", str(obj))
    assert " T hp_glue_avc_hash\n" in symbols
    assert {".altinstructions", "__jump_table", ".static_call_sites"} <= sections(obj)


def test_a_build_error_names_the_first_error_and_leaves_nothing(tree_612, tmp_path):
    source = tmp_path / "broken.c"
    source.write_text("int hp_broken(void) { return 1 }\nint hp_also(void) { return x; }\n")
    with pytest.raises(HotpathError) as caught:
        kbuild.build_glue(tree_612, source, "hp_broken")
    message = str(caught.value)
    assert "make -C" in message
    first = message.splitlines()[0]
    assert "hp_broken.c:1:" in first and "error:" in first
    assert "expected ';'" in first
    assert not list((tree_612.entry / "hotpath-glue").glob("hp_broken-*"))
    assert "return x" in tree_612.log_file.read_text()


def test_first_error_prefers_the_compiler_line():
    output = "make[1]: Entering\nf.c:3:1: warning: w\nf.c:4:2: error: e\nmake: *** Error 2\n"
    assert kbuild.first_error(output) == "f.c:4:2: error: e"
    assert kbuild.first_error("make: *** [x] Error 2\n") == "make: *** [x] Error 2"
    assert kbuild.first_error("odd\nlast\n") == "last"


@pytest.mark.parametrize("stop", [HotpathError("apt-get download failed"), KeyboardInterrupt()])
def test_a_failed_or_interrupted_preparation_leaves_no_entry(tmp_path, monkeypatch, stop):
    monkeypatch.setenv("HOTPATH_GUEST_CACHE", str(tmp_path))

    def download(packages, into):
        (into / "linux-source-6.12_x_all.deb").write_text("half")
        raise stop

    monkeypatch.setattr(kbuild, "download", download)
    with pytest.raises(type(stop)):
        kbuild._prepare_debian("6.12", "6.12.1-1", lambda line: None)
    assert list((tmp_path / "kbuild").iterdir()) == []


def test_prune_keeps_what_it_is_told_and_live_partials(tmp_path, monkeypatch):
    monkeypatch.setenv("HOTPATH_GUEST_CACHE", str(tmp_path))
    root = tmp_path / "kbuild"
    keep = root / "6.12-6.12.117-1-aaaaaaaaaaaa"
    old = root / "6.12-6.12.100-1-bbbbbbbbbbbb"
    live = root / f"6.1-6.1.1-1.partial-{os.getpid()}"
    dead = root / "6.1-6.1.1-1.partial-999999999"
    for folder in (keep, old, live, dead):
        (folder / "tree").mkdir(parents=True)
    old.with_name(f"{old.name}.log").write_text("log")
    busy = root / "6.12-6.12.117-2-dddddddddddd"  # being prepared: its version's lock held
    (busy / "tree").mkdir(parents=True)
    with locked(root / "6.12-6.12.117-2.lock"):  # flock: held against any other open
        assert kbuild.prune({keep}) == [dead, old]
    assert sorted(p.name for p in root.iterdir() if p.is_dir()) == sorted(
        [keep.name, live.name, busy.name]
    )


def test_kernels_prune_removes_the_entries_not_current(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("HOTPATH_GUEST_CACHE", str(tmp_path))
    old = tmp_path / "kbuild" / "6.12-6.12.1-1-cccccccccccc"
    (old / "tree").mkdir(parents=True)
    res = cli("kernels", "prune")
    assert res.status == 0, res.err
    assert f"removed {old}" in res.out
    assert not old.exists()
    assert "nothing to remove" in cli("kernels", "prune").out


def test_kernels_prepare_says_where_and_how_long(cli, tree_612, monkeypatch):
    monkeypatch.setattr(kbuild, "SHORTS", ("6.12",))  # linux-6.1 is another 1.7 GB
    res = cli("kernels", "prepare")
    assert res.status == 0, res.err
    line = next(line for line in res.out.splitlines() if line.startswith("linux-6.12 "))
    assert "cached (" in line and "prepared in " in line and line.endswith(str(tree_612.root))


# Developer trees: the test repository's `good`, Debian's linux-source-6.12
# as one commit (conftest.kernel_repo, kernel_good), and a clean working
# tree of its files (clean_612: hard links to the worktree's, no room taken).


def test_a_commit_is_prepared_in_a_worktree_of_the_cache(kernel_repo, kernel_good, monkeypatch):
    tree = kernel_good
    assert tree.root.parent.parent == kbuild.kbuild_root() / "worktrees"
    assert tree.name == f"linux-{KERNEL_GOOD}" and tree.version.startswith("6.12.")
    assert "Debian's config.amd64_none_amd64 of linux-config-6.12" in tree.where
    assert str(tree.root) in tool("git", "-C", str(kernel_repo), "worktree", "list")
    (obj,) = kbuild.build_objects(tree, ["arch/x86/lib/csum-partial_64.o"])
    names = sections(obj)
    # 6.12's Debian kernel has IBT: objtool runs on vmlinux.o, not on it.
    assert "__mcount_loc" in names and ".return_sites" not in names
    assert "__fentry__" in tool("readelf", "-rW", str(obj))
    monkeypatch.setattr(kbuild, "make", lambda *a: pytest.fail("make called"))
    assert devtrees.prepare_worktree(kernel_repo, KERNEL_GOOD, "debian-6.12") == tree
    # Another name of the same commit finds the same entry, named as asked.
    sha = tool("git", "-C", str(kernel_repo), "rev-parse", KERNEL_GOOD).strip()
    again = devtrees.prepare_worktree(kernel_repo, f"{KERNEL_BROKEN}~1", "debian-6.12")
    assert again.entry == tree.entry and again.name == "linux-broken~1"  # spelt as written
    assert f"at {KERNEL_BROKEN}~1 (commit {sha[:12]})" in again.where


def test_a_bad_revision_or_config_is_refused(kernel_repo):
    with pytest.raises(UsageError, match="not a commit"):
        devtrees.prepare_worktree(kernel_repo, "no-such-tag")
    with pytest.raises(UsageError, match=r"allowed: auto, debian-6\.12"):
        devtrees.prepare_worktree(kernel_repo, KERNEL_GOOD, "tinyconfig")


def test_a_working_tree_is_built_out_of_place_and_never_written(clean_612, tmp_path):
    before = {p: p.stat().st_mtime_ns for p in clean_612.rglob("*")}
    tree = devtrees.prepare_working(clean_612, "defconfig", log=lambda line: None)
    assert not tree.fixed and tree.out is not None and tree.root == clean_612
    (obj,) = kbuild.build_objects(tree, ["arch/x86/lib/csum-partial_64.o"])
    assert obj == tree.out / "arch/x86/lib/csum-partial_64.o" and obj.is_file()
    source = tmp_path / "glue.c"
    source.write_text(GLUE_C)
    glue = kbuild.build_glue(tree, source, "hp_glue_csum")
    assert "__x86_return_thunk" in tool("objdump", "-dr", str(glue))  # defconfig: no ftrace
    after = {p: p.stat().st_mtime_ns for p in clean_612.rglob("*")}
    assert after == before


def test_a_tree_configured_in_place_outside_git_is_refused_for_o(tmp_path):
    # (a git checkout configured in place is built as HEAD with its changes:
    # test_kernel_source.py)
    for name in ("Makefile", "Kconfig", ".config"):
        (tmp_path / name).write_text("")
    with pytest.raises(UsageError, match="not the top of a git checkout"):
        devtrees.prepare_working(tmp_path)


def test_prune_forgets_a_removed_worktree_in_its_repository(tmp_path, monkeypatch):
    monkeypatch.setenv("HOTPATH_GUEST_CACHE", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    tool("git", "init", "-q", str(repo))
    (repo / "Makefile").write_text("VERSION = 6\n")
    tool("git", "-C", str(repo), "add", "Makefile")
    tool("git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
         "commit", "-q", "-m", "one")  # fmt: skip
    entry = kbuild.kbuild_root() / "worktrees" / "abc-def"
    tool("git", "-C", str(repo), "worktree", "add", "-q", "--detach", str(entry / "tree"))
    (entry / "READY").write_text(json.dumps({"repo": str(repo)}))
    assert kbuild.prune(set()) == [entry]
    assert str(entry) not in tool("git", "-C", str(repo), "worktree", "list")
