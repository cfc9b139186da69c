# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath avc --stats` in the history: each statistic of the model an
exact figure in its unit, `history` lists the runs and `compare A B` gives
a verdict per figure ("same value" for the same inputs, higher/lower where
other inputs move a statistic). Against the real runner (the model is C),
with few checks: the figures are deterministic, never timings."""

import pytest

from conftest import history_rows, stored_run
from hotpath.labs.avc import stored as avc_stored
from hotpath.machine import Fingerprint
from hotpath.render.avc_stats import render

HASHES = {"orig", "muladd", "murmur3", "jhash", "hp"}
MODES = {"entries": "count", "occupied": "percent", "max chain": "count",
         "hit rate": "percent", "chain walk": "count"}  # fmt: skip
FEW = ("--sizes", "512", "--checks", "2000")


def stats(cli, db, *more):
    res = cli("avc", "--stats", *FEW, "--db", str(db), *more)
    assert res.status == 0, res.err
    return res


@pytest.mark.runner
@pytest.mark.usefixtures("real_runner")
class TestWithTheRunner:
    def test_two_runs_are_listed_and_compare_same_value_per_figure(self, cli, tmp_path):
        db = tmp_path / "h.sqlite"
        first = stats(cli, db)
        assert first.out.endswith(f"stored as run 1 in {db}\n")
        second = stats(cli, db)
        assert second.out.endswith(f"stored as run 2 in {db}\n")
        rows = history_rows(cli, db)
        assert [r[0] for r in rows] == ["2", "1"]
        assert all("--stats" in r for r in rows)

        run = stored_run(db, 1)
        assert run.command == "avc --stats" and run.labs == ["avc"]
        keys = {(f.variant, f.size, f.mode, f.unit) for f in run.figures}
        want = {(h, 512, m, u) for h in HASHES for m, u in MODES.items()}
        want |= {("random", 512, "occupied", "percent"), ("random", 512, "max chain", "count")}
        assert keys == want and len(run.figures) == len(want)
        assert all(f.lab == "avc" and f.primitive == "model" and f.align == 0 for f in run.figures)
        assert all(f.better == "none" and f.samples.size == 0 for f in run.figures)
        assert run.settings["model"]["slots"] == 512
        assert run.sections["avc"]["settings"]["checks"] == 2000

        res = cli("compare", "last~1", "last", "--db", str(db))
        assert res.status == 0, res.err
        table = [line for line in res.out.splitlines() if line.startswith("model ")]
        assert len(table) == len(want)
        assert all(line.endswith("exact  same value") for line in table), table
        assert f"summary: {len(want)} same value of {len(want)}" in res.out
        assert "units: count, percent" in res.out

    def test_other_inputs_compare_higher_or_lower_per_figure(self, cli, tmp_path):
        db = tmp_path / "h.sqlite"
        stats(cli, db)
        stats(cli, db, "--slots", "2048")  # four times the buckets
        res = cli("compare", "1", "2", "--db", str(db), "--json")
        assert res.status == 0, res.err
        rows = res.json()["figures"]
        assert len(rows) == len(HASHES) * len(MODES) + 2  # every figure matched
        assert all(r["method"] == "exact" and r["unit"] == MODES[r["mode"]] for r in rows)
        by = {(r["variant"], r["mode"]): r for r in rows}
        for variant in (*HASHES, "random"):
            # more buckets: a smaller share of them used, shorter chains
            assert by[variant, "occupied"]["verdict_text"] == "lower"
            assert by[variant, "max chain"]["median_b"] < by[variant, "max chain"]["median_a"]
        for r in rows:
            if r["median_a"] == r["median_b"]:
                assert r["verdict_text"] == "same value"
            else:
                assert r["verdict"] != "same value" and r["verdict_text"] != "same value"
        text = cli("compare", "1", "2", "--db", str(db))
        assert "occupied   orig" in text.out and "lower" in text.out

        stats(cli, db, "--runs", "2")  # another seed beside the first
        res = cli("compare", "1", "3", "--db", str(db), "--json")
        assert res.status == 0, res.err
        moved = [r for r in res.json()["figures"] if r["median_a"] != r["median_b"]]
        assert moved and all(r["verdict_text"] != "same value" for r in moved)

    def test_the_stored_run_renders_the_printed_table(self, cli, tmp_path):
        db = tmp_path / "h.sqlite"
        res = stats(cli, db, "--sizes", "512,2048")
        printed = res.out.removesuffix(f"stored as run 1 in {db}\n")
        doc = avc_stored.from_run(stored_run(db, 1))
        assert render(doc, doc["slots"]) == printed
        one = stats(cli, db, "--variants", "murmur3")  # with hash_stats and cache_stats
        doc = avc_stored.from_run(stored_run(db, 2))
        assert render(doc, 512) + f"stored as run 2 in {db}\n" == one.out
        assert "cache_stats:" in one.out

    def test_json_names_the_run(self, cli, tmp_path):
        db = tmp_path / "h.sqlite"
        doc = stats(cli, db, "--json").json()
        assert doc["run_id"] == 1 and doc["schema"] == "hotpath.avc-stats/1"
        assert {a["variant"] for a in doc["analyses"]} == HASHES

    def test_no_store_stores_nothing(self, cli, tmp_path):
        db = tmp_path / "h.sqlite"
        res = cli("avc", "--stats", *FEW, "--db", str(db), "--no-store")
        assert res.status == 0, res.err
        assert "stored as" not in res.out and not db.exists()
        res = cli("avc", "--stats", *FEW, "--no-store", "--json")
        assert res.status == 0 and res.json()["run_id"] is None

    @pytest.mark.parametrize("bad", ["dir", "text"])
    def test_a_bad_db_is_refused_before_anything_runs(self, cli, tmp_path, bad):
        db = tmp_path / "h.sqlite"
        if bad == "dir":
            db.mkdir()
        else:
            db.write_text("not a database\n")
        res = cli("avc", "--stats", *FEW, "--db", str(db))
        assert res.status == 2 and res.out == "", res.out
        assert f"database '{db}'" in res.err
        # --no-store: the history is not touched, so not checked
        assert cli("avc", "--stats", *FEW, "--db", str(db), "--no-store").status == 0

    @pytest.mark.parametrize("size", ["0", "768", "2097152"])
    def test_timed_lookups_refuse_a_node_count_at_once(self, cli, tmp_path, size):
        # used to time nothing (each figure n/a) and exit 0
        db = tmp_path / "h.sqlite"
        res = cli("avc", "--sizes", size, "--rounds", "3", "--db", str(db))
        assert res.status == 2 and res.out == "", res.out
        assert f"--sizes '{size}': allowed: node counts, powers of two 1..1048576" in res.err
        assert not db.exists()


def result(**more):
    base = {
        "slots": 512, "nodes": 512, "checks": 10, "samples": 5, "runs": 1,
        "workload": "synthetic", "mean_entries": 10.0, "mean_utilisation": 0.5,
        "mean_longest_chain": 2.0, "limit_utilisation": 0.6, "limit_longest_chain": 1.5,
        "random_utilisation": 0.55, "random_longest_chain": 1.8, "memory_bytes": 4096,
        "hit_rate": 0.25, "timed_walk": 1.25, "hash_stats": "entries: 10\n",
        "cache_stats": "lookups\n10\n", "chain_histogram": [1, 2],
    }  # fmt: skip
    return {**base, **more}


def test_to_run_and_back_without_a_runner():
    doc = {
        "analyses": [
            {"variant": "orig", "size": 512, "result": result()},
            {"variant": "hp", "size": 512, "result": result(mean_utilisation=0.56003)},
            {"variant": "jhash", "size": 512, "result": result(random_utilisation=0.5)},
            {"variant": "muladd", "size": 512, "result": None},
        ]
    }
    run = avc_stored.to_run(doc, {"slots": 512}, "hotpath avc --stats", Fingerprint(), "now")
    figs = {(f.variant, f.mode): f for f in run.figures}
    assert figs["orig", "occupied"].median == 50.0 and figs["orig", "occupied"].unit == "percent"
    assert figs["hp", "occupied"].median == pytest.approx(56.003)
    assert figs["orig", "chain walk"].median == 1.25
    assert figs["random", "occupied"].median == 55.0  # the first row's, once
    assert figs["muladd", "entries"].status == "n/a" and not figs["muladd", "entries"].timed
    back = avc_stored.from_run(run)
    assert back["slots"] == 512
    assert [a["result"] for a in back["analyses"]] == [a["result"] for a in doc["analyses"]]
