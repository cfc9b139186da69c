# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's own objects loaded and patched in the runner (c/kload,
hotpath.kernelsrc.kbuilt and kload).

Debian's linux-6.12 prepared by its Kbuild (the set-up's cache); its
objects and glue objects of these tests built there, loaded by
`hotpath-bench kload`, whose dump of the patched text is read back.
"""

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from hotpath.errors import HotpathError
from hotpath.kernelsrc import kbuild, kbuilt, kload
from hotpath.kernelsrc.layouts import CSUM
from hotpath.tree import repo_root

NOP5 = bytes.fromhex("0f1f440000")

# An alternative on a feature HOTPATH_CPU_HIDE can take away: SSE4.2.
ALT_GLUE = textwrap.dedent("""\
    #include <linux/module.h>
    #include <asm/alternative.h>
    #include <asm/cpufeatures.h>
    int hp_test_alt(void);
    int hp_test_alt(void)
    {
        int v;

        asm(ALTERNATIVE("movl $0x11223344, %0", "movl $0x55667788, %0", X86_FEATURE_XMM4_2)
            : "=r"(v));
        return v;
    }
""")

TRAP_GLUE = textwrap.dedent("""\
    #include <linux/module.h>
    int hp_test_init(void);
    int hp_test_init(void) { __builtin_trap(); }
""")

MISSING_GLUE = textwrap.dedent("""\
    #include <linux/module.h>
    int hp_no_such_kernel_function(int);
    int hp_test_missing(int v);
    int hp_test_missing(int v) { return hp_no_such_kernel_function(v) + 1; }
""")


@pytest.fixture(scope="module")
def tree_612() -> kbuild.PreparedTree:
    return kbuild.prepare_debian("6.12", log=lambda line: None)


@pytest.fixture
def build_dir(real_runner) -> Path:
    return real_runner


def kload_json(build: Path, spec: Path, *symbols: str, dump: Path | None = None, env=None):
    args = [str(build / "hotpath-bench"), "kload", str(spec), *symbols]
    if dump is not None:
        args += ["--dump", str(dump)]
    done = subprocess.run(
        args, capture_output=True, text=True, env={**os.environ, **(env or {})}, check=False
    )
    return done.returncode, json.loads(done.stdout)


def relocations_to(objects: list[Path], symbol: str) -> int:
    out = subprocess.run(
        ["readelf", "-rW", *map(str, objects)], capture_output=True, text=True, check=True
    ).stdout
    return sum(1 for line in out.splitlines() if f" {symbol} " in line or line.endswith(symbol))


def glue_spec(tree, tmp_path, text: str, name: str, mode: str = "off") -> Path:
    source = tmp_path / f"{name}.c"
    source.write_text(text)
    tmp_path.chmod(0o755)  # a contained loader (nobody, kernelsrc/contain.py) reads the spec
    glue = kbuild.build_glue(tree, source, name)
    return kload.write_spec(
        tree.root, [glue], repo_root() / "build" / "kruntime.o", kload.mitigations(mode), tmp_path
    )


def entry_bytes(dump: Path, facts: dict, symbol: str, n: int) -> bytes:
    at = int(facts["symbols"][symbol], 16) - int(facts["text"], 16)
    return dump.read_bytes()[at : at + n]


def branches_to(dump: Path, facts: dict, symbol: str, opcode: int) -> int:
    """The call (0xe8) or jmp (0xe9) rel32 left in the patched text that reach @symbol."""
    text, base = dump.read_bytes(), int(facts["text"], 16)
    target = int(facts["symbols"][symbol], 16)
    return sum(
        1
        for i in range(len(text) - 5)
        if text[i] == opcode
        and base + i + 5 + int.from_bytes(text[i + 1 : i + 5], "little", signed=True) == target
    )


@pytest.mark.parametrize("short", ["6.1", "6.12"])
def test_csum_objects_load_with_every_fentry_a_nop_and_every_return_a_ret(
    short, build_dir, tmp_path
):
    tree = kbuild.prepare_debian(short, log=lambda line: None)
    component = kbuilt.kbuild_components("csum")[0]
    off = kload.mitigations("off")
    loaded = kbuilt.load_component(tree, component, off, repo_root(), build_dir)
    objects = [
        Path(line.split(" ", 1)[1])
        for line in loaded.spec.read_text().splitlines()
        if line.startswith("object ") and not line.endswith("kruntime.o")
    ]
    dump = tmp_path / "text"
    status, facts = kload_json(
        build_dir, loaded.spec, "csum_partial", "__fentry__", "__x86_return_thunk", dump=dump
    )
    assert status == 0, facts
    # Every `call __fentry__` and `jmp __x86_return_thunk` of the tree's objects
    # and the glue was found, and none is left in the text.
    assert facts["fentry_nops"] == facts["fentry_sites"] == relocations_to(objects, "__fentry__")
    assert facts["returns_patched"] == relocations_to(objects, "__x86_return_thunk") > 0
    assert branches_to(dump, facts, "__fentry__", 0xE8) == 0
    assert branches_to(dump, facts, "__x86_return_thunk", 0xE9) == 0
    head = entry_bytes(dump, facts, "csum_partial", 9)
    assert head.startswith(NOP5) or head == b"\xf3\x0f\x1e\xfa" + NOP5  # ENDBR64 with IBT
    assert b"\xc3\xcc\xcc\xcc\xcc" in dump.read_bytes()  # `ret; int3 x4` for each thunk jmp


def test_host_mitigations_send_returns_to_the_chosen_thunk(tree_612, build_dir, tmp_path):
    vulns = tmp_path / "vulnerabilities"
    vulns.mkdir()
    (vulns / "spec_rstack_overflow").write_text("Mitigation: Safe RET\n")
    (vulns / "spectre_v2").write_text("Mitigation: Retpolines; STIBP: disabled\n")
    mits = kload.mitigations("host", vulns)
    assert mits.rethunk in ("srso_alias_return_thunk", "srso_return_thunk")
    assert mits.retpoline == "generic" and "RETHUNK" in mits.features
    assert "Safe RET" in mits.said and "Retpolines" in mits.said
    component = kbuilt.kbuild_components("csum")[0]
    loaded = kbuilt.load_component(tree_612, component, mits, repo_root(), build_dir)
    status, facts = kload_json(build_dir, loaded.spec, "csum_partial", mits.rethunk)
    assert status == 0, facts
    assert facts["returns_patched"] > 0
    (vulns / "spec_rstack_overflow").write_text("Not affected\n")
    (vulns / "spectre_v2").write_text("Mitigation: Enhanced / Automatic IBRS\n")
    plain = kload.mitigations("host", vulns)
    assert (plain.rethunk, plain.retpoline) == ("ret", "off")


def test_alternatives_follow_the_cpu_and_hotpath_cpu_hide(tree_612, build_dir, tmp_path):
    spec = glue_spec(tree_612, tmp_path, ALT_GLUE, "hp_test_alt")
    seen = {}
    for hide in ("", "sse4.2"):
        dump = tmp_path / f"text-{hide or 'none'}"
        status, facts = kload_json(
            build_dir, spec, "hp_test_alt", dump=dump, env={"HOTPATH_CPU_HIDE": hide}
        )
        assert status == 0, facts
        assert facts["alternatives"] == 1
        code = entry_bytes(dump, facts, "hp_test_alt", 16)  # the function, not the replacement
        seen[hide] = (
            facts["alternatives_applied"],
            (0x55667788).to_bytes(4, "little") in code,
            (0x11223344).to_bytes(4, "little") in code,
        )
    has_sse42 = "sse4_2" in Path("/proc/cpuinfo").read_text()
    assert seen[""] == ((1, True, False) if has_sse42 else (0, False, True))
    assert seen["sse4.2"] == (0, False, True)  # hidden: the original stays


def test_a_symbol_the_runtime_lacks_is_refused_by_name(tree_612, build_dir, tmp_path):
    spec = glue_spec(tree_612, tmp_path, MISSING_GLUE, "hp_test_missing")
    status, facts = kload_json(build_dir, spec, "hp_test_missing")
    assert status == 3
    assert "hp_no_such_kernel_function (needed by hp_test_missing.o)" in facts["error"]
    with pytest.raises(HotpathError, match="hp_no_such_kernel_function"):
        kbuilt.check_load(build_dir, spec, CSUM.entries[:1])


def test_both_mitigation_modes_run_through_the_gate(cli, real_runner):
    names = "linux-6.12,linux-6.12+host,linux-6.1,linux-6.1+host"
    res = cli(
        "csum", "--sizes", "40,1500", "--variants", names, "--mitigations", "off,host",
        "--rounds", "3", "--modes", "latency", "--json", "--no-store",
    )  # fmt: skip
    assert res.status == 0, res.err
    variants = {v["name"]: v for v in res.json()["variants"]}
    for name in names.split(","):
        assert variants[name]["status"] == "ok", variants[name]
        mode = "host" if name.endswith("+host") else "off"
        assert f"mitigations {mode}" in variants[name]["origin"]
        assert "Kbuild objects loaded by hotpath" in variants[name]["origin"]


def test_a_mitigations_mode_not_known_is_refused(cli, real_runner):
    res = cli("csum", "--sizes", "40", "--mitigations", "some")
    assert res.status == 2 and "--mitigations 'some'" in res.err and "off, host" in res.err


def test_avc_times_avc_c_own_lookup_of_both_debian_trees(cli, real_runner):
    res = cli(
        "avc", "--sizes", "512,2048", "--variants", "linux-6.1,linux-6.12,orig",
        "--rounds", "3", "--modes", "latency", "--json", "--no-store",
    )  # fmt: skip
    assert res.status == 0, res.err
    variants = {v["name"]: v for v in res.json()["variants"]}
    for name in ("linux-6.1", "linux-6.12"):
        assert variants[name]["status"] == "ok", variants[name]
        assert "kernel" in variants[name]["flags"]
        origin = variants[name]["origin"]
        assert origin.startswith("security/selinux/avc.c, Linux ")
        assert "the timed code never reaches made traps" in origin
    assert "reimplemented" in variants["orig"]["flags"]
    res = cli(
        "avc", "--sizes", "512", "--slots", "8192", "--variants", "linux-6.12",
        "--rounds", "3", "--modes", "latency", "--json", "--no-store",
    )  # fmt: skip
    assert res.status == 0, res.err
    kernel = {v["name"]: v for v in res.json()["variants"]}["linux-6.12"]
    assert kernel["status"] == "unavailable" and "AVC_CACHE_SLOTS" in kernel["reason"]


def test_an_init_that_crashes_the_loader_is_said_with_its_signal(tree_612, build_dir, tmp_path):
    source = tmp_path / "hp_test_trap.c"
    source.write_text(TRAP_GLUE)
    tmp_path.chmod(0o755)  # as in glue_spec()
    glue = kbuild.build_glue(tree_612, source, "hp_test_trap")
    spec = kload.write_spec(
        tree_612.root, [glue], repo_root() / "build" / "kruntime.o", kload.mitigations("off"),
        tmp_path, init="hp_test_init",
    )  # fmt: skip
    with pytest.raises(HotpathError, match=r"killed the loader with SIGILL.*load spec"):
        kbuilt.check_load(build_dir, spec, ())
