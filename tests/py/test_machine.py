# SPDX-License-Identifier: GPL-2.0-only
"""Machine fingerprint: the CPU from the runner, the rest read from a fake root tree."""

from pathlib import Path

import pytest

from conftest import CPUINFO_BLOCK, write_tree
from hotpath import machine
from hotpath.errors import UsageError
from hotpath.machine import UNKNOWN, Fingerprint, fingerprint, is_key
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
    fp = fingerprint(cpu=RUNNER_CPU, root=machine_root, detect_virt=lambda: "kvm")
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
    fp = fingerprint(cpu=RUNNER_CPU, root=root, detect_virt=lambda: "none")
    assert fp.hypervisor == "none"
    assert fp.boost == "off"
    assert fp.warnings() == []
    assert "bare metal" in fp.one_line()


def test_unreadable_is_unknown(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(machine, "runner_cpu", lambda: None)  # no runner answers
    fp = fingerprint(root=tmp_path / "empty", detect_virt=lambda: None)
    assert fp.vendor == UNKNOWN and fp.kernel == UNKNOWN and fp.hypervisor == UNKNOWN
    assert fp.governor == UNKNOWN and fp.boost == UNKNOWN and fp.smt == UNKNOWN
    assert fp.mitigations == {}
    assert fp.warnings() == []


def test_key_does_not_drift_with_clocks(machine_root: Path):
    a = fingerprint(cpu=RUNNER_CPU, tsc_hz=2.9e9, root=machine_root, detect_virt=lambda: None)
    # what a reboot or a busy neighbour moves: clocks, the MHz reading, bogomips
    b = Fingerprint.from_json(
        {**a.to_json(), "tsc_hz": 2.899e9, "core_hz_estimate": 1.2e9, "bogomips": 5799.9}
    )
    b.governor, b.boost, b.smt, b.mitigations = "performance", "off", "off", {}
    assert a.key() == b.key()
    # how the hypervisor was named (systemd-detect-virt or /sys) is no part of it
    assert a.key() == Fingerprint.from_json({**a.to_json(), "hypervisor": "kvm"}).key()
    # nor the brand string (cpuid's and /proc/cpuinfo's spellings differ)
    assert a.key() == Fingerprint.from_json({**a.to_json(), "model_name": "Xeon 8375C"}).key()
    # the kernel prints microcode as 0x and lower-case hex; a zero-padded one is the same
    assert a.key() == Fingerprint.from_json({**a.to_json(), "microcode": "0x0D0003A5"}).key()
    # the feature set, not the order it was listed in
    assert (
        a.key() == Fingerprint.from_json({**a.to_json(), "cpu_features": ["adx", "sse4.2"]}).key()
    )


def test_key_parts_and_format(machine_root: Path):
    fp = fingerprint(cpu=RUNNER_CPU, root=machine_root, detect_virt=lambda: None)
    assert fp.key_parts() == {
        "vendor": "GenuineIntel",
        "family": "6",
        "model": "106",
        "stepping": "6",
        "microcode": "0xd0003a5",
        "features": "sse4.2 adx",
        "logical_cpus": "4",
        "kernel": "6.12.0-test",
        "virt": "vm",
    }
    key = fp.key()
    assert is_key(key) and not is_key(fp.legacy_key())
    assert key[:9].endswith("-") and all(c in "0123456789abcdef" for c in key[:8])
    assert key[9:] == "GenuineIntel-6.106.6-mc0xd0003a5-f11-c4-vm-k6.12.0-test"
    metal = Fingerprint.from_json({**fp.to_json(), "hypervisor": "none"})
    assert metal.key_parts()["virt"] == "metal" and "-metal-" in metal.key()


def test_key_changes_with_the_machine_or_its_software(machine_root: Path):
    a = fingerprint(cpu=RUNNER_CPU, root=machine_root, detect_virt=lambda: None)
    changes = {
        "microcode": {"microcode": "0xd0003b9"},
        "features": {"cpu_features": ["sse4.2", "adx", "avx2"]},
        "kernel": {"kernel": "6.13.0"},
        "virtualization": {"hypervisor": "none"},
        "logical CPUs": {"logical_cpus": 8},
        "model": {"model": 143},
        "stepping": {"stepping": 7},
        "vendor": {"vendor": "AuthenticAMD"},
    }
    keys = {a.key()}
    for words, change in changes.items():
        b = Fingerprint.from_json({**a.to_json(), **change})
        assert a.key() != b.key(), words
        assert [d.split(" ")[0] for d in a.key_differences(b)] == [words.split(" ")[0]]
        keys.add(b.key())
    assert len(keys) == len(changes) + 1
    assert a.key_differences(a) == []
    assert "kernel 6.12.0-test vs 6.13.0" in a.key_differences(
        Fingerprint.from_json({**a.to_json(), "kernel": "6.13.0"})
    )


def test_a_stored_run_without_the_parts_says_so():
    # a run stored before microcode and features were read
    fields = {"vendor": "GenuineIntel", "family": 6, "model": 106, "stepping": 6}
    old = Fingerprint.from_json({**fields, "hypervisor": "none", "logical_cpus": 4})
    parts = old.key_parts()
    assert parts["microcode"] == UNKNOWN and parts["features"] == UNKNOWN
    assert parts["kernel"] == UNKNOWN
    assert "-mcunknown-funknown-c4-metal-kunknown" in old.key()


def test_legacy_key_is_the_first_rule():
    fp = Fingerprint(vendor="AuthenticAMD", family=25, model=17, stepping=1,
                     model_name="AMD EPYC", hypervisor="kvm")  # fmt: skip
    # the first rule's key of these fields, as histories stored it
    assert fp.legacy_key() == "dfe35c09cf2b856b"
    assert fp.legacy_key() == Fingerprint.from_json({**fp.to_json(), "kernel": "x"}).legacy_key()


@pytest.mark.usefixtures("fake_runner")
def test_without_a_run_the_cpu_is_asked_of_the_runner(machine_root: Path, monkeypatch):
    # a lab that runs without the runner (tune, crossing) keys as a run of it:
    # the runner's CPU, never /proc/cpuinfo's (an Intel one here)
    monkeypatch.delenv("HOTPATH_CPU_HIDE", raising=False)
    fp = fingerprint(root=machine_root, detect_virt=lambda: None)
    assert (fp.vendor, fp.family, fp.model, fp.model_name) == ("AuthenticAMD", 25, 17, "AMD EPYC")
    assert fp.cpu_features == ["sse4.2", "pclmulqdq", "avx2", "bmi2", "adx"]
    assert fp.microcode == "0xd0003a5" and fp.logical_cpus == 4  # what only the kernel knows
    assert fp.hypervisor == "xen"  # /sys's name before the runner's cpuid bit
    # the features the runner hides, as it reads HOTPATH_CPU_HIDE
    monkeypatch.setenv("HOTPATH_CPU_HIDE", "avx2")
    hidden = fingerprint(root=machine_root, detect_virt=lambda: None)
    assert hidden.cpu_features == ["sse4.2", "pclmulqdq", "bmi2", "adx"]
    assert hidden.key() != fp.key()
    monkeypatch.setenv("HOTPATH_CPU_HIDE", "avx2,bogus")
    with pytest.raises(UsageError, match="'bogus' is not a CPU feature"):
        fingerprint(root=machine_root, detect_virt=lambda: None)


def test_the_hypervisor_bit_is_the_runners(tmp_path: Path):
    bare = write_tree(tmp_path / "bare", {"proc/cpuinfo": CPUINFO_BLOCK.format(n=0, extra="")})
    vm = Cpu(**{**RUNNER_CPU.__dict__, "hypervisor": True})
    assert fingerprint(cpu=vm, root=bare, detect_virt=lambda: None).hypervisor == (
        "unidentified hypervisor"
    )
    metal = Cpu(**{**RUNNER_CPU.__dict__, "hypervisor": False})
    assert fingerprint(cpu=metal, root=bare, detect_virt=lambda: None).hypervisor == "none"
    assert fingerprint(cpu=RUNNER_CPU, root=bare, detect_virt=lambda: None).hypervisor == UNKNOWN


def test_todays_keys_stay():
    # Keys as this rule made them before the feature table came from the
    # runner's facts (issue 38): histories keep matching only while these do.
    every = ["sse4.2", "pclmulqdq", "avx2", "bmi2", "adx", "avx512f", "avx512bw", "avx512vl",
             "vpclmulqdq"]  # fmt: skip
    intel = Fingerprint(vendor="GenuineIntel", family=6, model=106, stepping=6,
                        microcode="0xd0003a5", logical_cpus=4, cpu_features=every,
                        kernel="6.12.0-test", hypervisor="kvm")  # fmt: skip
    assert intel.key() == "77f4d0b6-GenuineIntel-6.106.6-mc0xd0003a5-f1ff-c4-vm-k6.12.0-test"
    amd = Fingerprint(vendor="AuthenticAMD", family=25, model=17, stepping=1,
                      microcode="0xa10113e", logical_cpus=2,
                      cpu_features=["adx", "avx2", "sse4.2", "pclmulqdq", "bmi2"],
                      kernel="6.1.0-28-amd64", hypervisor="none")  # fmt: skip
    assert amd.key() == "e1df7139-AuthenticAMD-25.17.1-mc0xa10113e-f1f-c2-metal-k6.1.0-28-amd64"


def test_a_clock_faster_than_any_core_is_a_warning():
    # an add-immediate clock chain on an Emerald Rapids read 14.8 GHz
    fast = Fingerprint(hypervisor="none", core_hz_estimate=14.83e9).warnings()
    assert any("14.8 GHz, faster than any x86 core" in w and "--unit ticks" in w for w in fast)
    assert Fingerprint(hypervisor="none", core_hz_estimate=4.3e9).warnings() == []
