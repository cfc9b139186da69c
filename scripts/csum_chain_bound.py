#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Dependency-chain bound of csum_partial variants on their 40-byte path.

For each variant this script
  1. writes a probe that calls the variant with len = 40 on a 64-byte
     aligned buffer (odd with --odd), flattened so that the constant length
     folds the other paths away, and compiles it with gcc -S and the
     library's flags;
  2. keeps the probe's fall-through path up to its first ret;
  3. runs llvm-mca (-mcpu=znver2 by default: LLVM 14 has no Zen 4 model and
     the development machine reports AMD family 17h; znver2's integer
     latencies are the ones these chains use) with -iterations=100
     -timeline, with "mov %eax,%esi" appended so that each iteration's
     result is the next one's seed: latency mode, as hotpath-bench times it;
  4. builds the register and flag dependency graph of one call (CF and OF
     apart, so adcx/adox chains stay independent), with each instruction's
     latency from the same model (for a load-op instruction, the latency of
     its register form: the load does not wait for the chain);
  5. reports, per call:
       bound_cycles    longest path from the seed (%esi) to the result
                       (%eax): no latency-mode call can take less;
       chain_cycles    longest path in the whole graph (loads ready at the
                       start, register moves free): the figure seed 000
                       drew by hand (9 for its "dead code removed" step);
       mca_cycles      llvm-mca's steady state per iteration in latency
                       mode (chain and throughput together), loads taken
                       as already done (register forms);
     and writes DIR/<variant>.dot, the graph with the longest path in red.

Usage: scripts/csum_chain_bound.py [--variants a,b] [--odd] [--dot-dir DIR]
       [--mcpu znver2] [--cc gcc]
Output (stdout): JSON {variant: {"bound_cycles", "chain_cycles",
       "mca_cycles", "model", "method", "dot"}}
Exit status 2 with one line on stderr for a bad argument.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CFLAGS = ["-std=gnu11", "-O2", "-fPIC", "-fno-strict-aliasing", "-fno-plt",
          "-fno-semantic-interposition",  # lets the probe inline the variant
          "-madx",  # and inline target("adx") variants (gcc never emits adcx itself)
          "-I" + str(ROOT / "c/include"), "-I" + str(ROOT / "c/csum")]

# name -> (source files under c/csum, comma-separated; function)
VARIANTS: dict[str, tuple[str, str]] = {
    "kernel-5.17": ("csum_kernel_5_17.c", "hp_csum_kernel_5_17"),
    "kernel-5.17-rc": ("csum_kernel_5_17.c", "hp_csum_kernel_5_17_rc"),
    "seed-specialised": ("csum_seed_ladder.c,csum_kernel_5_17.c",
                         "hp_csum_seed_specialised"),
    "seed-no-odd": ("csum_seed_ladder.c", "hp_csum_seed_no_odd"),
    "seed-dead-code": ("csum_seed_ladder.c", "hp_csum_seed_dead_code"),
    "seed-adx": ("csum_seed_ladder.c", "hp_csum_seed_adx"),
    "seed-two-streams": ("csum_seed_ladder.c", "hp_csum_seed_two_streams"),
    "seed-32bit": ("csum_seed_ladder.c", "hp_csum_seed_32bit"),
    "seed-zero-sum": ("csum_seed_ladder.c", "hp_csum_seed_zero_sum"),
    "kernel-2023": ("csum_kernel_2023.c", "hp_csum_kernel_2023"),
    "kernel-2024": ("csum_kernel_2024.c", "hp_csum_kernel_2024"),
    "hp-csum": ("csum_hp.c", "hp_csum"),
}

REGS64 = {
    "rax": ["eax", "ax", "al", "ah"], "rbx": ["ebx", "bx", "bl", "bh"],
    "rcx": ["ecx", "cx", "cl", "ch"], "rdx": ["edx", "dx", "dl", "dh"],
    "rsi": ["esi", "si", "sil"], "rdi": ["edi", "di", "dil"],
    "rbp": ["ebp", "bp", "bpl"], "rsp": ["esp", "sp", "spl"],
}
for _i in range(8, 16):
    REGS64[f"r{_i}"] = [f"r{_i}d", f"r{_i}w", f"r{_i}b"]
CANON = {alias: full for full, al in REGS64.items() for alias in al}
CANON.update({r: r for r in REGS64})

MOVE = re.compile(r"mov[lq]\s+%\w+,\s*%\w+$")
ALL_FLAGS = {"CF", "OF", "SZ"}
# mnemonic stem -> (flags read, flags written, dest is also read)
SEMANTICS: dict[str, tuple[set[str], set[str], bool]] = {
    "mov": (set(), set(), False), "movzb": (set(), set(), False),
    "movzw": (set(), set(), False), "movsl": (set(), set(), False),
    "lea": (set(), set(), False), "add": (set(), ALL_FLAGS, True),
    "sub": (set(), ALL_FLAGS, True), "adc": ({"CF"}, ALL_FLAGS, True),
    "sbb": ({"CF"}, ALL_FLAGS, True), "adcx": ({"CF"}, {"CF"}, True),
    "adox": ({"OF"}, {"OF"}, True), "xor": (set(), ALL_FLAGS, True),
    "and": (set(), ALL_FLAGS, True), "or": (set(), ALL_FLAGS, True),
    "shr": (set(), ALL_FLAGS, True), "shl": (set(), ALL_FLAGS, True),
    "sal": (set(), ALL_FLAGS, True), "sar": (set(), ALL_FLAGS, True),
    "rol": (set(), {"CF", "OF"}, True), "ror": (set(), {"CF", "OF"}, True),
    "not": (set(), set(), True), "neg": (set(), ALL_FLAGS, True),
    "cmp": (set(), ALL_FLAGS, None), "test": (set(), ALL_FLAGS, None),
    "bswap": (set(), set(), True), "rorx": (set(), set(), False),
    "shrx": (set(), set(), False), "xchg": (set(), set(), True),
}


def fail(msg: str) -> None:
    print(f"csum_chain_bound: {msg}", file=sys.stderr)
    sys.exit(2)


def stem(mn: str) -> str:
    if mn in SEMANTICS:
        return mn
    for cut in (1, 2):
        if mn[:-cut] in SEMANTICS:
            return mn[:-cut]
    if mn.startswith("movz") or mn.startswith("movs"):
        return "movzb"
    return mn


def split_operands(ops: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in ops:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def regs_in(op: str) -> set[str]:
    return {CANON[r] for r in re.findall(r"%(\w+)", op) if r in CANON}


def probe_asm(src: str, fn: str, odd: bool, cc: str, tmp: Path) -> list[str]:
    """The probe's fall-through instructions, up to its first ret."""
    off = 1 if odd else 0
    probe = tmp / "probe.c"
    includes = "".join(f'#include "{ROOT / "c/csum" / f}"\n' for f in src.split(","))
    probe.write_text(
        includes +
        "__attribute__((flatten)) uint32_t hp_probe40(const void *b, "
        "uint32_t s)\n{\n"
        f"\tconst unsigned char *p = __builtin_assume_aligned(b, 64);\n"
        f"\treturn {fn}(p + {off}, 40, s);\n}}\n")
    out = tmp / "probe.s"
    subprocess.run([cc, *CFLAGS, "-S", "-o", str(out), str(probe)],
                   check=True, capture_output=True, text=True)
    lines, inside = [], False
    for raw in out.read_text().splitlines():
        line = raw.split("#")[0].strip()
        if line == "hp_probe40:":
            inside = True
            continue
        if not inside or not line or line.startswith(".") or line.endswith(":"):
            continue
        if line.startswith("ret") or line.startswith("jmp"):
            break
        lines.append(line)
    return lines


def mca(lines: list[str], mcpu: str, iterations: int) -> tuple[float, list[int], str]:
    text = "\n".join(lines) + "\n"
    res = subprocess.run(["llvm-mca", f"-mcpu={mcpu}", f"-iterations={iterations}",
                          "-timeline", "-instruction-info"], input=text,
                         capture_output=True, text=True, check=True).stdout
    total = int(re.search(r"Total Cycles:\s+(\d+)", res).group(1))
    lat = []
    info = res.split("Instructions:", 2)[2] if res.count("Instructions:") >= 2 else ""
    for row in info.splitlines()[1:]:
        m = re.match(r"\s*(\d+)\s+(\d+)\s+[\d.]+", row)
        if not m:
            break
        lat.append(int(m.group(2)))
    return total / iterations, lat, res


def reg_form(line: str) -> str:
    """The instruction with memory operands replaced by a spare register."""
    mn, ops = (re.split(r"\s+", line, maxsplit=1) + [""])[:2]
    parts = split_operands(ops)
    if not any("(" in p for p in parts) or mn.startswith("lea"):
        return line
    if mn.startswith("mov"):
        return "nop"  # a plain load is off every register chain
    size = "%r15d" if mn.endswith("l") else "%r15"
    return mn + " " + ", ".join(size if "(" in p else p for p in parts)


def graph(lines: list[str], lat: list[int]):
    """Nodes with latencies and edges (src, dst, label); a virtual 'seed'
    node writes the argument registers."""
    last: dict[str, int] = {r: -1 for r in ("rdi", "rsi", "rdx", "rsp")}
    edges: list[tuple[int, int, str]] = []
    for i, line in enumerate(lines):
        mn, ops = (re.split(r"\s+", line, maxsplit=1) + [""])[:2]
        st = stem(mn)
        fr, fw, dest_read = SEMANTICS.get(st, (set(), ALL_FLAGS, True))
        parts = split_operands(ops)
        reads, writes = set(), set()
        for j, op in enumerate(parts):
            is_dest = j == len(parts) - 1 and len(parts) > 1 or (len(parts) == 1 and st in ("not", "neg", "bswap"))
            if "(" in op:
                reads |= regs_in(op)  # address registers
            elif is_dest:
                if dest_read is not False:
                    reads |= regs_in(op)
                if dest_read is not None:
                    writes |= regs_in(op)
            else:
                reads |= regs_in(op)
        # xor r,r and sub r,r break dependencies
        if st in ("xor", "sub") and len(parts) == 2 and parts[0] == parts[1]:
            reads -= regs_in(parts[0])
        for r in reads | fr:
            if r in last:
                edges.append((last[r], i, r))
        for r in writes | fw:
            last[r] = i
    return edges, last


def longest(n: int, lat: list[int], edges, from_seed: bool):
    """Longest finish time of each node and its predecessor on that path:
    from the seed (%esi at entry, time 0) when @from_seed, else from any
    node (register inputs ready at the start)."""
    neg = float("-inf")
    best = [neg if from_seed else lat[i] for i in range(n)]
    prev: list[int | None] = [None] * n
    into: dict[int, list[tuple[int, str]]] = {}
    for src, dst, reg in edges:
        into.setdefault(dst, []).append((src, reg))
    for d in range(n):
        for src, reg in into.get(d, []):
            if src == -1:
                if not from_seed or reg != "rsi":
                    continue
                base = 0.0
            else:
                base = best[src]
            if base != neg and base + lat[d] > best[d]:
                best[d] = base + lat[d]
                prev[d] = src
    return best, prev


def dot(name: str, lines: list[str], lat: list[int], edges, path: set[int]) -> str:
    out = [f'digraph "{name}" {{', "  rankdir=TB; node [shape=box, fontname=monospace];",
           '  seed [label="seed (%esi)", shape=ellipse];']
    for i, line in enumerate(lines):
        colour = ', color=red, penwidth=2' if i in path else ""
        out.append(f'  n{i} [label="{line.replace(chr(34), "")}\\nlat {lat[i]}"{colour}];')
    for s, d, r in edges:
        src = "seed" if s == -1 else f"n{s}"
        red = ", color=red" if d in path and (s in path or s == -1) else ""
        out.append(f'  {src} -> n{d} [label="{r}"{red}];')
    out.append("}")
    return "\n".join(out) + "\n"


def analyse(name: str, src: str, fn: str, args, tmp: Path) -> dict:
    lines = [ln for ln in probe_asm(src, fn, args.odd, args.cc, tmp)]
    regs = [reg_form(ln) for ln in lines]
    _, lat, _ = mca(regs, args.mcpu, 1)
    # latency mode: the result becomes the next call's seed; loads in
    # register form, i.e. done before the chain reaches them, as an
    # out-of-order core does (llvm-mca would otherwise put each load-op's
    # load latency on the chain)
    per_iter, _, _ = mca(regs + ["movl %eax, %esi"], args.mcpu, 100)
    if len(lat) != len(regs):
        fail(f"{name}: llvm-mca parsed {len(lat)} of {len(regs)} instructions")
    # loads are off the chain; register moves are eliminated at rename on
    # every core this targets (Zen, and Intel since Ivy Bridge)
    lat = [0 if r == "nop" or MOVE.match(r) else lat[i]
           for i, r in enumerate(regs)]
    edges, last = graph(lines, lat)
    n = len(lines)
    from_seed, prev = longest(n, lat, edges, True)
    end = last.get("rax", -1)
    bound = from_seed[end] if end >= 0 and from_seed[end] != float("-inf") else 0
    anywhere, _ = longest(n, lat, edges, False)
    chain = max(anywhere) if anywhere else 0
    path, cur = set(), end
    while cur is not None and cur >= 0 and bound:
        path.add(cur)
        cur = prev[cur]
    dot_path = None
    if args.dot_dir:
        os.makedirs(args.dot_dir, exist_ok=True)
        dot_path = os.path.join(args.dot_dir, f"{name}.dot")
        Path(dot_path).write_text(dot(name, lines, lat, edges, path))
    return {
        "bound_cycles": bound,
        "chain_cycles": chain,
        "mca_cycles": round(per_iter, 2),
        "model": args.mcpu,
        "method": ("gcc -S of a flattened len=40 probe ("
                   + ("odd" if args.odd else "64-byte aligned")
                   + " buffer), fall-through path; longest register/flag path "
                   "seed->result with llvm-mca latencies (register forms); "
                   "mca_cycles: llvm-mca -iterations=100 -timeline on the "
                   "register forms with the result fed back as the seed"),
        "instructions": n,
        "dot": dot_path,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--odd", action="store_true")
    ap.add_argument("--dot-dir", default=None)
    ap.add_argument("--mcpu", default="znver2")
    ap.add_argument("--cc", default="gcc")
    args = ap.parse_args()
    names = [v for v in args.variants.split(",") if v]
    for v in names:
        if v not in VARIANTS:
            fail(f"variant '{v}': one of {', '.join(VARIANTS)}")
    result = {}
    with tempfile.TemporaryDirectory() as td:
        for v in names:
            src, fn = VARIANTS[v]
            result[v] = analyse(v, src, fn, args, Path(td))
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
