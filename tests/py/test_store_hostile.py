# SPDX-License-Identifier: GPL-2.0-only
"""A history as a hostile writer leaves it (issue 40): passwords in command
lines and URLs never shown, stored text escaped on its way to a terminal,
corrupt rows named and skipped by every reader, listed by `db check`,
refused by push and store, and a push that copies some runs and not others
says which and exits 1. SQLite here; PostgreSQL's side in test_pg_store.py."""

import json
import sqlite3
from pathlib import Path

import pytest

from hotpath.errors import StoreError
from hotpath.store import SCHEMA_VERSION, Store
from test_store import make_run

SECRET = "Tr0ub4dor"


def history(path: Path, runs: int = 3) -> Path:
    store = Store.open(path)
    for i in range(runs):
        store.save(make_run(scale=1.0 + i / 10))
    store.close()
    return path


def sql(path: Path, statement: str, *params: object) -> None:
    conn = sqlite3.connect(path)
    conn.execute(statement, params)
    conn.commit()
    conn.close()


# -- item 1: passwords -------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        f"postgresql:u:{SECRET}@h",
        f"postgresql://u:{SECRET}@h:abc/db",
        f"postgresql://u:{SECRET}@h",
        f"mysql://u:{SECRET}@h/db",
        f"postgresql://u@127.0.0.1:1/db?password={SECRET}",
        f"postgresql://u:{SECRET}%26x@127.0.0.1:1/db",
    ],
)
def test_password_never_in_an_error(cli, monkeypatch, value: str):
    """Malformed URLs, a ?password= parameter, a server that does not
    answer: the message names the URL with its password as ***."""
    res = cli("history", "--db", value)
    assert res.status == 2 and "Traceback" not in res.err, res.err
    assert SECRET not in res.out + res.err and "***" in res.err, res.err
    monkeypatch.setenv("HOTPATH_DB", value)
    res = cli("history")
    assert res.status == 2 and SECRET not in res.out + res.err and "***" in res.err, res.err


def test_stored_passwords_masked_when_read_and_on_upgrade(tmp_path: Path, cli):
    """A command line stored with a password (by an older hotpath): history,
    report (report.md, report.html, results.json) show it masked even before
    the history is upgraded, and `db upgrade` masks it in the database."""
    path = history(tmp_path / "h.sqlite", 1)
    line = f"hotpath csum --db 'postgresql://me:{SECRET}%263@10.0.0.1/hp?password={SECRET}'"
    sql(path, "UPDATE runs SET command_line = ?", line)
    sql(path, "UPDATE schema_version SET version = 5")
    sql(path, "UPDATE alembic_version SET version_num = '0005'")
    res = cli("history", "--db", str(path))
    assert res.status == 0 and "me:***@10.0.0.1" in res.out and SECRET not in res.out, res.out
    out = tmp_path / "report"
    res = cli("report", "last", "--db", str(path), "--out", str(out))
    assert res.status == 0, res.err
    for name in ("report.md", "report.html", "results.json"):
        text = (out / name).read_text()
        assert SECRET not in text and "***" in text, name
    res = cli("db", "upgrade", "--db", str(path))
    assert res.status == 0 and f"to {SCHEMA_VERSION}" in res.out, res.out + res.err
    raw = sqlite3.connect(path).execute("SELECT command_line FROM runs").fetchone()[0]
    assert SECRET not in raw and "me:***@10.0.0.1" in raw and "password=***" in raw, raw


def test_command_line_stored_without_password(tmp_path: Path, cli, fake_runner):
    """Any argument of a measuring command holding a URL's password (here a
    --plot folder named like one) is stored and shown masked."""
    path = tmp_path / "h.sqlite"
    plot = tmp_path / f"postgresql:u:{SECRET}@h"
    res = cli("csum", "--rounds", "5", "--sizes", "64", "--align", "0", "--modes", "latency",
              "--db", str(path), "--plot", str(plot), "--json")  # fmt: skip
    assert res.status == 0, res.err
    assert SECRET not in res.json()["command_line"]
    raw = sqlite3.connect(path).execute("SELECT command_line FROM runs").fetchone()[0]
    assert SECRET not in raw and "u:***@h" in raw, raw


# -- item 3: stored text escaped for the terminal ----------------------------


def test_stored_text_escaped_for_the_terminal(tmp_path: Path, cli):
    """Command lines, variant and machine names a writer stored with escape
    sequences reach history, machines, compare and report.md escaped."""
    path = history(tmp_path / "h.sqlite", 2)
    evil = "\x1b]0;T\x07\x1b[2J"
    sql(path, "UPDATE runs SET command_line = ?", f"hotpath csum --plot '/tmp/x{evil}'")
    sql(path, "UPDATE figures SET variant = ? WHERE variant = 'ref'", f"ref{evil}")
    conn = sqlite3.connect(path)
    machine = conn.execute("SELECT machine_json FROM runs WHERE id = 1").fetchone()[0]
    conn.close()
    sql(
        path,
        "UPDATE runs SET machine_json = ?",
        machine.replace("AMD EPYC", "EPYC" + json.dumps(evil)[1:-1]),
    )
    runs = [
        ("history", "--db", str(path)),
        ("machines", "--db", str(path)),
        ("compare", "1", "2", "--db", str(path)),
        ("report", "last", "--db", str(path), "--out", str(tmp_path / "r")),
    ]
    for args in runs:
        res = cli(*args)
        assert res.status == 0, (args, res.err)
        assert "\x1b" not in res.out + res.err and "\x07" not in res.out + res.err, args
    assert "\\x1b]0;T\\x07" in cli("history", "--db", str(path)).out
    report = (tmp_path / "r" / "report.md").read_text()
    assert "\x1b" not in report and "\\x1b" in report


# -- item 7: corrupt rows named and skipped ---------------------------------


def corrupt(path: Path) -> None:
    """Run 2: machine record not JSON; run 3: a samples blob not zlib."""
    sql(path, "UPDATE runs SET machine_json = '{not json' WHERE id = 2")
    sql(path, "UPDATE figures SET samples = x'0102' WHERE run_id = 3 AND samples IS NOT NULL")


def test_corrupt_runs_named_and_skipped(tmp_path: Path, cli):
    path = history(tmp_path / "h.sqlite", 5)
    corrupt(path)
    sql(path, "UPDATE runs SET labs_json = '{}' WHERE id = 5")  # JSON, not a list
    db = ("--db", str(path))
    res = cli("history", *db)
    assert res.status == 0 and "Traceback" not in res.err, res.err
    assert "run 2: machine record (machine_json) is not valid JSON" in res.err
    ids = [line.split()[0] for line in res.out.splitlines()[1:]]
    assert ids == ["4", "3", "1"], res.out
    res = cli("machines", *db)
    assert res.status == 0 and "1 machine(s)" in res.out, res.err
    assert "run 2:" in res.err and "run 3: " in res.err and "samples" in res.err
    res = cli("compare", "1", "4", *db)
    assert res.status == 0, res.err
    res = cli("trend", "--lab", "csum", "--variant", "ref", "--size", "40", *db)
    assert res.status == 0, res.err
    assert "run 2:" in res.err and "run 3:" in res.err
    for args in (("compare", "1", "2"), ("report", "3", "--out", str(tmp_path / "r"))):
        res = cli(*args, *db)
        assert res.status == 2 and "Traceback" not in res.err, res.err
        assert f"run {args[2] if args[0] == 'compare' else 3}:" in res.err, res.err
    assert not (tmp_path / "r").exists()
    res = cli("db", "check", *db)
    assert res.status == 1
    assert "run 2: machine record (machine_json) is not valid JSON" in res.out, res.out
    assert "run 3: figure 0: samples do not decompress" in res.out, res.out
    assert "run 5: lab list (labs_json) is not a JSON list" in res.out, res.out


def test_schema_version_not_a_number(tmp_path: Path, cli):
    """schema_version 'abc': readers go by Alembic's revision, db check names
    it, and a writer (db upgrade) sets it right."""
    path = history(tmp_path / "h.sqlite", 2)
    sql(path, "UPDATE schema_version SET version = 'abc'")
    res = cli("history", "--db", str(path))
    assert res.status == 0 and "Traceback" not in res.err, res.err
    res = cli("db", "check", "--db", str(path))
    assert res.status == 1 and "schema_version holds 'abc'" in res.out, res.out + res.err
    res = cli("db", "upgrade", "--db", str(path))
    assert res.status == 0, res.err
    res = cli("db", "check", "--db", str(path))
    assert res.status == 0, res.out


def test_store_refuses_a_run_it_could_not_read_back(tmp_path: Path):
    path = tmp_path / "h.sqlite"
    run = make_run()
    run.figures[0].median = "abc"  # type: ignore[assignment]
    store = Store.open(path)
    with pytest.raises(StoreError, match="median"):
        store.save(run)
    assert run.run_id is None and store.ids() == []
    store.close()


# -- item 5: push validates first, each run whole, says which went ----------


def test_push_names_the_runs_that_did_not_go(tmp_path: Path, cli):
    local, shared = history(tmp_path / "local.sqlite", 4), tmp_path / "shared.sqlite"
    sql(local, "UPDATE figures SET median = 'abc' WHERE run_id = 2 AND status = 'ok'")
    sql(local, "UPDATE figures SET samples = x'0102' WHERE run_id = 3 AND samples IS NOT NULL")
    res = cli("push", str(shared), "--db", str(local))
    assert res.status == 1, res.out + res.err
    assert "run 1: stored as run 1" in res.out and "run 4: stored as run 2" in res.out
    assert "run 2: not pushed" in res.err and "median" in res.err, res.err
    assert "run 3: not pushed" in res.err and "samples" in res.err, res.err
    assert "pushed 2 run(s)" in res.out and "2 not pushed" in res.out, res.out
    target = Store.open(shared, create=False)
    assert len(target.ids()) == 2 and target.check().problems == []
    target.close()
    res = cli("push", str(shared), "--db", str(local))  # again: nothing more goes
    assert res.status == 1 and "2 were there already" in res.out
