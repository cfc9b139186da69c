# SPDX-License-Identifier: GPL-2.0-only
"""The load spec of a tree's Kbuild objects: what the runner's loader
(c/kload) needs to patch them as the kernel patches itself on this CPU.

The loader knows x86 and ELF; the tree-specific facts come from the tree's
own headers, read here:

- the capability words of `boot_cpu_data.x86_capability` (asm/cpufeature.h,
  `enum cpuid_leafs`): which CPUID register each word is, so that the
  loader reads them from this CPU; the words the kernel fills itself
  (CPUID_LNX_*) are set bit by bit below;
- the synthetic features (asm/cpufeatures.h): X86_FEATURE_ALWAYS,
  LFENCE_RDTSC (the kernel sets it on every x86-64 CPU it runs: lfence is
  serializing on AMD since family 10h and on Intel; barrier_nospec() is
  its alternative), and each one this host's kernel set and shows in
  /proc/cpuinfo (rep_good, nopl, ...), except the mitigations', which
  follow --mitigations; another hidden one (no /proc/cpuinfo name) is off;
- the size of `struct alt_instr` (asm/alternative.h): 12 bytes with a u16
  cpuid (older trees), 14 with a u32 ft_flags (ALT_FLAG_NOT in bit 16).

`--mitigations off` loads the objects as a `mitigations=off` kernel runs
them: every `jmp __x86_return_thunk` a `ret`, every retpoline a direct
indirect branch. `--mitigations host` as this host's kernel runs them,
read from /sys/devices/system/cpu/vulnerabilities/: the SRSO safe return
where it says "Safe RET", retpoline thunks where spectre_v2 says
"Retpolines"; what the loader does not model is said in the origin line.
"""

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from hotpath.errors import UsageError

MITIGATIONS = ("off", "host")
VULNERABILITIES = Path("/sys/devices/system/cpu/vulnerabilities")
CPUINFO = Path("/proc/cpuinfo")

# Synthetic features that belong to the mitigations: never copied from the
# host, set only as --mitigations says.
_MITIGATION_WORDS = re.compile(
    r"RETPOLINE|RETHUNK|UNRET|SRSO|CALL_DEPTH|IBPB|RSB|IBRS|BHI|CLEAR_CPU_BUF|ITS|"
    r"SPEC_CTRL|MSR_TSX_CTRL|KERNEL_IBRS|ENTRY_|CLEAR_BHB|INDIRECT_THUNK"
)
_REGS = {"EAX": "eax", "EBX": "ebx", "ECX": "ecx", "EDX": "edx"}


@dataclass(frozen=True)
class Mitigations:
    mode: str  # off or host
    rethunk: str  # "ret", or the runtime's thunk a `jmp __x86_return_thunk` goes to
    retpoline: str  # off or generic
    features: tuple[str, ...]  # X86_FEATURE_ names set because of them
    said: str  # for the origin line

    def spec_lines(self) -> list[str]:
        return [f"rethunk {self.rethunk}", f"retpoline {self.retpoline}"]


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _cpu_family() -> int:
    match = re.search(r"^cpu family\s*:\s*(\d+)", _read(CPUINFO), re.M)
    return int(match.group(1)) if match else 0


def mitigations(mode: str, vulnerabilities: Path = VULNERABILITIES) -> Mitigations:
    """What the loader makes of returns and indirect branches in `mode`."""
    if mode not in MITIGATIONS:
        raise UsageError(f"--mitigations '{mode}': allowed: {', '.join(MITIGATIONS)}")
    if mode == "off":
        return Mitigations("off", "ret", "off", (), "mitigations off: ret, direct indirect calls")
    srso = _read(vulnerabilities / "spec_rstack_overflow")
    retbleed = _read(vulnerabilities / "retbleed")
    spectre = _read(vulnerabilities / "spectre_v2")
    said, features = [], []
    rethunk, retpoline = "ret", "off"
    if "Safe RET" in srso:
        # Zen 3/4 (family 0x19) take the alias form, Zen 1/2 the other (bugs.c).
        rethunk = "srso_alias_return_thunk" if _cpu_family() == 0x19 else "srso_return_thunk"
        features += ["RETHUNK", "SRSO_ALIAS" if rethunk.startswith("srso_alias") else "SRSO"]
        said.append(f"returns through {rethunk} (spec_rstack_overflow: {srso})")
    elif "untrained return thunk" in retbleed or "IBPB" in srso or "IBPB" in retbleed:
        rethunk = "__x86_return_thunk"
        features.append("RETHUNK")
        said.append(
            "returns through __x86_return_thunk, a plain ret here (the untraining "
            f"or IBPB of retbleed: {retbleed or '?'} / SRSO: {srso or '?'} is not modelled)"
        )
    else:
        said.append(
            f"plain returns (spec_rstack_overflow: {srso or 'not reported'}; "
            f"retbleed: {retbleed or 'not reported'})"
        )
    if "Retpolines" in spectre or "LFENCE" in spectre:
        retpoline = "generic"
        features.append("RETPOLINE")
        extra = ", the LFENCE form not modelled" if "LFENCE" in spectre else ""
        said.append(f"indirect branches through generic retpolines{extra} (spectre_v2: {spectre})")
    else:
        said.append(f"direct indirect branches (spectre_v2: {spectre or 'not reported'})")
    return Mitigations(
        "host", rethunk, retpoline, tuple(features), "mitigations host: " + "; ".join(said)
    )


def capability_words(cpufeature_h: str) -> list[str]:
    """`word W LEAF SUB REG` for each CPUID word of the tree's enum cpuid_leafs."""
    body = re.search(r"enum cpuid_leafs\s*\{(.*?)\}", cpufeature_h, re.S)
    if body is None:
        raise UsageError("asm/cpufeature.h has no enum cpuid_leafs")
    lines = []
    names = re.findall(r"\b(CPUID_\w+|NR_CPUID_WORDS)\b", body.group(1))
    for word, name in enumerate(n for n in names if n != "NR_CPUID_WORDS"):
        parts = name.removeprefix("CPUID_").split("_")
        if parts[0] == "LNX" or parts[-1] not in _REGS:
            continue
        reg, digits = _REGS[parts[-1]], parts[:-1]
        if len(digits) >= 2 and len(digits[0]) == 4 and len(digits[1]) == 4:
            leaf, sub = int(digits[0] + digits[1], 16), digits[2:]
        else:
            leaf, sub = int(digits[0], 16), digits[1:]
        lines.append(f"word {word} {leaf:x} {int(sub[0], 16) if sub else 0:x} {reg}")
    return lines


def feature_numbers(cpufeatures_h: str) -> dict[str, tuple[int, str | None]]:
    """X86_FEATURE_ suffix -> (bit number, its /proc/cpuinfo name or None)."""
    old_style = '/* ""' in cpufeatures_h  # before 6.11 a hidden flag's comment began ""
    found: dict[str, tuple[int, str | None]] = {}
    pattern = r"#define\s+X86_FEATURE_(\w+)\s+\(\s*(\d+)\s*\*\s*32\s*\+\s*(\d+)\s*\)\s*(/\*.*)?"
    for match in re.finditer(pattern, cpufeatures_h):
        name, word, bit, comment = match.groups()
        quoted = re.match(r'/\*\s*"([^"]*)"', comment or "")
        if quoted:
            shown: str | None = quoted.group(1) or None
        else:
            shown = name.lower() if old_style else None
        found[name] = (int(word) * 32 + int(bit), shown)
    return found


def _host_flags() -> set[str]:
    match = re.search(r"^flags\s*:(.*)$", _read(CPUINFO), re.M)
    return set(match.group(1).split()) if match else set()


def synthetic_set(cpufeatures_h: str, words: list[str], mits: Mitigations) -> list[str]:
    """`set N` lines: ALWAYS, the host's shown synthetic features, the mitigations'."""
    cpuid_words = {int(line.split()[1]) for line in words}
    numbers = feature_numbers(cpufeatures_h)
    host = _host_flags()
    chosen = {"ALWAYS", "LFENCE_RDTSC", *mits.features}
    for name, (number, shown) in numbers.items():
        if number // 32 in cpuid_words or _MITIGATION_WORDS.search(name):
            continue
        if shown and shown in host:
            chosen.add(name)
    return [f"set {numbers[n][0]}" for n in sorted(chosen) if n in numbers]


def alt_size(alternative_h: str) -> int:
    body = re.search(r"struct alt_instr\s*\{(.*?)\}\s*__packed", alternative_h, re.S)
    if body is None:
        raise UsageError("asm/alternative.h has no struct alt_instr")
    return 14 if "ft_flags" in body.group(1) else 12


def write_spec(
    tree_root: Path,
    objects: list[Path],
    runtime: Path,
    mits: Mitigations,
    folder: Path,
    init: str | None = None,
    stubs: tuple[str, ...] = (),
) -> Path:
    """The spec file for these objects (content-named, in `folder`)."""
    asm = tree_root / "arch" / "x86" / "include" / "asm"
    words = capability_words((asm / "cpufeature.h").read_text(errors="replace"))
    lines = [f"object {p}" for p in (*objects, runtime)]
    lines += words
    lines += synthetic_set((asm / "cpufeatures.h").read_text(errors="replace"), words, mits)
    lines.append(f"alt {alt_size((asm / 'alternative.h').read_text(errors='replace'))}")
    lines += mits.spec_lines()
    if init:
        lines.append(f"init {init}")
    lines += [f"stub {name}" for name in stubs]
    text = "\n".join(lines) + "\n"
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder.mkdir(parents=True, exist_ok=True)
    spec = folder / f"{digest}.kload"
    if not spec.is_file():
        partial = spec.with_suffix(".partial")
        partial.write_text(text)
        partial.replace(spec)
    return spec


def spec_objects(spec: Path) -> list[Path]:
    """The objects a spec file names (the files its loader reads)."""
    lines = spec.read_text(errors="replace").splitlines()
    return [Path(line.removeprefix("object ")) for line in lines if line.startswith("object ")]
