# SPDX-License-Identifier: GPL-2.0-only
"""The machine a run came from, and what about it hurts measurement.

Every stored run carries this fingerprint so that a figure is never
separated from the machine that produced it, and `hotpath compare` can say
when two runs come from different machines. Everything is read below a root
directory (default "/") so that tests can use a fake /proc and /sys tree.
Unreadable values are "unknown", never an error.
"""

import hashlib
import json
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hotpath.protocol import Cpu

UNKNOWN = "unknown"

# Fields that identify the machine; a kernel or microcode update is the same
# machine with different software, reported as a difference, not a mismatch.
KEY_FIELDS = ("vendor", "family", "model", "stepping", "model_name", "hypervisor", "logical_cpus")


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

    def key(self) -> str:
        """Short hash of the identifying fields: equal keys, same machine."""
        ident = {name: getattr(self, name) for name in KEY_FIELDS}
        digest = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()
        return digest[:16]

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
    """Fields of the first processor block and the number of processors."""
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


def _int_or_none(text: str | None) -> int | None:
    try:
        return int(text, 0) if text is not None else None
    except ValueError:
        return None


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


def _hypervisor(root: Path, flags: list[str], detect: Callable[[], str | None]) -> str:
    named = _read(root, "sys/hypervisor/type")
    detected = detect()
    if detected and detected != "none":
        return detected
    if named:
        return named
    if "hypervisor" in flags:
        return "unidentified hypervisor"
    if detected == "none" or flags:
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


def fingerprint(
    cpu: Cpu | None = None,
    tsc_hz: float | None = None,
    root: Path = Path("/"),
    detect_virt: Callable[[], str | None] | None = None,
) -> Fingerprint:
    """Read the machine's fingerprint; `cpu` and `tsc_hz` come from the runner.

    The CPU's identity is the runner's where it gave one: cpuid of the CPU
    that ran the code (on a real machine the same as /proc/cpuinfo, which
    gives the rest: microcode, the CPU count, the hypervisor flag).
    """
    info, count = _cpuinfo(root)
    flags = info.get("flags", "").split()
    if detect_virt is None:
        detect_virt = detect_virt_command if root == Path("/") else (lambda: None)
    return Fingerprint(
        vendor=cpu.vendor if cpu else info.get("vendor_id", UNKNOWN),
        family=cpu.family if cpu else _int_or_none(info.get("cpu family")),
        model=cpu.model if cpu else _int_or_none(info.get("model")),
        stepping=cpu.stepping if cpu else _int_or_none(info.get("stepping")),
        model_name=(cpu.brand if cpu else "") or info.get("model name") or UNKNOWN,
        microcode=info.get("microcode", UNKNOWN),
        logical_cpus=count or None,
        cpu_features=list(cpu.features) if cpu else [],
        tsc_hz=tsc_hz,
        core_hz_estimate=cpu.core_hz_estimate if cpu else None,
        kernel=_read(root, "proc/sys/kernel/osrelease") or UNKNOWN,
        hypervisor=_hypervisor(root, flags, detect_virt),
        governor=_read(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") or UNKNOWN,
        boost=_boost(root),
        smt=_read(root, "sys/devices/system/cpu/smt/control") or UNKNOWN,
        mitigations=_mitigations(root),
    )
