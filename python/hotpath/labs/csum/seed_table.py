# SPDX-License-Identifier: GPL-2.0-only
"""Seed 000's csum_partial ladder as data, for `hotpath csum --seed-table`.

Arjan van de Ven's notes time eight steps from the 5.17 baseline to
"assume zero input" at 40 bytes, even and odd aligned, plus a table with
lfence around each call. This module maps each step to the runner's
variant, keeps the notes' figures to print beside ours and lists the
orderings the notes draw; hotpath.seedtables checks them against a run.
In latency mode the dependency-chain bound of each step sits beside ours
(hotpath.labs.csum.bound), with the notes' hand-drawn chain of "Dead Code
Removed" (9 cycles) beside its bound.
The notes' figures are TSC ticks on Cascade Lake printed as "cycles"
(docs PRODUCT.md), so only directions, not values, carry over.
"""

from hotpath.seedtable_spec import (
    Axis,
    Claim,
    OtherMode,
    Published,
    PublishedBound,
    SeedTable,
    TableSpec,
)

ROWS = (
    Axis("baseline", "Baseline (kernel-5.17-rc)", variant="kernel-5.17-rc"),
    # The baseline's code as released (Linux 6.1 still has it, with the
    # odd-seed fix): the real code where the run has it, and hotpath's
    # re-implementation beside it.
    Axis(
        "baseline-fixed",
        "Baseline as released, odd-seed fix (linux-6.1)",
        variant="linux-6.1",
        short="baseline",
        published_as="baseline",
        stand_in="baseline-reimplemented",
    ),
    Axis(
        "baseline-reimplemented",
        "Baseline, odd-seed fix, re-implemented (kernel-5.17)",
        variant="kernel-5.17",
        short="baseline re-implemented",
        published_as="baseline",
    ),
    Axis("specialized", "Specialized (seed-specialised)", variant="seed-specialised"),
    Axis("no-odd", "Unaligned removed (seed-no-odd)", variant="seed-no-odd"),
    Axis("dead-code", "Dead Code Removed (seed-dead-code)", variant="seed-dead-code"),
    Axis("adx", "Using ADX (seed-adx)", variant="seed-adx"),
    Axis("two-streams", "Two Streams (seed-two-streams)", variant="seed-two-streams"),
    Axis(
        "two-streams-published",
        "Two Streams as printed (seed-two-streams-published)",
        variant="seed-two-streams-published",
    ),
    Axis("32bit", "32 bit only (seed-32bit)", variant="seed-32bit"),
    Axis("zero", "Assume Zero Input (seed-zero-sum)", variant="seed-zero-sum"),
)
COLUMNS = (
    Axis("even", "Even aligned buffer", align=0, short="even"),
    Axis("odd", "Odd aligned buffer", align=1, short="odd"),
)
SEED_COLUMNS = {"even": "seed even", "odd": "seed odd"}

MAIN = Published(
    mode="latency",
    source='seed 000\'s main table: TSC ticks on Intel Cascade Lake reported as "cycles", '
    "averages of rdtsc around 102,400 calls",
    columns=SEED_COLUMNS,
    decimals=1,
    values={
        "baseline": {"even": 11.1, "odd": 19.2},
        "specialized": {"even": 11.1, "odd": 19.2},
        "no-odd": {"even": 11.1, "odd": 11.1},
        "dead-code": {"even": 9.1, "odd": 9.1},
        "adx": {"even": 6.1, "odd": 6.1},
        "two-streams": {"even": 6.1, "odd": 6.1},
        "32bit": {"even": 5.7, "odd": 5.8},
        "zero": {"even": 4.0, "odd": 4.0},
    },
)
FENCED = Published(
    mode="fenced",
    source='seed 000\'s lfence table ("latency measurement with OOO fenced off"): TSC ticks '
    'on Intel Cascade Lake reported as "cycles", the fences and the call included (the notes '
    "do not say an empty call was subtracted; ours subtract one, so compare orderings, not "
    "values); it has no 32 bit only row",
    columns=SEED_COLUMNS,
    decimals=1,
    values={
        "baseline": {"even": 19.1, "odd": 26.9},
        "specialized": {"even": 18.2, "odd": 26.9},
        "no-odd": {"even": 18.4, "odd": 18.8},
        "dead-code": {"even": 14.0, "odd": 15.2},
        "adx": {"even": 15.8, "odd": 17.8},
        "two-streams": {"even": 16.3, "odd": 16.5},
        "zero": {"even": 14.4, "odd": 14.1},
    },
)

# The notes' "side track: critical chain analysis", drawn by hand for this step.
CHAIN = PublishedBound(
    row="dead-code",
    cycles=9,
    source="seed 000 drew its critical chain by hand (add, adc and shr of one cycle each, "
    'the mov not counted: "a lower bound of 9 cycles")',
)

CLAIMS = (
    Claim("Dead Code Removed cheaper than Baseline", cheaper="dead-code", dearer="baseline-fixed"),
    Claim("Two Streams cheaper than Dead Code Removed", cheaper="two-streams", dearer="dead-code"),
    Claim("Using ADX cheaper than Dead Code Removed", cheaper="adx", dearer="dead-code"),
    Claim(
        "Baseline: even aligned cheaper than odd aligned",
        cheaper="even",
        dearer="odd",
        at=("baseline-fixed",),
    ),
)

SEED_TABLE = SeedTable(
    flag="seed-table",
    help="seed 000's csum_partial ladder at 40 bytes, our figures beside the notes'",
    seed="seed 000: Arjan van de Ven, notes on optimizing csum_partial",
    modes=("latency", "throughput", "fenced"),
    header=(
        'seed 000\'s figures are TSC ticks on an Intel Cascade Lake reported as "cycles" '
        "(PRODUCT.md); ours are core cycles calibrated on this machine against a chain of "
        "dependent adds (or TSC ticks with --unit ticks, as each table says)",
        "the seed's main table is set beside our latency mode, its lfence table beside our "
        "fenced mode; it printed no throughput table",
        "Baseline: the seed measured kernel-5.17-rc, whose odd-address path is wrong for "
        "some non-zero seeds; kernel-5.17 is the same code with the fix, and the directions "
        "about the baseline use it",
    ),
    tables=(
        TableSpec(
            title="csum_partial, 40 bytes",
            primitive="csum_partial",
            row_header="Scenario",
            rows=ROWS,
            columns=COLUMNS,
            size=40,
            decimals=1,
            published=(MAIN, FENCED),
            claims=CLAIMS,
            published_bounds=(CHAIN,),
            other_modes=(
                OtherMode(
                    row="zero",
                    mode="latency",
                    measured_as="throughput",
                    why="seed-zero-sum ignores its input sum, so in the seed's loop no call "
                    "waited for the one before: no dependency chain",
                ),
            ),
        ),
    ),
)
