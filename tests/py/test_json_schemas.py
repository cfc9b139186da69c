# SPDX-License-Identifier: GPL-2.0-only
"""Every `--json` output names its schema, and validates against it.

Each schema is a file in python/hotpath/schema/ whose $id is the name the
document carries in "schema" (hotpath.result/2, hotpath.compare/2, ...);
schemas that hold figures take the figure's key and unit from
hotpath.result/2 by reference. Each command with a --json option is run
here once (the stand-in runner where it can, the real runner and crossing
program for the commands that need them) and its document validated.
Structure only: never a timing.
"""

import ast
import json
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource

from conftest import ROOT
from test_crossing import PROGRAM
from test_trend import ONE, noisy, save_history
from test_tune_evaluate import stored_args
from tune_tree import make_root

SCHEMAS = ROOT / "python" / "hotpath" / "schema"
PACKAGE = ROOT / "python" / "hotpath"

# Each module with a --json option, and the schemas its documents carry.
COMMANDS = {
    "commands/common.py": {"hotpath.result/2"},  # hotpath <lab>, calibrate, seed tables
    "commands/history.py": {"hotpath.history/1"},
    "commands/machines.py": {"hotpath.machines/1"},
    "commands/compare.py": {"hotpath.compare/2"},
    "commands/trend.py": {"hotpath.trend/1"},
    "commands/listing.py": {"hotpath.list/1"},
    "labs/tune/evaluate.py": {"hotpath.tune-evaluate/1"},
    # hotpath crossing, avc --stats, --seed-table and --recommend take the
    # lab command's --json (commands/common.py's option)
}
OWN = {
    "hotpath.crossing-report/1",
    "hotpath.avc-stats/1",
    "hotpath.avc-seed-table/1",
    "hotpath.avc-recommend/1",
    "hotpath.patch/1",  # hotpath patch --json (commands/common.py's option; test_patch.py)
}


def schemas() -> dict[str, dict]:
    """Every schema file, by its $id."""
    found = {}
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        doc = json.loads(path.read_text())
        found[doc["$id"]] = doc
    return found


def registry() -> Registry:
    return Registry().with_resources(
        (name, Resource.from_contents(doc)) for name, doc in schemas().items()
    )


def check(doc: dict) -> dict:
    """`doc` against the schema it names; returns it."""
    assert isinstance(doc, dict) and "schema" in doc, "a --json document names its schema"
    known = schemas()
    assert doc["schema"] in known, f"no schema file has $id {doc['schema']!r}"
    validator = jsonschema.Draft202012Validator(known[doc["schema"]], registry=registry())
    validator.validate(doc)
    return doc


def test_every_schema_file_is_a_schema_named_by_its_file():
    for name, doc in schemas().items():
        jsonschema.Draft202012Validator.check_schema(doc)
        stem, _, version = name.removeprefix("hotpath.").partition("/")
        assert (SCHEMAS / f"{stem}-{version}.schema.json").is_file(), name
        assert doc["properties"]["schema"] == {"const": name}


def json_options() -> set[str]:
    """The modules that add a --json option."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", None) == "add_argument"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value == "--json"
            ):
                found.add(path.relative_to(PACKAGE).as_posix())
    return found


def test_every_json_option_has_its_schema():
    assert json_options() == set(COMMANDS)
    named = {name for names in COMMANDS.values() for name in names} | OWN
    assert named == set(schemas())


def stored(cli, db: Path, *args: str) -> None:
    res = cli(*args, "--db", str(db))
    assert res.status == 0, res.err


@pytest.mark.usefixtures("fake_runner")
def test_lab_calibrate_list_history_machines_compare(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    for _ in range(2):
        stored(cli, db, "csum", "--sizes", "64", "--rounds", "5", "--modes", "latency")
    run = check(cli("crc32c", "--sizes", "64", "--rounds", "5", "--no-store", "--json").json())
    assert run["figures"]
    check(cli("calibrate", "--rounds", "20", "--seconds", "0", "--no-store", "--json").json())
    seed = check(cli("crc32c", "--skb-table", "--rounds", "5", "--no-store", "--json").json())
    assert seed["seed_table"]["tables"]
    assert check(cli("list", "--json").json())["primitives"]
    assert check(cli("list", "csum", "--json").json())["primitives"]
    assert len(check(cli("history", "--db", str(db), "--json").json())["runs"]) == 2
    assert check(cli("history", "--db", str(tmp_path / "none"), "--json").json())["runs"] == []
    assert len(check(cli("machines", "--db", str(db), "--json").json())["machines"]) == 1
    assert check(cli("machines", "--db", str(tmp_path / "none"), "--json").json())
    doc = check(cli("compare", "1", "2", "--db", str(db), "--json").json())
    assert doc["figures"]


def test_trend(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    values = noisy(12)
    values[6:] = [v * 1.08 for v in values[6:]]
    save_history(db, values)
    doc = check(cli("trend", "--db", str(db), *ONE, "--json").json())
    assert doc["figures"][0]["change_points"]
    doc = check(cli("trend", "--db", str(db), "--all", "--json").json())
    assert doc["all"] and "outlying" in doc


def test_tune_evaluate(cli, tmp_path):
    root = make_root(tmp_path)
    res = cli(*stored_args(tmp_path, root, "--no-store", "--json"))
    assert res.status == 0, res.err
    assert check(res.json())["comparisons"]


@pytest.mark.runner
@pytest.mark.usefixtures("real_runner")
def test_avc_stats_seed_table_and_recommend(cli, tmp_path):
    few = ("--checks", "2000", "--rounds", "5", "--no-store", "--json")
    check(cli("avc", "--stats", "--sizes", "512", *few[:2], *few[4:]).json())
    check(cli("avc", "--seed-table", *few, "--lookup-seeds", "2").json())
    res = cli("avc", "--recommend", *few)
    if res.status == 1:  # a neighbour left nothing to choose from: said, no document
        assert "no configuration could be timed (" in res.err
        return
    check(res.json())


@pytest.mark.runner
@pytest.mark.usefixtures("real_runner")
def test_crossing(cli, tmp_path, monkeypatch):
    if not PROGRAM.is_file():
        pytest.fail(f"{PROGRAM} is not built: run make")
    monkeypatch.setenv("HOTPATH_CROSSING", str(PROGRAM))
    folder = tmp_path / "files"
    folder.mkdir()
    args = ("--count", "16", "--iterations", "3", "--dir", str(folder), "--no-store", "--json")
    res = cli("crossing", *args)
    assert res.status == 0, res.err
    assert check(res.json())["paths"]
