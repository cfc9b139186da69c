# SPDX-License-Identifier: GPL-2.0-only
"""What a summary is made of: findings per lab, the one-row answer, the
machine's state once.

hotpath.summary derives them from a run's figures; a lab that times with a
program of its own (the crossing lab) makes its LabSummary itself; every
format (terminal, Markdown, HTML) renders the same RunSummary. Below all of
them, so none imports another to share these.
"""

from dataclasses import dataclass, field

GOOD, BAD, NEUTRAL = "good", "bad", "neutral"
# The one-row answer per lab, in this order: (key, column title).
HEADLINE = (
    ("fastest", "fastest"),
    ("own", "hotpath's own"),
    ("kernel", "the kernel's newest"),
    ("claims", "seed's claims"),
    ("problems", "not timed, noise"),
)


@dataclass
class Finding:
    """One line of a lab's summary; `tone` colours it in HTML."""

    topic: str  # "fastest", "own", "kernel", "fidelity", "claim", "not timed", "noise"
    text: str
    tone: str = NEUTRAL
    details: list[str] = field(default_factory=list)  # sub-lines (per mode)
    headline: str | None = None  # its short form in the lab's one-row answer


@dataclass
class LabSummary:
    lab: str
    title: str
    findings: list[Finding] = field(default_factory=list)
    # The one-row answer per lab, by HEADLINE key: what the first screen shows.
    headline: dict[str, list[str]] = field(default_factory=lambda: {key: [] for key, _ in HEADLINE})


@dataclass
class RunSummary:
    state: list[str]  # machine, clock, core width: once
    labs: list[LabSummary]
