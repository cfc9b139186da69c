# SPDX-License-Identifier: GPL-2.0-only
"""The machine a run came from, and what about it hurts measurement.

Every stored run carries this fingerprint so that a figure is never
separated from the machine that produced it, and `hotpath compare` can say
when two runs come from different machines. The CPU is the runner's (its
cpuid, less what HOTPATH_CPU_HIDE hides: `hotpath-bench cpu`); the rest is
read below a root directory (default "/") so that tests can use a fake
/proc and /sys tree. Unreadable values are "unknown", never an error.
"""

import hashlib
import json
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hotpath.errors import RunnerError
from hotpath.protocol import Cpu, parse_cpu_answer
from hotpath.runner import invoke, locate_runner, runner_facts

UNKNOWN = "unknown"

# What a machine key is made of (docs/machines.md): what decides the code a
# run measures and how fast it can run, and nothing that moves while the
# machine stays the same. Never a clock rate, a MHz reading or bogomips
# (they move with every reboot and every load); never the brand string (the
# runner's cpuid and /proc/cpuinfo spell it differently; vendor, family,
# model and stepping already name the CPU). A kernel or microcode update
# makes a new key: figures before and after it are not one machine's.
KEY_PARTS = (
    "vendor", "family", "model", "stepping", "microcode", "features", "logical_cpus",
    "kernel", "virt",
)  # fmt: skip
# The feature set in a key: the CPU features the runner tells apart (its
# facts' cpu_features, in their bit order: c/bench/cpu.c), as it sees them:
# CPUID, less what the OS does not enable in XCR0, less what
# HOTPATH_CPU_HIDE hides (a run with features hidden measures other code:
# it is kept under another key, as the dispatch rows are). Never
# /proc/cpuinfo's flags: the kernel adds flags of its own (constant_tsc,
# pti, ibpb...) that come and go with the kernel, its boot options and the
# microcode. A name the runner adds at the end of its table changes only
# the keys of machines that have it; one moved changes every key
# (tests/py/test_machine.py fixes today's).
# The identifying fields of the first rule (a sha256 prefix of 16 hex digits),
# kept for histories whose machine_key column still holds such keys.
LEGACY_KEY_FIELDS = (
    "vendor", "family", "model", "stepping", "model_name", "hypervisor", "logical_cpus",
)  # fmt: skip
# A key of this rule: 8 hex digits of the parts' hash, then the parts.
KEY_PATTERN = re.compile(r"[0-9a-f]{8}-\S+")


@dataclass
class Fingerprint:
    vendor: str = UNKNOWN
    family: int | None = None
    model: int | None = None
    stepping: int | None = None
    model_name: str = UNKNOWN
    microcode: str = UNKNOWN
    logical_cpus: int | None = None
    cpu_features: list[str] = field(default_factory=list)
    tsc_hz: float | None = None
    core_hz_estimate: float | None = None
    kernel: str = UNKNOWN
    hypervisor: str = UNKNOWN  # "none" on bare metal
    governor: str = UNKNOWN
    boost: str = UNKNOWN  # "on", "off" or unknown
    smt: str = UNKNOWN
    mitigations: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Fingerprint":
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def key_parts(self) -> dict[str, str]:
        """The parts of the machine key (KEY_PARTS), each as a string:
        "unknown" where the fingerprint does not have it (a run stored
        before it was read, or a file that could not be)."""

        def text(value: object) -> str:
            return UNKNOWN if value is None or value == "" else str(value)

        features = [f for f in runner_facts().cpu_features if f in self.cpu_features]
        return {
            "vendor": text(self.vendor),
            "family": text(self.family),
            "model": text(self.model),
            "stepping": text(self.stepping),
            "microcode": _microcode(self.microcode),
            # none of them: a run that did not record them, in practice
            "features": " ".join(features) if features else UNKNOWN,
            "logical_cpus": text(self.logical_cpus),
            "kernel": text(self.kernel),
            "virt": vm_or_not(self.hypervisor),
        }

    def key(self) -> str:
        """The machine key: equal keys, same machine (docs/machines.md).

        As "aee02f24-GenuineIntel-6.106.6-mc0xd0003a5-f15-c4-vm-k6.12.0-test":
        8 hex digits of the parts' sha256 (a unique start, and what makes
        the key unique where the readable rest shortens or replaces
        characters), vendor, family.model.stepping, microcode, the feature
        set as a bit mask of the runner's feature bits, logical CPUs,
        metal/vm, kernel.
        """
        parts = self.key_parts()
        digest = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:8]
        have = parts["features"].split()
        mask = sum(1 << i for i, f in enumerate(runner_facts().cpu_features) if f in have)
        readable = [
            digest,
            _safe(parts["vendor"]),
            ".".join(_safe(parts[p]) for p in ("family", "model", "stepping")),
            "mc" + _safe(parts["microcode"]),
            "f" + (f"{mask:x}" if mask else UNKNOWN),
            "c" + _safe(parts["logical_cpus"]),
            _safe(parts["virt"]),
            "k" + _safe(parts["kernel"], "-")[:48],  # last: its hyphens part nothing
        ]
        return "-".join(readable)

    def legacy_key(self) -> str:
        """The key of the first rule (before issue 27), which also named the
        brand string and the hypervisor and left out kernel, microcode and
        features: what a history's machine_key column holds for older runs."""
        ident = {name: getattr(self, name) for name in LEGACY_KEY_FIELDS}
        digest = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()
        return digest[:16]

    def key_differences(self, other: "Fingerprint") -> list[str]:
        """The parts of the key that differ: "kernel 6.1.0 vs 6.12.0"."""
        mine, theirs = self.key_parts(), other.key_parts()
        return [
            f"{PART_WORDS[name]} {mine[name]} vs {theirs[name]}"
            for name in KEY_PARTS
            if mine[name] != theirs[name]
        ]

    def short_name(self) -> str:
        """One short phrase: "AMD EPYC (kvm)"."""
        name = " ".join(self.model_name.replace("(R)", "").replace("(TM)", "").split())
        virt = "" if self.hypervisor in ("none", UNKNOWN) else f" ({self.hypervisor})"
        return f"{name}{virt}"

    def one_line(self) -> str:
        """Machine one-liner shown above every table."""
        parts = [self.model_name]
        if self.family is not None:
            parts.append(f"family {self.family} model {self.model} stepping {self.stepping}")
        if self.logical_cpus:
            parts.append(f"{self.logical_cpus} CPUs")
        if self.tsc_hz:
            parts.append(f"TSC {self.tsc_hz / 1e9:.3f} GHz")
        if self.core_hz_estimate:
            parts.append(f"core ~{self.core_hz_estimate / 1e9:.2f} GHz")
        parts.append(f"kernel {self.kernel}")
        virt = "bare metal" if self.hypervisor == "none" else f"VM: {self.hypervisor}"
        parts.append(virt)
        return ", ".join(parts)

    def warnings(self) -> list[str]:
        """Conditions that make figures less trustworthy or less portable."""
        found = []
        if self.hypervisor not in ("none", UNKNOWN):
            found.append(
                f"virtual machine ({self.hypervisor}): other guests share the cores; "
                "expect noise and compare only runs from this same machine"
            )
        if self.boost == "on":
            found.append("frequency boost is on: the core clock moves with load and temperature")
        if self.governor not in ("performance", UNKNOWN):
            found.append(f"frequency governor is '{self.governor}', not 'performance'")
        if self.core_hz_estimate and not plausible_core_hz(self.core_hz_estimate):
            found.append(
                f"the clock reads a core at {self.core_hz_estimate / 1e9:.1f} GHz, faster than "
                "any x86 core: its chain of adds ran faster than one a cycle, so figures in "
                "core cycles are wrong here (TSC ticks, --unit ticks, are not)"
            )
        return found

    def differences(self, other: "Fingerprint") -> list[str]:
        """Names and values of fields that differ (features and mitigations summarized)."""
        found = []
        for name in self.__dataclass_fields__:
            mine, theirs = getattr(self, name), getattr(other, name)
            if name in ("tsc_hz", "core_hz_estimate"):
                continue  # measured, differs run to run
            if mine != theirs:
                if isinstance(mine, list | dict):
                    found.append(f"{name} differ")
                else:
                    found.append(f"{name}: {mine} vs {theirs}")
        return found


# The key's parts in words, as `hotpath machines` and compare name them.
PART_WORDS = {
    "vendor": "vendor",
    "family": "family",
    "model": "model",
    "stepping": "stepping",
    "microcode": "microcode",
    "features": "features",
    "logical_cpus": "logical CPUs",
    "kernel": "kernel",
    "virt": "virtualization",
}


def vm_or_not(hypervisor: str) -> str:
    """A VM or not: "vm", "metal" or "unknown"; not which hypervisor (how
    that is named depends on which tool answered: systemd-detect-virt, /sys
    or the cpuid flag)."""
    if hypervisor == "none":
        return "metal"
    return UNKNOWN if hypervisor in (UNKNOWN, "") else "vm"


def _microcode(text: str) -> str:
    """The revision as the kernel prints it, 0x and lower-case hex."""
    try:
        return f"0x{int(text, 16):x}"
    except (TypeError, ValueError):
        return text or UNKNOWN


def _safe(text: str, also: str = "") -> str:
    """A key part with what a shell or a file name would trip on replaced
    (and "-", which parts the key, unless `also` allows it)."""
    return re.sub(f"[^A-Za-z0-9._+~{re.escape(also)}]", "_", text) or UNKNOWN


def is_key(text: str) -> bool:
    """Whether `text` is a key of this rule (else a legacy one, or none)."""
    return KEY_PATTERN.fullmatch(text) is not None


# No x86 core has run faster. A clock reading above it means the chain of
# dependent adds ran faster than one a cycle: on an Emerald Rapids an
# add-immediate chain read 14.8 GHz (docs/engine.md).
MAX_CORE_HZ = 7.0e9


def plausible_core_hz(hz: float) -> bool:
    return 0 < hz <= MAX_CORE_HZ


def _read(root: Path, relative: str) -> str | None:
    try:
        return (root / relative).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def _cpuinfo(root: Path) -> tuple[dict[str, str], int]:
    """Fields of the first processor block and the number of processors:
    read for what only the kernel knows (the microcode revision it loaded,
    which a user-space cpuid cannot see, and the CPUs online), never for
    the CPU's identity or features (the runner's)."""
    text = _read(root, "proc/cpuinfo") or ""
    first: dict[str, str] = {}
    count = 0
    for block in text.split("\n\n"):
        fields = {}
        for line in block.splitlines():
            key, sep, value = line.partition(":")
            if sep:
                fields[key.strip()] = value.strip()
        if "processor" in fields:
            count += 1
            if not first:
                first = fields
    return first, count


def detect_virt_command() -> str | None:
    """What systemd-detect-virt says, or None where it is not installed."""
    tool = shutil.which("systemd-detect-virt")
    if tool is None:
        return None
    try:
        done = subprocess.run(
            [tool, "--vm"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    answer = done.stdout.strip()
    return answer or None


def _hypervisor(root: Path, cpuid_bit: bool | None, detect: Callable[[], str | None]) -> str:
    """Which hypervisor (systemd-detect-virt, /sys), else whether cpuid's
    hypervisor bit is set (`cpuid_bit`, the runner's; None: unknown)."""
    named = _read(root, "sys/hypervisor/type")
    detected = detect()
    if detected and detected != "none":
        return detected
    if named:
        return named
    if cpuid_bit:
        return "unidentified hypervisor"
    if detected == "none" or cpuid_bit is not None:
        return "none"
    return UNKNOWN


def _boost(root: Path) -> str:
    boost = _read(root, "sys/devices/system/cpu/cpufreq/boost")
    if boost in ("0", "1"):
        return "on" if boost == "1" else "off"
    no_turbo = _read(root, "sys/devices/system/cpu/intel_pstate/no_turbo")
    if no_turbo in ("0", "1"):
        return "off" if no_turbo == "1" else "on"
    return UNKNOWN


def _mitigations(root: Path) -> dict[str, str]:
    folder = root / "sys/devices/system/cpu/vulnerabilities"
    try:
        entries = sorted(p for p in folder.iterdir() if p.is_file())
    except OSError:
        return {}
    return {p.name: _read(root, str(p.relative_to(root))) or UNKNOWN for p in entries}


def runner_cpu() -> Cpu | None:
    """This CPU as the runner sees it, or None where no runner answers (a
    HOTPATH_CPU_HIDE it refuses is the user's mistake: UsageError)."""
    try:
        return parse_cpu_answer(invoke(locate_runner(), ["cpu"]))
    except RunnerError:
        return None


def fingerprint(
    cpu: Cpu | None = None,
    tsc_hz: float | None = None,
    root: Path = Path("/"),
    detect_virt: Callable[[], str | None] | None = None,
) -> Fingerprint:
    """Read the machine's fingerprint; `cpu` and `tsc_hz` come from the runner.

    The CPU (vendor, family, model, stepping, brand, features less the
    hidden ones, the hypervisor bit) is the runner's: the one of a run, or
    else asked of it (`hotpath-bench cpu`) for a lab that runs without it
    (tune, crossing), so that every run of a machine keys alike. Where no
    runner answers, the CPU is unknown.
    """
    if cpu is None:
        cpu = runner_cpu()
    info, count = _cpuinfo(root)
    if detect_virt is None:
        detect_virt = detect_virt_command if root == Path("/") else (lambda: None)
    return Fingerprint(
        vendor=cpu.vendor if cpu else UNKNOWN,
        family=cpu.family if cpu else None,
        model=cpu.model if cpu else None,
        stepping=cpu.stepping if cpu else None,
        model_name=(cpu.brand if cpu else "") or UNKNOWN,
        # /proc/cpuinfo, for what only the kernel knows: the microcode
        # revision it loaded (an MSR cpuid cannot read) and the CPUs online
        microcode=info.get("microcode", UNKNOWN),
        logical_cpus=count or None,
        cpu_features=list(cpu.features) if cpu else [],
        tsc_hz=tsc_hz,
        core_hz_estimate=cpu.core_hz_estimate if cpu else None,
        kernel=_read(root, "proc/sys/kernel/osrelease") or UNKNOWN,
        hypervisor=_hypervisor(root, cpu.hypervisor if cpu else None, detect_virt),
        governor=_read(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") or UNKNOWN,
        boost=_boost(root),
        smt=_read(root, "sys/devices/system/cpu/smt/control") or UNKNOWN,
        mitigations=_mitigations(root),
    )
