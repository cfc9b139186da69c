# SPDX-License-Identifier: GPL-2.0-only
"""The shape every lab has (see hotpath.labs for how to add one)."""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hotpath.errors import UsageError
from hotpath.inputs import MODES, shown
from hotpath.seedtable_spec import SeedTable
from hotpath.versions import version_key

if TYPE_CHECKING:
    from hotpath.protocol import Variant


def _linux_version(variant: "Variant") -> tuple[int, ...]:
    """The kernel version a real kernel's origin names ("..., Linux 6.12.117: ...")."""
    match = re.search(r"\bLinux (\d+\.\d+\S*?):", variant.origin)
    return version_key(match.group(1)) if match else (0,)


# `hotpath <lab> --rounds`'s default: samples per figure.
DEFAULT_ROUNDS = 400


@dataclass(frozen=True)
class Part:
    """One primitive's share of a suite where it differs from the lab's (None: the lab's)."""

    sizes: tuple[int, ...] | None = None
    aligns: tuple[int, ...] | None = None
    modes: tuple[str, ...] | None = None


@dataclass(frozen=True)
class PrimitivePlan:
    """What `hotpath run` asks the runner for, for one primitive."""

    sizes: tuple[int, ...]
    aligns: tuple[int, ...]
    modes: tuple[str, ...]


@dataclass(frozen=True)
class Suite:
    """What `hotpath run` measures for a lab (all modes unless narrowed).

    sizes, aligns and modes hold for every primitive of the lab, except
    where `parts` names the primitive: a crc32c that runs to 1 MiB beside a
    combine measured at two lengths, say.
    """

    sizes: tuple[int, ...]
    aligns: tuple[int, ...]
    rounds: int
    quick_rounds: int
    modes: tuple[str, ...] = MODES
    parts: Mapping[str, Part] = field(default_factory=dict)

    def plan(self, primitive: str) -> PrimitivePlan:
        part = self.parts.get(primitive, Part())
        return PrimitivePlan(
            sizes=part.sizes if part.sizes is not None else self.sizes,
            aligns=part.aligns if part.aligns is not None else self.aligns,
            modes=part.modes if part.modes is not None else self.modes,
        )


@dataclass(frozen=True)
class Roles:
    """What a primitive's registry says its variants are (their flags in the
    runner's listing): hotpath's own ("own") and the re-implementations of
    a released kernel's code ("reimplemented"). Never guessed from names."""

    own: str | None = None
    reimplemented: frozenset[str] = frozenset()

    @classmethod
    def of(cls, variants: "Sequence[Variant]") -> "Roles":
        return cls(
            own=next((v.name for v in variants if "own" in v.flags), None),
            reimplemented=frozenset(v.name for v in variants if "reimplemented" in v.flags),
        )

    def label(self, name: str) -> str:
        """How a summary names a variant: a re-implementation says so."""
        return f"re-implemented {name}" if name in self.reimplemented else name


@dataclass(frozen=True)
class Lab:
    """A lab as the Python side sees it: plain data (labs/<lab>/spec.py).
    Which primitives belong to it is the runner's to say (`hotpath-bench
    list`: each primitive names its lab); this holds only what the CLI and
    the reports add. What a lab does beyond the engine is its LabHooks
    (labs/<lab>/hooks.py), reached from the commands (commands/labs.py)."""

    name: str
    title: str
    # What `hotpath <lab>` times when no --sizes or --align are given (the
    # engine labs'; a lab of its own timing has its own options).
    default_sizes: tuple[int, ...] = ()
    default_aligns: tuple[int, ...] = ()
    # What `hotpath run` asks the runner for; None: the lab has no runner
    # primitives (crossing: own_suite; tune: never in `hotpath run`).
    suite: Suite | None = None
    default_modes: tuple[str, ...] = MODES
    default_rounds: int = DEFAULT_ROUNDS
    # Column words for an alignment; others print as "+N".
    align_names: Mapping[int, str] = field(default_factory=dict)
    # Sizes are bytes: plots also show bytes per cycle.
    sizes_are_bytes: bool = True
    # What a size counts, in column labels ("40 B even", "50 adds").
    size_unit: str = "B"
    # False where the lab has one alignment only: columns name the size alone.
    show_align: bool = True
    # A seed's published tables to reproduce, each behind its own flag
    # (`hotpath crc32c --skb-table`); see hotpath.seedtable_spec.
    seed_tables: tuple[SeedTable, ...] = ()
    # What `hotpath <lab>` and `hotpath run` time when no --primitive is
    # named, first = the --with target; None: every primitive of the lab.
    # The others stay reachable with --primitive, at their own sizes.
    default_primitives: tuple[str, ...] | None = None
    # The kernel's versions of a primitive, oldest first, the newest being
    # the kernel's current code: the report's summary sets it against its
    # predecessors. A primitive not named here has one kernel variant at most.
    kernel_lineage: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Per primitive, each re-implementation of a released kernel's code ->
    # the real kernel variant (hotpath.kernelsrc) that has that code: the
    # summary sets one beside the other (its fidelity).
    counterparts: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # False where figures are not a cost against size: no plot is drawn.
    plotted: bool = True
    # False where the lab has commands of its own (tune) instead of the
    # engine labs' `hotpath <lab>`.
    subcommand: bool = True

    def chosen(self, members: list[str], wanted: str | None) -> tuple[str, ...]:
        """The primitives to time: `wanted` (checked against `members`, the
        runner's primitives of this lab) or the defaults present."""
        if wanted is not None:
            if wanted not in members:
                raise UsageError(
                    f"primitive '{shown(wanted)}': not in lab {self.name}; allowed: "
                    f"{', '.join(members)}"
                )
            return (wanted,)
        if self.default_primitives is None:
            return tuple(members)
        return tuple(p for p in self.default_primitives if p in members)

    def is_default(self, primitive: str) -> bool:
        return self.default_primitives is None or primitive in self.default_primitives

    def sizes_for(self, primitive: str, own: tuple[int, ...]) -> tuple[int, ...]:
        """Sizes when none are given: the lab's for its default primitives,
        else the primitive's own (`own`, from the runner's listing)."""
        return self.default_sizes if self.is_default(primitive) else own or self.default_sizes

    def plan(self, primitive: str, own: tuple[int, ...]) -> PrimitivePlan:
        """What `hotpath run` measures for one primitive of the lab: the
        suite's, or a primitive beside the defaults at its own sizes."""
        if self.suite is None:
            raise ValueError(f"lab {self.name} has no suite of runner primitives")
        plan = self.suite.plan(primitive)
        if primitive in self.suite.parts or self.is_default(primitive) or not own:
            return plan
        return PrimitivePlan(sizes=own, aligns=plan.aligns, modes=plan.modes)

    def kernel_variants(self, primitive: str, variants: "Sequence[Variant]") -> tuple[str, ...]:
        """The kernel's variants of a primitive among `variants`, oldest first.

        The real kernels' own code where the run has it (flagged "kernel",
        hotpath.kernelsrc: ordered by the version their origin names; a
        path of a kernel's dispatch, "linux-6.12:pcl", is not a kernel of
        its own, and "linux-6.12+host" (--mitigations host) is one only in
        a run without the plain ones); else the re-implementations (flagged "reimplemented" by
        their registry): the lab's lineage, else the only one.
        """
        real = [v for v in variants if "kernel" in v.flags and ":" not in v.name]
        # One lineage per mitigations mode (--mitigations off,host): the
        # plain ones where the run has them, else the +host ones.
        plain = [v for v in real if not v.name.endswith("+host")]
        real = plain or real
        if real:
            ordered = sorted(enumerate(real), key=lambda iv: (_linux_version(iv[1]), iv[0]))
            return tuple(v.name for _, v in ordered)
        names = [v.name for v in variants]
        lineage = self.kernel_lineage.get(primitive)
        if lineage is not None:
            return tuple(n for n in lineage if n in names)
        kernel = sorted(Roles.of(variants).reimplemented)
        return tuple(kernel[:1]) if len(kernel) == 1 else ()

    def align_label(self, align: int) -> str:
        return self.align_names.get(align, f"+{align}")

    def column_label(self, size: int, align: int) -> str:
        label = f"{size} {self.size_unit}".rstrip()
        return f"{label} {self.align_label(align)}" if self.show_align else label
