# SPDX-License-Identifier: GPL-2.0-only
"""--with FILE.c:FUNCTION: compile a user's variant for the runner to load.

The file is compiled with the flags the library itself was built with
(build/user-cflags, written by the Makefile), then the file's own
(`// hotpath: cflags=...` lines, --with-cflags), into a shared object in a
temporary folder. The runner loads FUNCTION from it, under the variant's
name in the run and with the CPU features the file says it needs
(`// hotpath: needs=avx2`), checks it against the reference like any
variant, and times it if correct; on a CPU without those features it is
listed as skipped, as built-ins are.
"""

import os
import shlex
import subprocess
from pathlib import Path

from hotpath.errors import RunnerError, UsageError
from hotpath.inputs import UserVariantSpec


def compile_user_variants(
    specs: list[UserVariantSpec], cflags_file: Path, workdir: Path
) -> list[str]:
    """Compile each spec, return the runner's arguments for them
    (`--with X.so:FUNCTION [--with-as NAME] [--with-needs a,b]` each)."""
    if not specs:
        return []
    try:
        cflags = shlex.split(cflags_file.read_text(encoding="utf-8"))
    except OSError as err:
        raise RunnerError(f"cannot read {cflags_file} (written by make): {err}") from err
    # CC may carry flags of its own ("gcc -m64"), as make allows.
    compiler = shlex.split(os.environ.get("CC") or "cc")
    args: list[str] = []
    for number, spec in enumerate(specs):
        shared = workdir / f"user{number}-{spec.source.stem}.so"
        # The absolute path: a file named "-O0.c" is never taken for an option.
        source = str(spec.source.resolve())
        command = [*compiler, *cflags, *spec.cflags, "-shared", "-o", str(shared), source]
        try:
            done = subprocess.run(command, capture_output=True, text=True, check=False)
        except OSError as err:
            raise RunnerError(f"cannot start the compiler '{compiler[0]}': {err}") from err
        if done.returncode != 0:
            raise UsageError(
                f"--with '{spec.source}:{spec.function}': {spec.source} does not compile "
                f"({shlex.join(command)}):\n{(done.stderr or done.stdout).rstrip()}"
            )
        _check_defines(spec, shared)
        args += ["--with", f"{shared}:{spec.function}"]
        if spec.variant != spec.function:
            args += ["--with-as", spec.variant]
        if spec.needs:
            args += ["--with-needs", ",".join(spec.needs)]
    return args


def _check_defines(spec: UserVariantSpec, shared: Path) -> None:
    """FUNCTION must be a function the file defines: say so naming the .c file."""
    try:
        done = subprocess.run(
            ["nm", "-D", "--defined-only", str(shared)],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return  # no nm: the runner's dlsym will say it, naming the .so
    defined = sorted(
        parts[2]
        for parts in (line.split() for line in done.stdout.splitlines())
        if len(parts) == 3 and parts[1] in ("T", "t", "W", "i")
    )
    if done.returncode == 0 and spec.function not in defined:
        raise UsageError(
            f"--with '{spec.source}:{spec.function}': {spec.source} defines no function "
            f"'{spec.function}'; it defines: {', '.join(defined) or 'none'}"
        )
