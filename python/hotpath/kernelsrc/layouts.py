# SPDX-License-Identifier: GPL-2.0-only
"""What a kernel tree must have for a lab, and what hotpath times from it.

A component is one piece of the kernel's x86 code in one file layout: the
tree files it is made of (files: every one must be there), the symbols
they must contain, and the entries: each a variant, its primitive and the
symbol the runner calls (the kernel's own, or a function of hotpath's
glue where the kernel has none with the primitive's signature). What the
tree's own Kbuild builds of each (its targets, hotpath's glue) is here
too (KBUILD_COMPONENTS); building and loading them is kbuilt.py's. The
fn lab's components are the catalogue's (catalogue.py).

A tree is checked against a component before anything is built: every
file present and every symbol it names found in it, else the tree is
refused, naming the file or symbol (exit 2).

The CRC library of mainline from mid-2025 (lib/crc/x86: crc32c_arch(),
crc32c_x86_3way, the AVX-512 VPCLMULQDQ folding) had a layout here for
the kernel shim that built it before Kbuild did; it has no Kbuild
component yet, so a tree of that layout (and of the 6.14 to 6.16 glue,
arch/x86/lib/crc32-glue.c) is refused for the crc32c lab, naming what
it lacks.
"""

from collections.abc import Collection

from hotpath.kernelsrc.catalogue import FN_KBUILD, FN_LAYOUTS
from hotpath.kernelsrc.shapes import Component, Entry, KbuildComponent

CSUM = Component(
    name="csum",
    lab="csum",
    kernels="Linux 5.17 and later",
    files=(
        "arch/x86/lib/csum-partial_64.c",
        "arch/x86/lib/csum-wrappers_64.c",
        "arch/x86/lib/csum-copy_64.S",
        "arch/x86/include/asm/checksum.h",
        "arch/x86/include/asm/checksum_64.h",
        "arch/x86/include/asm/word-at-a-time.h",
    ),
    symbols=(
        ("arch/x86/lib/csum-partial_64.c", "csum_partial("),
        ("arch/x86/lib/csum-wrappers_64.c", "csum_ipv6_magic("),
        ("arch/x86/lib/csum-wrappers_64.c", "csum_partial_copy_nocheck("),
        ("arch/x86/lib/csum-copy_64.S", "csum_partial_copy_generic"),
        ("arch/x86/include/asm/checksum_64.h", "csum_fold("),
        ("arch/x86/include/asm/checksum_64.h", "ip_fast_csum("),
        ("arch/x86/include/asm/word-at-a-time.h", "load_unaligned_zeropad("),
    ),
    entries=(
        Entry(
            "csum_partial",
            "csum_partial",
            "",
            "arch/x86/lib/csum-partial_64.c",
            "the kernel's own csum_partial(), called directly",
        ),
        Entry(
            "csum_fold",
            "hp_glue_csum_fold",
            "",
            "arch/x86/include/asm/checksum_64.h",
            "the kernel's inline csum_fold() in a function of hotpath's glue",
        ),
        Entry(
            "ip_fast_csum",
            "hp_glue_ip_fast_csum",
            "",
            "arch/x86/include/asm/checksum_64.h",
            "the kernel's inline ip_fast_csum() in a function of hotpath's glue",
        ),
        Entry(
            "csum_ipv6_magic",
            "csum_ipv6_magic",
            "",
            "arch/x86/lib/csum-wrappers_64.c",
            "the kernel's own csum_ipv6_magic(), called directly",
        ),
        Entry(
            "csum_partial_copy",
            "hp_glue_csum_copy",
            "",
            "arch/x86/lib/csum-copy_64.S",
            "the kernel's csum_partial_copy_nocheck() (csum_partial_copy_generic, "
            "its exception table applied by the loader), the seed added with csum_add() "
            "as its callers add theirs",
            promise=1,  # HP_CSUM_COPY_ONES: its sum is seeded with ~0
        ),
    ),
)

CRC32C_INTEL = Component(
    name="crc32c-intel",
    lab="crc32c",
    kernels="the crypto driver, Linux 6.1 to 6.13",
    files=(
        "arch/x86/crypto/crc32c-pcl-intel-asm_64.S",
        "arch/x86/crypto/crc32c-intel_glue.c",
    ),
    symbols=(
        ("arch/x86/crypto/crc32c-intel_glue.c", "crc32c_pcl_intel_update("),
        ("arch/x86/crypto/crc32c-intel_glue.c", "crc32c_intel_le_hw("),
        ("arch/x86/crypto/crc32c-pcl-intel-asm_64.S", "crc_pcl"),
    ),
    entries=(
        Entry(
            "crc32c",
            "hp_glue_crc32c",
            "",
            "arch/x86/crypto/crc32c-intel_glue.c",
            "the kernel's crc32c() as libcrc32c reaches it: the update the crc32c-intel "
            "module registered for this CPU (crc32c_pcl_intel_update with PCLMULQDQ: "
            "crc_pcl from 512 B), called through the shash",
            needs=("sse4.2",),
        ),
        Entry(
            "crc32c",
            "hp_glue_crc32c_crc32q",
            ":crc32q",
            "arch/x86/crypto/crc32c-intel_glue.c",
            "the kernel's crc32c_intel_le_hw() alone: one crc32q stream",
            needs=("sse4.2",),
        ),
        Entry(
            "crc32c",
            "hp_glue_crc32c_pcl",
            ":pcl",
            "arch/x86/crypto/crc32c-pcl-intel-asm_64.S",
            "the kernel's crc_pcl() alone, between kernel_fpu_begin() and kernel_fpu_end(): "
            "three crc32q streams recombined with PCLMULQDQ",
            needs=("sse4.2", "pclmulqdq"),
        ),
    ),
)

# The AVC's lookup: avc.c's static inlines, wrapped by a glue file that
# includes the tree's avc.c (kbuilt.py).
AVC = Component(
    name="avc",
    lab="avc",
    kernels="Linux 5.x to 6.18 (6.19 hashes with MurmurHash3, not in a Debian package)",
    files=("security/selinux/avc.c",),
    symbols=(
        ("security/selinux/avc.c", "avc_search_node("),
        ("security/selinux/avc.c", "avc_hash("),
        ("security/selinux/avc.c", "AVC_CACHE_SLOTS"),
    ),
    entries=(
        Entry(
            "avc_lookup",
            "hp_glue_avc_ops",
            "",
            "security/selinux/avc.c",
            "the kernel's own avc_search_node() and avc_hash() (static inlines, called "
            "through one function of hotpath's glue) over the lab's cache, in the tree's "
            "struct avc_node and selinux_avc",
        ),
    ),
)

KBUILD_COMPONENTS = (
    KbuildComponent(
        layout=CSUM,
        targets=(
            "arch/x86/lib/csum-partial_64.o",
            "arch/x86/lib/csum-wrappers_64.o",
            "arch/x86/lib/csum-copy_64.o",
        ),
        glue="c/kload/glue/csum.c",
    ),
    KbuildComponent(
        layout=CRC32C_INTEL,
        targets=("arch/x86/crypto/crc32c-pcl-intel-asm_64.o",),
        glue="c/kload/glue/crc32c_intel.c",
        includes=("arch/x86/crypto/crc32c-intel_glue.c",),
        init="hp_glue_init",
    ),
    KbuildComponent(
        layout=AVC,
        targets=(),
        glue="c/kload/glue/avc.c",
        includes=("security/selinux/avc.c",),
        include_dirs=("security/selinux", "security/selinux/include"),
        needs=("security/selinux/avc.o",),  # generates flask.h and av_permissions.h
        stub_unreached=True,
    ),
    *FN_KBUILD,
)

COMPONENTS: tuple[Component, ...] = (CSUM, CRC32C_INTEL, AVC, *FN_LAYOUTS)


def components_for(lab: str, primitives: Collection[str] | None = None) -> tuple[Component, ...]:
    """The lab's components; with `primitives`, those with an entry of one."""
    return tuple(
        c
        for c in COMPONENTS
        if c.lab == lab
        and (primitives is None or any(e.primitive in primitives for e in c.entries))
    )


def timed_files(lab: str, primitives: Collection[str] | None = None) -> tuple[str, ...]:
    """The tree files whose code the lab times (none: no kernel variants)."""
    return tuple(dict.fromkeys(f for c in components_for(lab, primitives) for f in c.files))
