# SPDX-License-Identifier: GPL-2.0-only
"""Running the crossing lab on this machine: the user-space program, and the
module on the running kernel (`--kernel host`); the guest is crossing_vm.

One program measures the user-space paths everywhere: build/hotpath-crossing-static
(c/crossing/tool/main.c), made by `make` when it is out of date, or the one
$HOTPATH_CROSSING names, used as it is.
"""

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hotpath import tempdirs
from hotpath.db.access import db_path
from hotpath.delivery import deliver
from hotpath.errors import HotpathError, RunnerError, UsageError
from hotpath.labs.crossing import DEFAULT_PARENT, USER_PATHS, Workload, report, stored
from hotpath.labs.crossing.results import ModuleRun, UserRun, parse_module_results, parse_user_run
from hotpath.machine import fingerprint
from hotpath.measure import now_utc
from hotpath.render import crossing as shown
from hotpath.runner import build_dir
from hotpath.tree import repo_root

PROGRAM = "hotpath-crossing-static"
FOLDER = "hotpath-crossing-"  # + the hotpath's process id + "-": its fresh folder
SYSCALL_BLOCKS = 200
SYSCALL_CALLS = 1000
DATA_FILE = "hotpath-crossing.data"  # the program's file in --dir
MODULE_FILE = "hotpath-crossing.kdata"  # the module's
# Where `--kernel host` looks for the running kernel's build tree; a test
# points it at a fake folder.
MODULES_ROOT_ENV = "HOTPATH_MODULES_ROOT"
# A module built already, loaded as it is (the test that runs --kernel host
# inside a guest kernel builds it on the host, where compiling is fast).
PREBUILT_MODULE_ENV = "HOTPATH_CROSSING_KO"

# `hotpath run`'s share: user paths only, a tenth of the seed's file.
QUICK = Workload(1024, 4 * 1024, 16, USER_PATHS, kernel_path=False)
QUICKER = Workload(1024, 1024, 8, USER_PATHS, kernel_path=False)


def program() -> Path:
    """The static program, brought up to date with make; $HOTPATH_CROSSING
    names one to use as it is. Beside a stand-in runner ($HOTPATH_RUNNER, the
    tests') nothing is built either: the program must sit beside it."""
    given = os.environ.get("HOTPATH_CROSSING")
    if given:
        return Path(given)
    stand_in = os.environ.get("HOTPATH_RUNNER")
    if stand_in:
        beside = Path(stand_in).parent / PROGRAM
        if not beside.is_file():
            raise RunnerError(f"no {PROGRAM} beside $HOTPATH_RUNNER ({beside}); nothing built")
        return beside
    root = repo_root()
    build = build_dir(root)
    target = build / PROGRAM
    base = ["make", "-s", "-C", str(root), f"BUILD={build}"]
    try:
        if subprocess.run([*base, "-q", str(target)], capture_output=True).returncode == 0:
            return target
        done = subprocess.run([*base, str(target)], capture_output=True, text=True)
    except OSError as err:
        raise RunnerError(f"cannot start make: {err}") from err
    if done.returncode != 0:
        raise RunnerError(f"building {target} failed:\n{done.stdout}{done.stderr}".rstrip())
    return target


def program_args(work: Workload, folder: str, user_paths: tuple[str, ...]) -> list[str]:
    args = ["--dir", folder, "--chunk", str(work.chunk), "--count", str(work.count)]
    args += ["--iterations", str(work.iterations), "--paths", ",".join(user_paths) or "none"]
    return [*args, "--syscall-blocks", str(SYSCALL_BLOCKS), "--syscall-calls", str(SYSCALL_CALLS)]


def run_program(work: Workload, folder: Path) -> UserRun:
    """The workload's user-space paths in `folder`, and the syscall's price."""
    command = [str(program()), *program_args(work, str(folder), work.user_paths)]
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as err:
        raise RunnerError(f"cannot start {command[0]}: {err}") from err
    if done.returncode != 0:
        raise RunnerError(
            f"{command[0]} failed (exit status {done.returncode}): {done.stderr.strip()}"
        )
    return parse_user_run(done.stdout)


def fresh_folder() -> Path:
    """A new folder for the run's file, named with this process's id: a
    hotpath killed before it could remove it leaves it, and the next run
    that finds it with its owner gone removes it (hotpath.tempdirs)."""
    parent = DEFAULT_PARENT if os.access(DEFAULT_PARENT, os.W_OK) else None
    return tempdirs.fresh_folder(FOLDER, parent)


def _tsc(user: UserRun) -> float | None:
    return user.tsc_hz if user.tsc_hz > 0 else None


def build_report(
    where: str,
    user: UserRun,
    module: report.PathFigure | None,
    notes: list[str],
    machine: str | None = None,
) -> report.CrossingReport:
    return report.CrossingReport(
        where=where,
        kernel=user.kernel,
        machine=machine or fingerprint(tsc_hz=_tsc(user)).one_line(),
        fs_type=user.fs_type,
        dir=user.dir,
        chunk=user.chunk,
        count=user.count,
        iterations=user.iterations,
        paths=report.path_figures(user, module),
        syscall=report.syscall_figure(user),
        vulnerabilities=user.vulnerabilities,
        notes=notes,
    )


def emit(args: argparse.Namespace, result: report.CrossingReport) -> None:
    if args.json:
        sys.stdout.write(shown.to_json(result))
    elif args.markdown:
        sys.stdout.write(shown.render_markdown(result))
    else:
        sys.stdout.write(shown.render_text(result))


def status(result: report.CrossingReport) -> int:
    """1 when a path wrote the wrong bytes or failed: the run is not whole."""
    return 1 if any(p.status in ("wrong", "failed") for p in result.paths) else 0


def finish(args: argparse.Namespace, result: report.CrossingReport, tsc_hz: float | None) -> int:
    """Store the run (unless --no-store), print it, and its exit status."""
    run = stored.to_run(result, args.command_line, fingerprint(tsc_hz=tsc_hz), now_utc())

    def show() -> None:
        emit(args, result)
        if run.run_id is not None and not args.json:
            print(f"stored as run {run.run_id} in {db_path(args)}")

    deliver(args, run, show)
    return status(result)


def run_user(args: argparse.Namespace, work: Workload, folder: Path | None) -> int:
    """No --kernel: the user-space paths here, and how to add the module's."""
    made = folder is None
    where = fresh_folder() if folder is None else folder
    try:
        user = run_program(work, where)
    finally:
        if made:
            shutil.rmtree(where, ignore_errors=True)
    notes = [
        f"kernel_write (the module) not run: add --kernel vm (a guest kernel in QEMU), or "
        f"--kernel host where {modules_root() / platform.release() / 'build'} and root exist",
    ]
    return finish(args, build_report("host", user, None, notes), _tsc(user))


def modules_root() -> Path:
    return Path(os.environ.get(MODULES_ROOT_ENV) or "/lib/modules")


def host_kernel_problem(release: str, root: Path, euid: int) -> str | None:
    """Why `--kernel host` cannot build and load the module here, or None."""
    build = root / release / "build"
    if not (build / "Makefile").is_file():
        return (
            f"--kernel host: no build tree for the running kernel {release}: {build} is "
            "missing. Install it (Debian's kernel: apt-get install "
            f"linux-headers-{release}; a kernel you built yourself: its build tree, linked "
            f"at {build}), or measure in a guest kernel instead: hotpath crossing --kernel vm. "
            "Without --kernel, hotpath crossing runs the user-space paths alone"
        )
    if euid != 0:
        return (
            "--kernel host: loading the module needs root (you are uid "
            f"{euid}); run as root, or use --kernel vm (no root needed for the guest)"
        )
    missing = [tool for tool in ("insmod", "rmmod") if shutil.which(tool) is None]
    if missing:
        return (
            f"--kernel host: {' and '.join(missing)} not found on PATH: install Debian's "
            "kmod (apt-get install kmod), or use --kernel vm"
        )
    return None


def run_host_kernel(args: argparse.Namespace, work: Workload, folder: Path | None) -> int:
    """--kernel host: build, load, measure, unload the module on the running kernel."""
    problem = host_kernel_problem(platform.release(), modules_root(), os.geteuid())
    if problem is not None:
        raise UsageError(problem)
    made = folder is None
    where = fresh_folder() if folder is None else folder
    try:
        user = run_program(work, where)
        module = host_module(work, where) if work.kernel_path else None
    finally:
        if made:
            shutil.rmtree(where, ignore_errors=True)
    return finish(args, build_report("host", user, module, []), _tsc(user))


def host_module(work: Workload, folder: Path) -> report.PathFigure:
    """The module on the running kernel. Loaded with dir=FOLDER, unloaded in
    every case (the module holds nothing else to undo). Tests run this only
    inside a guest kernel (tests/py/test_crossing_vm.py), never on the host."""
    from hotpath.guest import KernelBundle, build_module  # the guest runner's build step

    release = platform.release()
    bundle = KernelBundle(
        version=release,
        vmlinux=None,  # type: ignore[arg-type]  # not booted: only its build tree is used
        modules_dir=modules_root() / release,
        build_dir=modules_root() / release / "build",
    )
    with tempfile.TemporaryDirectory(prefix="hotpath-kmod-") as out:
        given = os.environ.get(PREBUILT_MODULE_ENV)
        ko = Path(given) if given else build_module(repo_root() / "kmod", bundle, Path(out))
        load = subprocess.run(["insmod", str(ko), f"dir={folder}"], capture_output=True, text=True)
        if load.returncode != 0:
            return report.module_figure(None, "failed", f"insmod: {load.stderr.strip()}")
        try:
            return _drive_module(work, folder, Path("/proc/hotpath_crossing"))
        finally:
            subprocess.run(["rmmod", "hotpath_crossing"], capture_output=True)
            (folder / MODULE_FILE).unlink(missing_ok=True)


def module_command(work: Workload, name: str, iterations: int) -> str:
    return f"file={name} chunk={work.chunk} count={work.count} iterations={iterations}\n"


def _drive_module(work: Workload, folder: Path, proc: Path) -> report.PathFigure:
    """One checked iteration, the file's bytes checked, then the timed ones."""
    try:
        (proc / "run").write_text(module_command(work, MODULE_FILE, 1))
    except OSError as err:
        return report.module_figure(None, "failed", f"the module refused the run: {err}")
    check = subprocess.run(
        [str(program()), "--verify", str(folder / MODULE_FILE), "--bytes", str(work.bytes)],
        capture_output=True,
        text=True,
    )
    if check.returncode != 0:
        return report.module_figure(None, "wrong", check.stdout.strip() or check.stderr.strip())
    try:
        (proc / "run").write_text(module_command(work, MODULE_FILE, work.iterations))
        run = parse_module_results((proc / "results").read_text())
    except OSError as err:
        return report.module_figure(None, "failed", f"the module's run: {err}")
    return module_result(run, work)


def module_result(run: ModuleRun, work: Workload) -> report.PathFigure:
    """The module's figure, after checking it ran the workload it was asked for."""
    asked = (work.chunk, work.count, work.bytes)
    if (run.chunk, run.count, run.bytes_per_iteration) != asked:
        return report.module_figure(
            None,
            "wrong",
            f"the module reports chunk={run.chunk} count={run.count} "
            f"bytes_per_iteration={run.bytes_per_iteration}; asked {asked}",
        )
    return report.module_figure(run, "ok", None)


@dataclass
class SuitePart:
    """The crossing lab's share of `hotpath run`: its quick run, or why not."""

    result: report.CrossingReport | None
    problem: str | None = None

    def line(self) -> str:
        """What `hotpath run` prints of it (the report folder has crossing.md)."""
        if self.result is None:
            return f"crossing: not measured: {self.problem}"
        return f"crossing: {self.result.answer} (crossing.md in the report)"


def suite_part(quick: bool) -> SuitePart:
    """`hotpath run`'s share: the user-space paths on a small file, here."""
    work = QUICKER if quick else QUICK
    try:
        folder = fresh_folder()
        try:
            user = run_program(work, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    except (HotpathError, OSError) as err:
        return SuitePart(None, str(err))
    notes = [
        f"hotpath run's quick suite: {work.count} x {work.chunk} B, {work.iterations} "
        "iterations, user-space paths only; the seed's workload and the module: "
        "hotpath crossing --kernel vm",
    ]
    return SuitePart(build_report("host", user, None, notes))
