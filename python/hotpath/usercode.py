# SPDX-License-Identifier: GPL-2.0-only
"""--with FILE.c:FUNCTION: compile a user's variant for the runner to load.

The file is compiled with the flags the library itself was built with
(build/user-cflags, written by the Makefile) into a shared object in a
temporary folder; the runner then loads FUNCTION from it (`--with X.so:FN`),
checks it against the reference like any variant, and times it if correct.
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
    """Compile each spec, return runner `--with` values ("X.so:FUNCTION")."""
    if not specs:
        return []
    try:
        cflags = shlex.split(cflags_file.read_text(encoding="utf-8"))
    except OSError as err:
        raise RunnerError(f"cannot read {cflags_file} (written by make): {err}") from err
    compiler = os.environ.get("CC", "cc")
    loaded: list[str] = []
    for number, spec in enumerate(specs):
        shared = workdir / f"user{number}-{spec.source.stem}.so"
        command = [compiler, *cflags, "-shared", "-o", str(shared), str(spec.source)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, check=False)
        except OSError as err:
            raise RunnerError(f"cannot start the compiler '{compiler}': {err}") from err
        if done.returncode != 0:
            raise UsageError(
                f"--with '{spec.source}:{spec.function}': {spec.source} does not compile "
                f"({' '.join(command)}):\n{(done.stderr or done.stdout).rstrip()}"
            )
        loaded.append(f"{shared}:{spec.function}")
    return loaded
