# SPDX-License-Identifier: GPL-2.0-only
"""hotpath's own AVC hash (issue 42) against a Python model of it, and the
seed table's target lines on fabricated tables (no timing is asserted)."""

import ctypes
import random

import pytest

from hotpath.labs.avc import seed_table
from hotpath.labs.avc import targets as avc_targets
from hotpath.render import avc_seed_table

MASK32 = 0xFFFFFFFF
# the low halves of wyhash's first three secrets (c/include/hotpath/avc_hash.h)
MUL_SSID, MUL_TSID, MUL_TCLASS = 0x962EACC9, 0xAA6C78A5, 0xD433D4A3


def hp_model(ssid: int, tsid: int, tclass: int) -> int:
    """The three products mod 2^32, xored."""
    return (ssid * MUL_SSID & MASK32) ^ (tsid * MUL_TSID & MASK32) ^ (tclass * MUL_TCLASS & MASK32)


def bucket_model(ssid: int, tsid: int, tclass: int, slots: int) -> int:
    """hp's bucket among `slots` (a power of two): the top log2(slots) bits."""
    bits = slots.bit_length() - 1
    return hp_model(ssid, tsid, tclass) >> (32 - bits) if bits else 0


HashFn = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint16)


@pytest.fixture
def lib(real_runner):
    so = ctypes.CDLL(str(real_runner / "libhotpath.so"))
    so.hp_avc_hash_hp.restype = ctypes.c_uint32
    so.hp_avc_hash_hp.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint16]
    so.hp_avc_hash_for_slots.restype = ctypes.c_void_p
    so.hp_avc_hash_for_slots.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    return so


KNOWN = [  # worked by hand in tests/c/test_avc_hash.c
    ((1, 2, 3), 0xBE6D206A),
    ((0, 0, 0), 0),
    ((0x12345678, 0x9ABCDEF0, 0xFFFF), 0xFFD39FD5),
    ((28, 29, 6), 0xDA65B49F),
]


@pytest.mark.parametrize("key, value", KNOWN)
def test_model_gives_the_worked_values(key, value):
    assert hp_model(*key) == value


def test_c_hash_matches_the_model(lib):
    rng = random.Random(42)
    keys = [k for k, _ in KNOWN] + [
        (rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(16)) for _ in range(5000)
    ]
    for key in keys:
        assert lib.hp_avc_hash_hp(*key) == hp_model(*key), key


@pytest.mark.parametrize("slots", [1, 2, 512, 4096, 8192, 16384, 1 << 20])
def test_c_buckets_are_the_top_bits_and_in_range(lib, slots):
    hp = ctypes.cast(lib.hp_avc_hash_hp, ctypes.c_void_p).value
    fn = HashFn(lib.hp_avc_hash_for_slots(hp, slots))
    rng = random.Random(slots)
    for _ in range(2000):
        key = (rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(16))
        got = fn(*key)
        assert got == bucket_model(*key, slots) and 0 <= got < slots, key


def test_clustered_sids_spread_over_buckets():
    """A triple's copies in 16 SID blocks 2^16 apart: hp's top bits see the
    block, a low-bits hash would put all 16 in one bucket of 512."""
    spread = []
    for s in range(28, 60):
        for t in range(28, 44):
            copies = {bucket_model(s + (k << 16), t + (k << 16), 2, 512) for k in range(16)}
            spread.append(len(copies))
    assert sum(spread) / len(spread) > 15.5  # a random hash: 15.8


CONFIGS = [(c.nodes, c.slots) for c in seed_table.CONFIGS]


def fabricated(hp_cycles=None, gap=0.0, excess=0.0):
    """A seed table where orig is the fastest everywhere at 100 cycles and
    hp's model figures sit `gap` below and `excess` above the random hash's."""
    model, timed = {}, {}
    for n, s in CONFIGS:
        for h in seed_table.HASHES:
            model[(n, s, h)] = {
                "mean_utilisation": 0.60 - (gap if h == "hp" else 0.0),
                "random_utilisation": 0.60,
                "mean_longest_chain": 6.0 + (excess if h == "hp" else 0.0),
                "random_longest_chain": 6.0,
                "limit_utilisation": 0.62,
                "limit_longest_chain": 5.5,
            }
            timed[(n, s, h)] = (100.0 if h == "orig" else 120.0, 30.0)
        if hp_cycles is not None:
            timed[(n, s, "hp")] = (hp_cycles, 30.0)
    return model, timed


def lines(model, timed):
    return avc_targets.lines(model, timed, CONFIGS, seed_table.HASHES)


@pytest.mark.parametrize(
    "hp_cycles, said",
    [(100.0, "holds"), (102.9, "holds"), (103.1, "does not hold"), (90.0, "holds")],
)
def test_lookup_line_within_three_percent(hp_cycles, said):
    line = lines(*fabricated(hp_cycles))[0]
    assert line.split(": ")[1].startswith(said + " ("), line


def test_lookup_line_one_cycle_where_three_percent_is_less():
    model, timed = fabricated()
    for n, s in CONFIGS:
        timed[(n, s, "orig")] = (20.0, 6.0)  # 3% is 0.6 cycles: the margin is 1
        timed[(n, s, "hp")] = (20.9, 6.0)
    assert ": holds (" in lines(model, timed)[0]
    timed[(512, 512, "hp")] = (21.2, 6.0)
    line = lines(model, timed)[0]
    assert ": does not hold (behind at 512/512 21.2 against orig's 20.0, margin 1.0)" in line


def test_lookup_line_untimed_is_not_checked():
    model, timed = fabricated(100.0)
    del timed[(8192, 4096, "hp")]
    line = lines(model, timed)[0]
    assert "not checked (not timed at 8192/4096" in line and "holds" not in line


@pytest.mark.parametrize(
    "gap, said", [(0.0, "holds"), (0.01, "holds"), (0.0102, "does not hold"), (-0.02, "holds")]
)
def test_utilisation_line(gap, said):
    line = lines(*fabricated(100.0, gap=gap))[1]
    assert line.startswith("hp's utilisation within a point") and f": {said} (" in line


@pytest.mark.parametrize(
    "excess, said", [(0.0, "holds"), (0.1, "holds"), (0.102, "does not hold"), (-0.5, "holds")]
)
def test_chain_line(excess, said):
    line = lines(*fabricated(100.0, excess=excess))[2]
    assert line.startswith("hp's longest chain within 0.1") and f": {said} (" in line


def test_the_seed_table_ends_with_the_three_target_lines():
    model, timed = fabricated(100.0)
    out = seed_table.targets(model, timed)
    assert out[-3:] == lines(model, timed)
    text = avc_seed_table.render(seed_table.tables_of(model, timed))
    assert text.splitlines()[-3:] == out[-3:]  # the last lines of the table
