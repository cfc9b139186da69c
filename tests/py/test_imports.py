# SPDX-License-Identifier: GPL-2.0-only
"""Every module of the hotpath package imports first, on its own.

An import circle can hide behind the order the CLI happens to import
modules in (hotpath.cli imported hotpath.measure before hotpath.labs, so
`python -c "import hotpath.summary"` failed while every command worked).
Each module is imported here in a fresh interpreter, so no earlier import
can mask one.
"""

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import hotpath

PACKAGE = Path(hotpath.__file__).resolve().parent

# hotpath.__main__ runs the CLI when imported; without a command it exits
# (status 2) after its imports, which is all this test is about.
CHILD = """
import importlib, sys
try:
    importlib.import_module(sys.argv[1])
except SystemExit:
    pass
"""


def modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def import_alone(name: str, cwd: Path) -> str | None:
    """None when `name` imports first in a fresh interpreter, else why not."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, name],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode == 0:
        return None
    lines = done.stderr.strip().splitlines()
    return f"{name}: {lines[-1] if lines else f'exit status {done.returncode}'}"


def test_the_package_has_modules():
    found = modules()
    assert "hotpath.summary" in found
    assert "hotpath.labs.avc" in found
    assert "hotpath.measure" in found


def test_every_module_imports_first(tmp_path):
    with ThreadPoolExecutor(max_workers=8) as pool:
        failures = [f for f in pool.map(lambda n: import_alone(n, tmp_path), modules()) if f]
    assert not failures, "imported first, these fail:\n" + "\n".join(failures)
