# SPDX-License-Identifier: GPL-2.0-only
"""The CLI against the real C runner: structure only, never speed.

Skipped until c/bench/runner.c exists; from then on a broken build fails
here (make's output is in the message). Rounds are tiny: these check that
Python and C agree on docs/runner-protocol.md, not what anything costs.
"""

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from conftest import HERE, SCHEMA, timed_or_spoiled
from hotpath.machine import fingerprint
from hotpath.protocol import parse_cpu_answer
from hotpath.runner import FACTS_FILE, invoke, locate_runner, runner_facts

pytestmark = [pytest.mark.runner, pytest.mark.usefixtures("real_runner")]


def validate(doc):
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))


def test_the_stand_in_states_the_builds_facts():
    # the stand-in runner's facts (fixtures/runner-facts.json, `make
    # record-facts`) are the ones this build wrote beside its runner, which
    # are what `hotpath-bench facts` says: one source, never a copy by hand
    runner = locate_runner()
    written = json.loads((runner.build / FACTS_FILE).read_text())
    assert invoke(runner, ["facts"]) == written
    assert json.loads((HERE / "fixtures" / FACTS_FILE).read_text()) == written
    assert runner_facts().limits.size_max == 1 << 30


def test_the_machine_takes_the_runners_cpu(monkeypatch):
    runner = locate_runner()
    monkeypatch.setenv("HOTPATH_CPU_HIDE", "avx2")
    cpu = parse_cpu_answer(invoke(runner, ["cpu"]))
    assert "avx2" not in cpu.features and cpu.hidden == ["avx2"]
    fp = fingerprint()
    assert (fp.vendor, fp.model, fp.cpu_features) == (cpu.vendor, cpu.model, cpu.features)


def test_list(cli):
    res = cli("list", "csum")
    assert res.status == 0, res.err
    assert "csum_partial" in res.out and "rfc1071-ref" in res.out


def test_csum_json(cli):
    res = cli("csum", "--rounds", "8", "--sizes", "40,64", "--json", "--no-store")
    assert res.status in (0, 1), res.err  # 1: some variant is WRONG, still a result
    doc = res.json()
    validate(doc)
    assert {f["mode"] for f in doc["figures"]} == {"latency", "throughput", "fenced"}
    assert {(f["size"], f["align"]) for f in doc["figures"]} == {(40, 0), (40, 1), (64, 0),
                                                                  (64, 1)}  # fmt: skip
    ref = [f for f in doc["figures"] if f["variant"] == "rfc1071-ref"]
    # every figure has its 8 clean samples (some more while others wait for
    # theirs), or says that a neighbour on the core left it short or none
    assert len(ref) == 12
    for f in ref:
        if f["status"] == "ok":
            assert f["median"] is not None and (f["n"] >= 8 or f["short"]), f
        else:
            assert f["status"] == "n/a" and "no clean sample" in f["reason"], f
    # the chain bound beside the 40-byte latency figures, n/a everywhere else
    bounds = {(f["variant"], f["size"], f["align"], f["mode"]): f["bound"] for f in doc["figures"]}
    assert bounds[("seed-dead-code", 64, 0, "latency")]["status"] == "n/a"
    assert bounds[("seed-dead-code", 40, 0, "throughput")]["status"] == "n/a"
    if shutil.which("llvm-mca") and shutil.which("gcc"):
        # The model says 9 whatever was measured. The figure sits at its
        # bound (9.0 to 9.05 on a Zen 5), so a run whose interval lies just
        # below 9 shows "model off" there instead of a floor above it.
        dead = bounds[("seed-dead-code", 40, 0, "latency")]
        assert dead["seed_chain_cycles"] == 9
        assert (dead["status"], dead["cycles"]) in (("ok", 9), ("model off", None))
        assert bounds[("rfc1071-ref", 40, 0, "latency")]["status"] == "n/a"


def test_csum_table_stored(cli, tmp_path: Path):
    db = tmp_path / "h.sqlite"
    res = cli("csum", "--rounds", "8", "--modes", "latency", "--db", str(db))
    assert res.status in (0, 1), res.err
    assert "40 B even" in res.out and "core cycles per call" in res.out
    assert "stored as run 1" in res.out
    assert "AMD" in cli("history", "--db", str(db)).out or db.exists()


def test_calibrate_json(cli):
    res = cli("calibrate", "--rounds", "10", "--json", "--no-store")
    assert res.status in (0, 1), res.err  # a FAIL on a noisy machine is still a result
    doc = res.json()
    validate(doc)
    cal = doc["calibration"]
    # A chain a neighbour left without clean samples is named, and not a pass.
    assert all("no clean sample" in u for u in cal["untimed"]), cal["untimed"]
    untimed = {int(u.split()[0]) for u in cal["untimed"] if " adds:" in u}
    assert {c["adds"] for c in cal["chains"]} == {50, 100, 200} - untimed
    assert not (cal["untimed"] and (cal["passed"] or res.status == 0))
    # the cross-check ran: the longest imul chain, per imul (3 where the clock is right)
    imul = cal["imul"]
    if imul is None:
        assert any(" imuls:" in u for u in cal["untimed"])
    else:
        assert imul["per_imul"] > 0 and (imul["imuls"] == 200 or "200 imuls" in str(cal))


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_user_variant_and_missing_symbol(cli, tmp_path: Path):
    src = tmp_path / "mine.c"
    src.write_text(
        "#include <stdint.h>\n"
        "uint32_t plus_one(const void *b, int len, uint32_t sum) { return sum + 1; }\n"
    )
    res = cli("csum", "--rounds", "5", "--modes", "latency", "--no-store",
              "--with", f"{src}:plus_one")  # fmt: skip
    assert res.status == 1, res.err  # sum + 1 is not the checksum
    assert "plus_one" in res.out and "WRONG" in res.out
    res = cli("csum", "--no-store", "--with", f"{src}:no_such_fn")
    assert res.status == 2 and "no_such_fn" in res.err


@pytest.mark.parametrize(
    "primitive", ["csum_fold", "ip_fast_csum", "csum_ipv6_magic", "csum_partial_copy"]
)
def test_csum_primitives_run_from_the_cli(cli, primitive):
    res = cli("csum", "--primitive", primitive, "--rounds", "5", "--modes", "latency",
              "--no-store", "--json")  # fmt: skip
    assert res.status == 0, res.err
    figs = res.json()["figures"]
    assert figs and {f["primitive"] for f in figs} == {primitive}
    # every figure timed or said spoiled; a variant this CPU lacks is skipped
    assert all(timed_or_spoiled(f) or f["status"] in ("skipped", "unavailable") for f in figs), figs
    assert any(f["status"] in ("ok", "n/a") for f in figs)


def test_avc_lookup_with_its_slots(cli):
    res = cli("avc", "--slots", "8192", "--sizes", "512", "--rounds", "5", "--modes",
              "latency", "--no-store", "--json")  # fmt: skip
    assert res.status == 0, res.err
    doc = res.json()
    assert doc["settings"]["avc_lookup"]["params"] == ["slots=8192"]
    # The kernels' own avc.c has 512 slots: at 8192 it is listed unavailable, not timed.
    kernels = [v for v in doc["variants"] if "kernel" in v["flags"]]
    assert all(v["status"] == "unavailable" for v in kernels), kernels
    assert all("AVC_CACHE_SLOTS" in v["reason"] for v in kernels)
    figs = [f for f in doc["figures"] if f["variant"] not in {v["name"] for v in kernels}]
    assert all(timed_or_spoiled(f) for f in figs)
    assert {f["variant"] for f in figs} == {"orig", "muladd", "murmur3", "jhash", "hp"}
    assert all(v["status"] == "ok" for v in doc["variants"] if v not in kernels)


def test_avc_stats_model_follows_the_seed(cli):
    """Not a timing: the model's hash_stats are deterministic. At 512 nodes in
    512 buckets MurmurHash3 and muladd use more buckets and make shorter
    chains than the original hash (seed 004's direction), and no hash beats a
    random one's utilisation."""
    res = cli("avc", "--stats", "--sizes", "512", "--checks", "200000", "--json")
    assert res.status == 0, res.err
    rows = {a["variant"]: a["result"] for a in res.json()["analyses"]}
    assert set(rows) == {"orig", "muladd", "murmur3", "jhash", "hp"}
    for better in ("murmur3", "muladd"):
        assert rows[better]["mean_utilisation"] > rows["orig"]["mean_utilisation"]
        assert rows[better]["mean_longest_chain"] < rows["orig"]["mean_longest_chain"]
    assert all(r["mean_utilisation"] <= r["limit_utilisation"] + 0.01 for r in rows.values())
    one = cli("avc", "--stats", "--sizes", "512", "--variants", "murmur3", "--checks", "20000")
    assert one.status == 0, one.err
    assert "buckets used: " in one.out and "/512\nlongest chain: " in one.out
    assert "lookups hits misses allocations reclaims frees" in one.out


@pytest.mark.parametrize(
    "args, words",
    [
        (["--sizes", "1000"], "--sizes '1000': allowed: node counts, powers of two"),
        (["--checks", "0"], "--checks '0': allowed: 1..1000000000"),
        (["--slots", "3"], "--slots '3': allowed: a power of two"),
        (["--variants", "nosuch"], "variant 'nosuch'"),
    ],
)
def test_avc_stats_bad_input(cli, args, words):
    res = cli("avc", "--stats", *args)
    assert res.status == 2 and words in res.err


def test_avc_stats_plays_a_trace(cli, tmp_path):
    trace = tmp_path / "trace.txt"
    trace.write_text("# captured\n28,30,2\n28,31,2  # a comment\n\n29,30,5\n28,30,2\n")
    res = cli("avc", "--stats", "--sizes", "512", "--variants", "murmur3", "--trace",
              str(trace), "--json")  # fmt: skip
    assert res.status == 0, res.err
    (row,) = res.json()["analyses"]
    result = row["result"]
    assert result["workload"] == "trace" and result["checks"] == 4
    assert result["cache_stats"].splitlines()[1].split()[:3] == ["4", "1", "3"]
    assert result["limit_longest_chain"] >= 1


@pytest.mark.parametrize(
    "text, words",
    [
        ("28,30,2\n28,x,2\n", "line 2, '28,x,2': allowed: ssid,tsid,tclass"),
        ("28,30\n", "line 1, '28,30'"),
        ("28,30,70000\n", "line 1, '28,30,70000'"),
        ("# nothing\n", "the trace holds no check"),
    ],
)
def test_avc_trace_errors_name_the_line(cli, tmp_path, text, words):
    trace = tmp_path / "trace.txt"
    trace.write_text(text)
    res = cli("avc", "--stats", "--trace", str(trace))
    assert res.status == 2 and words in res.err


def test_avc_seed_table(cli):
    few = ("--rounds", "5", "--lookup-seeds", "2")  # two workload seeds' caches: quick
    res = cli("avc", "--seed-table", "--checks", "50000", *few, "--json")
    assert res.status == 0, res.err
    doc = res.json()
    configs = {(m["nodes"], m["slots"]) for m in doc["model"]}
    assert configs == {(512, 512), (1024, 512), (2048, 512), (8192, 8192), (8192, 512),
                       (8192, 4096)}  # fmt: skip
    # each configuration timed, or said untimed with the engine's reason
    assert len(doc["model"]) == len(doc["timings"]) + len(doc["untimed"]) == 30
    assert all("no clean sample" in u["reason"] for u in doc["untimed"])
    assert len(doc["directions"]) == 8 and all("holds here" in d for d in doc["directions"])
    fitted = doc["break_even"][0].startswith("the seed's trade-off, measured here: one more")
    # the fit needs timings: only untimed ones (a neighbour) may leave it undone
    assert fitted or (doc["untimed"] and doc["break_even"][0].startswith("break-even: not enough"))
    assert len(doc["targets"]) == 5 and doc["targets"][0].startswith("hp at 8192/8192")
    # issue 42's three last, each holding, not holding or (untimed) not checked
    assert [t.split(" within ")[0] for t in doc["targets"][2:]] == [
        "hp's lookup the fastest at every configuration,",
        "hp's utilisation",
        "hp's longest chain",
    ]
    assert all(t.split(": ")[1].startswith(("holds (", "does not hold (", "not checked ("))
               for t in doc["targets"][2:])  # fmt: skip
    # hp against the fastest, split per configuration, then the hashes alone,
    # before the targets (what went untimed, a neighbour, has no line)
    per_config = [x for x in doc["split"] if " seeds) = its hash " in x]
    alone = [x for x in doc["split"] if x.startswith("the hashes alone (")]
    assert len(per_config) <= 6 and len(alone) <= 1
    assert not per_config or doc["split"][0].startswith("hp against the fastest other hash")
    assert not alone or all(f" {h} " in alone[0] for h in ("orig", "muladd", "jhash", "hp"))
    text = cli("avc", "--seed-table", "--checks", "10000", *few)
    assert "512/512     orig" in text.out and "[52.5%]" in text.out
    res = cli("avc", "--seed-table", "--sizes", "512")
    assert res.status == 2 and "--seed-table: sets its own configurations" in res.err


def test_avc_recommend(cli, tmp_path):
    res = cli("avc", "--recommend", "--sizes", "512", "--rounds", "5", "--checks", "20000",
              "--json")  # fmt: skip
    if res.status == 1:  # a neighbour on the core left nothing to choose from: said
        assert "no configuration could be timed (" in res.err and "no clean sample" in res.err
    else:
        assert res.status == 0, res.err
        doc = res.json()
        assert len(doc["options"]) + len(doc["untimed"]) == 30
        assert doc["choice"] in doc["options"]
    trace = tmp_path / "t.txt"
    trace.write_text("28,30,2\n28,31,2\n29,30,5\n")
    res = cli("avc", "--recommend", "--sizes", "4", "--rounds", "5", "--trace", str(trace))
    assert res.status in (0, 1), res.err
    assert ("recommended:" in res.out and "trace" in res.out) or "no clean sample" in res.err
    for bad, words in ((["--sizes", "512,1024"], "one node count"),
                       (["--stats"], "one of --stats, --seed-table, --recommend")):  # fmt: skip
        res = cli("avc", "--recommend", *bad)
        assert res.status == 2 and words in res.err


def test_dispatch_measures_writes_and_runs_a_row(cli, tmp_path: Path, monkeypatch):
    # End to end on this CPU: the row is measured, run under HOTPATH_DISPATCH
    # (or found equal to the row in use), written, and the library takes it.
    row = tmp_path / "row.txt"
    res = cli("dispatch", "--rounds", "3", "--write", str(row))
    if res.status == 1:  # a neighbour spoiled every length of both: said, nothing written
        assert "had every method timed" in res.err and "no clean sample" in res.err
        assert not row.exists()
        return
    assert res.status == 0, res.err
    assert "measured row:" in res.out
    assert ("run: " in res.out) != ("nothing to run" in res.out), res.out
    monkeypatch.setenv("HOTPATH_DISPATCH", str(row))
    runner = locate_runner(build=False).executable
    listing = subprocess.run([str(runner), "list"], capture_output=True, text=True, check=True)
    taken = json.loads(listing.stdout)["dispatch"]
    assert taken["name"].startswith("measured-") and taken["source"] == str(row)


def test_a_row_file_the_library_cannot_take_is_bad_input(cli, tmp_path: Path, monkeypatch):
    # The library falls back to its built-in row (it must); a measurement
    # would then time another row than the one named: exit 2, nothing run.
    bad = tmp_path / "row.txt"
    bad.write_text("name = mine\ncsum.even = scalar 0\ncsum.odd = scalar 0\ncrc32c = bogus 0\n")
    monkeypatch.setenv("HOTPATH_DISPATCH", str(bad))
    res = cli("crc32c", "--sizes", "64", "--no-store")
    assert res.status == 2 and res.out == ""
    assert (f"HOTPATH_DISPATCH '{bad}': line 4: crc32c: step 1: method not known; "
            "allowed: slice8") in res.err and "bogus" not in res.err  # fmt: skip
    assert f"HOTPATH_DISPATCH '{bad}' not taken: a measurement runs only on the row" in res.err
    assert "hotpath: hotpath:" not in res.err


def test_dispatch_try_refuses_a_row_the_library_cannot_take(cli, tmp_path: Path):
    bad = tmp_path / "row.txt"
    bad.write_text("name = mine\ncsum.even = scalar 0\n")
    res = cli("dispatch", "--try", str(bad), "--rounds", "3")
    assert res.status == 2, res.out
    assert "missing csum.odd" in res.err and "not taken" in res.err
