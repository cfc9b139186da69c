# SPDX-License-Identifier: GPL-2.0-only
"""Dependency-chain bound of csum_partial variants on their 40-byte path.

For each variant and offset (0: a 64-byte aligned buffer, 1: odd) this
  1. writes a probe that calls the variant with len = 40 on the buffer,
     flattened so that the constant length folds the other paths away, and
     compiles it with gcc -S and the library's flags;
  2. keeps the path the probe takes up to its first ret: branches after a
     compare of a register known to hold a constant (the length) go where
     it sends them, other conditional branches count as not taken, jumps
     and tail calls to code in the same file are followed (a variant
     written as a top-level asm() function included); a loop or a call on
     it is refused: the probe is then no straight-line chain;
  3. runs llvm-mca (-mcpu=znver2 by default: LLVM 14 has no Zen 4 model;
     znver2 is the nearest it has, and its integer latencies are the ones
     these chains use) with -iterations=100 -timeline, with
     "mov %eax,%esi" appended so that each iteration's result is the next
     one's seed: latency mode, as hotpath-bench times it;
  4. builds the register and flag dependency graph of one call (CF and OF
     apart, so adcx/adox chains stay independent), with each instruction's
     latency from the same model (for a load-op instruction, the latency of
     its register form: the load does not wait for the chain);
  5. reports, per call:
       bound_cycles    longest path from the seed (%esi) to the result
                       (%eax): no latency-mode call can take less; 0 when
                       the result does not depend on the seed;
       chain_cycles    longest path in the whole graph (loads ready at the
                       start, register moves free): the figure seed 000
                       drew by hand (9 for its "dead code removed" step);
       mca_cycles      llvm-mca's steady state per iteration in latency
                       mode (chain and throughput together), loads taken
                       as already done (register forms);
       throughput_cycles  llvm-mca's resource-pressure bound for one call
                       with its loads (Block RThroughput): the floor the
                       execution ports set when calls do not depend on
                       each other; the csum lab shows the larger of it
                       and bound_cycles (hotpath.labs.csum.bound);
     and the graph in Graphviz form, the longest seed -> result path in red.

It needs gcc, llvm-mca and the C sources of a checkout (c/csum); nothing
is timed. Results are cached under $XDG_CACHE_HOME/hotpath/chain-bound
(default ~/.cache), one file per variant and offset, keyed by a hash of
this module and hotpath.labs.csum.asmgraph, c/csum/*, c/include/hotpath/*,
the flags, the model and the versions of gcc and llvm-mca: a change to any
of them recomputes.

The csum lab (hotpath.labs.csum) sets the bound beside each measured
40-byte latency figure; scripts/csum_chain_bound.py is this module's main().
Usage: python -m hotpath.labs.csum.chainbound [--variants a,b] [--odd] [--dot-dir DIR]
       [--mcpu znver2] [--cc gcc] [--no-cache]
Output (stdout): JSON {variant: {"bound_cycles", "chain_cycles",
       "mca_cycles", "throughput_cycles", "model", "method", "instructions", "dot"}}
Exit status 2 with one line on stderr for a bad argument, 1 when the
analysis cannot run (a tool missing) or fails.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hotpath.labs.csum import asmgraph
from hotpath.labs.csum.asmgraph import (
    MOVE,
    AnalysisError,
    dot,
    graph,
    longest,
    probe_path,
    reg_form,
)
from hotpath.tools import find_tool
from hotpath.tree import CHECKOUT

ROOT = CHECKOUT
SIZE = 40
ALIGNS = (0, 1)  # the seed's even (64-byte aligned) and odd buffers
ALIGN_WORDS = {0: "even", 1: "odd"}
DEFAULT_MODEL = "znver2"
MODEL_NOTE = "LLVM 14 has no Zen 4 or Zen 5 model; znver2 is the nearest it has"
# An Intel core is costed with an Intel model: znver2's port layout is AMD's.
INTEL_MODEL = "sapphirerapids"
INTEL_MODEL_NOTE = (
    "LLVM 14 has no Golden Cove or Raptor Cove model; its sapphirerapids is the nearest"
)


def model_for(vendor: str) -> tuple[str, str]:
    """The llvm-mca model for a CPU vendor (cpuid's string), and what to say about it."""
    if vendor == "GenuineIntel":
        return INTEL_MODEL, INTEL_MODEL_NOTE
    return DEFAULT_MODEL, MODEL_NOTE


CACHE_FORMAT = 2  # 2: throughput_cycles (llvm-mca's Block RThroughput)
MCA_ENV = "HOTPATH_LLVM_MCA"  # an llvm-mca to use instead of the one on PATH
TOOL_TIMEOUT_S = 60

METHOD = (
    "gcc -S of a flattened len=40 probe (64-byte aligned buffer, +1 for odd), the "
    "path its constant length takes; longest register/flag path seed->result with llvm-mca "
    "latencies "
    "(register forms, loads off the chain, register moves free); mca_cycles: llvm-mca "
    "-iterations=100 -timeline on the register forms with the result fed back as the seed"
)


def cflags(root: Path = ROOT) -> list[str]:
    return [
        "-std=gnu11", "-O2", "-fPIC", "-fno-strict-aliasing", "-fno-plt",
        "-fno-semantic-interposition",  # lets the probe inline the variant
        "-madx",  # and inline target("adx") variants (gcc never emits adcx itself)
        "-I" + str(root / "c/include"), "-I" + str(root / "c/csum"),
    ]  # fmt: skip


@dataclass(frozen=True)
class Probe:
    """Where a variant lives: its source files under c/csum and its function."""

    sources: tuple[str, ...]
    function: str


VARIANTS: dict[str, Probe] = {
    "kernel-5.17": Probe(("csum_kernel_5_17.c",), "hp_csum_kernel_5_17"),
    "kernel-5.17-rc": Probe(("csum_kernel_5_17.c",), "hp_csum_kernel_5_17_rc"),
    "seed-specialised": Probe(
        ("csum_seed_ladder.c", "csum_kernel_5_17.c"), "hp_csum_seed_specialised"
    ),
    "seed-no-odd": Probe(("csum_seed_ladder.c",), "hp_csum_seed_no_odd"),
    "seed-dead-code": Probe(("csum_seed_ladder.c",), "hp_csum_seed_dead_code"),
    "seed-adx": Probe(("csum_seed_ladder.c",), "hp_csum_seed_adx"),
    "seed-two-streams": Probe(("csum_seed_ladder.c",), "hp_csum_seed_two_streams"),
    "seed-32bit": Probe(("csum_seed_ladder.c",), "hp_csum_seed_32bit"),
    "seed-zero-sum": Probe(("csum_seed_ladder.c",), "hp_csum_seed_zero_sum"),
    "kernel-2023": Probe(("csum_kernel_2023.c",), "hp_csum_kernel_2023"),
    "kernel-2024": Probe(("csum_kernel_2024.c",), "hp_csum_kernel_2024"),
    "hp-csum": Probe(("csum_hp.c",), "hp_csum"),
    "hp-csum-scalar": Probe(("csum_hp.c",), "hp_csum_scalar"),
}


@dataclass(frozen=True)
class ChainBound:
    variant: str
    align: int
    bound_cycles: int
    chain_cycles: int
    mca_cycles: float
    # llvm-mca's resource-pressure bound for one call (Block RThroughput):
    # the floor the execution ports put on it, whatever the chains.
    throughput_cycles: float
    model: str
    instructions: int
    dot: str  # Graphviz source of the graph

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ChainBound":
        return cls(
            variant=str(data["variant"]),
            align=int(data["align"]),
            bound_cycles=int(data["bound_cycles"]),
            chain_cycles=int(data["chain_cycles"]),
            mca_cycles=float(data["mca_cycles"]),
            throughput_cycles=float(data["throughput_cycles"]),
            model=str(data["model"]),
            instructions=int(data["instructions"]),
            dot=str(data["dot"]),
        )


@dataclass(frozen=True)
class Tools:
    cc: str
    cc_version: str
    mca: str
    mca_version: str

    def describe(self, model: str) -> str:
        return f"gcc {self.cc_version}, llvm-mca {self.mca_version} -mcpu={model}"


# --- tools and cache --------------------------------------------------------


def _version(command: list[str], pattern: str) -> str | None:
    try:
        out = subprocess.run(
            command, capture_output=True, text=True, check=False, timeout=TOOL_TIMEOUT_S
        )
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(pattern, out.stdout + out.stderr)
    return match.group(1) if match else None


def find_tools(cc: str = "gcc") -> Tools:
    """gcc and llvm-mca with their versions, or AnalysisError saying which is missing."""
    if not (ROOT / "c" / "csum").is_dir():
        raise AnalysisError(f"no C sources at {ROOT / 'c' / 'csum'} (needs a checkout)")
    cc_path = shutil.which(cc)
    if cc_path is None:
        raise AnalysisError(f"{cc} not found on PATH (Debian: apt-get install build-essential)")
    mca = find_tool(MCA_ENV, ("llvm-mca", "llvm-mca-14"), "llvm-mca", "llvm", AnalysisError)
    cc_version = _version([cc_path, "-dumpfullversion"], r"^(\S+)")
    mca_version = _version([mca, "--version"], r"LLVM version (\S+)")
    if cc_version is None:
        raise AnalysisError(f"{cc_path} -dumpfullversion failed")
    if mca_version is None:
        raise AnalysisError(f"{mca} --version did not say its LLVM version")
    return Tools(cc_path, cc_version, mca, mca_version)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hotpath" / "chain-bound"


def cache_key(tools: Tools, model: str) -> str:
    """Hash of everything a result depends on: sources, flags, model, tools,
    this module and asmgraph."""
    digest = hashlib.sha256()
    parts = [f"format {CACHE_FORMAT}", tools.cc_version, tools.mca_version, model, *cflags()]
    for part in parts:
        digest.update(part.encode() + b"\0")
    for module in (Path(__file__), Path(asmgraph.__file__)):
        digest.update(module.read_bytes())
    files = sorted((ROOT / "c" / "csum").iterdir()) + sorted(
        (ROOT / "c" / "include" / "hotpath").glob("*.h")
    )
    for path in files:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:24]


def _cache_read(path: Path) -> ChainBound | None:
    try:
        return ChainBound.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent or damaged: recompute


def _cache_write(path: Path, result: ChainBound) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=path.parent, prefix=".tmp-", delete=False, encoding="utf-8"
        ) as tmp:
            json.dump(result.to_json(), tmp)
        Path(tmp.name).replace(path)
    except OSError:
        pass  # a read-only cache only costs the next run the recomputation


# --- the analysis -----------------------------------------------------------


def probe_source(probe: Probe, align: int, root: Path = ROOT) -> str:
    includes = "".join(f'#include "{root / "c/csum" / f}"\n' for f in probe.sources)
    return (
        includes + "__attribute__((flatten)) uint32_t hp_probe40(const void *b, uint32_t s)\n"
        "{\n\tconst unsigned char *p = __builtin_assume_aligned(b, 64);\n"
        f"\treturn {probe.function}(p + {align}, {SIZE}, s);\n}}\n"
    )


@dataclass(frozen=True)
class McaResult:
    cycles_per_iteration: float
    latencies: list[int]  # per instruction
    rthroughput: float  # Block RThroughput: the ports' bound per iteration


def mca(lines: list[str], tools: Tools, model: str, iterations: int) -> McaResult:
    """llvm-mca's cycles per iteration, each instruction's latency, and its
    resource-pressure bound for the block."""
    try:
        res = subprocess.run(
            [tools.mca, f"-mcpu={model}", f"-iterations={iterations}", "-timeline",
             "-instruction-info"],
            input="\n".join(lines) + "\n", capture_output=True, text=True, check=False,
            timeout=TOOL_TIMEOUT_S,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as err:
        raise AnalysisError(f"llvm-mca failed: {err}") from err
    if res.returncode != 0:
        first = (res.stderr.strip().splitlines() or ["no message"])[0]
        raise AnalysisError(f"llvm-mca -mcpu={model} failed: {first}")
    total = re.search(r"Total Cycles:\s+(\d+)", res.stdout)
    if total is None:
        raise AnalysisError("llvm-mca printed no Total Cycles")
    latencies: list[int] = []
    info = res.stdout.partition("Instruction Info:")[2]
    header = info.find("Instructions:")
    for row in info[header:].splitlines()[1:] if header >= 0 else []:
        match = re.match(r"\s*(\d+)\s+(\d+)\s+[\d.]+", row)
        if not match:
            break
        latencies.append(int(match.group(2)))
    pressure = re.search(r"Block RThroughput:\s+([\d.]+)", res.stdout)
    if pressure is None:
        raise AnalysisError("llvm-mca printed no Block RThroughput")
    return McaResult(int(total.group(1)) / iterations, latencies, float(pressure.group(1)))


def analyse(variant: str, align: int, tools: Tools, model: str) -> ChainBound:
    """One variant at one offset, computed (no cache)."""
    probe = VARIANTS.get(variant)
    if probe is None:
        raise AnalysisError(f"no chain analysis for variant '{variant}'")
    with tempfile.TemporaryDirectory(prefix="hotpath-chain-") as td:
        source = Path(td) / "probe.c"
        source.write_text(probe_source(probe, align), encoding="utf-8")
        try:
            done = subprocess.run(
                [tools.cc, *cflags(), "-S", "-o", "-", str(source)],
                capture_output=True, text=True, check=False, timeout=TOOL_TIMEOUT_S,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError) as err:
            raise AnalysisError(f"{tools.cc} failed: {err}") from err
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["no message"])[0]
            raise AnalysisError(f"the probe for {variant} does not compile: {first}")
    lines = probe_path(done.stdout)
    regs = [reg_form(line) for line in lines]
    lat = mca(regs, tools, model, 1).latencies
    if len(lat) != len(regs):
        raise AnalysisError(f"llvm-mca gave {len(lat)} latencies for {len(regs)} instructions")
    # latency mode: the result becomes the next call's seed; loads in
    # register form, i.e. done before the chain reaches them, as an
    # out-of-order core does (llvm-mca would otherwise put each load-op's
    # load latency on the chain)
    steady = mca([*regs, "movl %eax, %esi"], tools, model, 100)
    # the ports' bound is the memory-operand path's: loads count on them
    pressure = mca(lines, tools, model, 100).rthroughput
    # loads are off the chain; register moves are eliminated at rename on
    # every core this targets (Zen, and Intel since Ivy Bridge)
    lat = [0 if r == "nop" or MOVE.match(r) else lat[i] for i, r in enumerate(regs)]
    edges, last = graph(lines)
    n = len(lines)
    from_seed, prev = longest(n, lat, edges, True)
    end = last.get("rax", -1)
    bound = int(from_seed[end]) if end >= 0 and from_seed[end] != float("-inf") else 0
    anywhere, _ = longest(n, lat, edges, False)
    chain = int(max(anywhere)) if anywhere else 0
    path: dict[int, int] = {}  # node on the longest seed -> result path: its predecessor
    cur: int | None = end
    while cur is not None and cur >= 0 and bound:
        before = prev[cur]
        path[cur] = -1 if before is None else before
        cur = before
    title = f"{variant}, {SIZE} B {ALIGN_WORDS.get(align, f'+{align}')}"
    return ChainBound(
        variant=variant,
        align=align,
        bound_cycles=bound,
        chain_cycles=chain,
        mca_cycles=round(steady.cycles_per_iteration, 2),
        throughput_cycles=pressure,
        model=model,
        instructions=n,
        dot=dot(title, lines, lat, edges, path),
    )


def analyse_many(
    wanted: Iterable[tuple[str, int]],
    model: str = DEFAULT_MODEL,
    cc: str = "gcc",
    use_cache: bool = True,
    tools: Tools | None = None,
) -> tuple[Tools, dict[tuple[str, int], ChainBound | str]]:
    """Each (variant, offset)'s result, or the reason it has none, from the cache
    where it holds one; the rest computed in parallel. AnalysisError when a
    tool is missing (nothing can be analysed)."""
    tools = tools or find_tools(cc)
    key = cache_key(tools, model)
    folder = cache_dir()
    out: dict[tuple[str, int], ChainBound | str] = {}
    todo: list[tuple[str, int]] = []
    for variant, align in dict.fromkeys(wanted):
        if variant not in VARIANTS:
            out[(variant, align)] = "no chain analysis for this variant"
            continue
        if align not in ALIGNS:
            out[(variant, align)] = "analysed at offsets 0 (even) and 1 (odd) only"
            continue
        hit = _cache_read(folder / f"{key}-{variant}-{align}.json") if use_cache else None
        if hit is not None:
            out[(variant, align)] = hit
        else:
            todo.append((variant, align))

    def one(item: tuple[str, int]) -> ChainBound | str:
        try:
            result = analyse(item[0], item[1], tools, model)
        except AnalysisError as err:
            return str(err)
        if use_cache:
            _cache_write(folder / f"{key}-{item[0]}-{item[1]}.json", result)
        return result

    if todo:
        with ThreadPoolExecutor(max_workers=max(1, min(len(todo), os.cpu_count() or 1))) as pool:
            out.update(zip(todo, pool.map(one, todo), strict=True))
    return tools, out


# --- the command line (scripts/csum_chain_bound.py) -------------------------


def _fail(message: str, status: int = 2) -> int:
    print(f"csum_chain_bound: {message}", file=sys.stderr)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="csum_chain_bound",
        description="Dependency-chain bound of csum_partial variants on their 40-byte path "
        "(JSON on stdout).",
    )
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated (default: all)")
    ap.add_argument("--odd", action="store_true", help="an odd address (offset 1)")
    ap.add_argument("--dot-dir", default=None, help="write <variant>.dot here")
    ap.add_argument("--mcpu", default=DEFAULT_MODEL, help=f"llvm-mca model ({MODEL_NOTE})")
    ap.add_argument("--cc", default="gcc", help="compiler (default gcc)")
    ap.add_argument("--no-cache", action="store_true", help="recompute, do not read the cache")
    args = ap.parse_args(argv)
    names = [v for v in args.variants.split(",") if v]
    if not names:
        return _fail(f"--variants '{args.variants}': allowed: {', '.join(VARIANTS)}")
    for name in names:
        if name not in VARIANTS:
            return _fail(f"variant '{name}': allowed: {', '.join(VARIANTS)}")
    if not re.fullmatch(r"[\w.-]+", args.mcpu):
        return _fail(f"--mcpu '{args.mcpu}': allowed: an llvm-mca -mcpu name such as znver2")
    if args.dot_dir is not None and Path(args.dot_dir).exists() and not Path(args.dot_dir).is_dir():
        return _fail(f"--dot-dir '{args.dot_dir}': exists and is not a folder")
    align = 1 if args.odd else 0
    try:
        tools = find_tools(args.cc)
        mca(["nop"], tools, args.mcpu, 1)  # refuses a model llvm-mca does not know
    except AnalysisError as err:
        if "-mcpu=" in str(err):
            return _fail(f"--mcpu '{args.mcpu}': {err}; allowed: see llvm-mca -mcpu=help")
        return _fail(str(err), 1)
    _, results = analyse_many(
        [(n, align) for n in names], args.mcpu, use_cache=not args.no_cache, tools=tools
    )
    doc: dict[str, Any] = {}
    for name in names:
        result = results[(name, align)]
        if isinstance(result, str):
            return _fail(f"{name}: {result}", 1)
        dot_path = None
        if args.dot_dir:
            Path(args.dot_dir).mkdir(parents=True, exist_ok=True)
            dot_path = str(Path(args.dot_dir) / f"{name}.dot")
            Path(dot_path).write_text(result.dot, encoding="utf-8")
        doc[name] = {
            "bound_cycles": result.bound_cycles,
            "chain_cycles": result.chain_cycles,
            "mca_cycles": result.mca_cycles,
            "throughput_cycles": result.throughput_cycles,
            "model": result.model,
            "method": METHOD,
            "instructions": result.instructions,
            "dot": dot_path,
        }
    try:
        json.dump(doc, sys.stdout, indent=2)
        print()
    except BrokenPipeError:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
