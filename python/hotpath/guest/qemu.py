# SPDX-License-Identifier: GPL-2.0-only
"""Boot a guest kernel in QEMU, run one command in it, bring its results back.

The machine: `-M pc` with qboot (QEMU's minimal firmware) and the
uncompressed vmlinux, one CPU, serial console. KVM is tried first where
asked; on the cloud VMs this was built on /dev/kvm refuses a stock kernel
("failed to set MSR 0x10a" with -cpu host, stalls with other models), so
"auto" falls back to software emulation (TCG), whose timings are not
performance figures. Under TCG the CPU model is `max` (SSE4.2, AVX2, ...):
the default qemu64 lacks what the host's binaries assume (numpy's wheels die
with SIGILL in a chroot onto the host's /). A guest panic is read from the
console ("Kernel panic - not syncing": with panic=-1 and -no-reboot QEMU
itself exits 0), and an outer deadline always holds: QEMU is killed.
"""

import base64
import binascii
import io
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from hotpath.errors import HotpathError, UsageError
from hotpath.guest import initramfs
from hotpath.guest.guestinit import COMMAND_PATH, HOST_TAG, MARK, MODULES_DIR, init_script
from hotpath.guest.kernel import KernelBundle
from hotpath.guest.modules import load_order
from hotpath.processes import end_group
from hotpath.tree import CHECKOUT

QEMU = "qemu-system-x86_64"
QBOOT = Path("/usr/share/qemu/qboot.rom")
BUSYBOX = Path("/bin/busybox")
ACCELS = ("auto", "kvm", "tcg")
# Modules that the 9p share of the host's / needs (their dependencies follow).
SHARE_MODULES = ("virtio_pci", "9pnet_virtio", "9p")
# Under KVM a guest reaches /init in well under a second; one that has not
# after this long is taken as KVM's stall and retried under TCG.
KVM_PROBE_S = 8.0
MEMORY = "1024M"
PANIC_LINE = "Kernel panic - not syncing"

# The KVM verdict of this process: None until tried.
_kvm_works: bool | None = None


@dataclass(frozen=True)
class GuestResult:
    """What one guest run gave."""

    exit_kind: str  # "done" | "panic" | "timeout" | "boot-failed"
    status: int | None  # the command's exit status when done
    outputs: dict[str, bytes]  # files under the guest's /out, by path relative to it
    console: str  # the kernel's log and the command's output
    accel: str  # "kvm" or "tcg"
    emulated: bool  # TCG: every timing from this guest is not a performance figure
    kernel_version: str
    seconds: float  # wall-clock time of the QEMU run (the last one, after a failed KVM try)
    detail: str = field(default="")  # one line: why it is not "done"


def _check_tools() -> None:
    if shutil.which(QEMU) is None:
        raise HotpathError(f"{QEMU} not found: install the Debian package qemu-system-x86")
    if not QBOOT.is_file():
        raise HotpathError(f"{QBOOT} not found: install the Debian package qemu-system-data")
    if not BUSYBOX.is_file() or _is_dynamic(BUSYBOX):
        raise HotpathError(f"{BUSYBOX} is not a static busybox: install busybox-static")


def _is_dynamic(elf: Path) -> bool:
    """Whether an ELF executable names a program interpreter (PT_INTERP)."""
    data = elf.read_bytes()[:4096]
    if data[:4] != b"\x7fELF":
        return True
    phoff = int.from_bytes(data[0x20:0x28], "little")
    phentsize = int.from_bytes(data[0x36:0x38], "little")
    phnum = int.from_bytes(data[0x38:0x3A], "little")
    for index in range(phnum):
        at = phoff + index * phentsize
        if at + 4 <= len(data) and int.from_bytes(data[at : at + 4], "little") == 3:
            return True
    return False


def _guest_path(path: str) -> str:
    pure = PurePosixPath(path)
    if not pure.is_absolute() or ".." in pure.parts or str(pure) == "/":
        raise UsageError(f"guest path {path!r}: allowed: an absolute path without '..'")
    reserved = ("/init", "/bin", "/hotpath", "/proc", "/sys", "/dev", "/tmp", "/out", "/host")
    if any(str(pure) == top or str(pure).startswith(top + "/") for top in reserved):
        raise UsageError(
            f"guest path {path!r}: allowed: outside {', '.join(reserved)} (the runner's own)"
        )
    return str(pure).lstrip("/")


def _kept_under_tmp() -> list[str]:
    """This checkout's folder relative to /tmp, when it lives there (a CI
    clone): the guest's /tmp hides the host's, so it is bound back in."""
    checkout = CHECKOUT
    try:
        return [str(checkout.relative_to("/tmp"))]
    except ValueError:
        return []


def _initramfs(
    bundle: KernelBundle,
    command: str,
    files: Mapping[str, Path],
    modules: Sequence[str],
    share_host_root: bool,
    out: Path,
) -> Path:
    entries = [
        initramfs.host_file("bin/busybox", BUSYBOX),
        initramfs.file(
            "init", init_script(share_host_root, _kept_under_tmp()).encode(), executable=True
        ),
        initramfs.file(COMMAND_PATH, command.encode(), executable=True),
        initramfs.directory(MODULES_DIR),
    ]
    wanted = list(modules) + (list(SHARE_MODULES) if share_host_root else [])
    for number, ko in enumerate(load_order(bundle.modules_dir, wanted)):
        entries.append(initramfs.host_file(f"{MODULES_DIR}/{number:03d}-{ko.name}", ko))
    for guest, host in files.items():
        where = _guest_path(guest)
        if not host.is_file():
            raise UsageError(f"file for guest path {guest!r}: {host} is not a readable file")
        entries.append(initramfs.host_file(where, host))
    return initramfs.write_cpio(entries, out)


def _qemu_command(
    bundle: KernelBundle, initrd: Path, work: Path, accel: str, share_host_root: bool
) -> list[str]:
    command = [
        QEMU,
        "-M", "pc",
        "-bios", str(QBOOT),
        "-kernel", str(bundle.vmlinux),
        "-initrd", str(initrd),
        "-append", "console=ttyS0 panic=-1 loglevel=5",
        "-m", MEMORY,
        "-smp", "1",
        "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
        "-serial", f"file:{work / 'console.log'}",
        "-serial", f"file:{work / 'results.txt'}",
    ]  # fmt: skip
    if accel == "kvm":
        command += ["-accel", "kvm", "-cpu", "host"]
    else:
        command += ["-accel", "tcg", "-cpu", "max"]
    if share_host_root:
        command += [
            "-fsdev", "local,id=hostfs,path=/,security_model=none,readonly=on,multidevs=remap",
            "-device", f"virtio-9p-pci,fsdev=hostfs,mount_tag={HOST_TAG}",
        ]  # fmt: skip
    return command


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode(errors="replace").replace("\r", "")
    except FileNotFoundError:
        return ""


@dataclass
class _Run:
    returncode: int | None  # None: killed by us
    seconds: float
    killed_for: str  # "", "timeout" or "kvm-stall"
    stderr: str


def _boot(command: list[str], work: Path, limit_s: float, probe_s: float | None) -> _Run:
    for name in ("console.log", "results.txt"):
        (work / name).unlink(missing_ok=True)
    stderr_path = work / "qemu.stderr"
    start = time.monotonic()
    with stderr_path.open("wb") as stderr:
        proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr, start_new_session=True
        )
    killed_for = ""
    try:
        while proc.poll() is None:
            elapsed = time.monotonic() - start
            if elapsed > limit_s:
                killed_for = "timeout"
            elif probe_s is not None and elapsed > probe_s:
                if f"{MARK} init" not in _read(work / "results.txt"):
                    killed_for = "kvm-stall"
                probe_s = None
            if killed_for:
                end_group(proc)
                break
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            end_group(proc)
    seconds = time.monotonic() - start
    returncode = None if killed_for else proc.returncode
    return _Run(returncode, seconds, killed_for, _read(stderr_path).strip())


def _outputs(lines: list[str]) -> dict[str, bytes]:
    try:
        begin = lines.index(f"{MARK} out-begin")
        end = lines.index(f"{MARK} out-end")
    except ValueError:
        return {}
    try:
        archive = base64.b64decode("".join(lines[begin + 1 : end]))
    except binascii.Error as exc:
        raise HotpathError(f"the guest's /out archive is damaged: {exc}") from exc
    outputs: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            for member in tar.getmembers():
                extracted = tar.extractfile(member) if member.isfile() else None
                if extracted is not None:
                    outputs[str(PurePosixPath(member.name))] = extracted.read()
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise HotpathError(f"the guest's /out archive is damaged: {exc}") from exc
    return outputs


def _result(run: _Run, work: Path, accel: str, bundle: KernelBundle) -> GuestResult:
    console = _read(work / "console.log")
    lines = [line.strip() for line in _read(work / "results.txt").split("\n")]
    status_lines = [line for line in lines if line.startswith(f"{MARK} status ")]
    setup = [line for line in lines if line.startswith(f"{MARK} setup-failed")]
    status: int | None = None
    detail = ""
    if status_lines:
        kind = "done"
        status = int(status_lines[-1].split()[-1])
    elif PANIC_LINE in console:
        kind = "panic"
        at = console.index(PANIC_LINE)
        detail = console[at : console.find("\n", at)].strip()
    elif run.killed_for == "timeout":
        kind = "timeout"
        detail = f"killed after {run.seconds:.1f} s: past the time limit"
    else:
        kind = "boot-failed"
        if setup:
            detail = setup[-1].removeprefix(MARK).strip()
        elif run.stderr:
            said = " / ".join(line.strip() for line in run.stderr.splitlines() if line.strip())
            detail = f"QEMU exited with status {run.returncode}: {said[:400]}"
        else:
            detail = f"QEMU exited with status {run.returncode} before the command finished"
    return GuestResult(
        exit_kind=kind,
        status=status,
        outputs=_outputs(lines) if kind == "done" else {},
        console=console,
        accel=accel,
        emulated=accel == "tcg",
        kernel_version=bundle.version,
        seconds=run.seconds,
        detail=detail,
    )


def _kvm_usable() -> bool:
    return os.access("/dev/kvm", os.R_OK | os.W_OK)


def run_guest(
    bundle: KernelBundle,
    command: str,
    *,
    files: Mapping[str, Path] = {},
    modules: Sequence[str] = (),
    time_limit_s: float = 120.0,
    share_host_root: bool = False,
    accel: str = "auto",
) -> GuestResult:
    """Boot bundle's kernel, run command (busybox sh, as root) and power off.

    The guest has /proc, /sys, /dev, a tmpfs /tmp (the command's working
    directory) and /out, whose files come back in outputs. files are put
    into the initramfs (guest path -> host file); modules (and their
    dependencies) are loaded first. time_limit_s bounds the whole call, boot
    and a failed KVM try included; past it QEMU is killed ("timeout").

    share_host_root: the host's / read-only at /host (9p), with the guest's
    /proc, /sys, /dev and /tmp mounted in it and HOME=/tmp, so that
    `chroot /host PROGRAM` runs the host's programs against the guest's
    kernel; /out is not in there: redirect into it from outside the chroot.
    accel: "auto" tries KVM and falls back to TCG when KVM fails or stalls
    before /init (remembered for the rest of the process); "kvm" and "tcg"
    force one. Large /out contents are slow to come back (serial line).
    """
    global _kvm_works
    if accel not in ACCELS:
        raise UsageError(f"accel {accel!r}: allowed: {', '.join(ACCELS)}")
    if not 0 < time_limit_s <= 24 * 3600:
        raise UsageError(f"time limit {time_limit_s!r} s: allowed: more than 0, at most 86400")
    _check_tools()
    if not bundle.vmlinux.is_file():
        raise UsageError(f"kernel {bundle.vmlinux}: no such file")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="hotpath-guest-") as tmp:
        work = Path(tmp)
        initrd = _initramfs(
            bundle, command, files, modules, share_host_root, work / "initramfs.cpio"
        )
        try_kvm = accel == "kvm" or (accel == "auto" and _kvm_works is not False and _kvm_usable())
        if try_kvm:
            probe = KVM_PROBE_S if accel == "auto" else None
            kvm = _qemu_command(bundle, initrd, work, "kvm", share_host_root)
            run = _boot(kvm, work, time_limit_s, probe)
            reached_init = f"{MARK} init" in _read(work / "results.txt")
            if accel == "kvm" or reached_init:
                _kvm_works = True if reached_init else _kvm_works
                return _result(run, work, "kvm", bundle)
            if run.killed_for == "kvm-stall" or "kvm" in run.stderr.lower():
                _kvm_works = False  # KVM itself failed: TCG from now on in this process
        # The limit bounds the whole call: a failed KVM try uses part of it.
        left = max(time_limit_s - (time.monotonic() - started), 0.1)
        tcg = _qemu_command(bundle, initrd, work, "tcg", share_host_root)
        return _result(_boot(tcg, work, left, None), work, "tcg", bundle)
