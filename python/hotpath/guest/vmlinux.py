# SPDX-License-Identifier: GPL-2.0-only
"""The uncompressed kernel (vmlinux) out of a bzImage (vmlinuz).

Debian ships no extract-vmlinux, and QEMU boots an uncompressed ELF kernel
about twice as fast as a bzImage under software emulation (the guest's own
decompressor is slow when emulated). The x86 boot protocol says where the
compressed payload lies: the setup header's payload_offset and
payload_length, counted from the start of the protected-mode code. The
payload's first bytes name its compression.
"""

import bz2
import lzma
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

from hotpath.errors import HotpathError

# Offsets in the setup header (Documentation/arch/x86/boot.rst).
_SETUP_SECTS = 0x1F1
_HDR_MAGIC = 0x202  # "HdrS"
_VERSION = 0x206
_PAYLOAD_OFFSET = 0x248
_PAYLOAD_LENGTH = 0x24C

ELF_MAGIC = b"\x7fELF"

# Compression magics, as scripts/extract-vmlinux lists them.
_MAGICS: tuple[tuple[str, bytes], ...] = (
    ("xz", b"\xfd7zXZ\x00"),
    ("gzip", b"\x1f\x8b\x08"),
    ("zstd", b"\x28\xb5\x2f\xfd"),
    ("bzip2", b"BZh"),
    ("lzma", b"\x5d\x00\x00"),
    ("lz4", b"\x02\x21\x4c\x18"),
)


def compression_of(payload: bytes) -> str:
    """The name of the compression whose magic starts payload."""
    for name, magic in _MAGICS:
        if payload.startswith(magic):
            return name
    raise HotpathError(f"bzImage payload starts with {payload[:6].hex()}: no known compression")


def payload_of(image: bytes) -> bytes:
    """The compressed kernel inside a bzImage, located from its setup header."""
    if len(image) < 0x260 or image[_HDR_MAGIC : _HDR_MAGIC + 4] != b"HdrS":
        raise HotpathError("not a bzImage: no 'HdrS' setup header at 0x202")
    (version,) = struct.unpack_from("<H", image, _VERSION)
    if version < 0x208:
        raise HotpathError(f"boot protocol {version:#x} has no payload fields (needs 2.08+)")
    setup_sects = image[_SETUP_SECTS] or 4  # 0 means 4, for old images
    (offset, length) = struct.unpack_from("<II", image, _PAYLOAD_OFFSET)
    start = (setup_sects + 1) * 512 + offset
    if length == 0 or start + length > len(image):
        raise HotpathError(f"bzImage payload {start}+{length} lies outside the file")
    return image[start : start + length]


def _decompress(kind: str, payload: bytes) -> bytes:
    # The build appends the uncompressed size (4 bytes) after the stream:
    # stream decompressors stop at the stream's end and leave it unused.
    if kind in ("xz", "lzma"):
        fmt = lzma.FORMAT_XZ if kind == "xz" else lzma.FORMAT_ALONE
        return lzma.LZMADecompressor(format=fmt).decompress(payload)
    if kind == "gzip":
        return zlib.decompressobj(wbits=31).decompress(payload)
    if kind == "bzip2":
        return bz2.BZ2Decompressor().decompress(payload)
    tool = {"zstd": "zstd", "lz4": "lz4"}[kind]
    if shutil.which(tool) is None:
        raise HotpathError(f"the kernel is {kind}-compressed: install the Debian package {tool}")
    done = subprocess.run([tool, "-dc"], input=payload, capture_output=True, check=False)
    if not done.stdout.startswith(ELF_MAGIC):
        raise HotpathError(f"{tool} -dc failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def extract_vmlinux(bzimage: Path, out: Path) -> Path:
    """Write the ELF kernel inside bzimage to out; returns out."""
    payload = payload_of(bzimage.read_bytes())
    kind = compression_of(payload)
    try:
        kernel = _decompress(kind, payload)
    except (lzma.LZMAError, zlib.error, OSError, EOFError, ValueError) as exc:
        raise HotpathError(f"{bzimage}: {kind} payload does not decompress: {exc}") from exc
    if not kernel.startswith(ELF_MAGIC):
        raise HotpathError(f"{bzimage}: the {kind} payload is not an ELF kernel")
    tmp = out.with_suffix(".partial")
    tmp.write_bytes(kernel)
    tmp.replace(out)
    return out
