# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath patch [TREE][@A..B]`: evidence for a kernel hot-path commit.

Finds the catalogue functions the range touched (no build), builds both
revisions by their own Kbuild, gates and times them with `--repeat 3`
over each function's default sizes, prints compare's verdicts and the
block to paste into the commit message, and stores the run (hotpath.patch
says what it holds). `--show` prints, measuring nothing, the block of
every machine in the history (--db) that measured the same two commits.
Exit status: 0; 1 when a side is WRONG (its case named) or the run
failed; 2 for bad input or a range that touches no catalogue function.
"""

import argparse
import dataclasses
import json
import sys

from hotpath import measure, patch
from hotpath.calibration import DEFAULT_ROUNDS
from hotpath.commands.common import add_kernel_options, add_output_options
from hotpath.delivery import check_common, store_run
from hotpath.errors import HotpathError, UsageError
from hotpath.inputs import check_repeat, check_rounds, parse_modes, parse_sizes
from hotpath.kernelsrc.catalogue import BY_NAME
from hotpath.labs import LABS
from hotpath.render import patch_block
from hotpath.tree import repo_root
from hotpath.verdicts import DEFAULT_THRESHOLD, add_threshold_option, check_threshold


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "patch",
        description="What did a commit do to the kernel hot functions it touched? Reads `git "
        "diff A B` of TREE (default: the current folder, HEAD~1..HEAD; TREE@B means B~1..B), "
        "finds the catalogue functions whose definition or sources changed (`hotpath kernels "
        "TREE` lists the catalogue), builds both revisions by their own Kbuild, checks each "
        "against hotpath's reference, times both, and prints the verdicts and a block for "
        "the commit message. docs/patch.md",
    )
    parser.add_argument("range", nargs="?", default="", metavar="[TREE][@A..B]")
    parser.add_argument(
        "--show",
        action="store_true",
        help="measure nothing: print the block of every machine in the history (--db) that "
        "measured this pair of commits, one column group per machine",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        metavar="N",
        help="fresh runner processes per side, stored as replicas (default 3; compare's "
        "verdicts need 3 or more)",
    )
    parser.add_argument("--sizes", default=None, help="sizes instead of each kind's defaults")
    parser.add_argument(
        "--modes",
        default=None,
        help=f"comma-separated modes (default {','.join(patch.DEFAULT_MODES)})",
    )
    parser.add_argument(
        "--rounds", type=int, default=None, metavar="N", help="samples per figure (default 400)"
    )
    add_threshold_option(parser, DEFAULT_THRESHOLD, "the verdicts")
    add_kernel_options(parser)
    add_output_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    check_threshold(args.threshold)
    check_repeat(args.repeat)
    sizes = parse_sizes(args.sizes) if args.sizes is not None else None
    modes = parse_modes(args.modes) if args.modes is not None else patch.DEFAULT_MODES
    rounds = check_rounds(args.rounds if args.rounds is not None else DEFAULT_ROUNDS)
    if args.kernel_tree:
        raise UsageError("hotpath patch: --kernel-tree: allowed: the tree as the range, TREE@A..B")
    rng = patch.parse_range(args.range)
    if args.show:
        return show(args, rng)
    check_common(args)
    from hotpath.kernelsrc import contain, patchdiff, trees, variants
    from hotpath.kernelsrc.kbuild import say

    if args.mitigations not in ("off", "host"):
        raise UsageError(
            f"hotpath patch --mitigations '{args.mitigations}': allowed: off or host (one "
            "mode: the two sides are compared within it)"
        )
    contain.trust(args.trust_tree)
    tree_a, tree_b = trees.parse_kernel_tree(f"{rng.root}@{rng.a},{rng.b}", ())
    mode = "+host" if args.mitigations == "host" else ""  # the variants' names, as lab_kernels'
    before, after = (
        patch.Side(t.rev or "", t.commit or "", t.name + mode) for t in (tree_a, tree_b)
    )
    if before.commit == after.commit:
        raise UsageError(f"hotpath patch '{args.range}': {rng.a} and {rng.b} are one commit")
    changes = patchdiff.diff(rng.root, before.commit, after.commit)
    touched = patchdiff.touched(tree_a, tree_b, changes)
    headers = patchdiff.unplaced_headers(touched)
    if headers:
        say(f"{len(headers)} changed header(s) no layout names ({', '.join(headers[:3])}): "
            f"which objects include them is Kbuild's to say, from {rng.a}'s build")  # fmt: skip
        prepared = tree_a.prepare(args.kernel_config, say)
        more = patchdiff.including(prepared, headers, repo_root(), touched.functions)
        touched = dataclasses.replace(touched, functions=more)
    if not touched.functions:
        raise UsageError(patch_block.untouched(rng, touched.files, touched.others))
    say(f"{rng.spec()}: touches {', '.join(touched.functions)}")
    runner = measure.get_runner()
    known = measure.listing(runner)
    brought: dict[str, list[str]] = {}
    for lab in dict.fromkeys(patch.lab_of(name) for name in touched.functions):
        primitives = [patch.primitive_of(n) for n in touched.functions if patch.lab_of(n) == lab]
        found = variants.lab_kernels(
            lab,
            [f"{rng.root}@{rng.a},{rng.b}"],
            debian=False,
            repo=repo_root(),
            runner_build=runner.build,
            mitigations=args.mitigations,
            config=args.kernel_config,
            primitives=primitives,
        )
        for primitive in primitives:
            brought[primitive] = found.runner_args(primitive)
    requests = requests_for(list(touched.functions), brought, known, sizes, modes, rounds)
    groups = measure.run_requests(
        runner, requests, [], show_progress=sys.stderr.isatty(), repeat=args.repeat
    )
    result = measure.new_run("patch", groups, args.noisy_threshold, args.command_line)
    result.sections[patch.SECTION] = {
        **patch.section(rng, before, after, dict(touched.functions)),
        "command": patch.reproduce(args, before, after),
        "cpu_flags": patch.kernel_cpu_flags(),
        "built": f"both sides built by their own Kbuild (--kernel-config {args.kernel_config}), "
        f"loaded and patched as the kernel patches itself on this CPU (alternatives, "
        f"returns), mitigations {args.mitigations}",
    }
    problem = None
    try:
        store_run(args, result)
    except HotpathError as err:
        problem = f"the run was not stored: {err}"
    evidence = patch.from_run(result, args.threshold)  # as --show reads it back
    _print(args, [evidence])
    if problem is not None:
        raise HotpathError(f"{problem}; the results are printed above")
    return 1 if evidence.wrong else 0


def requests_for(
    functions: list[str],
    kernels: dict[str, list[str]],
    known: measure.Listing,
    sizes: tuple[int, ...] | None,
    modes: tuple[str, ...],
    rounds: int,
) -> list[measure.Request]:
    """One request per touched function's primitive: the reference and both sides."""
    requests = []
    for name in functions:
        function = BY_NAME[name]
        lab = LABS[function.lab]
        primitive = known.primitive(function.primitive)
        if primitive is None or not primitive.variants:
            raise UsageError(f"the runner has no primitive {function.primitive} (make)")
        own = measure.own_sizes(known, function.primitive)
        requests.append(
            measure.Request(
                primitive=function.primitive,
                sizes=sizes or function.default_sizes() or lab.sizes_for(function.primitive, own),
                aligns=lab.default_aligns[:1] if function.lab == "fn" else lab.default_aligns,
                modes=modes,
                rounds=rounds,
                variants=(primitive.variants[0].name,),  # the reference, beside the sides
                brought=kernels.get(function.primitive, []),
            )
        )
    return requests


def show(args: argparse.Namespace, rng: patch.Range) -> int:
    """The stored evidence of A..B from every machine, measuring nothing."""
    from hotpath.db.access import check_db_path, db_path
    from hotpath.store import Store

    commits = patch.commits_for_show(rng)
    path = db_path(args)
    check_db_path(path, write=False)
    store = Store.open(path, create=False)
    try:
        runs = patch.stored(store, commits)
    finally:
        store.close()
    if not runs:
        raise UsageError(
            f"hotpath patch --show '{args.range}': no run of {commits[0][:12]}..{commits[1][:12]} "
            f"in {path}; allowed: a pair `hotpath patch` measured (see hotpath history)"
        )
    evidences = [patch.from_run(r, args.threshold) for r in runs]
    _print(args, evidences)
    return 0


def _print(args: argparse.Namespace, evidences: list[patch.Evidence]) -> None:
    if args.json:
        doc = patch_block.to_json(evidences)
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    elif args.markdown:
        sys.stdout.write(patch_block.markdown(evidences))
    else:
        sys.stdout.write(patch_block.report(evidences))
