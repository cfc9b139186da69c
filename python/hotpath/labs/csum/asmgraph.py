# SPDX-License-Identifier: GPL-2.0-only
"""The register and flag dependency graph of a straight-line x86-64 path.

From gcc's AT&T assembly: the path one function takes for constant
arguments (branches on known constants followed, others not taken, jumps
and tail calls within the file followed, loops and calls refused), each
instruction in the register form llvm-mca should cost, the graph of which
instruction feeds which through a register or a flag (CF and OF apart, so
that adcx and adox chains stay independent), the longest path through it
given each instruction's latency, and the graph in Graphviz form.
hotpath.labs.csum.chainbound runs the compiler and llvm-mca around it.
"""

import re


class AnalysisError(Exception):
    """The analysis of one variant failed; the message says why."""


REGS64 = {
    "rax": ["eax", "ax", "al", "ah"], "rbx": ["ebx", "bx", "bl", "bh"],
    "rcx": ["ecx", "cx", "cl", "ch"], "rdx": ["edx", "dx", "dl", "dh"],
    "rsi": ["esi", "si", "sil"], "rdi": ["edi", "di", "dil"],
    "rbp": ["ebp", "bp", "bpl"], "rsp": ["esp", "sp", "spl"],
    **{f"r{i}": [f"r{i}d", f"r{i}w", f"r{i}b"] for i in range(8, 16)},
}  # fmt: skip
CANON = {alias: full for full, aliases in REGS64.items() for alias in aliases}
CANON.update({r: r for r in REGS64})

MOVE = re.compile(r"mov[lq]\s+%\w+,\s*%\w+$")
ALL_FLAGS = frozenset({"CF", "OF", "SZ"})
NONE: frozenset[str] = frozenset()
CF = frozenset({"CF"})
# mnemonic stem -> (flags read, flags written, destination also read: True,
# False, or None for no destination written at all)
SEMANTICS: dict[str, tuple[frozenset[str], frozenset[str], bool | None]] = {
    "mov": (NONE, NONE, False), "movzb": (NONE, NONE, False),
    "movzw": (NONE, NONE, False), "movsl": (NONE, NONE, False),
    "lea": (NONE, NONE, False), "add": (NONE, ALL_FLAGS, True),
    "sub": (NONE, ALL_FLAGS, True), "adc": (CF, ALL_FLAGS, True),
    "sbb": (CF, ALL_FLAGS, True), "adcx": (CF, CF, True),
    "adox": (frozenset({"OF"}), frozenset({"OF"}), True), "xor": (NONE, ALL_FLAGS, True),
    "and": (NONE, ALL_FLAGS, True), "or": (NONE, ALL_FLAGS, True),
    "shr": (NONE, ALL_FLAGS, True), "shl": (NONE, ALL_FLAGS, True),
    "sal": (NONE, ALL_FLAGS, True), "sar": (NONE, ALL_FLAGS, True),
    "rol": (NONE, frozenset({"CF", "OF"}), True), "ror": (NONE, frozenset({"CF", "OF"}), True),
    "not": (NONE, NONE, True), "neg": (NONE, ALL_FLAGS, True),
    "cmp": (NONE, ALL_FLAGS, None), "test": (NONE, ALL_FLAGS, None),
    "bswap": (NONE, NONE, True), "rorx": (NONE, NONE, False),
    "shrx": (NONE, NONE, False), "xchg": (NONE, NONE, True),
    "jcc": (ALL_FLAGS, NONE, None),  # a conditional branch (not taken here)
}  # fmt: skip

Edge = tuple[int, int, str]  # (source node, or -1 for the arguments; node; register)


def stem(mnemonic: str) -> str:
    if mnemonic in SEMANTICS:
        return mnemonic
    if mnemonic.startswith("j") and mnemonic != "jmp":
        return "jcc"
    for cut in (1, 2):
        if mnemonic[:-cut] in SEMANTICS:
            return mnemonic[:-cut]
    if mnemonic.startswith(("movz", "movs")):
        return "movzb"
    return mnemonic


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


def split_line(line: str) -> tuple[str, str]:
    parts = re.split(r"\s+", line, maxsplit=1)
    return parts[0], parts[1] if len(parts) > 1 else ""


def regs_in(op: str) -> set[str]:
    return {CANON[r] for r in re.findall(r"%(\w+)", op) if r in CANON}


LABEL = re.compile(r"^([.\w$@]+):\s*(.*)$")
JUMP_TARGET = re.compile(r"^\*?([.\w$]+)(?:@GOTPCREL\(%rip\)|@PLT)?$")
IMMEDIATE = re.compile(r"^\$(-?(?:0x[0-9a-fA-F]+|\d+))$")
REGISTER = re.compile(r"^%(\w+)$")


def _instructions(asm: str) -> tuple[list[str], dict[str, int]]:
    """Every instruction of the file, in order, and where each label points
    (a label may share its line with an instruction, as hand-written
    assembly in a top-level asm() often does)."""
    body: list[str] = []
    labels: dict[str, int] = {}
    for raw in asm.splitlines():
        line = raw.split("#")[0].strip()
        while match := LABEL.match(line):
            labels[match.group(1)] = len(body)
            line = match.group(2).strip()
        if line and not line.startswith("."):
            body.append(line)
    return body, labels


def _value(op: str, known: dict[str, int]) -> int | None:
    imm = IMMEDIATE.match(op)
    if imm:
        return int(imm.group(1), 0)
    reg = REGISTER.match(op)
    return known.get(CANON.get(reg.group(1), "")) if reg else None


def _taken(mnemonic: str, a: int, b: int, width: int) -> bool | None:
    """Whether jcc @mnemonic jumps after "cmp b, a" (AT&T: a - b)."""
    mask = (1 << width) - 1
    ua, ub = a & mask, b & mask
    sa = ua - (1 << width) if ua >> (width - 1) else ua
    sb = ub - (1 << width) if ub >> (width - 1) else ub
    return {
        "je": ua == ub, "jz": ua == ub, "jne": ua != ub, "jnz": ua != ub,
        "jae": ua >= ub, "jnb": ua >= ub, "jnc": ua >= ub, "jb": ua < ub, "jc": ua < ub,
        "jnae": ua < ub, "ja": ua > ub, "jnbe": ua > ub, "jbe": ua <= ub, "jna": ua <= ub,
        "jge": sa >= sb, "jnl": sa >= sb, "jl": sa < sb, "jnge": sa < sb,
        "jg": sa > sb, "jnle": sa > sb, "jle": sa <= sb, "jng": sa <= sb,
    }.get(mnemonic)  # fmt: skip


def probe_path(asm: str, function: str = "hp_probe40") -> list[str]:
    """The instructions @function executes, up to its first ret.

    Registers set from constants are tracked (mov $imm, and copies of
    such registers), so a conditional branch after "cmp $imm, %reg" on a
    known register goes where that value sends it; any other conditional
    branch counts as not taken (a backward one is taken for a loop). Jumps
    to a label anywhere in the file are followed, tail calls included
    (jmp *f@GOTPCREL(%rip) to an f defined in the same file, hand-written
    or not). A jump back to where the path
    has been (a loop), a call, or a jump to a function not in the file
    raises AnalysisError.
    """
    body, labels = _instructions(asm)
    if function not in labels:
        raise AnalysisError(f"{function} not found in the compiler's output")
    known: dict[str, int] = {}
    flags: tuple[int, int, int] | None = None  # cmp's (a, b, width)
    path: list[str] = []
    seen: set[int] = set()
    at = labels[function]
    while at < len(body):
        if at in seen:
            raise AnalysisError("a loop on the 40-byte path: not a straight-line chain")
        seen.add(at)
        line = body[at]
        mnemonic, ops = split_line(line)
        if mnemonic.startswith("ret") or ops.startswith("ret"):  # ret, rep ret
            return path
        if mnemonic.startswith("call"):
            raise AnalysisError(f"a call on the 40-byte path ({line}): not flattened")
        target = JUMP_TARGET.match(ops)
        dest = labels.get(target.group(1)) if target else None
        if mnemonic == "jmp":
            if dest is None:
                raise AnalysisError(f"the 40-byte path leaves the probe ({line})")
            at = dest
            continue
        if stem(mnemonic) == "jcc":
            taken = _taken(mnemonic, *flags) if flags else None
            path.append(line)
            if not taken:
                # a backward branch the constants do not decide closes a loop
                if taken is None and dest is not None and dest <= at:
                    raise AnalysisError(
                        f"a loop on the 40-byte path ({line}): not a straight-line chain"
                    )
                at += 1
            elif dest is None:
                raise AnalysisError(f"the 40-byte path leaves the probe ({line})")
            else:
                at = dest
            continue
        parts = split_operands(ops)
        st = stem(mnemonic)
        if st == "cmp" and len(parts) == 2:
            a, b = _value(parts[1], known), _value(parts[0], known)
            width = {"q": 64, "l": 32, "w": 16, "b": 8}.get(mnemonic[-1], 64)
            flags = (a, b, width) if a is not None and b is not None else None
        elif SEMANTICS.get(st, (NONE, ALL_FLAGS))[1]:
            flags = None
        if parts and REGISTER.match(parts[-1]):
            name = parts[-1][1:]
            reg = CANON.get(name, "")
            # a whole 64- or 32-bit register (the latter zero-extends) only
            whole = name in REGS64 or name.startswith("e") or name.endswith("d")
            value = (
                _value(parts[0], known)
                if st in ("mov", "movsl") and len(parts) == 2 and whole
                else None
            )
            if value is None or st == "cmp":
                if st not in ("cmp", "test"):
                    known.pop(reg, None)
            else:
                known[reg] = value
        path.append(line)
        at += 1
    raise AnalysisError("no ret on the 40-byte path")


def reg_form(line: str) -> str:
    """The instruction with memory operands replaced by a spare register."""
    mnemonic, ops = split_line(line)
    parts = split_operands(ops)
    if not any("(" in p for p in parts) or mnemonic.startswith("lea"):
        return line
    if mnemonic.startswith("mov"):
        return "nop"  # a plain load is off every register chain
    spare = {"q": "%r15", "l": "%r15d", "w": "%r15w", "b": "%r15b"}.get(mnemonic[-1], "%r15")
    return mnemonic + " " + ", ".join(spare if "(" in p else p for p in parts)


def graph(lines: list[str]) -> tuple[list[Edge], dict[str, int]]:
    """Edges (src, dst, register or flag) and each register's last writer;
    node -1 stands for the arguments (%rdi, %rsi, %rdx, %rsp at entry)."""
    last: dict[str, int] = {r: -1 for r in ("rdi", "rsi", "rdx", "rsp")}
    edges: list[Edge] = []
    for i, line in enumerate(lines):
        mnemonic, ops = split_line(line)
        st = stem(mnemonic)
        flags_read, flags_written, dest_read = SEMANTICS.get(st, (NONE, ALL_FLAGS, True))
        parts = split_operands(ops)
        reads: set[str] = set()
        writes: set[str] = set()
        for j, op in enumerate(parts):
            one_operand = len(parts) == 1 and st in ("not", "neg", "bswap")
            is_dest = (j == len(parts) - 1 and len(parts) > 1) or one_operand
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
        edges.extend((last[r], i, r) for r in sorted(reads | flags_read) if r in last)
        for r in writes | flags_written:
            last[r] = i
    return edges, last


def longest(
    n: int, lat: list[int], edges: list[Edge], from_seed: bool
) -> tuple[list[float], list[int | None]]:
    """Longest finish time of each node and its predecessor on that path:
    from the seed (%esi at entry, time 0) when @from_seed, else from any
    node (register inputs ready at the start)."""
    neg = float("-inf")
    best = [neg if from_seed else float(lat[i]) for i in range(n)]
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


def dot(
    name: str, lines: list[str], lat: list[int], edges: list[Edge], path: dict[int, int]
) -> str:
    """The graph in Graphviz form; @path maps each node on the longest seed ->
    result path to its predecessor there (-1: the seed), drawn in red."""
    out = [
        f'digraph "{name}" {{',
        "  rankdir=TB; node [shape=box, fontname=monospace];",
        '  seed [label="seed (%esi)", shape=ellipse];',
    ]
    for i, line in enumerate(lines):
        colour = ", color=red, penwidth=2" if i in path else ""
        label = line.replace('"', "").replace("\\", "")
        out.append(f'  n{i} [label="{label}\\nlat {lat[i]}"{colour}];')
    for s, d, r in edges:
        src = "seed" if s == -1 else f"n{s}"
        on_path = d in path and path[d] == s and (s != -1 or r == "rsi")
        red = ", color=red" if on_path else ""
        out.append(f'  {src} -> n{d} [label="{r}"{red}];')
    out.append("}")
    return "\n".join(out) + "\n"
