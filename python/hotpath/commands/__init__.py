# SPDX-License-Identifier: GPL-2.0-only
"""One module per subcommand; each exposes add_parser() and run(args) -> exit status."""
