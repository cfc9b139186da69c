# SPDX-License-Identifier: GPL-2.0-only
"""A scripted stand-in for build/hotpath-bench, speaking docs/runner-protocol.md.

The Python tests run the whole CLI against it, so they need neither the C
build nor a quiet machine. It knows add_chain (N adds cost N cycles),
csum_partial with one variant of every status plus seed 000's ladder, and
the crc32c lab's four primitives with a few variants each. Samples are
deterministic (seeded); FAKE_RUNNER_SCALE multiplies csum_partial costs so
that compare can be tested on a known shift.
"""

import json
import os
import sys
from pathlib import Path

import numpy as np

MODES = ("latency", "throughput", "fenced")
# What the real runner's build states (`hotpath-bench facts`: limits, CPU
# feature names, row primitives, dispatch facts): its runner-facts.json,
# recorded by `make record-facts` and checked against the real one
# (test_real_runner.py); the fake_runner fixture puts it beside this runner.
FACTS = json.loads((Path(__file__).parent / "fixtures" / "runner-facts.json").read_text())
DISPATCH_FACTS = FACTS["dispatch_facts"]
# The fake machine: a Zen 3-like EPYC without AVX-512, in a VM.
HAS = ("sse4.2", "pclmulqdq", "avx2", "bmi2", "adx")


def cpu():
    """The cpu object, its features less HOTPATH_CPU_HIDE's as the runner
    reads it (names from its facts; one that is not a feature refused)."""
    names = FACTS["cpu_features"]
    hide = [name for name in os.environ.get("HOTPATH_CPU_HIDE", "").split(",") if name]
    for name in hide:
        if name not in names:
            print(f"hotpath: HOTPATH_CPU_HIDE: '{name}' is not a CPU feature; allowed: "
                  f"comma-separated, of: {' '.join(names)}", file=sys.stderr)  # fmt: skip
            sys.exit(2)
    return {
        "vendor": "AuthenticAMD",
        "family": 25,
        "model": 17,
        "stepping": 1,
        "brand": "AMD EPYC",
        "hypervisor": True,
        "features": [name for name in names if name in HAS and name not in hide],
        "hidden": [name for name in names if name in hide],
        "pinned_cpu": 1,
        # FAKE_RUNNER_CORE_HZ: a clock that reads another core frequency
        "core_hz_estimate": float(os.environ.get("FAKE_RUNNER_CORE_HZ", "3.4e9")),
    }


def variant(name, status="ok", reason=None, failure=None, flags=(), needs=()):
    return {
        "name": name,
        "desc": f"{name} (fake)",
        "origin": "tests/py/fake_runner.py",
        "needs": list(needs),
        "flags": list(flags),
        "domain": {"min_len": 0, "max_len": None},
        "promise": "csum_fold equal to the reference",
        "status": status,
        "reason": reason,
        "checked_cases": 1000 if status in ("ok", "wrong") else 0,
        "failure": failure,
    }


def skb_primitive():
    """The two sk_buff primitives' listing: the same variants for both."""
    return {
        "lab": "crc32c",
        "seed_name": "crc",
        "default_sizes": [],
        "variants": [
            variant("generic-matrix"),
            variant("generic-gf2mul"),
            variant("chained"),
            variant("hotpath", flags=["own"]),
        ],
    }


WRONG_CASE = {"len": 3, "align": 1, "seed": 5, "expected": 4660, "got": 9029, "what": "mismatch"}

PRIMITIVES = {
    "add_chain": {
        "lab": "calibrate",
        "seed_name": "value",
        "default_sizes": [50, 100, 200],
        "variants": [variant("add-chain"), variant("imuls")],
    },
    "csum_partial": {
        "lab": "csum",
        "seed_name": "sum",
        "default_sizes": [40],
        "variants": [
            variant("rfc1071-ref"),
            variant("kernel-5.17", needs=["adx"], flags=["reimplemented"]),
            variant("zero-input", flags=["no_latency"]),
            variant("odd-broken", status="wrong", failure=WRONG_CASE),
            variant("avx512-wide", status="skipped", reason="needs avx512bw", needs=["avx512bw"]),
            variant("isal", status="unavailable", reason="built without libisal-dev"),
            # seed 000's ladder, for `hotpath csum --seed-table`
            variant("kernel-5.17-rc", status="wrong", failure=WRONG_CASE, flags=["reimplemented"]),
            variant("seed-specialised"),
            variant("seed-no-odd"),
            variant("seed-dead-code"),
            variant("seed-adx", needs=["adx"]),
            variant("seed-two-streams"),
            variant("seed-two-streams-published", status="wrong", failure=WRONG_CASE),
            variant("seed-32bit"),
            variant("seed-zero-sum", flags=["no_latency"]),
            variant("hp-csum", flags=["own"]),
        ],
    },
    # A primitive of the csum lab beside its default: reached with --primitive.
    "csum_fold": {
        "lab": "csum",
        "seed_name": "sum",
        "default_sizes": [4],
        "variants": [variant("ref"), variant("hp", flags=["own"])],
    },
    "avc_lookup": {
        "lab": "avc",
        "seed_name": "node",
        "default_sizes": [512, 2048, 8192],
        "variants": [variant("orig"), variant("murmur3"), variant("hp", flags=["own"])],
    },
    "crc32c": {
        "lab": "crc32c",
        "seed_name": "crc",
        "default_sizes": [],
        "variants": [
            variant("bitwise-ref"),
            variant("sse42-1stream"),
            variant("hotpath", flags=["own"]),
        ],
    },
    "crc32c_combine": {
        "lab": "crc32c",
        "seed_name": "crc",
        "default_sizes": [],
        "variants": [variant("matrix"), variant("clmul-const")],
    },
    "skb_crc32c_linear": skb_primitive(),
    "skb_crc32c_nonlinear": skb_primitive(),
}

# Per-variant cost factors: scripted so that the seeds' directions hold
# (the ladder gets cheaper step by step, chaining beats the generic walk).
FACTORS = {
    "kernel-5.17": 0.8,
    "zero-input": 0.5,
    "seed-dead-code": 0.6,
    "seed-adx": 0.4,
    "seed-two-streams": 0.4,
    "seed-32bit": 0.35,
    "seed-zero-sum": 0.3,
    "hp-csum": 0.55,
    "generic-matrix": 20.0,
    "generic-gf2mul": 5.0,
    "chained": 1.0,
    "hotpath": 0.7,
    "matrix": 20.0,
}


def fail(what, value, allowed, status=2):
    print(f"hotpath-bench: {what} '{value}': {allowed}", file=sys.stderr)
    sys.exit(status)


def parse(argv):
    opts = {"with": [], "with_as": {}, "progress": False}
    command = argv[0] if argv else fail("command", "", "list, run or verify")
    i = 1
    while i < len(argv):
        key = argv[i]
        if key == "--progress":
            opts["progress"] = True
            i += 1
            continue
        if i + 1 >= len(argv):
            fail("option", key, "needs a value")
        value = argv[i + 1]
        if key == "--with":
            opts["with"].append(value)
        elif key == "--with-as":
            opts["with_as"][len(opts["with"]) - 1] = value
        else:
            opts[key.lstrip("-")] = value
        i += 2
    return command, opts


def parse_row(text):
    """A row's steps, or the reason it is refused: a stand-in for the
    runner's `row` command (the library's parser is the real one; this
    keeps to the rows the tests write, checking keys, methods and order)."""
    keys = {k: p for p in DISPATCH_FACTS["primitives"] for k in p["keys"]}
    name, steps = "unnamed", {}
    for number, line in enumerate(text.splitlines(), 1):
        key, sep, value = line.split("#")[0].partition("=")
        key, value = key.strip(), value.strip()
        if not key and not sep:
            continue
        if key == "name":
            name = value
            continue
        if key not in keys:
            return None, f"line {number}: key not known"
        row = []
        for step in value.split(","):
            method, start = step.split()
            if method not in {m["name"] for m in keys[key]["methods"]}:
                return None, f"line {number}: {key}: method not known"
            row.append([method, int(start)])
        steps[key] = row
    missing = [k for k in keys if k not in steps]
    if missing:
        return None, f"missing {missing[0]}"
    return (name, steps), None


def row_answer(args):
    """`row TEXT`, or `row --file PATH` for a regular file (what else a row
    file may not be is the real runner's to say: test_dispatch.py asks it)."""
    out = {"schema": "hotpath.bench/1", "command": "row"}
    text = args[0]
    if args[0] == "--file":
        try:
            text = Path(args[1]).read_text(errors="replace")
        except OSError as err:
            return {**out, "ok": False, "error": err.strerror, "file": None}
        out["file"] = text
    parsed, error = parse_row(text)
    out.update(ok=parsed is not None, error=error)
    if parsed:
        out.update(name=parsed[0], steps=parsed[1], text=row_text(*parsed))
    return out


def row_text(name, steps):
    lines = [f"{k} = " + ", ".join(f"{m} {n}" for m, n in row) for k, row in steps.items()]
    return "\n".join([f"name = {name}", *lines, ""])


# The row in use (hotpath.dispatch), or the one HOTPATH_DISPATCH names.
BUILT_IN_ROW = (
    "name = fake\ncsum.even = scalar 0, avx2 512\ncsum.odd = scalar 0, avx2 512\n"
    "crc32c = sse42 0, fold4 64\n"
)


def dispatch_row():
    path = os.environ.get("HOTPATH_DISPATCH")
    text = Path(path).read_text() if path else BUILT_IN_ROW
    name = next(
        (line.partition("=")[2].strip() for line in text.splitlines() if line.startswith("name")),
        "unnamed",
    )
    key = "FakeVendor-1-2-3-0x1-f1-c000000000000"  # where --save keeps a row
    cache = os.environ.get("XDG_CACHE_HOME") or f"{os.environ['HOME']}/.cache"
    parsed, _ = parse_row(text)
    return {"name": name, "source": path or "built-in", "text": text,
            "steps": parsed[1] if parsed else None, "key": key,
            "runs": parsed[1] if parsed else None,
            "user_row": f"{cache}/hotpath/dispatch/{key}.row",
            "system_row": f"/var/cache/hotpath/dispatch/{key}.row"}  # fmt: skip


# FAKE_RUNNER_SPOIL=VARIANT:SIZE,...: figures a neighbour spoiled (SIZE * for
# all); with FAKE_RUNNER_SPOIL_ONCE=FILE only in the run that creates FILE
def hits(spoil: set[str], name: str, size: int) -> bool:
    return f"{name}:{size}" in spoil or f"{name}:*" in spoil


def spoiled(cells) -> set[str]:
    """The VARIANT:SIZE names to spoil in this run of `cells`."""
    spoil = set(filter(None, os.environ.get("FAKE_RUNNER_SPOIL", "").split(",")))
    if os.environ.get("FAKE_RUNNER_SPOIL_ONCE") and any(
        hits(spoil, v["name"], s) for v, s, _, _ in cells
    ):
        try:
            open(os.environ["FAKE_RUNNER_SPOIL_ONCE"], "x").close()
        except FileExistsError:
            return set()
    return spoil


# hotpath's own variants run the row: FAKE_RUNNER_MEASURED_ROW_SCALE slows
# them under a row that `hotpath dispatch` measured (read once per process)
OWN_SCALE = (
    float(os.environ.get("FAKE_RUNNER_MEASURED_ROW_SCALE", "1"))
    if dispatch_row()["name"].startswith("measured-")
    else 1.0
)


def cost(primitive, name, size, align, mode):
    if primitive == "add_chain":
        # FAKE_RUNNER_IMUL_CYCLES: a clock that reads imul at another latency
        return size * (
            float(os.environ.get("FAKE_RUNNER_IMUL_CYCLES", "3")) if name == "imuls" else 1.0
        )
    scale = OWN_SCALE if name in ("hp-csum", "hotpath") else 1.0
    # 17 cycles at 40 bytes: above the ladder's chain bounds, as on real CPUs
    base = 12.0 + size / 8.0 + (8.0 if align % 2 else 0.0)
    base *= FACTORS.get(name, 1.0)
    base *= {"latency": 1.0, "throughput": 0.6, "fenced": 1.9}[mode]
    return base * scale * float(os.environ.get("FAKE_RUNNER_SCALE", "1"))


def main():
    if sys.argv[1:2] == ["facts"]:
        print(json.dumps(FACTS))
        return
    if sys.argv[1:2] == ["cpu"]:
        print(json.dumps({"schema": "hotpath.bench/1", "command": "cpu", "cpu": cpu()}))
        return
    if sys.argv[1:2] == ["row"]:
        print(json.dumps(row_answer(sys.argv[2:])))
        return
    command, opts = parse(sys.argv[1:])
    if command == "list":
        prims = [{"name": n, **p} for n, p in PRIMITIVES.items()]
        print(
            json.dumps(
                {
                    "schema": "hotpath.bench/1",
                    "command": "list",
                    "cpu": cpu(),
                    "dispatch": dispatch_row(),
                    "primitives": prims,
                }
            )
        )
        return
    if command == "probe":
        # A timeline recorded on a 2-vCPU AMD EPYC (family 25 model 1) VM.
        print((Path(__file__).parent / "fixtures" / "probe-epyc-f25m1.json").read_text())
        return
    name = opts.get("primitive") or fail("--primitive", "", "required")
    if name not in PRIMITIVES:
        fail("primitive", name, "one of " + ", ".join(PRIMITIVES))
    prim = PRIMITIVES[name]
    variants = [dict(v) for v in prim["variants"]]
    if "variants" in opts:
        wanted = opts["variants"].split(",")
        variants = [v for v in variants if v["name"] in wanted or v["name"] == "rfc1071-ref"]
    for number, spec in enumerate(opts["with"]):
        path, _, symbol = spec.rpartition(":")
        name = opts["with_as"].get(number, symbol)
        if not Path(path).exists():
            fail("--with", spec, "cannot open the library", status=3)
        if symbol.startswith("missing"):
            fail("--with", spec, f"undefined symbol {symbol}", status=3)
        failure = WRONG_CASE if "wrong" in symbol else None
        variants.append(
            variant(name, status="wrong" if failure else "ok", failure=failure, flags=["user"])
        )
    sizes = [
        int(s) for s in opts.get("sizes", ",".join(map(str, prim["default_sizes"]))).split(",")
    ]
    aligns = [int(a) for a in opts.get("aligns", "0").split(",")]
    modes = opts.get("modes", ",".join(MODES)).split(",")
    rounds = int(opts.get("rounds", "400"))
    unit = opts.get("unit", "cycles")
    tpc = 0.76
    rng = np.random.default_rng(int(opts.get("rng-seed", "1")))
    figures = []
    cells = [(v, s, a, m) for m in modes for s in sizes for a in aligns for v in variants]
    spoil = spoiled(cells)
    for done, (v, size, align, mode) in enumerate(cells, 1):
        fig = {
            "variant": v["name"],
            "size": size,
            "align": align,
            "mode": mode,
            "status": "ok",
            "reason": None,
            "calls_per_sample": 100,
            "values": [],
            "ticks": [],
        }
        if v["status"] != "ok":
            fig["status"] = "not timed"
            fig["reason"] = f"variant is {v['status']}"
        elif "no_latency" in v["flags"] and mode == "latency":
            fig["status"] = "n/a"
            fig["reason"] = "ignores its input sum: no chain to follow"
        else:
            cycles = cost(name, v["name"], size, align, mode) * (1 + rng.gamma(2.0, 0.004, rounds))
            ticks = cycles * tpc
            fig["values"] = [round(x, 4) for x in (cycles if unit == "cycles" else ticks)]
            fig["ticks"] = [round(x, 4) for x in ticks]
            fig["share"] = [1.0] * rounds  # a quiet core: every sample clean
            fig["clean"] = [1] * rounds
            if hits(spoil, v["name"], size):
                fig["share"] = [0.4] * rounds  # a neighbour spoiled every sample
                fig["clean"] = [0] * rounds
        figures.append(fig)
        if opts["progress"]:
            print(f"progress {done} {len(cells)}", file=sys.stderr, flush=True)
    clock = {
        "source": "tsc",
        "unit": unit,
        "unit_long": "core cycles (calibrated against a dependent add chain, from TSC)"
        if unit == "cycles"
        else "TSC ticks",
        "tsc_hz": 2.6e9,
        "ticks_per_cycle": [0.76, 0.761, 0.759, 0.762],
        "timer_overhead_ticks": 38.0,
        "fenced_empty_ticks": 41.5,
        "perf_cycles": {
            "available": False,
            "reason": "perf_event_open(cycles): No such file or directory",
        },
    }
    print(
        json.dumps(
            {
                "schema": "hotpath.bench/1",
                "command": command,
                "primitive": name,
                "lab": prim["lab"],
                "seed_name": prim["seed_name"],
                "clock": clock,
                "cpu": cpu(),
                "dispatch": dispatch_row(),
                "settings": {
                    "rounds": rounds,
                    "warmup_rounds": 20,
                    "burst_ticks": 26000,
                    "batch_rounds": 50,
                    "rng_seed": 1,
                },
                "variants": variants,
                "figures": figures,
            }
        )
    )


if __name__ == "__main__":
    main()
