# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath <lab> --<seed flag>`: measure what a seed's table needs, print it the seed's way.

The lab command hands over here when one of its seed-table flags is given
(`hotpath crc32c --skb-table`, `hotpath csum --seed-table`). The cells
decide the primitives, variants, sizes and alignments, so the options that
choose those are refused; --modes, --rounds, --cpu, --unit, --plot and the
output and store options work as for any run. The run is stored like any
other; --json adds the evaluated table under "seed_table".
"""

import argparse
import json
import sys

from hotpath import measure
from hotpath.commands import labs
from hotpath.commands.common import db_path, real_kernels
from hotpath.delivery import deliver
from hotpath.errors import RunnerError, UsageError
from hotpath.labs import Lab
from hotpath.render import seedtable as render
from hotpath.seedtable_spec import SeedTable
from hotpath.seedtables import evaluate
from hotpath.verdicts import add_threshold_option, check_threshold

# Options that pick what is measured: the seed's table already does.
FIXED = (("sizes", "--sizes"), ("align", "--align"), ("variants", "--variants"),
         ("primitive", "--primitive"), ("with_", "--with"))  # fmt: skip


def _claimed(lab: Lab) -> list[SeedTable]:
    """The lab's seed tables whose claims are evaluated here (not its own)."""
    return [seed for seed in lab.seed_tables if not seed.own]


def add_flags(parser: argparse.ArgumentParser, lab: Lab) -> None:
    for seed in lab.seed_tables:
        parser.add_argument(f"--{seed.flag}", dest=seed.dest, action="store_true", help=seed.help)
    if _claimed(lab):
        flags = ", ".join(f"--{seed.flag}" for seed in _claimed(lab))
        add_threshold_option(parser, 0.0, f"the seed's claims ({flags})")


def chosen(args: argparse.Namespace, lab: Lab) -> SeedTable | None:
    """The seed table asked for, after refusing options it cannot take (a
    table of the lab's own measuring refuses its own: SeedTable.own)."""
    picked = [seed for seed in lab.seed_tables if getattr(args, seed.dest, False)]
    threshold = getattr(args, "threshold", 0.0)
    check_threshold(threshold)
    if (not picked or picked[0].own) and threshold:
        raise UsageError(
            f"--threshold '{threshold}': it decides the seed's claims; allowed only with "
            + ", ".join(f"--{seed.flag}" for seed in _claimed(lab))
        )
    if not picked:
        return None
    if len(picked) > 1:
        flags = ", ".join(f"--{seed.flag}" for seed in picked)
        raise UsageError(f"{flags}: one seed table at a time")
    seed = picked[0]
    if seed.own:
        return seed
    for attr, option in FIXED:
        value = getattr(args, attr, None)
        if value is not None and value != []:
            shown = ",".join(value) if isinstance(value, list) else str(value)
            raise UsageError(
                f"{option} '{shown}': not allowed with --{seed.flag}, which measures the "
                "seed's own cells; allowed with it: --modes, --rounds, --cpu, --unit, --plot"
            )
    return seed


def run(
    args: argparse.Namespace,
    lab: Lab,
    seed: SeedTable,
    modes: tuple[str, ...],
    rounds: int,
    cpu: int | None,
) -> int:
    runner = measure.get_runner()
    known = measure.listing(runner)
    kernels = real_kernels(args, lab, runner)  # the seed's released code, where a row names it
    requests = []
    for want in seed.wants():
        prim = known.primitive(want.primitive)
        if prim is None:
            raise RunnerError(
                f"--{seed.flag}: the runner has no primitive '{want.primitive}' (lab {lab.name})"
            )
        names = {v.name for v in prim.variants}
        brought = kernels.runner_args(want.primitive, want.variants)
        present = tuple(v for v in want.variants if v in names)
        if not present:
            raise RunnerError(
                f"--{seed.flag}: the runner's {want.primitive} has none of "
                f"{', '.join(want.variants)}"
            )
        requests.append(
            measure.Request(
                primitive=want.primitive,
                sizes=want.sizes,
                aligns=want.aligns,
                modes=modes,
                rounds=rounds,
                variants=present,
                cpu=cpu,
                unit=args.unit,
                extra=labs.hooks(lab.name).runner_args(args),
                brought=brought,
            )
        )
    groups = measure.run_requests(
        runner,
        requests,
        [],
        show_progress=sys.stderr.isatty(),
        repeat=args.repeat,
        width_history=measure.width_history(db_path(args), known),
    )
    result = labs.enrich(measure.new_run(lab.name, groups, args.noisy_threshold, args.command_line))
    tables = evaluate(seed, result, modes, getattr(args, "threshold", 0.0))

    def show() -> None:
        if args.json:
            doc = result.to_json()
            doc["seed_table"] = tables.to_json()
            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        elif args.markdown:
            sys.stdout.write(render.render_markdown(tables, result))
        else:
            sys.stdout.write(render.render_text(tables, result))
            if result.run_id is not None:
                sys.stdout.write(f"stored as run {result.run_id} in {db_path(args)}\n")

    deliver(args, result, show, plot=args.plot)
    # The seed's own wrong variants (its printed code, its baseline) are
    # results shown in the table, not failures of the command.
    return 0
