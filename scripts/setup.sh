#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# hotpath set-up on a fresh Debian 12 machine, run as root; idempotent.
#
#   1. Debian packages, installed only when missing (apt-get update only then)
#   2. the Python environment .venv with hotpath and its dev tools (editable)
#   3. the C build (make)
#   4. Debian's linux-source 6.1 and 6.12 trees, downloaded once and
#      prepared by their own Kbuild with Debian's config into the cache
#      (`hotpath kernels prepare`, about 35 s each the first time, 1.5 to
#      1.7 GB each in ~/.cache/hotpath/kbuild)
#   5. this machine's dispatch row (`hotpath dispatch --save --rounds 20`,
#      20 to 40 s): which method of hp_csum()/hp_crc32c() wins at each
#      length on this CPU, kept in the user's cache under the CPU's key,
#      where libhotpath and libhpsum find it when they load (docs/dispatch.md)
#
# Usage: scripts/setup.sh [--deps-only]
#   --deps-only   what `make test` calls: steps 1 to 4, no measurement (the
#                 tests never read the user's cache).
# Environment:
#   HOTPATH_WITH_DPDK=1   also install libdpdk-dev (about 200 packages) for
#                         the DPDK peer variants
#   VENV=path             the virtual environment (default .venv)
#
# Labs that need more Debian packages add them to DEBIAN_PACKAGES below.

set -euo pipefail

DEBIAN_PACKAGES=(build-essential pkg-config python3-venv graphviz llvm clang libclang-rt-14-dev libisal-dev liburing-dev)
if [[ "${HOTPATH_WITH_DPDK:-0}" == "1" ]]; then
	DEBIAN_PACKAGES+=(libdpdk-dev)
fi
# The guest-kernel runner (python/hotpath/guest): QEMU with qboot, a static
# busybox for the initramfs, libelf1 for the kernel packages' objtool.
DEBIAN_PACKAGES+=(qemu-system-x86 busybox-static libelf1)

# Whole kernel trees prepared by their own Kbuild (python/hotpath/kernelsrc/
# kbuild.py: make olddefconfig, modules_prepare, single objects): flex and
# bison for Kconfig and genksyms, libelf-dev for objtool, libssl-dev for
# sign-file and extract-cert, bc for include/generated/timeconst.h. Not needed:
# dwarves (pahole: BTF is switched off), cpio (kheaders), rsync (headers_install).
# bubblewrap: as root, a tree's code runs contained (kernelsrc/contain.py).
DEBIAN_PACKAGES+=(flex bison libelf-dev libssl-dev bc bubblewrap)

# The report's browser test (tests/py/test_report_browser.py): Debian's
# Chromium and its chromedriver, never a browser fetched at run time.
DEBIAN_PACKAGES+=(chromium chromium-driver)

# The tuning lab's evaluate workloads (python/hotpath/labs/tune/workloads.py):
# hackbench from rt-tests, `perf bench` from linux-perf.
DEBIAN_PACKAGES+=(rt-tests linux-perf)

# The history's PostgreSQL tests (tests/py/test_pg_store.py): Debian's
# server, which they start as a throwaway cluster (initdb, pg_ctl) in a
# temporary folder (psql comes with it).
DEBIAN_PACKAGES+=(postgresql)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-.venv}"

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: FAILED: %s\n' "$*" >&2; exit 1; }
trap 'die "command failed (line $LINENO): $BASH_COMMAND"' ERR

case "${1:-}" in
"" | --deps-only) ;;
-h | --help) sed -n '4,24p' "$0"; exit 0 ;;
*) printf 'setup: unknown option %q; allowed: --deps-only\n' "$1" >&2; exit 2 ;;
esac

cd "$ROOT"

missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
	status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
	[[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done
if ((${#missing[@]})); then
	[[ $EUID -eq 0 ]] || die "need root to install: ${missing[*]}"
	say "installing Debian packages: ${missing[*]}"
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
else
	say "Debian packages present: ${DEBIAN_PACKAGES[*]}"
fi

PYTHON="${PYTHON:-python3}"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
	die "$PYTHON is $("$PYTHON" --version 2>&1); hotpath needs Python >= 3.11"
if [[ ! -x "$VENV/bin/python" ]]; then
	say "creating $VENV with $PYTHON -m venv"
	"$PYTHON" -m venv "$VENV"
else
	say "$VENV exists"
fi
say "installing hotpath (editable) with dev tools into $VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet -e '.[dev]'

say "building the C library, runner and tests (make)"
make

# The real kernels' code the csum, crc32c and avc labs time
# (hotpath.kernelsrc). A package list older than the archive names files
# it no longer has: then the lists are updated once and the preparation
# tried again.
say "Debian's kernel trees, prepared by their own Kbuild (hotpath kernels prepare)"
if ! "$VENV/bin/hotpath" kernels prepare; then
	[[ $EUID -eq 0 ]] || die "hotpath kernels prepare failed; as root, apt-get update may help"
	apt-get update
	"$VENV/bin/hotpath" kernels prepare
fi

if [[ "${1:-}" != --deps-only ]]; then
	say "this machine's dispatch row (hotpath dispatch --save)"
	"$VENV/bin/hotpath" dispatch --save --rounds 20 | tail -n 1
fi

say "done: run '$VENV/bin/hotpath --help', or 'make test'"
