# SPDX-License-Identifier: GPL-2.0-only
"""The compiler must not delete or hoist the timed work.

Every primitive's burst function is disassembled and each of its three timed
loops (latency, throughput, fenced) must still call the variant through its
pointer on every iteration; the latency loop must feed the call's result back
into the next call, and the fenced loop must put an lfence on both sides of
the call. This is how docs/engine.md says the generated code was checked.

The clock's chains (the ticks-per-cycle probe, the width probe, add_chain)
must be register adds: an add-immediate chain runs faster than one a cycle
on Intel's Golden Cove and later.
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"

Insn = tuple[int, str]


def functions_in(obj: Path) -> dict[str, list[Insn]]:
    """Every function of one object (local symbols too), disassembled."""
    out = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", str(obj)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    funcs: dict[str, list[Insn]] = {}
    current: list[Insn] = []
    for line in out.splitlines():
        head = re.match(r"^[0-9a-f]+ <(\w+)>:$", line)
        if head:
            current = funcs.setdefault(head.group(1), [])
            continue
        insn = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
        if insn:
            current.append((int(insn.group(1), 16), insn.group(2).strip()))
    return funcs


def burst_functions() -> dict[str, list[Insn]]:
    """Disassembly of every copy of every burst function (`TABLE_siteNN`,
    bench.h's HP_BURST_COPIES, named after the table of copies) in the
    built objects."""
    funcs: dict[str, list[Insn]] = {}
    objs = (BUILD / "obj" / "c").rglob("*.o")
    for obj in sorted(o for o in objs if o.parent.name != "bench"):
        for name, insns in functions_in(obj).items():
            if re.search(r"_site\d\d$", name):
                funcs[f"{obj.stem}:{name}"] = insns
    return funcs


def loops(insns: list[Insn]) -> list[list[str]]:
    """Bodies of the backward jumps: [target, jump]."""
    bodies = []
    for addr, text in insns:
        m = re.match(r"^j\w+\s+([0-9a-f]+) <", text)
        if m and int(m.group(1), 16) < addr:
            target = int(m.group(1), 16)
            bodies.append([t for a, t in insns if target <= a <= addr])
    return bodies


def timed_loops(insns: list[Insn]) -> list[list[str]]:
    return [b for b in loops(insns) if any(t.startswith("call") and "*" in t for t in b)]


pytestmark = pytest.mark.skipif(shutil.which("objdump") is None, reason="needs binutils")


def wrapper_of(insns: list[Insn]) -> str | None:
    """The burst function a thin wrapper (no loop of its own) passes to."""
    if loops(insns):
        return None
    for _, text in insns:
        m = re.match(r"^(?:call|jmp)\s+[0-9a-f]+ <(\w+_burst)", text)
        if m:
            return m.group(1)
    return None


@pytest.fixture(scope="module")
def funcs() -> dict[str, list[Insn]]:
    """Every burst function that holds timed loops itself."""
    subprocess.run(["make", "-s", "-C", str(ROOT), "all"], check=True)
    found = burst_functions()
    assert found, "no *_siteNN burst copy found in build/obj"
    names = {key.split(":")[1] for key in found}
    for key, insns in list(found.items()):
        target = wrapper_of(insns)
        if target is not None:
            assert target in names, f"{key} passes to {target}, which was not found"
            del found[key]
    return found


def test_every_burst_has_three_loops_with_an_indirect_call(funcs) -> None:
    for name, insns in funcs.items():
        assert len(timed_loops(insns)) >= 3, f"{name}: timed loops lost their call"


# System V argument registers, as reg_base() names them.
ARG_REGS = {"di", "si", "d", "c", "r8", "r9"}


def reg_base(name: str) -> str:
    """rax/eax/ax/al -> a, r13/r13d/r13w -> r13: one name per register."""
    m = re.fullmatch(r"r(\d+)[dwb]?", name)
    if m:
        return f"r{m.group(1)}"
    return re.sub(r"^[re]?([a-d]|si|di|bp|sp)[xlh]?$", r"\1", name)


def feeds_back(body: list[str]) -> bool:
    """The call's result (in rax) is moved to a register that the next
    iteration reads before the call: the data dependency of latency mode.
    Or, where the chain runs through what is done with the result (the AVC
    lookup walks the chain the hash picked), a register written after the
    call is the one an explicit `and $0x0,%reg` (lookup_step, hp_depend)
    turns into the next iteration's input."""
    call = next(i for i, t in enumerate(body) if t.startswith("call") and "*" in t)
    marked = {reg_base(r) for t in body for r in re.findall(r"^and\s+\$0x0,%(\w+)$", t)}
    for t in body[call + 1 :]:
        written = re.search(r",%(\w+)$", t)
        if written and reg_base(written.group(1)) in marked:
            return True
        m = re.match(r"^mov\w*\s+%(?:rax|eax|ax|al),%(\w+)$", t)
        if not m:
            continue
        dest = reg_base(m.group(1))
        if dest in ARG_REGS:
            return True  # the next call reads it as an argument
        for u in body[:call]:
            if dest in {reg_base(r) for r in re.findall(r"%(\w+)", u)}:
                return True
    return False


def test_latency_loop_feeds_result_back(funcs) -> None:
    for name, insns in funcs.items():
        chained = [b for b in timed_loops(insns) if "lfence" not in b and feeds_back(b)]
        assert chained, f"{name}: no loop feeds the call's result into the next call"


def test_fenced_loop_has_lfence_on_both_sides(funcs) -> None:
    for name, insns in funcs.items():
        fenced = [b for b in timed_loops(insns) if sum(t == "lfence" for t in b) >= 2]
        assert fenced, f"{name}: no loop with lfence around the call"


@pytest.mark.parametrize(
    ("obj", "name", "adds"),
    [
        ("bench/clock.o", "chain100", 100),
        ("bench/probe.o", "width_burst", 12),
        ("calibrate/add_chain.o", "add_chain", 11),
    ],
)
def test_clock_chains_are_register_adds(obj: str, name: str, adds: int) -> None:
    # Intel's Golden Cove and later fold add-immediate chains in the renamer,
    # several per cycle: an `add $1,reg` chain read a 15 GHz core on an
    # Emerald Rapids and every sample was set aside (docs/engine.md).
    body = [text for _, text in functions_in(BUILD / "obj" / "c" / obj)[name]]
    register_adds = [t for t in body if re.fullmatch(r"add\s+%r\w+,%r\w+", t)]
    immediate_adds = [t for t in body if re.fullmatch(r"add\s+\$0x1,%r\w+", t)]
    assert len(register_adds) >= adds, body
    assert not immediate_adds, immediate_adds
