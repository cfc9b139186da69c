# SPDX-License-Identifier: GPL-2.0-only
"""The imports go one way (issue 38): commands -> labs -> engine, results
and renderers, and none goes sideways or back (imports inside functions
included; test_imports.py finds the circles, this the directions):

- a command module imports no other command module but the shared ones
  (commands.common, commands.labs) and its own package's;
- nothing below the commands imports a command module;
- a renderer (hotpath.render) takes results and returns text: it imports
  no command, nothing that runs or stores (the runner, the engine's
  measure, the store), and of the labs only the registry, the specs (data)
  and a lab package's shared constants (hotpath.labs.<lab>), never a lab's
  modules or its hooks.
"""

from test_imports import PACKAGE, imports_of

SHARED_COMMANDS = {"hotpath.commands.common", "hotpath.commands.labs"}
RUNS_OR_STORES = {"hotpath.runner", "hotpath.measure", "hotpath.store", "hotpath.db"}


def graph() -> dict[str, set[str]]:
    paths = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return {name: imports_of(name, path, set(paths)) for name, path in paths.items()}


def related(a: str, b: str) -> bool:
    """One is the other's package (commands.lab and commands.lab.seedtable)."""
    return a.startswith(f"{b}.") or b.startswith(f"{a}.")


def test_no_command_imports_another():
    sideways = [
        (name, other)
        for name, found in graph().items()
        if name.startswith("hotpath.commands.")
        for other in found
        if other.startswith("hotpath.commands.")
        and other not in SHARED_COMMANDS
        and not related(name, other)
    ]
    assert sideways == []


def test_nothing_below_the_commands_imports_one():
    up = [
        (name, other)
        for name, found in graph().items()
        if not name.startswith("hotpath.commands") and name != "hotpath.cli"
        for other in found
        if other.startswith("hotpath.commands")
    ]
    assert up == []


def test_renderers_take_results_and_return_text():
    wrong = []
    for name, found in graph().items():
        if not name.startswith("hotpath.render"):
            continue
        for other in found:
            parts = other.split(".")
            if (
                other.startswith("hotpath.commands")
                or ".".join(parts[:2]) in RUNS_OR_STORES
                or (parts[1] == "labs" and len(parts) > 3 and parts[3] != "spec")
                or other == "hotpath.labs.hooks"
            ):
                wrong.append((name, other))
    assert wrong == []
