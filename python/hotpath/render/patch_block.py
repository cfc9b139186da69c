# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath patch`'s printout: the verdicts, then the block to paste into
the commit message (plain text within 72 columns: the CPU and its flags,
how both sides were built, the unit and mode of every figure, the table,
the command that reproduces it); one column group per machine when the
history holds the pair from several (`--show`). Markdown and JSON
(hotpath.patch/1) carry the same."""

from typing import Any

from hotpath import __version__
from hotpath.compare import FigureComparison
from hotpath.patch import Evidence, Range, section
from hotpath.render import commit_block, compare_text
from hotpath.render.commit_block import WIDTH, wrap
from hotpath.verdicts import FASTER, SLOWER

SCHEMA = "hotpath.patch/1"
LETTER = {FASTER: "F", SLOWER: "S"}


def untouched(rng: Range, files: tuple[str, ...], others: tuple[str, ...]) -> str:
    """Why there is nothing to measure: what the range did touch."""
    said = ", ".join(files[:12]) + (f" and {len(files) - 12} more" if len(files) > 12 else "")
    named = f"; the functions its hunks are in: {', '.join(others[:12])}" if others else ""
    return (
        f"hotpath patch '{rng.spec()}': touches no catalogue function (hotpath kernels "
        f"{rng.root} lists them); it changed {said or 'no file'}{named}"
    )


def _machine(e: Evidence) -> str:
    m = e.run.machine
    flags = e.run.sections.get("patch", {}).get("cpu_flags") or m.cpu_features
    return f"{m.one_line()}; CPU flags: {' '.join(flags) or 'n/a'}"


def _how(e: Evidence) -> str:
    section = e.run.sections.get("patch", {})
    built = str(section.get("built", "both sides built by their own Kbuild"))
    built = built[:1].upper() + built[1:]
    replicas = max((len(r.a.replica_medians) for r in e.comparison.rows), default=0)
    per = f"median of {replicas} runner processes a side" if replicas > 1 else "median"
    return (
        f"{built}. {commit_block.units(e.comparison).capitalize()} per call, {per}; "
        f"verdicts at a {e.comparison.threshold:.0%} threshold (hotpath {__version__})."
    )


def _wrong_lines(e: Evidence) -> list[str]:
    lines = []
    for v in e.wrong:
        f = v.info.failure
        case = (
            f"at {f.length} B, align {f.align}, seed {f.seed:#x}: {f.what}, expected "
            f"{f.expected:#x}, got {f.got:#x}"
            if f is not None
            else "(no case kept)"
        )
        lines += wrap(f"WRONG: {v.info.name} ({v.primitive}) {case}; not timed.")
    return lines


def block(e: Evidence) -> list[str]:
    """The commit message's block for one machine."""
    before, after = e.before, e.after
    lines = wrap(
        f"Before: {before.rev} ({before.commit[:12]}), after: {after.rev} ({after.commit[:12]}); "
        f"{', '.join(e.functions)}."
    )
    lines += wrap(f"Machine: {_machine(e)}.")
    lines += wrap(_how(e))
    lines += ["", *commit_block.plain(e.comparison), *_wrong_lines(e)]
    if e.command:
        lines += ["", "Reproduce:", *commit_block.command_lines(e.command)]
    return lines


def _several(evidences: list[Evidence]) -> list[str]:
    """One table, a column group per machine (A, B, ...), each its own verdicts."""
    labels = [chr(ord("A") + i) for i in range(len(evidences))]
    lines = []
    for label, e in zip(labels, evidences, strict=True):
        lines += wrap(f"{label}: {_machine(e)}.", indent="   ")
    first = evidences[0]
    lines += wrap(
        f"Before: {first.before.rev} ({first.before.commit[:12]}), after: {first.after.rev} "
        f"({first.after.commit[:12]}); {commit_block.units(first.comparison)} per call, "
        "medians; change after/before, F faster, S slower, = neither beyond the threshold, "
        "? no evidence of a difference."
    )
    wide = len(evidences) <= 2  # before and after fit beside the change for two
    keys: dict[tuple[str, int, int, str], dict[int, FigureComparison]] = {}
    for i, e in enumerate(evidences):
        for row in e.comparison.rows:
            keys.setdefault((row.a.primitive, row.a.size, row.a.align, row.a.mode), {})[i] = row
    head = ["figure", "mode"]
    for label in labels:
        head += [f"{label} before", "after", "change"] if wide else [f"{label} change"]
    table = [head]
    for (primitive, size, align, mode), found in keys.items():
        cells = [f"{primitive} {size} B" + (f" +{align}" if align else ""), mode]
        for i in range(len(evidences)):
            got = found.get(i)
            change = _change(got)
            if wide:
                cells += [_med(got, "a"), _med(got, "b"), change]
            else:
                cells.append(change)
        table.append(cells)
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    lines.append("")
    for cells in table:
        text = "  ".join(
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )
        lines.append(text.rstrip()[:WIDTH])
    for e in evidences:
        lines += _wrong_lines(e)
    if first.command:
        lines += ["", "Reproduce:", *commit_block.command_lines(first.command)]
    return lines


def _med(row: FigureComparison | None, side: str) -> str:
    if row is None:
        return "-"
    return commit_block._number(getattr(row, side).median)


def _change(row: FigureComparison | None) -> str:
    if row is None:
        return "-"
    letter = LETTER.get(row.verdict, "?" if row.verdict == "no evidence of a difference" else "=")
    return f"{(row.ratio - 1) * 100:+.1f}% {letter}"


def commit_lines(evidences: list[Evidence]) -> list[str]:
    return block(evidences[0]) if len(evidences) == 1 else _several(evidences)


def report(evidences: list[Evidence]) -> str:
    """The terminal's: compare's verdict table per machine, then the block."""
    parts = []
    for e in evidences:
        where = f" (run {e.run.run_id})" if e.run.run_id is not None else ""
        parts.append(f"hotpath patch {e.before.rev}..{e.after.rev}{where}:")
        parts += [f"  {name}: {why}" for name, why in e.functions.items()]
        parts.append(compare_text.render(e.comparison))
    rule = "-" * WIDTH
    parts += [f"For the commit message ({WIDTH} columns):", rule, *commit_lines(evidences), rule]
    return "\n".join(parts) + "\n"


def markdown(evidences: list[Evidence]) -> str:
    out = []
    for e in evidences:
        out += [
            f"**{e.before.rev} → {e.after.rev}** ({e.before.commit[:12]}..{e.after.commit[:12]}): "
            f"{', '.join(e.functions)}",
            "",
            f"Machine: {_machine(e)}. {_how(e)}",
            "",
            *commit_block.markdown(e.comparison),
            *(f"- {line}" for line in _wrong_lines(e)),
            "",
        ]
    if evidences[0].command:
        out.append(f"Reproduce: `{evidences[0].command}`")
    return "\n".join(out) + "\n"


def to_json(evidences: list[Evidence]) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "machines": [
            {
                "run_id": e.run.run_id,
                "machine": e.run.machine.to_json(),
                "machine_key": e.run.machine.key(),
                **section(e.range, e.before, e.after, e.functions),
                "command": e.command,
                "figures": compare_text.to_json(e.comparison)["figures"],
                "wrong": [v.to_json() for v in e.wrong],
            }
            for e in evidences
        ],
        "commit_block": commit_lines(evidences),
    }
