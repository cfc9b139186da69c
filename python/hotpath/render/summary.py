# SPDX-License-Identifier: GPL-2.0-only
"""A run's summary (hotpath.summary) as the terminal's text and as report.md's
Markdown; render/html.py lays out the same for report.html."""

from hotpath.findings import HEADLINE, RunSummary


def render_lines(summary: RunSummary) -> list[str]:
    """Plain text: the terminal's summary."""
    lines = ["Summary", *(f"  {line}" for line in summary.state)]
    for lab in summary.labs:
        lines.append(f"lab {lab.lab}: {lab.title}")
        for finding in lab.findings:
            lines.append(f"  - {finding.text}")
            lines.extend(f"      {detail}" for detail in finding.details)
    return lines


def render_markdown(summary: RunSummary) -> list[str]:
    lines = ["## Summary", "", *(f"- {line}" for line in summary.state)]
    lines.extend(["", "| lab | " + " | ".join(t for _, t in HEADLINE) + " |"])
    lines.append("|---" * (len(HEADLINE) + 1) + "|")
    for lab in summary.labs:
        cells = ["<br>".join(lab.headline[key]) or "-" for key, _ in HEADLINE]
        lines.append(f"| {lab.lab} | " + " | ".join(cells) + " |")
    for lab in summary.labs:
        lines.extend(["", f"### Lab {lab.lab}: {lab.title}", ""])
        for finding in lab.findings:
            lines.append(f"- {finding.text}")
            lines.extend(f"  - {detail}" for detail in finding.details)
    return lines
