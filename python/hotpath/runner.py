# SPDX-License-Identifier: GPL-2.0-only
"""Finding, building and starting the C runner (build/hotpath-bench).

The repository root is found from this file (an editable install keeps the
package at <root>/python/hotpath). The build folder is <root>/build, or
$HOTPATH_BUILD (relative paths are relative to the root). Before a run the
runner is brought up to date with make, silently when nothing changed.
$HOTPATH_RUNNER names a runner executable to use as it is, without make
(the Python tests use it for a scripted stand-in).

The runner's folder also holds what the build takes and tells apart
(runner-facts.json, `hotpath-bench facts`: input limits, CPU feature names,
the primitives that run the dispatch row, what a row may say), which make
writes with the runner; runner_facts() reads it, so that checking the
user's input costs no process, and Python keeps no copy of those facts.
"""

import functools
import json
import os
import re
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hotpath.errors import RunnerError, UsageError
from hotpath.processes import kill_group
from hotpath.progress import ProgressBar
from hotpath.protocol import RunnerFacts, parse_facts
from hotpath.tree import repo_root

PROGRESS_LINE = re.compile(r"^progress (\d+) (\d+)\s*$")
# Said before each brought file is loaded, and once when all are: a file
# whose constructor (or a kernel image's init) ends the runner is named.
LOADING_LINE = re.compile(r"^loading (\S+) (.*?)\s*$")
LOADED_LINE = "loaded"
# The runner's exit status when a variant called exit() (runner.c).
EXIT_IN_VARIANT = 4
FACTS_FILE = "runner-facts.json"


@dataclass(frozen=True)
class Runner:
    executable: Path
    build: Path  # holds user-cflags
    # set in the runner's environment on top of ours (hotpath dispatch runs
    # the row it measured with HOTPATH_DISPATCH)
    env: tuple[tuple[str, str], ...] = ()

    def user_cflags(self) -> Path:
        return self.build / "user-cflags"


def build_dir(root: Path) -> Path:
    override = os.environ.get("HOTPATH_BUILD")
    if not override:
        return root / "build"
    path = Path(override)
    return path if path.is_absolute() else root / path


def ensure_built(root: Path, build: Path) -> None:
    """make the runner, its facts and user-cflags; on failure show make's
    output, exit 1."""
    targets = [str(build / name) for name in ("hotpath-bench", FACTS_FILE, "user-cflags")]
    base = ["make", "-s", "-C", str(root), f"BUILD={build}"]
    try:
        up_to_date = subprocess.run(
            [*base, "-q", *targets], capture_output=True, check=False
        ).returncode
        if up_to_date == 0:
            return
        print(f"hotpath: building the C runner in {build}", file=sys.stderr)
        done = subprocess.run([*base, *targets], capture_output=True, text=True, check=False)
    except OSError as err:
        raise RunnerError(f"cannot start make: {err}") from err
    if done.returncode != 0:
        raise RunnerError(
            f"building the runner failed ({' '.join([*base, *targets])}):\n"
            f"{done.stdout}{done.stderr}".rstrip()
        )


def runner_folder() -> Path:
    """The runner's folder, made or not: $HOTPATH_BUILD, else beside
    $HOTPATH_RUNNER's executable, else the repository's build folder."""
    explicit = os.environ.get("HOTPATH_RUNNER")
    if explicit:
        build = os.environ.get("HOTPATH_BUILD")
        return Path(build) if build else Path(explicit).parent
    return build_dir(repo_root())


def locate_runner(build: bool = True) -> Runner:
    """The runner to use, rebuilt first unless $HOTPATH_RUNNER names one."""
    folder = runner_folder()
    explicit = os.environ.get("HOTPATH_RUNNER")
    if explicit:
        return Runner(executable=Path(explicit), build=folder)
    root = repo_root()
    if build:
        ensure_built(root, folder)
    exe = folder / "hotpath-bench"
    if not exe.is_file():
        raise RunnerError(f"runner {exe} does not exist after make")
    return Runner(executable=exe, build=folder)


def runner_facts() -> RunnerFacts:
    """The build's facts, from runner-facts.json in the runner's folder:
    made first only where it is missing (a $HOTPATH_RUNNER's folder holds
    one as it holds user-cflags). A runner rebuilt since refuses what its
    new limits refuse on its own (exit 2), so the file never needs to be
    newer than the check that reads it."""
    folder = runner_folder()
    path = folder / FACTS_FILE
    if not path.is_file() and not os.environ.get("HOTPATH_RUNNER"):
        ensure_built(repo_root(), folder)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as err:
        raise RunnerError(
            f"the runner's facts {path}: {err.strerror}; make writes them with the runner"
        ) from err
    return _read_facts(path, stamp)


@functools.lru_cache(maxsize=8)
def _read_facts(path: Path, stamp: int) -> RunnerFacts:
    """One file's facts, read once per version of it (`stamp`)."""
    try:
        return parse_facts(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as err:
        raise RunnerError(f"the runner's facts {path} cannot be read: {err}") from err


def invoke(runner: Runner, args: list[str], progress: ProgressBar | None = None) -> Any:
    """Run the runner, return its parsed JSON. Exit 2/3 from it become UsageError."""
    command = [str(runner.executable), *args]
    if progress is not None:
        command.append("--progress")
    contained = False
    if "--with-kernel" in args:
        # A kernel tree's objects run in it: contained where hotpath runs
        # as root (kernelsrc/contain.py), imported only for such a run.
        from hotpath.kernelsrc import contain

        contained = contain.active()
        if contained:
            env = {**os.environ, **dict(runner.env)}
            command = contain.runner_command(command, runner.build, env)
    try:
        # A group of its own: with the copies of it that a brought variant
        # may fork, it is killed as one (kill_group).
        proc = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **dict(runner.env)} if runner.env else None,
            process_group=0,
        )
    except OSError as err:
        raise RunnerError(f"cannot start {runner.executable}: {err}") from err
    assert proc.stdout is not None and proc.stderr is not None
    stdout, stderr = proc.stdout, proc.stderr
    chunks: list[bytes] = []
    messages: list[str] = []
    loading: list[str] = []  # the variant and file being loaded, while it is

    def read_stdout() -> None:
        chunks.extend(iter(lambda: os.read(stdout.fileno(), 1 << 16), b""))

    def read_stderr() -> None:
        for raw in stderr:
            # A variant may write any bytes: never lose the lines after them.
            line = raw.decode("utf-8", errors="replace")
            match = PROGRESS_LINE.match(line)
            if match and progress is not None:
                progress.update(int(match.group(1)), int(match.group(2)))
            elif (load := LOADING_LINE.match(line)) is not None:
                loading[:] = [load.group(1), load.group(2).rpartition(":")[0]]
            elif line.strip() == LOADED_LINE:
                loading.clear()
            elif not match:
                messages.append(line)

    readers = [threading.Thread(target=read, daemon=True) for read in (read_stdout, read_stderr)]
    for reader in readers:
        reader.start()
    try:
        # The runner's end, not its pipes': a copy that a variant forked may
        # hold them open for ever. Not reaped yet, so its group id stays its.
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    finally:
        # Whatever it left behind; on SIGINT, or SIGTERM made SystemExit
        # (cli.py), the runner too: no orphans.
        kill_group(proc)
        status = proc.wait()
        if contained:
            status = contain.status(status, contained)
        for reader in readers:
            reader.join(timeout=5)  # the pipes close as the group dies
        if progress is not None:
            progress.finish()
    output = b"".join(chunks).decode("utf-8", errors="replace")
    errors = "".join(messages).strip()
    if status in (2, 3):
        said = errors.removeprefix("hotpath: ")  # the CLI puts it before the first line
        raise UsageError(said or f"runner rejected {' '.join(args)} (exit {status})")
    if loading and (status not in (0, 2, 3) or not output.strip()):
        name, path = loading
        how = f"killed by {signal.Signals(-status).name}" if status < 0 else f"exit {status}"
        raise RunnerError(
            f"the runner ended ({how}) while loading variant '{name}' from {path}: its "
            f"constructor (or a kernel tree's init) ended it; nothing of this run was kept"
            + (f"\n{errors}" if errors else "")
        )
    if status == EXIT_IN_VARIANT:
        last = errors.splitlines()[-1] if errors else "a variant ended the runner"
        raise RunnerError(f"{last.removeprefix('hotpath-bench: ')}; nothing of this run was kept")
    # The runner's own words, not its whole command line (a kernel tree's
    # adds a sandbox's and every object's): what it was asked to run.
    asked = " ".join([runner.executable.name, *args[:3]]) + (" ..." if len(args) > 3 else "")
    if status < 0:
        killer = signal.Signals(-status).name
        raise RunnerError(f"runner killed by {killer}: {asked}\n{errors}".rstrip())
    if status != 0:
        raise RunnerError(f"runner failed (exit {status}): {asked}\n{errors}".rstrip())
    try:
        return json.loads(output)
    except json.JSONDecodeError as err:
        raise RunnerError(f"runner printed invalid JSON ({err}); stderr:\n{errors}") from err
