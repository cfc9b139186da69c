# SPDX-License-Identifier: GPL-2.0-only
"""--with FILE.c:FUNCTION: compile a user's variant for the runner to load.

The file is compiled with the flags the library itself was built with
(build/user-cflags, written by the Makefile), then the file's own
(`// hotpath: cflags=...` lines, --with-cflags), into a shared object in a
temporary folder. The runner loads FUNCTION from it, under the variant's
name in the run and with the CPU features the file says it needs
(`// hotpath: needs=avx2`), checks it against the reference like any
variant, and times it if correct; on a CPU without those features it is
listed as skipped, as built-ins are, and never compiled.

A file's flags reach the compiler driver, which also takes options that
run a program (`-wrapper`), load a plugin or write files where they say
(`-MF PATH`): a file from elsewhere must not do that. So only options that
change the code generated are taken (check_cflags), and nothing is
compiled before every file's flags are checked.
"""

import os
import re
import shlex
import subprocess
from collections.abc import Collection
from pathlib import Path

from hotpath.errors import RunnerError, UsageError
from hotpath.inputs import UserVariantSpec

# -f options that load code, run a program or write a file of their own.
REFUSED_F = (
    "-fplugin", "-fuse-", "-flto", "-foffload", "-fmodule-mapper", "-fcompare-debug", "-fself-test",
    "-fdump", "-fopt-info", "-fprofile", "-fauto-profile", "-ftest-coverage",
    "-fcondition-coverage", "-fpath-coverage", "-fcallgraph-info", "-fstack-usage",
    "-fsave-optimization-record", "-fdiagnostics-", "-fdeps-",
)  # fmt: skip
CODE_OPTION = re.compile(
    r"-m.+|-O(\d*|s|z|g|fast)|-f.+|-D[A-Za-z_]\w*(=.*)?|-U[A-Za-z_]\w*|-std=.+|-I.+", re.S
)
TAKES_WORD = ("-D", "-U", "-I")  # also as two words: -D NAME


def allowed_cflags(folder: Path) -> str:
    return (
        "options that change the code generated: -m..., -O..., -f... (none that loads a "
        "plugin, runs a program or writes a file: -fplugin, -flto, -fdump-..., -fprofile-..."
        f"), -DNAME[=VALUE], -UNAME, -IDIR inside {folder}, -std=..."
    )


def check_cflags(spec: UserVariantSpec) -> tuple[str, ...]:
    """The spec's flags as the compiler gets them, or UsageError naming the
    first one not allowed. -I is taken relative to the file's folder (where
    its `// hotpath: cflags=` line is written) and must stay inside it."""
    folder = spec.source.resolve().parent
    words = list(spec.cflags)
    taken: list[str] = []
    while words:
        option = words.pop(0)
        if option in TAKES_WORD and words:
            option += words.pop(0)
        if not CODE_OPTION.fullmatch(option) or option.startswith(REFUSED_F):
            raise UsageError(
                f"--with '{spec.source}:{spec.function}': compiler option '{option}' "
                f"(// hotpath: cflags= or --with-cflags) not allowed; allowed: "
                f"{allowed_cflags(folder)}"
            )
        if option.startswith("-I"):
            where = (folder / option[2:]).resolve()
            if not where.is_relative_to(folder):
                raise UsageError(
                    f"--with '{spec.source}:{spec.function}': compiler option '{option}': "
                    f"{where} is outside the file's folder; allowed: {allowed_cflags(folder)}"
                )
            option = f"-I{where}"
        taken.append(option)
    return tuple(taken)


def compile_user_variants(
    specs: list[UserVariantSpec], cflags_file: Path, workdir: Path, features: Collection[str]
) -> list[str]:
    """Compile each spec whose needs `features` (the CPU's, as the runner
    sees them) meet, return the runner's arguments for all of them
    (`--with X.so:FUNCTION [--with-as NAME] [--with-needs a,b]` each: the
    runner loads no .so whose needs the CPU lacks, and lists it skipped)."""
    if not specs:
        return []
    own_flags = [check_cflags(spec) for spec in specs]  # all before any compiles
    try:
        cflags = shlex.split(cflags_file.read_text(encoding="utf-8"))
    except OSError as err:
        raise RunnerError(f"cannot read {cflags_file} (written by make): {err}") from err
    # CC may carry flags of its own ("gcc -m64"), as make allows.
    compiler = shlex.split(os.environ.get("CC") or "cc")
    args: list[str] = []
    for number, (spec, flags) in enumerate(zip(specs, own_flags, strict=True)):
        shared = workdir / f"user{number}-{spec.source.stem}.so"
        if set(spec.needs) <= set(features):
            _compile(spec, [*compiler, *cflags, *flags], shared)
        args += ["--with", f"{shared}:{spec.function}"]
        if spec.variant != spec.function:
            args += ["--with-as", spec.variant]
        if spec.needs:
            args += ["--with-needs", ",".join(spec.needs)]
    return args


def _compile(spec: UserVariantSpec, compiler: list[str], shared: Path) -> None:
    # The absolute path: a file named "-O0.c" is never taken for an option.
    command = [*compiler, "-shared", "-o", str(shared), str(spec.source.resolve())]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as err:
        raise RunnerError(f"cannot start the compiler '{compiler[0]}': {err}") from err
    if done.returncode != 0:
        raise UsageError(
            f"--with '{spec.source}:{spec.function}': {spec.source} does not compile "
            f"({shlex.join(command)}):\n{(done.stderr or done.stdout).rstrip()}"
        )
    if not shared.is_file():
        raise UsageError(
            f"--with '{spec.source}:{spec.function}': the compiler ended well but wrote no "
            f"{shared} (an option such as -fsyntax-only?) ({shlex.join(command)})"
        )
    _check_defines(spec, shared)


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
