# SPDX-License-Identifier: GPL-2.0-only
"""A progress display for long runner invocations, on stderr only.

The runner prints `progress DONE TOTAL` lines with --progress. On a terminal
this draws one self-overwriting bar; when stderr is a file or pipe (CI logs)
it prints a plain line at each quarter instead, so logs stay short. No
dependency: a bar is a few characters.
"""

import sys
from typing import TextIO

BAR_WIDTH = 30


class ProgressBar:
    def __init__(
        self, label: str, stream: TextIO | None = None, is_tty: bool | None = None
    ) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.is_tty = self.stream.isatty() if is_tty is None else is_tty
        self._last_quarter = -1
        self._drawn = False

    def update(self, done: int, total: int) -> None:
        if total <= 0:
            return
        done = max(0, min(done, total))
        fraction = done / total
        if self.is_tty:
            filled = int(fraction * BAR_WIDTH)
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            self.stream.write(f"\r{self.label} [{bar}] {fraction:4.0%} ({done}/{total})")
            self.stream.flush()
            self._drawn = True
            return
        quarter = int(fraction * 4)
        if quarter > self._last_quarter:
            self._last_quarter = quarter
            self.stream.write(f"{self.label}: {fraction:.0%} ({done}/{total})\n")
            self.stream.flush()

    def finish(self) -> None:
        if self.is_tty and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
