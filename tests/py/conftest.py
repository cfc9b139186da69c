# SPDX-License-Identifier: GPL-2.0-only
"""Shared fixtures: the CLI in-process, a scripted runner, a fake machine root.

Every test gets its own HOME and XDG_STATE_HOME so that no test can touch
the user's real history database; XDG_CACHE_HOME (the chain-bound cache) is
one folder for the session, never the user's. Downloads from Debian's
archive (the guest kernels, the linux-source packages) are the machine's:
HOTPATH_GUEST_CACHE names the cache the set-up filled, so tests use only
what it downloaded.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from hotpath.cli import main
from hotpath.debian import cache_root, candidate_version, download, locked
from hotpath.kernelsrc import devtrees, kbuild

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FAKE_RUNNER = HERE / "fake_runner.py"

# C for the tests' brought variants: a right csum_partial (RFC 1071, word
# by word) that misbehaving variants wrap.
RFC1071_C = r"""
#include <stdint.h>

static uint32_t ok(const void *buf, int len, uint32_t sum)
{
	const uint8_t *p = buf;
	uint64_t s = sum;
	int i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] | p[i + 1] << 8);
	if (len & 1)
		s += p[len - 1];
	while (s >> 32)
		s = (s & 0xffffffff) + (s >> 32);
	return (uint32_t)s;
}
"""
SCHEMA = ROOT / "python" / "hotpath" / "schema" / "result-2.schema.json"
# Read before any test changes HOME: where the set-up left its downloads.
MACHINE_CACHE = cache_root()


def timed_or_spoiled(figure: dict) -> bool:
    """A figure of a real runner: timed, or n/a because a neighbour on the
    core spoiled every sample (said so). Which of the two is the machine's
    business, never a test's (pytest --spoiled forces the second)."""
    if figure["status"] == "ok":
        return figure["median"] is not None
    return figure["status"] == "n/a" and "no clean sample" in (figure.get("reason") or "")


def stored_run(db: Path, run_id: int):
    """Run `run_id` of the history at `db`, as the store gives it back."""
    from hotpath.store import Store

    store = Store.open(db, create=False)
    try:
        return store.load(run_id)
    finally:
        store.close()


def newer_history(path: Path, ahead: int = 1) -> Path:
    """A history at `path` whose schema version is `ahead` past this
    hotpath's, as a later release would leave it."""
    import sqlite3

    from hotpath.store import SCHEMA_VERSION, Store

    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + ahead,))
    conn.commit()
    conn.close()
    return path


def history_rows(cli, db: Path) -> list[list[str]]:
    """`hotpath history --db DB`: its rows below the heading, as words."""
    listed = cli("history", "--db", str(db))
    assert listed.status == 0, listed.err
    return [line.split() for line in listed.out.splitlines()[1:]]


@dataclass
class CliResult:
    status: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)


def pytest_addoption(parser):
    parser.addoption(
        "--spoiled",
        action="store_true",
        help="run every real runner as if a neighbour spoiled every sample "
        "(HOTPATH_TEST_SPOILED): each test must still pass, so none needs an idle machine",
    )


def pytest_configure(config):
    # A suite started in the background by a non-interactive shell (`make
    # test &`, nohup) inherits SIGINT ignored, and so would every hotpath
    # the tests start and then interrupt: they would never see Ctrl-C. A
    # handler (unlike SIG_IGN) is reset to the default across exec.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if config.getoption("--spoiled"):
        os.environ["HOTPATH_TEST_SPOILED"] = "1"


@pytest.fixture(scope="session")
def chain_cache(tmp_path_factory):
    """One cache of chain-bound results for the whole session: each lab run
    in a test sets the bound beside its figures, computed once here."""
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch, chain_cache):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(chain_cache))
    monkeypatch.setenv("HOTPATH_GUEST_CACHE", str(MACHINE_CACHE))
    monkeypatch.delenv("FAKE_RUNNER_SCALE", raising=False)
    for tool in ("HOTPATH_LLVM_MCA", "HOTPATH_DOT"):
        monkeypatch.delenv(tool, raising=False)
    return home


@pytest.fixture
def cli(capsys):
    """Run `hotpath ARGS...` in-process; argparse errors become status 2."""

    def run(*args: str) -> CliResult:
        try:
            status = main(list(args))
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 2
        captured = capsys.readouterr()
        return CliResult(status, captured.out, captured.err)

    return run


@pytest.fixture
def fake_runner(tmp_path, monkeypatch):
    """A build folder whose runner is tests/py/fake_runner.py (no make), with
    the real runner's facts beside it as make would write them (recorded:
    fixtures/runner-facts.json)."""
    build = tmp_path / "fake-build"
    build.mkdir()
    script = build / "hotpath-bench"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_RUNNER}" "$@"\n')
    script.chmod(0o755)
    (build / "user-cflags").write_text("-O2 -fPIC\n")
    shutil.copy(HERE / "fixtures" / "runner-facts.json", build / "runner-facts.json")
    monkeypatch.setenv("HOTPATH_RUNNER", str(script))
    monkeypatch.setenv("HOTPATH_BUILD", str(build))
    return build


@pytest.fixture
def real_runner(monkeypatch):
    """The real C runner, built by make."""
    monkeypatch.delenv("HOTPATH_RUNNER", raising=False)
    build = os.environ.get("HOTPATH_BUILD", "build")
    monkeypatch.setenv("HOTPATH_BUILD", build)
    return ROOT / build if not Path(build).is_absolute() else Path(build)


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


CPUINFO_BLOCK = """processor\t: {n}
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 106
model name\t: Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz
stepping\t: 6
microcode\t: 0xd0003a5
flags\t\t: fpu tsc sse4_2 avx2 adx {extra}
"""


@pytest.fixture
def machine_root(tmp_path):
    """A fake / of a VM with boost on and the powersave governor."""
    cpuinfo = "\n".join(CPUINFO_BLOCK.format(n=n, extra="hypervisor") for n in range(4))
    return write_tree(
        tmp_path / "vmroot",
        {
            "proc/cpuinfo": cpuinfo,
            "proc/sys/kernel/osrelease": "6.12.0-test\n",
            "sys/hypervisor/type": "xen\n",
            "sys/devices/system/cpu/cpufreq/boost": "1\n",
            "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "powersave\n",
            "sys/devices/system/cpu/smt/control": "on\n",
            "sys/devices/system/cpu/vulnerabilities/spectre_v2": "Mitigation: Retpolines\n",
            "sys/devices/system/cpu/vulnerabilities/meltdown": "Not affected\n",
        },
    )


# Developer trees for the kernel tests (test_kbuild.py, test_kernel_source.py):
# a bare git repository of linux-source-6.12 (its files as Debian ships
# them, 280 MB of objects), commit `good`, and a second commit `broken`
# whose csum_partial() sums one byte past the length: its tail's shift a
# byte short (the kind of slip a review misses). Made once into the
# machine's cache beside the prepared trees (about two and a half minutes
# the first time); each revision the tests prepare takes about a minute
# the first time (a git worktree of 1.7 GB, olddefconfig, modules_prepare),
# so the tests prepare only these two, with Debian's 6.12 config.
KERNEL_GOOD, KERNEL_BROKEN = "good", "broken"
BROKEN_CSUM = (
    "unsigned int shift = (-len << 3) & 63;",
    "unsigned int shift = ((-len << 3) - 8) & 63;",
)
KERNEL_TEST_CACHE = MACHINE_CACHE / "kbuild-test"


def _tool(*args: str) -> str:
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="session")
def kernel_repo() -> Path:
    repo = KERNEL_TEST_CACHE / "linux-6.12.git"
    with pytest.MonkeyPatch.context() as mp, locked(KERNEL_TEST_CACHE / "repo.lock"):
        mp.setenv("HOTPATH_GUEST_CACHE", str(MACHINE_CACHE))
        if (repo / "hotpath-ready").is_file():
            return repo
        shutil.rmtree(repo, ignore_errors=True)
        work = KERNEL_TEST_CACHE / f"work-{os.getpid()}"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        try:
            version = candidate_version("linux-source-6.12")
            download([f"linux-source-6.12={version}"], work)
            (deb,) = work.glob("*.deb")
            tree = work / "tree"
            kbuild._unpack(deb, "./usr/src/linux-source-6.12.tar.xz", tree)
            deb.unlink()
            git = ["git", f"--git-dir={repo}", f"--work-tree={tree}", "-c", "user.name=hotpath",
                   "-c", "user.email=hotpath@localhost"]  # fmt: skip
            _tool("git", "init", "-q", "--bare", str(repo))
            _tool(*git, "add", "-A", "-f", ".")
            _tool(*git, "commit", "-q", "-m", f"linux-source-6.12 {version}")
            _tool(*git, "tag", KERNEL_GOOD)
            source = tree / "arch/x86/lib/csum-partial_64.c"
            text = source.read_text()
            assert BROKEN_CSUM[0] in text, "csum_partial()'s tail is not as 6.12 has it"
            source.write_text(text.replace(*BROKEN_CSUM))
            _tool(*git, "commit", "-q", "-am", "csum_partial: the tail's shift a byte short")
            _tool(*git, "tag", KERNEL_BROKEN)
            (repo / "hotpath-ready").write_text(f"{version}\n")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return repo


# `hotpath patch`'s fixture commits, each a child of `good` with one
# change: (tag, file, text in good's file, its replacement, message);
# patch-wrong is a wrong edit (strlen one too long). A tag already made is
# kept, checked to change its one file (an earlier list chained them).
PATCH_COMMITS = (
    ("patch-docs", "Documentation/process/howto.rst", "HOWTO do Linux kernel development",
     "HOWTO do Linux kernel development (edited)", "docs: a heading"),
    ("patch-memset", "arch/x86/lib/memset_64.S",
     '\tALTERNATIVE "jmp memset_orig", "", X86_FEATURE_FSRS\n', "",
     "x86/memset: rep stosb on every CPU"),
    ("patch-siphash", "lib/siphash.c",
     "\t\tm = get_unaligned_le64(data);\n", "\t\tm = get_unaligned_le64(data);\n\t\tbarrier();\n",
     "siphash: a compiler barrier per word of the unaligned loop"),
    ("patch-wrong", "lib/string.c", "\treturn sc - s;\n}\nEXPORT_SYMBOL(strlen);",
     "\treturn sc - s + 1;\n}\nEXPORT_SYMBOL(strlen);", "string: strlen counts the NUL"),
    ("patch-header", "include/linux/crc64.h", "#include <linux/types.h>\n",
     "#include <linux/types.h>\n/* a comment */\n", "crc64.h: a comment"),
    ("patch-crc8", "lib/crc32defs.h", "# define CRC_LE_BITS 64\n# define CRC_BE_BITS 64",
     "# define CRC_LE_BITS 8\n# define CRC_BE_BITS 8", "crc32: by bytes, not slice-by-8"),
)  # fmt: skip


@pytest.fixture(scope="session")
def patch_repo(kernel_repo) -> Path:
    """kernel_repo with PATCH_COMMITS on `good`, made without a checkout
    (a private index over good's tree): each tag its own one-change commit."""
    with locked(KERNEL_TEST_CACHE / "repo.lock"):
        last = PATCH_COMMITS[-1][0]
        if _tool("git", f"--git-dir={kernel_repo}", "tag", "-l", last).strip():
            return kernel_repo
        git = ["git", f"--git-dir={kernel_repo}", "-c", "user.name=hotpath",
               "-c", "user.email=hotpath@localhost"]  # fmt: skip
        index = KERNEL_TEST_CACHE / f"patch-index-{os.getpid()}"
        env = {**os.environ, "GIT_INDEX_FILE": str(index)}
        try:
            parent = _tool(*git, "rev-parse", KERNEL_GOOD).strip()
            for tag, path, old, new, message in PATCH_COMMITS:
                if _tool(*git, "tag", "-l", tag).strip():
                    changed = _tool(*git, "diff", "--name-only", f"{tag}~1", tag).split()
                    assert changed == [path], f"{kernel_repo}: tag {tag} changes {changed}"
                    continue
                subprocess.run([*git, "read-tree", parent], env=env, check=True)
                text = _tool(*git, "cat-file", "blob", f"{parent}:{path}")
                assert old in text, f"{path} of 6.12 has no {old!r}"
                blob = subprocess.run(
                    [*git, "hash-object", "-w", "--stdin"], input=text.replace(old, new, 1),
                    capture_output=True, text=True, check=True,
                ).stdout.strip()  # fmt: skip
                subprocess.run([*git, "update-index", "--cacheinfo", f"100644,{blob},{path}"],
                               env=env, check=True)  # fmt: skip
                tree = subprocess.run([*git, "write-tree"], env=env, capture_output=True,
                                      text=True, check=True).stdout.strip()  # fmt: skip
                commit = _tool(*git, "commit-tree", tree, "-p", parent, "-m", message).strip()
                _tool(*git, "tag", tag, commit)
        finally:
            index.unlink(missing_ok=True)
    return kernel_repo


@pytest.fixture(scope="session")
def kernel_good(kernel_repo):
    """The repository's `good` prepared in a git worktree of the cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOTPATH_GUEST_CACHE", str(MACHINE_CACHE))
        return devtrees.prepare_worktree(
            kernel_repo, KERNEL_GOOD, "debian-6.12", log=lambda _: None
        )


@pytest.fixture(scope="session")
def clean_612(kernel_good) -> Path:
    """`good`'s committed files, hard-linked: a working tree never configured
    (no room taken; not a git checkout)."""
    clean = KERNEL_TEST_CACHE / "clean-6.12"
    with locked(KERNEL_TEST_CACHE / "clean.lock"):
        if not (clean / "hotpath-ready").is_file():
            shutil.rmtree(clean, ignore_errors=True)
            files = _tool("git", "-C", str(kernel_good.root), "ls-files", "-z").split("\0")
            for name in filter(None, files):
                (clean / name).parent.mkdir(parents=True, exist_ok=True)
                os.link(kernel_good.root / name, clean / name)
            (clean / "hotpath-ready").write_text("")
    return clean
