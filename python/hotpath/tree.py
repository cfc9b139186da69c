# SPDX-License-Identifier: GPL-2.0-only
"""Where hotpath's source tree is: the one place that knows.

hotpath runs from its checkout (`pip install -e .`, scripts/setup.sh): the
C sources, the Makefile, the kernel module and the built-in tuning
profiles are read from there. No numpy here: the tuning lab's commands
that run without it need the profiles' folder too.
"""

from pathlib import Path

from hotpath.errors import RunnerError

# python/hotpath/tree.py -> the checkout
CHECKOUT = Path(__file__).resolve().parents[2]


def repo_root() -> Path:
    """The checkout, after checking it is one (the C sources and the Makefile)."""
    if not (CHECKOUT / "Makefile").is_file() or not (CHECKOUT / "c").is_dir():
        raise RunnerError(
            f"no hotpath source tree at {CHECKOUT}: install hotpath with "
            "`pip install -e .` from a checkout (scripts/setup.sh does)"
        )
    return CHECKOUT
