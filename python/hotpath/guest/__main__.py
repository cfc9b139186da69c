# SPDX-License-Identifier: GPL-2.0-only
"""Developers' smoke entry: boot a guest, run one command, print what came back.

python -m hotpath.guest --command 'uname -r'
python -m hotpath.guest --command 'ls /host' --share-host-root --accel tcg
"""

import argparse
import sys
import time
from pathlib import Path

from hotpath.errors import HotpathError, UsageError
from hotpath.guest.kernel import kernel_bundle
from hotpath.guest.qemu import ACCELS, run_guest


def _file_pair(text: str) -> tuple[str, Path]:
    guest, sep, host = text.partition("=")
    if not sep or not guest or not host:
        raise argparse.ArgumentTypeError(f"{text!r}: allowed: GUEST_PATH=HOST_FILE")
    return guest, Path(host)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hotpath.guest",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--command", required=True, help="busybox sh script run as root")
    parser.add_argument("--kernel", default=None, help="Debian kernel uname -r (default: newest)")
    parser.add_argument("--accel", choices=ACCELS, default="auto")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds (default 120)")
    parser.add_argument(
        "--file",
        type=_file_pair,
        action="append",
        default=[],
        metavar="GUEST=HOST",
        help="put a host file into the guest",
    )
    parser.add_argument(
        "--module",
        action="append",
        default=[],
        help="a module of the kernel package to load first (e.g. 9p)",
    )
    parser.add_argument(
        "--share-host-root", action="store_true", help="the host's / read-only at /host (9p)"
    )
    parser.add_argument("--console", action="store_true", help="print the whole console log")
    args = parser.parse_args(argv)
    try:
        start = time.monotonic()
        bundle = kernel_bundle(args.kernel)
        ready = time.monotonic() - start
        result = run_guest(
            bundle,
            args.command,
            files=dict(args.file),
            modules=args.module,
            time_limit_s=args.time_limit,
            share_host_root=args.share_host_root,
            accel=args.accel,
        )
    except HotpathError as exc:
        print(f"hotpath.guest: {exc}", file=sys.stderr)
        return exc.exit_status if isinstance(exc, UsageError) else 1
    console = result.console if args.console else "\n".join(result.console.splitlines()[-20:])
    print(console)
    print(f"kernel {bundle.version} ready in {ready:.2f} s (cache: {bundle.vmlinux.parent})")
    print(
        f"exit: {result.exit_kind}, status {result.status}"
        + (f" ({result.detail})" if result.detail else "")
    )
    print(
        f"accel: {result.accel}"
        + (" (emulated: timings are not performance figures)" if result.emulated else "")
    )
    print(f"guest run: {result.seconds:.2f} s wall clock (boot, command, power-off)")
    for name, data in sorted(result.outputs.items()):
        print(f"/out/{name}: {len(data)} bytes")
    return 0 if result.exit_kind == "done" else 1


if __name__ == "__main__":
    sys.exit(main())
