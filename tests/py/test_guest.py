# SPDX-License-Identifier: GPL-2.0-only
"""The guest-kernel runner, for real: Debian's kernel booted in QEMU.

The kernel packages are downloaded once per machine into the user's cache
(not the tests' private one: that is new every session), so only the first
run on a machine pays for the download. Guest boots are few and grouped:
each costs 2-5 s under software emulation.
"""

import dataclasses
import lzma
import stat
import struct
import subprocess
import time
import zlib
from pathlib import Path

import pytest

from conftest import MACHINE_CACHE
from hotpath.errors import HotpathError, UsageError
from hotpath.guest import GuestResult, KernelBundle, initramfs, kernel_bundle, run_guest
from hotpath.guest import __main__ as smoke
from hotpath.guest.modules import load_order, modinfo, module_index
from hotpath.guest.vmlinux import ELF_MAGIC, compression_of, extract_vmlinux, payload_of

# Taken before the autouse fixture points XDG_CACHE_HOME at a fresh folder.


@pytest.fixture(scope="module")
def bundle() -> KernelBundle:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOTPATH_GUEST_CACHE", str(MACHINE_CACHE))
        return kernel_bundle()


# --- no guest: the pieces -------------------------------------------------


def fake_bzimage(payload: bytes) -> bytes:
    """A bzImage as far as the extractor reads one: setup header and payload."""
    setup_sects = 3
    image = bytearray((setup_sects + 1) * 512)
    image[0x1F1] = setup_sects
    image[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", image, 0x206, 0x20F)
    offset = 0x40  # the payload starts a little into the protected-mode code
    struct.pack_into("<II", image, 0x248, offset, len(payload) + 4)
    code = bytearray(offset) + payload + struct.pack("<I", 12345)  # size, as the build appends
    return bytes(image + code)


def test_vmlinux_extracted_from_xz_and_gzip(tmp_path):
    kernel = ELF_MAGIC + b"\x02\x01\x01" + bytes(range(256)) * 40
    gz = zlib.compressobj(9, zlib.DEFLATED, 31)
    for name, packed in (
        ("xz", lzma.compress(kernel, format=lzma.FORMAT_XZ)),
        ("gzip", gz.compress(kernel) + gz.flush()),
    ):
        image = tmp_path / f"vmlinuz-{name}"
        image.write_bytes(fake_bzimage(packed))
        assert compression_of(payload_of(image.read_bytes())) == name
        out = extract_vmlinux(image, tmp_path / f"vmlinux-{name}")
        assert out.read_bytes() == kernel


def test_vmlinux_refuses_what_is_not_a_bzimage(tmp_path):
    junk = tmp_path / "junk"
    junk.write_bytes(b"\0" * 4096)
    with pytest.raises(HotpathError, match="not a bzImage"):
        extract_vmlinux(junk, tmp_path / "out")
    not_elf = tmp_path / "not-elf"
    not_elf.write_bytes(fake_bzimage(lzma.compress(b"plain text, not a kernel")))
    with pytest.raises(HotpathError, match="not an ELF kernel"):
        extract_vmlinux(not_elf, tmp_path / "out")


def test_cpio_lists_entries_with_parents_and_modes(tmp_path):
    archive = initramfs.write_cpio(
        [
            initramfs.file("a/b/c.txt", b"hello"),
            initramfs.file("init", b"#!/bin/sh\n", executable=True),
            initramfs.symlink("a/link", "b/c.txt"),
        ],
        tmp_path / "x.cpio",
    )
    listing = subprocess.run(
        ["busybox", "cpio", "-tv"], stdin=archive.open("rb"), capture_output=True, text=True
    )
    lines = listing.stdout.splitlines()
    names = [line.split()[-1] if "->" not in line else line.split()[-3] for line in lines]
    assert names == ["a", "a/b", "a/b/c.txt", "init", "a/link"]
    assert lines[3].startswith("-rwxr-xr-x")
    assert lines[4].startswith("l") and lines[4].endswith("a/link -> b/c.txt")
    assert len(archive.read_bytes()) % 4 == 0
    extracted = tmp_path / "x"
    extracted.mkdir()
    subprocess.run(["busybox", "cpio", "-id"], cwd=extracted, stdin=archive.open("rb"), check=True)
    assert (extracted / "a/b/c.txt").read_bytes() == b"hello"
    assert stat.S_IMODE((extracted / "init").stat().st_mode) == 0o755


def test_bundle_is_complete_and_cached(bundle):
    assert bundle.vmlinux.read_bytes()[:4] == ELF_MAGIC
    assert (bundle.modules_dir / "kernel").is_dir()
    assert (bundle.build_dir / "Makefile").is_file()
    assert bundle.version.endswith("-amd64")
    start = time.monotonic()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOTPATH_GUEST_CACHE", str(MACHINE_CACHE))
        again = kernel_bundle(bundle.version)
    assert again == bundle
    assert time.monotonic() - start < 1.0  # no download, no apt-cache: the cache answers


def test_module_dependencies_come_before_their_users(bundle):
    index = module_index(bundle.modules_dir)
    order = [
        ko.name.removesuffix(".ko").replace("-", "_")
        for ko in load_order(bundle.modules_dir, ["9p", "9pnet_virtio"])
    ]
    assert {"9p", "9pnet", "9pnet_virtio", "netfs"} <= set(order)
    assert len(order) == len(set(order))
    for position, name in enumerate(order):
        for dependency in filter(None, modinfo(index[name]).get("depends", "").split(",")):
            assert order.index(dependency.replace("-", "_")) < position


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"accel": "xen"}, "accel 'xen': allowed: auto, kvm, tcg"),
        ({"time_limit_s": 0}, "time limit 0 s: allowed"),
        ({"files": {"work/x": Path("/etc/hostname")}}, "guest path 'work/x': allowed"),
        ({"files": {"/tmp/x": Path("/etc/hostname")}}, "guest path '/tmp/x': allowed: outside"),
        ({"files": {"/work/x": Path("/no/such/file")}}, "/no/such/file is not a readable file"),
        ({"modules": ["no_such_module"]}, "module 'no_such_module': not among"),
    ],
)
def test_bad_input_is_refused_before_any_boot(bundle, change, message):
    with pytest.raises(UsageError, match=message) as caught:
        run_guest(bundle, "true", **change)
    assert caught.value.exit_status == 2


def test_bad_kernel_version_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("HOTPATH_GUEST_CACHE", str(tmp_path / "cache"))
    with pytest.raises(UsageError, match="kernel version 'latest; rm': allowed"):
        kernel_bundle("latest; rm")
    with pytest.raises(UsageError, match=r"apt knows no package linux-image-6\.1\.0-9999-amd64"):
        kernel_bundle("6.1.0-9999-amd64")
    assert not (tmp_path / "cache").exists()  # nothing written for a refused version


def test_smoke_entry_bad_input_exits_2(capsys):
    assert smoke.main(["--command", "true", "--kernel", "x y"]) == 2
    assert "kernel version 'x y'" in capsys.readouterr().err


# --- in the guest ----------------------------------------------------------


def test_command_status_outputs_and_files(bundle, tmp_path):
    data = tmp_path / "data.bin"
    data.write_bytes(bytes(range(256)) * 300)
    result = run_guest(
        bundle,
        "echo hello-from-guest\n"
        "uname -r > /out/uname\n"
        "mkdir -p /out/sub && cp /work/data.bin /out/sub/copy.bin\n"
        "pwd > /out/pwd\n"
        "grep -m1 '^flags' /proc/cpuinfo > /out/flags\n"
        "[ -d /sys/module/dummy ] && echo loaded > /out/dummy\n"
        "exit 7\n",
        files={"/work/data.bin": data},
        modules=["dummy"],
        time_limit_s=60,
    )
    assert isinstance(result, GuestResult)
    assert (result.exit_kind, result.status, result.detail) == ("done", 7, "")
    assert result.outputs["uname"].decode().strip() == bundle.version
    assert result.outputs["sub/copy.bin"] == data.read_bytes()
    assert result.outputs["pwd"] == b"/tmp\n"
    assert "hello-from-guest" in result.console
    assert result.outputs["dummy"] == b"loaded\n"  # a module of the package, loaded first
    assert result.kernel_version == bundle.version
    assert result.accel in ("kvm", "tcg")
    assert result.emulated == (result.accel == "tcg")
    assert 0 < result.seconds < 60
    if result.emulated:
        # -cpu max: the host's binaries (numpy's wheels, x86-64-v2 and up) run in it.
        assert {"sse4_2", "popcnt", "avx2"} <= set(result.outputs["flags"].decode().split())


def test_time_limit_kills_the_guest(bundle):
    start = time.monotonic()
    result = run_guest(bundle, "sleep 600", time_limit_s=4)
    took = time.monotonic() - start
    assert result.exit_kind == "timeout"
    assert result.status is None and result.outputs == {}
    assert "past the time limit" in result.detail
    assert 4 <= took < 4 + 4


def test_panic_is_reported_as_panic(bundle):
    result = run_guest(bundle, "echo c > /proc/sysrq-trigger; sleep 600", time_limit_s=60)
    assert result.exit_kind == "panic"
    assert result.status is None
    assert "sysrq" in result.detail
    assert result.seconds < 60


def test_forced_kvm_runs_or_says_why(bundle):
    # Where /dev/kvm refuses a stock kernel (the AMD cloud VMs) this fails at
    # once with QEMU's reason; where the guest hangs under it (an Intel VM's
    # nested KVM) the time limit ends it and says so; where KVM works it is
    # a normal run (in well under the limit: a boot takes 2 to 3 s).
    result = run_guest(bundle, "true", accel="kvm", time_limit_s=15)
    assert result.accel == "kvm" and not result.emulated
    if result.exit_kind != "done":
        assert result.exit_kind in ("boot-failed", "timeout") and result.detail, result


def test_garbage_kernel_fails_to_boot_with_a_reason(bundle, tmp_path):
    garbage = tmp_path / "vmlinux"
    garbage.write_bytes(bytes(range(256)) * 4096)
    result = run_guest(dataclasses.replace(bundle, vmlinux=garbage), "true", time_limit_s=20)
    assert result.exit_kind in ("boot-failed", "timeout")
    assert result.status is None
    assert result.detail  # e.g. "QEMU exited with status 1: qemu: linux kernel too old ..."


def test_host_root_shared_read_only_over_the_guest_kernel(bundle):
    result = run_guest(
        bundle,
        "chroot /host /bin/cat /proc/sys/kernel/osrelease > /out/osrelease\n"
        "chroot /host /bin/sh -c 'echo x > /tmp/w && echo $HOME'> /out/home\n"
        "cat /tmp/w > /out/tmp-shared\n"
        "if touch /host/etc/hotpath-guest-was-here 2>/out/ro-error; then echo writable; fi\n"
        "ls /host/proc/1/exe > /dev/null && echo ok > /out/proc\n",
        share_host_root=True,
        time_limit_s=90,
    )
    assert (result.exit_kind, result.status) == ("done", 0), result.console[-2000:]
    assert result.outputs["osrelease"].decode().strip() == bundle.version
    assert result.outputs["home"] == b"/tmp\n"
    assert result.outputs["tmp-shared"] == b"x\n"  # /tmp: the same inside the chroot
    assert b"Read-only file system" in result.outputs["ro-error"]
    assert result.outputs["proc"] == b"ok\n"
    assert not Path("/etc/hotpath-guest-was-here").exists()
