# SPDX-License-Identifier: GPL-2.0-only
"""Every module of the hotpath package imports first, on its own.

An import circle can hide behind the order the CLI happens to import
modules in (hotpath.cli imported hotpath.measure before hotpath.labs, so
`python -c "import hotpath.summary"` failed while every command worked).
Each module is imported here in a fresh interpreter, so no earlier import
can mask one; and the package's import graph, deferred imports included,
must hold no circle at all.
"""

import ast
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


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The hotpath modules `name` imports anywhere in it (inside functions
    too: a deferred import hides a circle, it does not remove one), except
    under `if TYPE_CHECKING:`, which runs no import. Importing a.b.c runs
    a.b's __init__ as well; a module's own parent packages do not count."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    named: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named.update(a.name for a in node.names if a.name.startswith("hotpath"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts) + (f".{base}" if base else "")
            if base.startswith("hotpath"):
                named.update(
                    f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
                )
    found = set()
    for module in named:
        parts = module.split(".")
        for end in range(2, len(parts) + 1):
            step = ".".join(parts[:end])
            if step in known and step != name and not name.startswith(f"{step}."):
                found.add(step)
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_circle():
    paths = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {name: imports_of(name, path, set(paths)) for name, path in paths.items()}
    assert circles(graph) == []


def test_a_circle_is_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


HEAVY = ("numpy", "scipy", "sqlalchemy", "matplotlib")


def loaded_by(code: str) -> set[str]:
    """The modules a fresh interpreter holds after `code`."""
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print(' '.join(sys.modules))"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    return set(done.stdout.split())


def test_the_lab_specs_are_plain_data():
    """Every lab's spec is data: importing the registry loads no numpy,
    no result model, no command and no kernel source (issue 38)."""
    loaded = loaded_by("import hotpath.labs")
    assert not loaded & {*HEAVY, "hotpath.results", "hotpath.kernelsrc", "hotpath.commands"}
    assert not [m for m in loaded if m.endswith(".hooks") or m.startswith("hotpath.commands.")]


def test_every_lab_has_its_hooks_as_functions():
    """No hook is named by a string: each is a function of the lab's own
    modules in its LabHooks, reached through commands/labs.py."""
    from dataclasses import fields

    from hotpath.commands import labs
    from hotpath.labs import ALL_LABS

    for lab in ALL_LABS:
        assert not [f.name for f in fields(lab) if isinstance(getattr(lab, f.name), str)
                    and ":" in getattr(lab, f.name)], lab.name  # fmt: skip
        hooks = labs.hooks(lab.name)
        assert all(callable(getattr(hooks, f.name)) or getattr(hooks, f.name) is None
                   for f in fields(hooks)), lab.name  # fmt: skip
    assert labs.hooks("avc").own_command is not None and labs.hooks("crc32c") is labs.NONE


def loaded_by_cli(*argv: str) -> set[str]:
    call = f"main({list(argv)!r})"
    return loaded_by(f"from hotpath.cli import main\ntry: {call}\nexcept SystemExit: pass")


def test_the_cli_loads_only_the_command_asked_for():
    """`hotpath --version` and `--help` import no command, numpy, SciPy,
    SQLAlchemy, matplotlib or kernel source; `tune list` its own command
    alone and no numpy either (issue 38; docs/testing.md has the times)."""
    for argv in (["--version"], ["--help"]):
        loaded = loaded_by_cli(*argv)
        assert not loaded & {*HEAVY, "hotpath.kernelsrc", "hotpath.results"}, argv
        assert not [m for m in loaded if m.startswith("hotpath.commands.")], argv
    loaded = loaded_by_cli("tune", "list")
    assert "hotpath.commands.tune" in loaded and not loaded & set(HEAVY)
    assert [m for m in loaded if m.startswith("hotpath.commands.")] == ["hotpath.commands.tune"]
