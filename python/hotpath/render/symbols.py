# SPDX-License-Identifier: GPL-2.0-only
"""The non-ASCII symbols hotpath prints, and their ASCII spellings.

Renderers write these constants; ascii_fallback(stream), called by the CLI
for stdout and stderr, makes a stream whose encoding cannot encode them
(LC_ALL=C, PYTHONIOENCODING=ascii, a latin-1 terminal) spell each one in
ASCII ("±" as "+-", "≈" as "~="), through one codec error handler: every
renderer's output goes through it, none replaces characters by hand.
Files hotpath writes (report.md, report.html) are UTF-8 and keep them.
"""

import codecs
from contextlib import suppress
from typing import Any

PLUS_MINUS = "\u00b1"  # ±
APPROX = "\u2248"  # ≈

ASCII_SPELLINGS = {
    PLUS_MINUS: "+-",
    APPROX: "~=",
    "\u00d7": "x",  # multiplication sign
    "\u2264": "<=",
    "\u2265": ">=",
    "\u00b5": "u",  # micro sign
    "\u2013": "-",  # en dash
    "\u2014": "-",  # em dash
    "\u2192": "->",
    "\u2026": "...",
}
ERROR_HANDLER = "hotpath-ascii"


def ascii_spelling(text: str) -> str:
    """`text` with each symbol of ASCII_SPELLINGS spelt in ASCII, any other
    non-ASCII character as a backslash escape."""
    return "".join(
        ASCII_SPELLINGS.get(char) or char.encode("ascii", "backslashreplace").decode("ascii")
        for char in text
    )


def _spell(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeEncodeError):
        raise err
    return ascii_spelling(err.object[err.start : err.end]), err.end


codecs.register_error(ERROR_HANDLER, _spell)


def can_encode(encoding: str | None) -> bool:
    """Whether `encoding` has every symbol hotpath prints."""
    try:
        "".join(ASCII_SPELLINGS).encode(encoding or "ascii")
    except (UnicodeError, LookupError):
        return False
    return True


def ascii_fallback(stream: Any) -> str | None:
    """Make `stream` (a text stream) spell in ASCII what its encoding cannot
    encode. Returns the error handler it had, for restore(), or None when
    nothing was changed (it can encode them, or it cannot be reconfigured)."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None or can_encode(getattr(stream, "encoding", None)):
        return None
    previous: str = stream.errors
    reconfigure(errors=ERROR_HANDLER)
    return previous


def restore(stream: Any, previous: str | None) -> None:
    """Undo ascii_fallback(stream) (previous: what it returned)."""
    if previous is not None and not getattr(stream, "closed", False):
        with suppress(OSError, ValueError):  # it flushes: a closed pipe is no matter here
            stream.reconfigure(errors=previous)
