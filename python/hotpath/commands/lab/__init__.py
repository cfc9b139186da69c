# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath <lab>`: one subcommand per registered lab, all built from its Lab
(a seed table's flag: its mode in hotpath.commands.lab.seedtable).

Exit status: 0 all variants correct, 1 a variant is WRONG (shown with its
first failing case) or the run failed, 2 bad input.
"""

import argparse

from hotpath import measure
from hotpath.commands import labs
from hotpath.commands.common import (
    add_kernel_options,
    add_output_options,
    add_repeat_option,
    check_plot,
    db_path,
    emit,
    real_kernels,
)
from hotpath.commands.lab import seedtable
from hotpath.delivery import check_common, deliver
from hotpath.inputs import (
    UNITS,
    check_cpu,
    check_repeat,
    check_rounds,
    check_time_limit,
    parse_aligns,
    parse_modes,
    parse_names,
    parse_sizes,
    parse_with,
    path,
    unique_names,
)
from hotpath.kernelsrc import layouts
from hotpath.labs import Lab


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]", lab: Lab) -> None:
    bounds = (
        " Beside the figures a model covers, a 'bound' column: the floor the model puts on "
        "them (the table's legend says which model and where it applies; n/a elsewhere)."
        if labs.hooks(lab.name).attach_bounds is not None
        else ""
    )
    parser = subparsers.add_parser(
        lab.name,
        description=f"{lab.title}: check every variant against the reference, then time it."
        f"{bounds} Exit status 1 when a variant given with --with or named in --variants is "
        "WRONG (the lab's own known-wrong variants are shown, not counted), 2 on bad input.",
    )
    sizes = ",".join(map(str, lab.default_sizes))
    aligns = ",".join(map(str, lab.default_aligns))
    # None: not given (a seed table refuses --sizes and --align, and has its own modes).
    parser.add_argument(
        "--sizes",
        default=None,
        help=f"lengths in bytes, or a sweep LOW..HIGH: powers of two and 3 x 2^k"
        f" between (default {sizes})",
    )
    parser.add_argument("--align", default=None, help=f"offsets 0..4095 (default {aligns})")
    modes = ",".join(lab.default_modes)
    parser.add_argument(
        "--modes", default=None, help=f"latency,throughput,fenced (default {modes})"
    )
    parser.add_argument("--variants", default=None, help="only these variants (default: all)")
    default = ", ".join(lab.default_primitives) if lab.default_primitives else "all"
    parser.add_argument(
        "--primitive",
        default=None,
        help=f"one primitive of the lab (`hotpath list {lab.name}` shows them; default: {default})",
    )
    parser.add_argument("--rounds", type=int, default=lab.default_rounds, help="samples per figure")
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to (-1: no pinning)")
    add_repeat_option(parser)
    parser.add_argument(
        "--with",
        dest="with_",
        action="append",
        default=[],
        metavar="FILE.c:FUNCTION",
        help="your own variant, repeatable: FUNCTION has the primitive's C signature "
        f"(c/include/hotpath/{lab.name}.h, docs/labs/{lab.name}.md). Compiled with the "
        "library's flags, the file's `// hotpath: cflags=...` lines and --with-cflags "
        "(options that change the code generated: -m, -O, -f, -D, -U, -I inside the file's "
        "folder, -std=); `// hotpath: needs=avx2,bmi2` names the CPU features it needs "
        "(without them it is skipped, not compiled). Checked against the reference, then "
        "timed; a name a variant of the run already has is shown as FILE:FUNCTION",
    )
    parser.add_argument(
        "--with-cflags",
        default="",
        metavar="FLAGS",
        help="more compiler flags for every --with file, e.g. '-mavx2 -Iinclude' (-I relative "
        "to the file's folder, and inside it)",
    )
    if layouts.timed_files(lab.name):
        add_kernel_options(parser)
    parser.add_argument("--unit", choices=UNITS, default="cycles", help="cycles or TSC ticks")
    parser.add_argument(
        "--time-limit",
        type=int,
        default=None,
        metavar="S",
        help="a variant call still running after S seconds is stopped and the variant "
        "reported WRONG with 'did not return' (default 30; 0: no limit)",
    )
    parser.add_argument("--plot", type=path, default=None, metavar="DIR", help="write plots here")
    add_output_options(parser)
    seedtable.add_flags(parser, lab)
    labs.hooks(lab.name).add_arguments(parser)
    parser.set_defaults(handler=lambda args: run(args, lab))


def run(args: argparse.Namespace, lab: Lab) -> int:
    hooks = labs.hooks(lab.name)
    seed = seedtable.chosen(args, lab)
    if seed is not None and seed.own and hooks.seed_table is not None:
        return hooks.seed_table(args)  # avc's: its own mode measures it
    if hooks.own_command is not None:
        status = hooks.own_command(args)
        if status is not None:
            return status
    check_repeat(args.repeat)
    if seed is not None:
        modes = parse_modes(args.modes) if args.modes is not None else seed.modes
        rounds = check_rounds(args.rounds)
        cpu = check_cpu(args.cpu)
        check_plot(args)
        check_common(args)
        return seedtable.run(args, lab, seed, modes, rounds, cpu)
    sizes = parse_sizes(args.sizes) if args.sizes is not None else None
    aligns = parse_aligns(args.align) if args.align is not None else lab.default_aligns
    modes = parse_modes(args.modes) if args.modes is not None else lab.default_modes
    rounds = check_rounds(args.rounds)
    cpu = check_cpu(args.cpu)
    time_limit = check_time_limit(args.time_limit)
    wanted = parse_names(args.variants) if args.variants is not None else None
    user_specs = [parse_with(text, args.with_cflags) for text in args.with_]
    check_plot(args)
    check_common(args)

    runner = measure.get_runner()
    known = measure.listing(runner)
    present = measure.require_primitives(
        lab.name, lab.chosen(known.lab_members(lab.name), args.primitive)
    )
    kernels = real_kernels(args, lab, runner, wanted, present)
    if wanted:
        measure.check_variants(known, present, wanted, extra=kernels.names())
    if user_specs:  # brought variants go with the first primitive
        first = known.primitive(present[0])
        user_specs = unique_names(user_specs, {v.name for v in first.variants} if first else set())
    requests = []
    for number, primitive in enumerate(present):
        subset = measure.variants_for(known, primitive, wanted)
        brought = kernels.runner_args(primitive, wanted)
        if subset == ():
            if not brought and (number or not user_specs):
                continue  # none of the wanted variants live here
            subset = _reference(known, primitive)  # beside the brought ones
        requests.append(
            measure.Request(
                primitive=primitive,
                sizes=sizes or lab.sizes_for(primitive, measure.own_sizes(known, primitive)),
                aligns=aligns,
                modes=modes,
                rounds=rounds,
                variants=subset,
                cpu=cpu,
                unit=args.unit,
                extra=labs.hooks(lab.name).runner_args(args),
                time_limit=time_limit,
                brought=brought,
            )
        )
    groups = measure.run_requests(
        runner,
        requests,
        user_specs,
        show_progress=_tty(),
        repeat=args.repeat,
        width_history=measure.width_history(db_path(args), known),
    )
    result = labs.enrich(measure.new_run(lab.name, groups, args.noisy_threshold, args.command_line))
    deliver(args, result, lambda: emit(args, result), plot=args.plot)
    # Exit 1 only for a WRONG variant the user brought (--with, a kernel
    # tree) or named (--variants), or a real kernel's: the lab's own
    # deliberately wrong variants (the seed's buggy baselines) are results,
    # shown in the table, not failures.
    asked = set(wanted or ()) | {spec.variant for spec in user_specs}
    wrong = [
        v
        for v in result.wrong_variants()
        if v.info.name in asked or {"user", "kernel"} & set(v.info.flags)
    ]
    return 1 if wrong else 0


def _reference(known: measure.Listing, primitive: str) -> tuple[str, ...]:
    """The primitive's first variant (its reference), to time beside --with ones."""
    prim = known.primitive(primitive)
    return (prim.variants[0].name,) if prim and prim.variants else ()


def _tty() -> bool:
    import sys

    return sys.stderr.isatty()
