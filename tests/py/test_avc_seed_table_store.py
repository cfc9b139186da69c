# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath avc --seed-table` and `--recommend` in the history: one run each,
the engine's timings and the model's statistics with the slot count in the
mode, `history` lists them, `compare A B` gives a verdict per figure in the
figure's unit, and the stored run prints the same text as the command did.

Against the real runner with few rounds and checks (a run takes seconds);
never a particular timing verdict: the machine is shared."""

import pytest

from conftest import history_rows, stored_run, timed_or_spoiled
from hotpath.labs.avc import recommend as avc_recommend
from hotpath.labs.avc import seed_table as avc_seed_table
from hotpath.labs.avc import stored as avc_stored
from hotpath.machine import Fingerprint
from hotpath.protocol import Variant
from hotpath.render import avc_recommend as recommend_text
from hotpath.render import avc_seed_table as seed_table_text
from hotpath.results import FigureKey, FigureResult, RunResult, VariantResult
from hotpath.verdicts import (
    BELOW,
    FASTER,
    NO_EVIDENCE,
    SAME,
    SLOWER,
    WITHIN_UNIT,
)

HASHES = {"orig", "muladd", "murmur3", "jhash", "hp"}
STATS = {"entries": "count", "occupied": "percent", "max chain": "count",
         "hit rate": "percent", "chain walk": "count"}  # fmt: skip
RANDOM = {"occupied": "percent", "max chain": "count"}
TIMING_VERDICTS = {FASTER, SLOWER, BELOW, WITHIN_UNIT, NO_EVIDENCE}
FEW = ("--checks", "2000", "--rounds", "5")
SEEDS = 2  # the seed table's lookups, timed over two workload seeds here
SEED_FEW = (*FEW, "--lookup-seeds", str(SEEDS))
SEED_CONFIGS = {(c.nodes, c.slots) for c in avc_seed_table.CONFIGS}


def expected_keys(configs):
    """(primitive, variant, size, mode, unit) of every figure of the run."""
    keys = {
        ("avc_lookup", h, n, f"latency, {s} slots", "cycles") for n, s in configs for h in HASHES
    }
    for n, s in configs:
        keys |= {("model", h, n, f"{m}, {s} slots", u) for h in HASHES for m, u in STATS.items()}
        keys |= {("model", "random", n, f"{m}, {s} slots", u) for m, u in RANDOM.items()}
    return keys


def check_figures(run, configs, replicas=1):
    keys = {(f.primitive, f.variant, f.size, f.mode, f.unit) for f in run.figures}
    assert keys == expected_keys(configs) and len(run.figures) == len(keys)
    for f in run.figures:
        assert f.lab == "avc" and f.align == 0
        if f.primitive == "model":
            assert f.better == "none" and f.samples.size == 0 and f.timed
        else:  # the engine's, as it gives them: timed, or n/a (a neighbour) said so
            assert f.better == "lower" and timed_or_spoiled(f.to_json())
            assert not f.timed or (f.samples.size == f.n > 0 and len(f.replica_medians) == replicas)


def check_compare(cli, db, a, b):
    """compare last~1 last: a row per figure timed on both sides, in its unit."""
    res = cli("compare", "last~1", "last", "--db", str(db), "--json")
    assert res.status == 0, res.err
    rows = res.json()["figures"]
    units = {(f.primitive, f.variant, f.size, f.mode): f.unit for f in a.figures}
    keys = [(r["primitive"], r["variant"], r["size"], r["mode"]) for r in rows]
    both = {(f.primitive, f.variant, f.size, f.mode) for f in a.figures if f.timed}
    both &= {(f.primitive, f.variant, f.size, f.mode) for f in b.figures if f.timed}
    assert sorted(keys) == sorted(both)
    assert all(r["unit"] == units[k] for r, k in zip(rows, keys, strict=True))
    model = [r for r in rows if r["primitive"] == "model"]
    timed = [r for r in rows if r["primitive"] == "avc_lookup"]
    assert len(model) == sum(1 for f in a.figures if f.primitive == "model")
    assert all(r["method"] == "exact" and r["verdict_text"] == SAME for r in model)
    assert all(r["verdict"] in TIMING_VERDICTS and r["unit"] == "cycles" for r in timed)
    assert {r["method"] for r in timed} <= {"single runs", "replicas"}
    text = cli("compare", "last~1", "last", "--db", str(db))
    assert text.status == 0, text.err
    units = "core cycles, count, percent" if timed else "count, percent"
    assert f"units: {units}" in text.out


@pytest.mark.runner
@pytest.mark.usefixtures("real_runner")
class TestSeedTable:
    def test_two_runs_kept_listed_compared_and_rebuilt(self, cli, tmp_path):
        db = tmp_path / "h.sqlite"
        first = cli("avc", "--seed-table", *SEED_FEW, "--db", str(db))
        assert first.status == 0, first.err
        assert first.out.endswith(f"stored as run 1 in {db}\n")
        second = cli("avc", "--seed-table", *SEED_FEW, "--db", str(db), "--json")
        assert second.status == 0, second.err
        doc = second.json()
        assert doc["run_id"] == 2 and doc["schema"] == "hotpath.avc-seed-table/1"
        assert {(m["nodes"], m["slots"]) for m in doc["model"]} == SEED_CONFIGS

        rows = history_rows(cli, db)
        assert [r[0] for r in rows] == ["2", "1"]
        assert all("--seed-table" in r for r in rows)

        run = stored_run(db, 1)
        assert run.command == "avc --seed-table" and run.labs == ["avc"]
        check_figures(run, SEED_CONFIGS, SEEDS)
        assert run.sections["avc-seed-table"]["settings"]["timed_seeds"] == SEEDS
        assert {v.info.name for v in run.variants} == HASHES and len(run.variants) == len(HASHES)
        clock = run.clocks["avc_lookup"]
        assert set(clock["slots"]) == {"512", "4096", "8192"}
        settings = run.settings["avc_lookup"]
        assert settings["slots"] == [512, 4096, 8192]
        # the first process's params at each slot count: the first workload seed
        assert settings["params"] == ["slots=512", "lookup_seed=1", "slots=4096", "slots=8192"]
        assert run.settings["model"]["checks"] == 2000

        # the stored run prints the text the command printed
        tables = avc_seed_table.from_run(run)
        rebuilt = seed_table_text.render(tables)
        assert rebuilt + f"stored as run 1 in {db}\n" == first.out
        assert seed_table_text.to_json(avc_seed_table.from_run(stored_run(db, 2)), 2) == doc

        check_compare(cli, db, run, stored_run(db, 2))

    def test_no_store_stores_nothing(self, cli, tmp_path):
        db = tmp_path / "h.sqlite"
        res = cli("avc", "--seed-table", *SEED_FEW, "--db", str(db), "--no-store", "--json")
        assert res.status == 0, res.err
        assert res.json()["run_id"] is None and not db.exists()

    @pytest.mark.parametrize("flag", ["--seed-table", "--recommend"])
    @pytest.mark.parametrize("bad", ["dir", "text"])
    def test_a_bad_db_is_refused_before_anything_runs(self, cli, tmp_path, flag, bad):
        db = tmp_path / "h.sqlite"
        if bad == "dir":
            db.mkdir()
        else:
            db.write_text("not a database\n")
        res = cli("avc", flag, *FEW, "--db", str(db))
        assert res.status == 2 and res.out == "", res.out
        assert f"database '{db}'" in res.err


@pytest.mark.runner
@pytest.mark.usefixtures("real_runner")
class TestRecommend:
    def test_two_runs_kept_listed_compared_and_rebuilt(self, cli, tmp_path):
        db = tmp_path / "h.sqlite"
        first = cli("avc", "--recommend", *FEW, "--db", str(db))
        if first.status == 1:  # a neighbour on the core left nothing to choose from: said
            assert "no configuration could be timed (" in first.err and not db.exists()
            return
        assert first.status == 0, first.err
        assert first.out.endswith(f"stored as run 1 in {db}\n")
        assert "recommended: " in first.out
        second = cli("avc", "--recommend", *FEW, "--db", str(db), "--json")
        if second.status == 1:
            assert "no configuration could be timed (" in second.err
            second = cli("avc", "--recommend", *FEW, "--db", str(db), "--json")
        assert second.status == 0, second.err
        doc = second.json()
        assert doc["run_id"] == 2 and doc["schema"] == "hotpath.avc-recommend/1"

        rows = history_rows(cli, db)
        assert [r[0] for r in rows] == ["2", "1"]
        assert all("--recommend" in r for r in rows)

        run = stored_run(db, 1)
        assert run.command == "avc --recommend" and run.labs == ["avc"]
        check_figures(run, {(512, s) for s in avc_recommend.KCONFIG_SLOTS})
        section = run.sections["avc-recommend"]
        assert (
            section["settings"]["nodes"] == 512 and section["settings"]["workload"] == "synthetic"
        )
        assert all("memory_bytes" in row["result"] for row in section["analyses"])

        rec = avc_recommend.from_run(run)
        assert recommend_text.render(rec) + f"stored as run 1 in {db}\n" == first.out
        assert recommend_text.to_json(avc_recommend.from_run(stored_run(db, 2)), 2) == doc

        check_compare(cli, db, run, stored_run(db, 2))

    def test_no_store_stores_nothing(self, cli, tmp_path):
        db = tmp_path / "h.sqlite"
        res = cli("avc", "--recommend", *FEW, "--db", str(db), "--no-store")
        assert res.status in (0, 1), res.err  # 1: nothing timed (a neighbour), said
        assert "stored as" not in res.out and not db.exists()


def test_slot_counts_in_the_mode_and_back():
    assert avc_stored.in_slots("latency", 512) == "latency, 512 slots"
    assert avc_stored.slots_of("max chain, 16384 slots") == ("max chain", 16384)
    assert avc_stored.slots_of("latency") == ("latency", None)
    fig = avc_stored.STATS[1].figure("hp", 8192, 0.5, 4096)
    assert (fig.primitive, fig.mode, fig.unit, fig.median) == ("model", "occupied, 4096 slots",
                                                               "percent", 50.0)  # fmt: skip


def timing_run(slots, status="ok", cases=10, median=30.0):
    run = RunResult(command=avc_seed_table.COMMAND, started="now", machine=Fingerprint(),
                    labs=["avc"])  # fmt: skip
    info = Variant("hp", "", "", [], [], status, None if status == "ok" else "misses", cases, None)
    run.variants.append(VariantResult("avc", "avc_lookup", info))
    key = FigureKey("avc", "avc_lookup", "hp", 512, 0, "latency")
    run.figures.append(FigureResult.from_samples(key, "cycles", [median, median + 1]))
    width = {"probes": 10, "contended_fraction": 0.5 if slots == 512 else 0.0, "share_min": 0.9,
             "rounds_taken": 5, "rounds_wanted": 5, "clean_share": 0.9}  # fmt: skip
    run.clocks["avc_lookup"] = {"tsc_hz": 2e9, "ticks_per_cycle": [slots / 1024], "width": width}
    run.settings["avc_lookup"] = {"rounds": 5, "params": [f"slots={slots}"], "replicas": 1}
    return run


def test_merge_timings_keeps_each_slot_count_apart():
    run = RunResult(command="x", started="now", machine=Fingerprint())
    avc_stored.merge_timings(run, {512: timing_run(512), 1024: timing_run(1024, "wrong", 7, 40.0)})
    assert [(f.mode, f.median) for f in run.figures] == [
        ("latency, 512 slots", 30.5),
        ("latency, 1024 slots", 40.5),
    ]
    assert run.labs == ["avc"] and len(run.variants) == 1
    info = run.variants[0].info
    assert info.status == "wrong" and info.reason == "misses (in 1024 slots)"
    assert info.checked_cases == 17
    clock = run.clocks["avc_lookup"]
    assert clock["ticks_per_cycle"] == [0.5, 1.0]
    assert clock["width"]["probes"] == 20 and clock["width"]["contended_fraction"] == 0.25
    assert avc_stored.slot_clock(run, "avc_lookup", 1024)["ticks_per_cycle"] == [1.0]
    settings = run.settings["avc_lookup"]
    assert settings["params"] == ["slots=512", "slots=1024"] and settings["slots"] == [512, 1024]
    assert settings["per_slots"]["1024"]["params"] == ["slots=1024"]
