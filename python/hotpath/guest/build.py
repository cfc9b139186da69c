# SPDX-License-Identifier: GPL-2.0-only
"""Build an out-of-tree kernel module against a guest kernel's headers."""

import shutil
import subprocess
import tempfile
from pathlib import Path

from hotpath.errors import HotpathError, UsageError
from hotpath.guest.kernel import KernelBundle


def build_module(source_dir: Path, bundle: KernelBundle, out_dir: Path) -> Path:
    """Build the module in source_dir (a Kbuild file and its sources) with
    `make -C bundle.build_dir M=...` in a scratch copy, so the source tree
    stays clean; copy the one .ko it makes into out_dir and return its path."""
    if not (source_dir / "Kbuild").is_file() and not (source_dir / "Makefile").is_file():
        raise UsageError(f"module source {source_dir}: allowed: a folder with a Kbuild file")
    if not (bundle.build_dir / "Makefile").is_file():
        raise HotpathError(f"{bundle.build_dir}: no kernel headers (no Makefile)")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hotpath-kmod-") as tmp:
        scratch = Path(tmp) / "src"
        shutil.copytree(source_dir, scratch, ignore=shutil.ignore_patterns("*.o", "*.ko", ".*"))
        command = ["make", "-C", str(bundle.build_dir), f"M={scratch}", "modules"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
            shown = "\n".join(errors[:20]) or done.stderr.strip()[-2000:]
            raise HotpathError(
                f"building the module in {source_dir} against {bundle.version} failed:\n{shown}"
            )
        built = sorted(scratch.glob("*.ko"))
        if len(built) != 1:
            raise HotpathError(f"make built {len(built)} modules in {source_dir}; expected one")
        target = out_dir / built[0].name
        shutil.copy2(built[0], target)
        return target
