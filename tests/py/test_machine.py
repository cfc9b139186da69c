# SPDX-License-Identifier: GPL-2.0-only
"""Machine fingerprint read from a fake root tree."""

from pathlib import Path

from conftest import CPUINFO_BLOCK, write_tree
from hotpath.machine import UNKNOWN, Fingerprint, fingerprint
from hotpath.protocol import Cpu

RUNNER_CPU = Cpu(
    vendor="GenuineIntel",
    family=6,
    model=106,
    stepping=6,
    brand="Intel Xeon",
    features=["sse4.2", "adx"],
    pinned_cpu=1,
    core_hz_estimate=3.3e9,
)


def test_vm_with_boost_and_powersave(machine_root: Path):
    fp = fingerprint(cpu=RUNNER_CPU, tsc_hz=2.9e9, root=machine_root, detect_virt=lambda: None)
    assert fp.vendor == "GenuineIntel"
    assert (fp.family, fp.model, fp.stepping) == (6, 106, 6)
    assert fp.model_name == "Intel Xeon"  # the runner's cpuid brand string
    assert fp.microcode == "0xd0003a5"
    assert fp.logical_cpus == 4
    assert fp.cpu_features == ["sse4.2", "adx"]
    assert fp.tsc_hz == 2.9e9 and fp.core_hz_estimate == 3.3e9
    assert fp.kernel == "6.12.0-test"
    assert fp.hypervisor == "xen"
    assert fp.boost == "on"
    assert fp.governor == "powersave"
    assert fp.smt == "on"
    assert fp.mitigations == {
        "meltdown": "Not affected",
        "spectre_v2": "Mitigation: Retpolines",
    }
    text = " ".join(fp.warnings())
    assert "virtual machine (xen)" in text
    assert "boost is on" in text
    assert "'powersave'" in text
    assert "Xeon" in fp.short_name() and "(xen)" in fp.short_name()


def test_systemd_detect_virt_wins(machine_root: Path):
    fp = fingerprint(root=machine_root, detect_virt=lambda: "kvm")
    assert fp.hypervisor == "kvm"


def test_bare_metal_quiet(tmp_path: Path):
    root = write_tree(
        tmp_path / "metal",
        {
            "proc/cpuinfo": CPUINFO_BLOCK.format(n=0, extra=""),
            "sys/devices/system/cpu/intel_pstate/no_turbo": "1\n",
            "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "performance\n",
        },
    )
    fp = fingerprint(root=root, detect_virt=lambda: "none")
    assert fp.hypervisor == "none"
    assert fp.boost == "off"
    assert fp.warnings() == []
    assert "bare metal" in fp.one_line()


def test_unreadable_is_unknown(tmp_path: Path):
    fp = fingerprint(root=tmp_path / "empty", detect_virt=lambda: None)
    assert fp.vendor == UNKNOWN and fp.kernel == UNKNOWN and fp.hypervisor == UNKNOWN
    assert fp.governor == UNKNOWN and fp.boost == UNKNOWN and fp.smt == UNKNOWN
    assert fp.mitigations == {}
    assert fp.warnings() == []


def test_key_identifies_the_machine_not_its_software(machine_root: Path):
    a = fingerprint(root=machine_root, detect_virt=lambda: None)
    b = Fingerprint.from_json({**a.to_json(), "kernel": "6.13", "microcode": "0x1"})
    assert a.key() == b.key()
    assert any("kernel" in d for d in a.differences(b))
    c = Fingerprint.from_json({**a.to_json(), "model": 143})
    assert a.key() != c.key()


def test_a_clock_faster_than_any_core_is_a_warning():
    # an add-immediate clock chain on an Emerald Rapids read 14.8 GHz
    fast = Fingerprint(hypervisor="none", core_hz_estimate=14.83e9).warnings()
    assert any("14.8 GHz, faster than any x86 core" in w and "--unit ticks" in w for w in fast)
    assert Fingerprint(hypervisor="none", core_hz_estimate=4.3e9).warnings() == []
