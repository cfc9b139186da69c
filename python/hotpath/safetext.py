# SPDX-License-Identifier: GPL-2.0-only
"""Text that came from a file (a profile, a snapshot) on its way to a terminal,
a tuned.conf or a kernel file.

One rule for all of it: no control characters. A newline in a profile's
summary would start a new section of a tuned.conf ("[sysctl]" and a
core_pattern that pipes core dumps to a program), a newline in a snapshot's
value a second sysctl, an escape sequence would rewrite the user's
terminal. Loading refuses such text (unsafe() names the first character);
escaped() is the second line of defence wherever text is printed or
written anyway.
"""

import unicodedata

# Cc: C0 and C1 controls (newline, carriage return, escape, NEL); Zl, Zp: the
# line and paragraph separators Python's splitlines() breaks lines at; Cf:
# format characters (the bidirectional overrides that show text out of order).
_UNSAFE = frozenset({"Cc", "Cf", "Zl", "Zp"})
ALLOWED = "printable text without control or format characters"


def _is_unsafe(char: str) -> bool:
    return unicodedata.category(char) in _UNSAFE


def unsafe(text: str) -> str | None:
    """None when `text` is safe; else its first unsafe character, named (U+000A at 12)."""
    for index, char in enumerate(text):
        if _is_unsafe(char):
            return f"U+{ord(char):04X} at character {index + 1}"
    return None


def escaped(text: str, lines: bool = False) -> str:
    """`text` with each unsafe character written as a Python escape (\\n,
    \\x1b, \\u2028); with `lines`, a newline kept (multi-line text, such as
    the kernel's hash_stats a lab keeps, which no escape sequence rides)."""
    return "".join(
        char.encode("unicode_escape").decode("ascii")
        if _is_unsafe(char) and not (lines and char == "\n")
        else char
        for char in text
    )
