# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath list [LAB]`: the runner's listing (hotpath.protocol.Listing) as
text, and as its JSON document (hotpath.list/1)."""

from typing import TYPE_CHECKING, Any

from hotpath import measured_rows

if TYPE_CHECKING:
    from hotpath.protocol import Listing, PrimitiveListing

SCHEMA = "hotpath.list/1"


def to_json(primitives: "list[PrimitiveListing]") -> dict[str, Any]:
    """The document; its variants' fields as the runner lists them."""
    return {
        "schema": SCHEMA,
        "primitives": [
            {"primitive": p.name, "lab": p.lab, "variants": [v.__dict__ for v in p.variants]}
            for p in primitives
        ],
    }


def text(known: "Listing", primitives: "list[PrimitiveListing]", lab: str | None) -> str:
    """The CPU, the dispatch row in use, and each primitive's variants with
    their status; `lab` the one asked for (None: every lab)."""
    cpu = known.cpu
    lines = [
        f"cpu: {cpu.brand} ({cpu.vendor} family {cpu.family} model {cpu.model}); "
        f"features: {', '.join(cpu.features) or 'none'}"
    ]
    if known.dispatch:
        lines += measured_rows.in_use_lines(known.dispatch)
    for prim in primitives:
        lines.append(f"\n{prim.lab} / {prim.name}")
        width = max((len(v.name) for v in prim.variants), default=7)
        for v in prim.variants:
            status = f"{v.status}: {v.reason}" if v.reason else v.status
            needs = f" [needs {', '.join(v.needs)}]" if v.needs else ""
            lines.append(f"  {v.name:<{width}}  {status:<12} {v.desc}{needs}")
    if lab is not None and not primitives:
        # crossing and tune time with programs of their own, not the runner
        lines.append(f"\nlab {lab}: no runner primitives; `hotpath {lab} --help` says what it runs")
    return "\n".join(lines) + "\n"
