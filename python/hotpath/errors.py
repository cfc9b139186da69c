# SPDX-License-Identifier: GPL-2.0-only
"""The exceptions that end a command, each carrying its exit status.

Commands raise these instead of calling sys.exit so that the CLI has one
place that prints the message and chooses the status: 2 for bad input
(nothing has been written), 1 for a failure while doing the work.
"""


class HotpathError(Exception):
    """A failure the user should read; the message is complete on its own."""

    exit_status = 1


class UsageError(HotpathError):
    """Bad input: names the value and what is allowed. Exit status 2."""

    exit_status = 2


class RunnerError(HotpathError):
    """The C runner failed to build, crashed or broke its protocol."""

    exit_status = 1


class StoreError(HotpathError):
    """The history database cannot be used. Exit status 2: it is input."""

    exit_status = 2
