# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath patch` (issue 39): the catalogue functions a commit touched,
found from its diff; both revisions of Debian's 6.12 tree built by their
Kbuild, gated and timed; a wrong edit named WRONG with its case; the
commit message's block within 72 columns; `--show` reading it back;
`compare --markdown`. The fixture commits are conftest.PATCH_COMMITS."""

import json

import pytest

from conftest import KERNEL_GOOD
from hotpath import patch
from hotpath.errors import UsageError
from hotpath.kernelsrc import catalogue, kbuilt, patchdiff, trees
from hotpath.machine import Fingerprint
from hotpath.render import patch_block
from hotpath.render.commit_block import WIDTH
from hotpath.results import FigureResult, RunResult
from test_json_schemas import check

# Small runs: the tests check what is found, gated and said, never a time.
QUICK = ("--repeat", "1", "--rounds", "40")


def _touched(repo, tag: str) -> patchdiff.Touched:
    a, b = trees.parse_kernel_tree(f"{repo}@{tag}~1,{tag}", ())
    return patchdiff.touched(a, b, patchdiff.diff(repo, a.commit, b.commit))


def test_each_fixture_commit_touches_what_it_changed(patch_repo):
    assert _touched(patch_repo, "patch-docs").functions == {}
    assert set(_touched(patch_repo, "patch-crc8").functions) == {"crc32_le", "crc32_be"}
    assert set(_touched(patch_repo, "patch-memset").functions) == {"memset"}
    # A change in a helper outside every catalogue definition of the file
    # touches each function the file defines.
    found = _touched(patch_repo, "patch-siphash")
    assert set(found.functions) == {"siphash", "siphash_1u64", "siphash_2u64"}
    assert "outside any catalogue function" in found.functions["siphash"]
    # Inside strlen()'s own body: strlen alone, not memchr or strnlen.
    found = _touched(patch_repo, "patch-wrong")
    assert set(found.functions) == {"strlen"}
    assert "its definition" in found.functions["strlen"]


def test_definitions_are_found_in_c_and_assembly():
    text = "static int helper(void)\n{\n}\nu32 __pure crc32_le(u32 crc)\n{\n\treturn 0;\n}\n"
    assert patchdiff.definitions(text, ["crc32_le", "helper"]) == {
        "crc32_le": (4, 7),
        "helper": (1, 3),
    }
    asm = "SYM_FUNC_START(memcpy)\n\tret\nSYM_FUNC_END(memcpy)\n"
    assert patchdiff.definitions(asm, ["memcpy"]) == {"memcpy": (1, 3)}


def test_a_commit_touching_no_catalogue_function_says_what_it_touched(cli, patch_repo):
    res = cli("patch", f"{patch_repo}@patch-docs", "--no-store")
    assert res.status == 2, res.err
    assert "touches no catalogue function" in res.err
    assert "Documentation/process/howto.rst" in res.err
    res = cli("patch", f"{patch_repo}@patch-memset", "--mitigations", "off,host")
    assert res.status == 2 and "allowed: off or host" in res.err, res.err


def test_ranges_are_parsed_as_written(tmp_path):
    assert patch.parse_range(str(tmp_path)) == patch.Range(tmp_path, "HEAD~1", "HEAD")
    assert patch.parse_range(f"{tmp_path}@v6.8") == patch.Range(tmp_path, "v6.8~1", "v6.8")
    assert patch.parse_range(f"{tmp_path}@a..b") == patch.Range(tmp_path, "a", "b")
    for bad, words in (("/nowhere@a..b", "no such folder"), (f"{tmp_path}@a...b", "A...B")):
        with pytest.raises(UsageError, match=words):
            patch.parse_range(bad)


def test_the_catalogue_of_debians_trees_is_complete():
    """Every catalogue function is found in both of Debian's trees' files."""
    from hotpath.kernelsrc import kbuild

    for short in kbuild.SHORTS:
        tree = kbuild.prepare_debian(short, allow_fetch=True, log=lambda _: None)
        found = kbuilt.catalogue_in(kbuilt.folder_reader(tree.root))
        missing = [(p.function.name, p.problem) for p in found if p.entry is None]
        assert missing == [], (short, missing)
    assert len(catalogue.FUNCTIONS) == len(catalogue.BY_NAME) >= 27


def test_kernels_tree_lists_the_catalogue(cli, patch_repo):
    res = cli("kernels", f"{patch_repo}@{KERNEL_GOOD}")
    assert res.status == 0, res.err
    for name, where in (
        ("crc32_le", "lib/crc32.c"),
        ("memset", "arch/x86/lib/memset_64.S"),
        ("find_next_bit", "lib/find_bit.c"),
        ("csum_partial", "csum-partial"),
    ):
        line = next(x for x in res.out.splitlines() if x.split()[:1] == [name])
        assert where in line, line  # fmt: skip
    res = cli("kernels", "/no/such/tree")
    assert res.status == 2 and "no such folder" in res.err


def _block(out: str) -> list[str]:
    lines = out.splitlines()
    first = lines.index("-" * WIDTH)
    last = lines.index("-" * WIDTH, first + 1)
    return lines[first + 1 : last]


@pytest.mark.parametrize(
    ("tag", "functions"),
    [
        ("patch-crc8", {"crc32_le", "crc32_be"}),
        ("patch-memset", {"memset"}),
        ("patch-siphash", {"siphash", "siphash_1u64", "siphash_2u64"}),
        # A header no layout names: found in Kbuild's dependency lists of A's build.
        ("patch-header", {"crc64_be", "crc64_rocksoft"}),
    ],
)
def test_a_commit_is_built_gated_timed_and_given_a_block(
    cli, patch_repo, real_runner, tmp_path, tag, functions
):
    db = tmp_path / "h.sqlite"
    sizes = "8,16" if tag == "patch-siphash" else "64,1500"
    res = cli("patch", f"{patch_repo}@{tag}", *QUICK, "--sizes", sizes, "--db", str(db))
    if tag == "patch-siphash":  # siphash_1u64/2u64 take 8 and 16 bytes only
        assert res.status in (0, 1), res.err
    else:
        assert res.status == 0, res.err
    block = _block(res.out)
    assert all(len(line) <= WIDTH for line in block), [x for x in block if len(x) > WIDTH]
    text = " ".join(block)  # wrapped lines read as one
    assert f"after: {tag} (" in text and "Machine:" in text and "CPU flags:" in text
    assert "Core cycles per call" in text and "mitigations off" in text
    assert "hotpath patch @" in text  # the commits by id, run in any clone
    for name in functions:
        assert name in text
    res = cli("patch", f"{patch_repo}@{tag}", "--show", "--db", str(db), "--json")
    assert res.status == 0, res.err
    doc = check(json.loads(res.out))
    assert doc["schema"] == "hotpath.patch/1" and len(doc["machines"]) == 1
    machine = doc["machines"][0]
    assert set(machine["functions"]) == functions
    assert machine["after"]["variant"] == f"linux-{tag}"  # spelt as written
    figures = machine["figures"]
    assert figures and {f["primitive"] for f in figures} <= functions


def test_a_wrong_edit_is_named_with_its_case_and_exits_1(cli, patch_repo, real_runner):
    res = cli("patch", f"{patch_repo}@patch-wrong", *QUICK, "--sizes", "64", "--json",
              "--no-store")  # fmt: skip
    assert res.status == 1, res.err
    doc = check(json.loads(res.out))
    (machine,) = doc["machines"]
    (wrong,) = machine["wrong"]
    assert wrong["name"] == "linux-patch-wrong" and wrong["primitive"] == "strlen"
    assert wrong["status"] == "wrong" and wrong["failure"]["what"].startswith("mismatch")
    assert any(line.startswith("WRONG: linux-patch-wrong (strlen) at") for line in
               doc["commit_block"])  # fmt: skip
    assert machine["figures"] == []  # the wrong side has no figure to compare


def test_compare_markdown_is_a_commit_table(cli, real_runner, tmp_path):
    db = tmp_path / "h.sqlite"
    res = cli("csum", "--sizes", "40", "--rounds", "40", "--variants", "kernel-5.17,kernel-2024",
              "--db", str(db))  # fmt: skip
    assert res.status == 0, res.err
    res = cli("compare", "last:kernel-5.17", "last:kernel-2024", "--markdown", "--db", str(db))
    assert res.status == 0, res.err
    rows = [x for x in res.out.splitlines() if x.startswith("| csum_partial |")]
    assert len(rows) == 2 * 3, res.out  # even and odd, three modes
    assert all(x.count("|") == 8 for x in rows)
    assert "Machine:" in res.out and "kernel-5.17 of run 1" in res.out


def patch_run(name: str, family: int, after: float) -> RunResult:
    """A stored patch run's shape from a machine of its own: crc32_le at 64 B,
    linux-A at 10 cycles, linux-B at `after`, three replicas each."""
    machine = Fingerprint(vendor="AuthenticAMD", family=family, model=1, model_name=name)
    run = RunResult(command="patch", started="2026-11-28T00:00:00+00:00", machine=machine)
    for variant, median in (("linux-A", 10.0), ("linux-B", after)):
        run.figures.append(
            FigureResult(lab="fn", primitive="crc32_le", variant=variant, size=64, align=0,
                         mode="latency", unit="cycles", status="ok", n=100, median=median,
                         ci_lo=median * 0.99, ci_hi=median * 1.01,
                         replica_medians=[median * f for f in (0.999, 1.0, 1.001)])
        )  # fmt: skip
    side = {"rev": "A", "commit": "a" * 40, "variant": "linux-A"}
    run.sections["patch"] = {
        "before": side, "after": {"rev": "B", "commit": "b" * 40, "variant": "linux-B"},
        "functions": {"crc32_le": "lib/crc32.c changed"}, "command": "hotpath patch @A..B",
    }  # fmt: skip
    return run


MACHINES = (("AMD EPYC 7R13", 25, 12.0), ("AMD EPYC 9R14", 26, 8.0), ("Intel Xeon 8592+", 6, 10.0))


def test_several_machines_make_one_table_within_72_columns():
    """--show's block: a column group per machine, each with its verdicts."""
    evidences = []
    for name, family, after in MACHINES:
        run = patch_run(name, family, after)
        run.run_id = family
        evidences.append(patch.from_run(run, 0.02))
    lines = patch_block.commit_lines(evidences)
    assert all(len(line) <= 72 for line in lines), lines
    text = "\n".join(lines)
    for label, name in (("A", "7R13"), ("B", "9R14"), ("C", "8592+")):
        assert f"{label}: " in text and name in text
    row = next(line for line in lines if line.startswith("crc32_le 64 B"))
    assert "+20.0% S" in row and "-20.0% F" in row, row  # each machine its own verdict
    two = patch_block.commit_lines(evidences[:2])  # before and after beside the change
    assert any("A before" in line for line in two) and all(len(x) <= 72 for x in two)


def test_every_fn_catalogue_entry_of_debians_trees_passes_its_gate(cli, real_runner):
    """linux-6.1's and linux-6.12's own code of each fn-lab function agrees
    with hotpath's reference at every gate case (the csum, crc32c and avc
    labs' entries are their labs' tests')."""
    for function in catalogue.FUNCTIONS:
        if function.lab != "fn":
            continue
        size = str(function.default_sizes()[0])
        res = cli("fn", function.name, "--sizes", size, "--rounds", "5", "--modes", "latency",
                  "--no-store", "--json")  # fmt: skip
        assert res.status == 0, (function.name, res.err)
        status = {v["name"]: v["status"] for v in json.loads(res.out)["variants"]}
        kernels = {name: s for name, s in status.items() if name.startswith("linux-")}
        assert {"linux-6.1", "linux-6.12"} <= set(kernels), (function.name, status)
        assert set(kernels.values()) == {"ok"}, (function.name, status)  # crc_t10dif:pcl too
