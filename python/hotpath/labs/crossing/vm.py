# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath crossing --kernel vm`: the lab inside a guest kernel booted in QEMU.

hotpath.guest gives the kernel (Debian's, unpacked into the XDG cache), the
module built against that kernel's headers, and one boot that runs a
busybox script and hands back what it wrote under /out. The script
(guest_script) mounts a fresh tmpfs, runs the same static program the host
runs for the user-space paths, loads hotpath_crossing.ko with dir= that
tmpfs, has it write one iteration whose file the program then checks (the
gate: a wrong module is never timed), runs its timed iterations, reads
/proc/hotpath_crossing/results, makes sure it refuses a file outside its
folder, and unloads it. Each step's exit status goes to /out/steps.

Under software emulation (TCG) every guest figure is marked "emulated: not
a performance figure": the ratios still say which path does less work, the
times do not say what a real CPU takes.
"""

import argparse
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hotpath.errors import HotpathError, RunnerError, UsageError
from hotpath.labs.crossing import Workload, report
from hotpath.labs.crossing.results import parse_module_results, parse_user_run
from hotpath.labs.crossing.run import (
    DATA_FILE,
    MODULE_FILE,
    build_report,
    module_command,
    module_result,
    program,
    program_args,
)
from hotpath.machine import fingerprint
from hotpath.tree import repo_root

GUEST_DIR = "/tmp/hotpath-crossing"  # a tmpfs of its own, mounted by the script
GUEST_PROGRAM = "/crossing/hotpath-crossing"
GUEST_MODULE = "/crossing/hotpath_crossing.ko"
PROC = "/proc/hotpath_crossing"
# A name outside the module's folder: the module must refuse it.
OUTSIDE = "../hotpath-crossing-outside"
# Guest seconds per byte written, per path and iteration, under TCG: about
# 2e-8 (20 ms per MiB) was measured here on a busy machine (docs/labs/crossing.md);
# the limit allows 2.5 times that, plus the boot. --time-limit overrides.
TCG_SECONDS_PER_BYTE = 5e-8
BOOT_SECONDS = 30.0


def guest_script(work: Workload) -> str:
    """The busybox sh script the guest runs (one step per line in /out/steps)."""
    d = GUEST_DIR
    args = " ".join(shlex.quote(a) for a in program_args(work, d, work.user_paths))
    lines = [
        'step() { echo "$1 $2" >> /out/steps; }',
        f"mkdir -p {d} && mount -t tmpfs tmpfs {d}; step mount $?",
        f"chmod +x {GUEST_PROGRAM}",
        f"{GUEST_PROGRAM} {args} > /out/user.json 2> /out/user.err; step user $?",
    ]
    if work.kernel_path:
        gate = module_command(work, MODULE_FILE, 1).strip()
        timed = module_command(work, MODULE_FILE, work.iterations).strip()
        refuse = f"file={OUTSIDE} chunk=1 count=1 iterations=1"
        lines += [
            f"insmod {GUEST_MODULE} dir={d} 2> /out/insmod.err; step insmod $?",
            f"if [ -e {PROC}/run ]; then",
            f"  echo '{gate}' > {PROC}/run 2> /out/gate.err; step gate $?",
            f"  {GUEST_PROGRAM} --verify {d}/{MODULE_FILE} --bytes {work.bytes}"
            " > /out/verify.txt 2>&1; V=$?; step verify $V",
            "  if [ $V -eq 0 ]; then",
            f"    echo '{timed}' > {PROC}/run 2> /out/run.err; step run $?",
            f"    cat {PROC}/results > /out/module.txt; step results $?",
            "  fi",
            f"  echo '{refuse}' > {PROC}/run 2> /out/refuse.err; step refuse $?",
            f"  rm -f {d}/{MODULE_FILE} {d}/{DATA_FILE}",
            "  rmmod hotpath_crossing 2> /out/rmmod.err; step rmmod $?",
            "fi",
            "cat /proc/sys/kernel/tainted > /out/tainted",
        ]
    lines.append(f"umount {d}; step umount $?")
    return "\n".join(lines) + "\n"


def parse_steps(text: str) -> dict[str, int]:
    """/out/steps: `<step> <exit status>` per line; the last of a name wins."""
    steps: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            steps[parts[0]] = int(parts[1])
    return steps


def _outputs(raw: dict[str, bytes]) -> dict[str, str]:
    """The guest's /out files by bare name, as text."""
    return {Path(k).name: v.decode("utf-8", "replace") for k, v in raw.items()}


def module_outcome(work: Workload, out: dict[str, str]) -> tuple[report.PathFigure, list[str]]:
    """kernel_write's figure from the script's steps, and notes on the module's checks."""
    steps = parse_steps(out.get("steps", ""))
    notes: list[str] = []

    def err(name: str) -> str:
        return out.get(f"{name}.err", "").strip() or "no message"

    if steps.get("insmod") != 0:
        why = f"insmod failed (status {steps.get('insmod')}): {err('insmod')}"
        return report.module_figure(None, "failed", why), notes
    if "gate" not in steps:
        why = f"the module loaded but {PROC}/run is missing"
        return report.module_figure(None, "failed", why), notes
    if steps["gate"] != 0:
        why = f"the module refused the run: {err('gate')}"
        return report.module_figure(None, "failed", why), notes
    if steps.get("verify") != 0:
        why = f"its file after one iteration: {out.get('verify.txt', '').strip()}"
        figure = report.module_figure(None, "wrong", why)
    elif steps.get("run") != 0 or steps.get("results") != 0:
        why = f"the timed run failed: {err('run')}"
        figure = report.module_figure(None, "failed", why)
    else:
        figure = module_result(parse_module_results(out.get("module.txt", "")), work)
    refused = steps.get("refuse")
    notes.append(
        f"module: a file outside its folder ('{OUTSIDE}') was refused ({err('refuse')})"
        if refused not in (0, None)
        else "module: WRONG: it accepted a file outside its folder"
    )
    if steps.get("rmmod") != 0:
        notes.append(f"module: rmmod failed: {err('rmmod')}")
    tainted = out.get("tainted", "").strip()
    if tainted.isdigit():
        notes.append(taint_note(int(tainted)))
    if refused == 0:
        figure = report.module_figure(None, "wrong", "accepted a file outside its folder")
    return figure, notes


# The kernel's taint letters by bit (Documentation/admin-guide/tainted-kernels.rst).
TAINT_LETTERS = "PFSRMBUDAWCIOELKXTN"
EXPECTED_TAINT = "OE"  # an out-of-tree (O), unsigned (E) module: this one


def taint_note(value: int) -> str:
    """/proc/sys/kernel/tainted as letters, and whether only the expected ones are set."""
    letters = "".join(c for bit, c in enumerate(TAINT_LETTERS) if value >> bit & 1)
    unknown = value >> len(TAINT_LETTERS)
    shown = letters + (f" and bits above {len(TAINT_LETTERS) - 1}" if unknown else "")
    verdict = (
        "as expected (out-of-tree, unsigned module)"
        if letters == EXPECTED_TAINT and not unknown
        else f"expected {EXPECTED_TAINT} alone"
    )
    return f"guest kernel taint after the module: {value} = {shown or 'none'}: {verdict}"


def time_limit(args: argparse.Namespace, work: Workload) -> float:
    if args.time_limit is not None:
        if not 1 <= args.time_limit <= 24 * 3600:
            raise UsageError(f"--time-limit '{args.time_limit}': allowed: 1..86400 seconds")
        return float(args.time_limit)
    paths = len(work.user_paths) + (2 if work.kernel_path else 0)
    return BOOT_SECONDS + TCG_SECONDS_PER_BYTE * work.bytes * (work.iterations + 1) * paths


def run(args: argparse.Namespace, work: Workload) -> report.CrossingReport:
    limit = time_limit(args, work)
    try:
        from hotpath import guest
    except ImportError as err:
        raise RunnerError(
            f"--kernel vm needs the guest-kernel runner (hotpath.guest), not found: {err}"
        ) from err
    static = program()
    print(
        f"hotpath crossing: a guest kernel in QEMU, time limit {limit:.0f} s (set for software "
        "emulation; --time-limit S sets it, --count/--iterations shorten the run)",
        file=sys.stderr,
    )
    started = time.monotonic()
    bundle = guest.kernel_bundle()
    files = {GUEST_PROGRAM: static}
    with tempfile.TemporaryDirectory(prefix="hotpath-crossing-kmod-") as build:
        if work.kernel_path:
            files[GUEST_MODULE] = guest.build_module(repo_root() / "kmod", bundle, Path(build))
        prepared = time.monotonic()
        result = guest.run_guest(bundle, guest_script(work), files=files, time_limit_s=limit)
    if result.exit_kind != "done":
        tail = "\n".join(result.console.splitlines()[-15:])
        raise HotpathError(
            f"the guest kernel {bundle.version} did not finish: {result.exit_kind} "
            f"(after {result.seconds:.1f} s, limit {limit:.0f} s; --time-limit S sets it). "
            f"Last console lines:\n{tail}"
        )
    out = _outputs(result.outputs)
    steps = parse_steps(out.get("steps", ""))
    if steps.get("user") != 0 or "user.json" not in out:
        raise RunnerError(
            f"the user-space program failed in the guest (status {steps.get('user')}): "
            f"{out.get('user.err', '').strip() or 'no output'}"
        )
    user = parse_user_run(out["user.json"])
    module, notes = module_outcome(work, out) if work.kernel_path else (None, [])
    guest_info: dict[str, Any] = {
        "kernel": result.kernel_version,
        "accel": result.accel,
        "emulated": result.emulated,
        "exit_kind": result.exit_kind,
        "boot_and_run_seconds": round(result.seconds, 2),
        "prepare_seconds": round(prepared - started, 2),
    }
    notes.append(
        f"guest: {result.accel}, kernel {result.kernel_version}; preparing the kernel and "
        f"module took {prepared - started:.1f} s, the boot and the run {result.seconds:.1f} s"
    )
    host = fingerprint().one_line()
    out_report = build_report("vm", user, module, notes, machine=f"{host} (host of the guest)")
    out_report.emulated = bool(result.emulated)
    out_report.accel = result.accel
    out_report.guest = guest_info
    return out_report
