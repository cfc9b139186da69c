# SPDX-License-Identifier: GPL-2.0-only
"""The fn lab against the real runner: its primitives listed under the lab,
the references gated and timed, and wrong functions brought with --with
reported WRONG with their case and not timed (a wrong CRC convention, a
copy one byte short, a strlen that reads one byte past the NUL), and bad
--param values refused with exit 2. Structure only, never a speed; the
references' vectors and every variant's gate are tests/c/test_fn.c."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import timed_or_spoiled

pytestmark = [pytest.mark.runner, pytest.mark.usefixtures("real_runner")]

PRIMITIVES = {
    "crc32_le", "crc32_be", "crc64_be", "crc64_rocksoft", "crc_t10dif", "crc16", "crc_itu_t",
    "jhash", "xxh32", "xxh64", "siphash", "siphash_1u64", "siphash_2u64",
    "memcpy", "memmove", "memset", "memchr", "strlen", "strnlen", "find_next_bit",
}  # fmt: skip

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")

WRONG_C = r"""
#include <stddef.h>
#include <stdint.h>

/* zlib's convention: inverted in and out, where the kernel's is raw */
uint32_t crc_inverted(uint32_t crc, const uint8_t *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int i = 0; i < 8; i++)
			crc = (crc >> 1) ^ ((crc & 1) ? 0xEDB88320u : 0);
	}
	return ~crc;
}

/* one byte short */
void *copy_short(void *d, const void *s, size_t n)
{
	uint8_t *dd = d;
	const uint8_t *ss = s;

	for (size_t i = 0; i + 1 < n; i++)
		dd[i] = ss[i];
	return d;
}

/* right answer, but reads the byte after the NUL */
size_t strlen_over(const char *s)
{
	size_t n = 0;
	volatile char extra;

	while (s[n])
		n++;
	extra = s[n + 1];
	(void)extra;
	return n;
}
"""


@pytest.fixture
def wrong_c(tmp_path: Path) -> Path:
    src = tmp_path / "wrong.c"
    src.write_text(WRONG_C)
    return src


def run_fn(cli, *args: str):
    return cli("fn", "--rounds", "5", "--modes", "latency", "--no-store",
               "--no-debian-kernels", "--json", *args)  # fmt: skip


def test_the_lab_lists_its_primitives(real_runner):
    out = subprocess.run([str(real_runner / "hotpath-bench"), "list"], capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    listed = {p["name"]: p for p in json.loads(out)["primitives"] if p["lab"] == "fn"}
    assert set(listed) == PRIMITIVES
    for name, prim in listed.items():
        names = [v["name"] for v in prim["variants"]]
        assert names[0] == ("bitwise-ref" if name.startswith("crc") else "ref"), name
        assert prim["default_sizes"], name
    for peer in ("memcpy", "memmove", "memset", "memchr", "strlen", "strnlen"):
        glibc = [v for v in listed[peer]["variants"] if v["name"] == "glibc"]
        assert glibc and "peer" in glibc[0]["flags"], peer
    assert listed["siphash_1u64"]["default_sizes"] == [8]
    assert listed["siphash_2u64"]["default_sizes"] == [16]


def test_crc32_le_gated_and_timed(cli):
    res = run_fn(cli, "--primitive", "crc32_le", "--sizes", "64,1500", "--repeat", "1")
    assert res.status == 0, res.err
    doc = res.json()
    assert {v["name"]: v["status"] for v in doc["variants"]} == {"bitwise-ref": "ok"}
    figs = doc["figures"]
    assert {(f["size"], f["variant"]) for f in figs} == {(64, "bitwise-ref"), (1500, "bitwise-ref")}
    assert all(timed_or_spoiled(f) for f in figs)


@pytest.mark.parametrize(
    "primitive,sizes",
    [("memcpy", "64"), ("memmove", "64"), ("memset", "8"), ("memchr", "16"),
     ("strlen", "64"), ("strnlen", "64"), ("find_next_bit", "64"), ("siphash_1u64", "8"),
     ("siphash_2u64", "16"), ("jhash", "64"), ("xxh64", "64"), ("crc64_rocksoft", "16")],
)  # fmt: skip
def test_every_kind_gates_and_times(cli, primitive, sizes):
    res = run_fn(cli, "--primitive", primitive, "--sizes", sizes)
    assert res.status == 0, res.err
    doc = res.json()
    assert all(v["status"] == "ok" for v in doc["variants"]), doc["variants"]
    assert doc["figures"] and all(timed_or_spoiled(f) for f in doc["figures"])


@needs_cc
def test_an_inverted_crc_is_wrong_with_its_case_and_the_likely_slip(cli, wrong_c):
    res = run_fn(cli, "--primitive", "crc32_le", "--sizes", "64",
                 "--with", f"{wrong_c}:crc_inverted")  # fmt: skip
    assert res.status == 1, res.err
    doc = res.json()
    bad = next(v for v in doc["variants"] if v["name"] == "crc_inverted")
    assert bad["status"] == "wrong"
    assert "inverting convention" in bad["failure"]["what"]
    assert {"len", "align"} <= set(bad["failure"])
    mine = [f for f in doc["figures"] if f["variant"] == "crc_inverted"]
    assert mine and all(f["status"] == "not timed" and f["median"] is None for f in mine)


@needs_cc
def test_a_short_copy_is_wrong_with_its_byte(cli, wrong_c):
    res = run_fn(cli, "--primitive", "memcpy", "--sizes", "64",
                 "--with", f"{wrong_c}:copy_short")  # fmt: skip
    assert res.status == 1, res.err
    bad = next(v for v in res.json()["variants"] if v["name"] == "copy_short")
    assert bad["status"] == "wrong"
    assert bad["failure"]["len"] == 1 and "destination byte 0" in bad["failure"]["what"]


@needs_cc
def test_a_read_past_the_nul_is_caught_by_the_guard_page(cli, wrong_c):
    res = run_fn(cli, "--primitive", "strlen", "--sizes", "64",
                 "--with", f"{wrong_c}:strlen_over")  # fmt: skip
    assert res.status == 1, res.err
    bad = next(v for v in res.json()["variants"] if v["name"] == "strlen_over")
    assert bad["status"] == "wrong"
    assert bad["failure"]["what"] == "read outside the buffer"


@pytest.mark.parametrize("param", ["overlap=forward", "overlap=backward", "dst_align=63"])
def test_memmove_geometries_gate(real_runner, param):
    out = subprocess.run(
        [str(real_runner / "hotpath-bench"), "run", "--primitive", "memmove", "--param", param,
         "--sizes", "64,1500", "--rounds", "3", "--modes", "latency"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [v["status"] for v in doc["variants"]] == ["ok", "ok"], doc["variants"]
    assert all(v["checked_cases"] > 0 for v in doc["variants"])


@pytest.mark.parametrize(
    "primitive,param,allowed",
    [("memmove", "overlap=sideways", "none|forward|backward"),
     ("memcpy", "dst_align=64", "0..63"),
     ("memcpy", "dst_align=-1", "0..63"),
     ("memcpy", "overlap=forward", "dst_align"),
     ("memset", "dst_align=3", "no parameter")],
)  # fmt: skip
def test_bad_params_exit_2_naming_the_value(real_runner, primitive, param, allowed):
    out = subprocess.run(
        [str(real_runner / "hotpath-bench"), "run", "--primitive", primitive, "--param", param,
         "--sizes", "64", "--rounds", "3"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 2
    assert param in out.stderr and allowed in out.stderr


def test_sizes_outside_a_primitives_domain_are_not_timed(cli):
    res = run_fn(cli, "--primitive", "find_next_bit", "--sizes", "12,16")
    assert res.status == 0, res.err
    figs = {f["size"]: f for f in res.json()["figures"]}
    assert figs[12]["status"] == "n/a" and figs[12]["median"] is None
    assert timed_or_spoiled(figs[16])


def test_copy_params_for_the_hooks():
    """labs/fn/params.py: what `hotpath fn` tells the runner for --dst-align and
    --overlap, and the bad values it refuses (exit 2 through UsageError)."""
    import argparse

    from hotpath.errors import UsageError
    from hotpath.labs.fn import params

    parser = argparse.ArgumentParser()
    params.add_arguments(parser)
    assert params.runner_args(parser.parse_args([])) == []
    args = parser.parse_args(["--dst-align", "3", "--overlap", "forward"])
    assert params.runner_args(args) == ["--param", "dst_align=3", "--param", "overlap=forward"]
    for bad, said in ((["--dst-align", "64"], "'64'"), (["--dst-align", "-1"], "'-1'"),
                      (["--overlap", "sideways"], "'sideways'")):  # fmt: skip
        with pytest.raises(UsageError, match=said):
            params.runner_args(parser.parse_args(bad))
