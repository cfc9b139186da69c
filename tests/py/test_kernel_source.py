# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's own code, built from real trees (hotpath.kernelsrc, c/kshim).

Debian's linux-source-6.1 and 6.12 come from the cache the set-up filled
(`hotpath kernels fetch`); the fixture trees are made here from their
files (a git repository with a good and a broken revision, a working tree,
trees of unknown layouts). Statuses and values only, never speed.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from hotpath.errors import UsageError
from hotpath.kernelsrc import debian, layouts, timed_files, trees
from hotpath.kernelsrc.build import KERNEL_CFLAGS, build, fitting
from hotpath.tree import repo_root

pytestmark = [pytest.mark.runner, pytest.mark.usefixtures("real_runner")]

CSUM_PRIMITIVES = ("csum_partial", "csum_fold", "ip_fast_csum", "csum_ipv6_magic",
                   "csum_partial_copy")  # fmt: skip


def debian_entry(package: str) -> debian.Entry:
    entries = debian.cached(package)
    assert entries, (
        f"{package} is not in {debian.package_dir(package)}: scripts/setup.sh fetches it "
        "(hotpath kernels fetch)"
    )
    return entries[0]


@pytest.fixture(scope="module")
def debian_612() -> Path:
    return debian_entry("linux-source-6.12").tree_dir


@pytest.mark.parametrize("package", layouts.LINUX_SOURCE_PACKAGES)
def test_the_shim_builds_every_supported_file_of_both_debian_trees(package, real_runner):
    tree = debian_entry(package).tree()
    assert tree.name == "linux-" + package.removeprefix("linux-source-")
    # Both have the 5.17-and-later csum layout and the crc32c-intel driver.
    fit = [c for lab in ("csum", "crc32c") for c in fitting(tree, lab)]
    assert fit == [layouts.CSUM, layouts.CRC32C_INTEL]
    for component in fit:
        built = build(tree, component, repo_root(), real_runner)
        symbols = subprocess.run(
            ["nm", "-D", "--defined-only", str(built.shared)], capture_output=True, text=True
        ).stdout
        for entry in component.entries:
            assert f" {entry.symbol}\n" in symbols, (component.name, entry.symbol)


def run_json(cli, *args):
    res = cli(*args, "--rounds", "3", "--modes", "latency", "--json", "--no-store")
    return res, (res.json() if res.out.strip() else None)


@pytest.mark.parametrize("primitive", CSUM_PRIMITIVES)
def test_the_gate_passes_the_debian_kernels_csum(cli, primitive):
    res, doc = run_json(cli, "csum", "--primitive", primitive, "--variants", "linux-6.1,linux-6.12")
    assert res.status == 0, res.err
    status = {v["name"]: v for v in doc["variants"]}
    for name in ("linux-6.1", "linux-6.12"):
        assert status[name]["status"] == "ok", status[name]
        assert "kernel" in status[name]["flags"]
        assert f"Linux {name.removeprefix('linux-')}." in status[name]["origin"]


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
        assert "shim patch" not in origin[name] and "mitigations off" in origin[name]


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


def copy_tree(source: Path, into: Path) -> Path:
    """A tree of the csum lab's files (and the Makefile) copied from `source`."""
    for path in ("Makefile", *timed_files("csum")):
        (into / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / path, into / path)
    return into


# A deliberate mistake in csum_partial(): the tail's shift a byte short, so
# one byte past the length is summed (the kind of slip a review misses).
BROKEN = ("unsigned int shift = (-len << 3) & 63;", "unsigned int shift = ((-len << 3) - 8) & 63;")


@pytest.fixture
def fixture_repo(tmp_path, debian_612) -> Path:
    repo = copy_tree(debian_612, tmp_path / "linux")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "good")
    git(repo, "tag", "good")
    source = repo / "arch/x86/lib/csum-partial_64.c"
    text = source.read_text()
    assert BROKEN[0] in text
    source.write_text(text.replace(*BROKEN))
    git(repo, "commit", "-qam", "broken")
    git(repo, "tag", "broken")
    return repo


def test_two_revisions_side_by_side_the_broken_one_wrong_with_its_case(cli, fixture_repo):
    res, doc = run_json(
        cli, "csum", "--kernel-tree", f"{fixture_repo}@good,broken", "--no-debian-kernels",
        "--sizes", "40,64", "--variants", "linux-good,linux-broken",
    )  # fmt: skip
    assert res.status == 1, res.err  # a kernel tree's variant is WRONG
    by_name = {v["name"]: v for v in doc["variants"]}
    assert by_name["linux-good"]["status"] == "ok"
    broken = by_name["linux-broken"]
    assert broken["status"] == "wrong"
    assert broken["failure"]["what"] == "mismatch" and broken["failure"]["len"] % 8
    assert "at broken (commit" in broken["origin"] and "Linux 6.12." in broken["origin"]
    assert all(f["n"] == 0 for f in doc["figures"] if f["variant"] == "linux-broken")


def test_a_working_tree_is_named_after_head_and_dirty(cli, fixture_repo, tmp_path):
    git(fixture_repo, "checkout", "-q", "good")
    tree = trees.working_tree(fixture_repo, timed_files("csum"))
    assert tree.name == "linux-HEAD" and "as committed" in tree.where
    (fixture_repo / "arch/x86/lib/csum-partial_64.c").write_text("/* edited */\n")
    assert trees.working_tree(fixture_repo, timed_files("csum")).name == "linux-HEAD+dirty"
    plain = copy_tree(fixture_repo, tmp_path / "plain")
    tree = trees.working_tree(plain, ())
    assert tree.name.startswith("linux-6.12.") and "not a git checkout" in tree.where


def refused(cli, tmp_path, files: dict[str, str], lab="csum", spec=None) -> str:
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    res = cli(lab, "--kernel-tree", spec or str(root), "--no-debian-kernels", "--rounds", "3")
    assert res.status == 2, (res.out, res.err)
    assert "Traceback" not in res.err
    return res.err


MAKEFILE = "VERSION = 6\nPATCHLEVEL = 18\nSUBLEVEL = 0\nEXTRAVERSION = -rc1\n"


def test_an_unknown_layout_is_refused_naming_what_is_missing(cli, tmp_path):
    err = refused(cli, tmp_path, {"Makefile": MAKEFILE})
    assert "arch/x86/lib/csum-partial_64.c" in err
    err = refused(cli, tmp_path, {"Makefile": MAKEFILE, "lib/crc/x86/crc32.h": ""}, "crc32c")
    assert "no arch/x86/crypto/crc32c-" in err and "lib/crc/x86" in err
    err = refused(cli, tmp_path, {"README": "no kernel here\n"})
    assert "Makefile" in err


def test_a_file_without_the_symbol_is_refused_naming_it(cli, tmp_path, debian_612):
    root = copy_tree(debian_612, tmp_path / "tree")
    path = root / "arch/x86/include/asm/checksum_64.h"
    path.write_text(path.read_text().replace("csum_fold(", "csum_fold_renamed("))
    err = refused(cli, tmp_path, {}, spec=str(root))
    assert "checksum_64.h has no csum_fold" in err


def test_bad_kernel_tree_arguments_are_refused(cli, tmp_path, fixture_repo):
    for spec, words in (
        (str(tmp_path / "nowhere"), "no such folder"),
        (f"{fixture_repo}@no-such-rev", "not a commit"),
        (f"{fixture_repo}@good,", "empty revision"),
        (f"{tmp_path}@HEAD", "not the top of a git checkout"),
    ):
        res = cli("csum", "--kernel-tree", spec, "--no-debian-kernels")
        assert res.status == 2 and words in res.err, (spec, res.err)


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
    res, doc = run_json(cli, "csum", "--sizes", "40", "--variants", "kernel-2024")
    assert res.status == 0, res.err
    said = [line for line in res.err.splitlines() if "real kernels were not available" in line]
    assert len(said) == 1 and "Temporary failure resolving" in said[0]
    assert [v["name"] for v in doc["variants"]] == ["kernel-2024"]


ZEROPAD_PROBE = textwrap.dedent(
    r"""
    #include <dlfcn.h>
    #include <stdio.h>
    #include <string.h>
    #include <sys/mman.h>
    #include <unistd.h>

    int main(int argc, char **argv)
    {
        long page = sysconf(_SC_PAGESIZE);
        unsigned char *map = mmap(0, 2 * page, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        void *so = dlopen(argv[1], RTLD_NOW);
        unsigned long (*zeropad)(const void *);

        if (!so || map == MAP_FAILED) {
            fprintf(stderr, "%s\n", dlerror());
            return 3;
        }
        zeropad = (unsigned long (*)(const void *))dlsym(so, "hp_kshim_zeropad");
        mprotect(map + page, page, PROT_NONE);    /* the guard page */
        memset(map, 0xee, page);
        memcpy(map + page - 3, "abc", 3);
        printf("%lx\n", zeropad(map + page - 3)); /* past the page: zeros */
        printf("%lx\n", zeropad(map + page - 8));  /* whole: no fault */
        fflush(stdout);
        zeropad(map + page);                      /* in the guard: a crash */
        return 0;
    }
    """
)


def test_load_unaligned_zeropad_reads_zeros_past_a_page_end(tmp_path, real_runner, debian_612):
    tree = debian_entry("linux-source-6.12").tree()
    built = build(tree, layouts.CSUM, repo_root(), real_runner)
    probe = tmp_path / "probe"
    (tmp_path / "probe.c").write_text(ZEROPAD_PROBE)
    subprocess.run(["cc", "-O1", "-o", str(probe), str(tmp_path / "probe.c"), "-ldl"], check=True)
    done = subprocess.run([str(probe), str(built.shared)], capture_output=True, text=True)
    lines = done.stdout.split()
    assert lines[0] == "636261"  # "abc", then the kernel's fixup's zeros
    assert lines[1] == "636261eeeeeeeeee"  # 8 bytes of the page, no fault
    assert done.returncode == -11, done  # a fault no exception entry covers: SIGSEGV


def test_makefile_versions_and_their_order():
    assert trees.makefile_version(MAKEFILE, "t") == "6.18.0-rc1"
    keys = [trees.version_key(v) for v in ("6.1.192", "6.12.117", "6.18.0-rc1", "6.18.0")]
    assert keys == sorted(keys)
    with pytest.raises(UsageError, match="no kernel version"):
        trees.makefile_version("all:\n", "t")


def test_kernels_command_lists_the_cache_and_each_labs_variants(cli):
    res = cli("kernels")
    assert res.status == 0, res.err
    assert "linux-6.12:pcl (crc32c)" in res.out and "linux-6.1 (csum_partial)" in res.out


def test_a_debian_entry_records_the_files_it_kept():
    entry = debian_entry("linux-source-6.12")
    facts = json.loads((entry.root / "READY").read_text())
    assert set(facts["wanted"]) == set(layouts.SOURCE_FILES)
    # What each tree has of them: neither has lib/crc (Linux 6.17 and later).
    have = set(layouts.SOURCE_FILES) - set(layouts.CRC32C_LIB.files())
    assert set(facts["files"]) == have
    assert facts["version"] == entry.version and "seconds" in facts


SHIM_PROBE = textwrap.dedent(
    r"""
    #include <linux/jump_label.h>
    #include <linux/static_call.h>
    #include <asm/cpufeatures.h>

    int printf(const char *format, ...);

    static DEFINE_STATIC_KEY_FALSE(have_thing);
    static int one(int x) { return x + 1; }
    static int two(int x) { return x + 2; }
    DEFINE_STATIC_CALL(add, one);

    int main(void)
    {
        int before = static_branch_likely(&have_thing) ? 1 : 0;

        if (boot_cpu_has(X86_FEATURE_XMM4_2))
            static_branch_enable(&have_thing);
        printf("key %d %d\n", before, static_branch_likely(&have_thing) ? 1 : 0);
        printf("call %d", static_call(add)(40));
        static_call_update(add, two);
        printf(" %d\n", static_call(add)(40));
        printf("enabled %d %d\n", IS_ENABLED(CONFIG_X86_64), IS_ENABLED(CONFIG_X86_32));
        printf("prefer_ymm %d\n", boot_cpu_has(X86_FEATURE_PREFER_YMM));
        return 0;
    }
    """
)


def test_static_keys_and_calls_resolve_as_the_kernel_resolves_them(tmp_path, real_runner):
    """The shim's static keys, static calls and Kconfig tests, in a program
    built with the kernel's flags and -nostdinc; the key follows the CPU
    (HOTPATH_CPU_HIDE hides SSE4.2 from it as from the kernel's code)."""
    repo = repo_root()
    (tmp_path / "probe.c").write_text(SHIM_PROBE)
    include = subprocess.run(
        ["cc", "-print-file-name=include"], capture_output=True, text=True
    ).stdout.strip()
    kshim = repo / "c" / "kshim"
    flags = [*KERNEL_CFLAGS, "-isystem", include, "-I", str(kshim / "include")]
    flags += ["-I", str(repo / "c" / "include"), "-include", str(kshim / "include" / "kshim.h")]
    subprocess.run(["cc", *flags, "-c", str(tmp_path / "probe.c"), "-o", str(tmp_path / "p.o")],
                   check=True)  # fmt: skip
    subprocess.run(
        ["cc", "-O2", "-I", str(repo / "c" / "include"), "-o", str(tmp_path / "probe"),
         str(tmp_path / "p.o"), str(kshim / "runtime" / "cpu.c"), f"-L{real_runner}",
         "-lhotpath", f"-Wl,-rpath,{real_runner}"],
        check=True,
    )  # fmt: skip
    out = subprocess.run([str(tmp_path / "probe")], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "key 0 1" and lines[1] == "call 41 42" and lines[2] == "enabled 1 0"
    # The kernel's zmm_exclusion_list (arch/x86/kernel/cpu/intel.c), read here from cpuinfo.
    cpu = dict(
        line.split(":", 1)
        for line in Path("/proc/cpuinfo").read_text().split("\n\n")[0].splitlines()
    )
    field = {k.strip(): v.strip() for k, v in cpu.items()}
    excluded = (
        field["vendor_id"] == "GenuineIntel"
        and field["cpu family"] == "6"
        and int(field["model"]) in {0x55, 0x6A, 0x6C, 0x7E, 0x7D, 0x9D, 0x8C, 0x8D}
    )
    assert lines[3] == f"prefer_ymm {int(excluded)}"
    hidden = subprocess.run(
        [str(tmp_path / "probe")],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HOTPATH_CPU_HIDE": "sse4.2"},
    )
    assert hidden.stdout.splitlines()[0] == "key 0 0"
