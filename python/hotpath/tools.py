# SPDX-License-Identifier: GPL-2.0-only
"""Finding an external program hotpath runs (Graphviz dot, llvm-mca): the
one an environment variable names, else the first of its names on PATH.

Loads nothing beyond the standard library.
"""

import os
import shutil
from collections.abc import Sequence


def find_tool(
    env: str, names: Sequence[str], what: str, package: str, error: type[Exception]
) -> str:
    """The program's path; `error` with the reason (the variable's value not
    found, or none of `names` on PATH and the Debian package that has it)."""
    explicit = os.environ.get(env)
    if explicit:
        found = shutil.which(explicit)
        if found is None:
            raise error(f"{what} not found: {env}={explicit}")
        return found
    for name in names:
        found = shutil.which(name)
        if found is not None:
            return found
    raise error(f"{what} not found on PATH (Debian: apt-get install {package})")
