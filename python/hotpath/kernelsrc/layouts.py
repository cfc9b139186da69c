# SPDX-License-Identifier: GPL-2.0-only
"""Which files of a kernel tree hotpath builds, and what it times from them.

A component is one piece of the kernel's x86 code in one file layout: the
tree files compiled (sources), the tree headers put in front of the shim
(headers: what holds the code under test, such as checksum_64.h's inline
csum_fold()), the tree files only the glue includes (included), the glue
of hotpath's own that gives the runner an entry point where the kernel has
none with the primitive's signature (c/kshim/glue/), and the entries: each
a variant, its primitive and the symbol the runner calls.

A tree is checked against a component before anything is built: every
file present and every symbol it names found in it, else the tree is
refused, naming the file or symbol (exit 2). A tree that has moved on to a
layout the shim does not know yet (`newer`) is refused naming what it
found instead.
"""

from dataclasses import dataclass

LINUX_SOURCE_PACKAGES = ("linux-source-6.1", "linux-source-6.12")


@dataclass(frozen=True)
class Entry:
    """One variant a component gives: `suffix` "" is the kernel's own entry."""

    primitive: str
    symbol: str
    suffix: str
    where: str  # the tree file the timed code is in
    desc: str
    needs: tuple[str, ...] = ()
    promise: int = 0  # the primitive's promise value (c/include/hotpath/<lab>.h)
    min_len: int = 0  # the shortest length it is defined for


@dataclass(frozen=True)
class Patch:
    """A change the shim makes to a tree file before building it, and why.
    Applied where `old` is found (once, whole lines); said in the origin."""

    path: str
    old: str
    new: str
    why: str


@dataclass(frozen=True)
class Component:
    name: str
    lab: str
    kernels: str  # the releases with this layout, for messages
    sources: tuple[str, ...]
    headers: tuple[str, ...]
    included: tuple[str, ...]
    glue: str  # under c/kshim/glue/
    symbols: tuple[tuple[str, str], ...]  # (file, text) each must contain
    entries: tuple[Entry, ...]
    patches: tuple[Patch, ...] = ()
    newer: tuple[tuple[str, str], ...] = ()  # (file, layout it means)

    def files(self) -> tuple[str, ...]:
        return (*self.sources, *self.headers, *self.included)


CSUM = Component(
    name="csum",
    lab="csum",
    kernels="Linux 5.17 and later",
    sources=(
        "arch/x86/lib/csum-partial_64.c",
        "arch/x86/lib/csum-wrappers_64.c",
        "arch/x86/lib/csum-copy_64.S",
    ),
    headers=(
        "arch/x86/include/asm/checksum.h",
        "arch/x86/include/asm/checksum_64.h",
        "arch/x86/include/asm/word-at-a-time.h",
    ),
    included=(),
    glue="csum.c",
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
            "hp_kshim_csum_fold",
            "",
            "arch/x86/include/asm/checksum_64.h",
            "the kernel's inline csum_fold() in a function of hotpath's glue",
        ),
        Entry(
            "ip_fast_csum",
            "hp_kshim_ip_fast_csum",
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
            "hp_kshim_csum_copy",
            "",
            "arch/x86/lib/csum-copy_64.S",
            "the kernel's csum_partial_copy_nocheck() (csum_partial_copy_generic, "
            "its exception table emulated), the seed added with csum_add() as its "
            "callers add theirs",
            promise=1,  # HP_CSUM_COPY_ONES: its sum is seeded with ~0
        ),
    ),
)

CRC32C_INTEL = Component(
    name="crc32c-intel",
    lab="crc32c",
    kernels="the crypto driver, Linux 6.1 to 6.13",
    sources=("arch/x86/crypto/crc32c-pcl-intel-asm_64.S",),
    headers=(),
    included=("arch/x86/crypto/crc32c-intel_glue.c",),
    glue="crc32c_shash.c",
    symbols=(
        ("arch/x86/crypto/crc32c-intel_glue.c", "crc32c_pcl_intel_update("),
        ("arch/x86/crypto/crc32c-intel_glue.c", "crc32c_intel_le_hw("),
        ("arch/x86/crypto/crc32c-pcl-intel-asm_64.S", "crc_pcl"),
    ),
    entries=(
        Entry(
            "crc32c",
            "hp_kshim_crc32c",
            "",
            "arch/x86/crypto/crc32c-intel_glue.c",
            "the kernel's crc32c() as libcrc32c reaches it: the update the crc32c-intel "
            "module registered for this CPU (crc32c_pcl_intel_update with PCLMULQDQ: "
            "crc_pcl from 512 B), called through the shash",
            needs=("sse4.2",),
        ),
        Entry(
            "crc32c",
            "hp_kshim_crc32c_crc32q",
            ":crc32q",
            "arch/x86/crypto/crc32c-intel_glue.c",
            "the kernel's crc32c_intel_le_hw() alone: one crc32q stream",
            needs=("sse4.2",),
        ),
        Entry(
            "crc32c",
            "hp_kshim_crc32c_pcl",
            ":pcl",
            "arch/x86/crypto/crc32c-pcl-intel-asm_64.S",
            "the kernel's crc_pcl() alone, between kernel_fpu_begin() and kernel_fpu_end(): "
            "three crc32q streams recombined with PCLMULQDQ",
            needs=("sse4.2", "pclmulqdq"),
        ),
    ),
    patches=(
        Patch(
            "arch/x86/crypto/crc32c-pcl-intel-asm_64.S",
            "\tmov\tjump_table(,%rax,8), %bufp\n",
            "\tleaq\tjump_table(%rip), %bufp\n\tmov\t(%bufp,%rax,8), %bufp\n",
            "its absolute jump-table load cannot be linked into a shared object; made "
            "RIP-relative as later kernels have it (one lea more per call from 512 B)",
        ),
    ),
    newer=(("arch/x86/lib/crc32-glue.c", "the CRC library glue of Linux 6.14 to 6.16"),),
)

CRC32C_LIB = Component(
    name="crc32c-lib",
    lab="crc32c",
    kernels="lib/crc/x86 with an AVX-512 path for CRC32C, mainline from mid-2025",
    sources=("lib/crc/x86/crc32c-3way.S", "lib/crc/x86/crc32-pclmul.S"),
    headers=(),
    included=(
        "lib/crc/x86/crc32.h",
        "lib/crc/x86/crc-pclmul-template.h",
        "lib/crc/x86/crc-pclmul-consts.h",
        "lib/crc/x86/crc-pclmul-template.S",
    ),
    glue="crc32c_lib.c",
    symbols=(
        ("lib/crc/x86/crc32.h", "crc32c_arch("),
        ("lib/crc/x86/crc32.h", "crc32_mod_init_arch("),
        ("lib/crc/x86/crc32.h", "have_vpclmul_avx512"),
        ("lib/crc/x86/crc32c-3way.S", "crc32c_x86_3way"),
        ("lib/crc/x86/crc32-pclmul.S", "DEFINE_CRC_PCLMUL_FUNCS(crc32_lsb,"),
        ("lib/crc/x86/crc-pclmul-consts.h", "crc32_lsb_0x82f63b78_consts"),
    ),
    entries=(
        Entry(
            "crc32c",
            "hp_kshim_crc32c",
            "",
            "lib/crc/x86/crc32.h",
            "the kernel's crc32c() (crc32c_arch): one crc32q stream below 512 B; from 512 B "
            "crc32_lsb_vpclmul_avx512 where the CPU has VPCLMULQDQ and an AVX-512 the kernel "
            "does not shun, else crc32c_x86_3way; its static keys set for this CPU",
            needs=("sse4.2",),
        ),
        Entry(
            "crc32c",
            "hp_kshim_crc32c_3way",
            ":3way",
            "lib/crc/x86/crc32c-3way.S",
            "the kernel's crc32c_x86_3way() alone, between kernel_fpu_begin() and "
            "kernel_fpu_end(): three crc32q streams recombined with PCLMULQDQ",
            needs=("sse4.2", "pclmulqdq"),
        ),
        Entry(
            "crc32c",
            "hp_kshim_crc32c_vpclmul",
            ":vpclmul",
            "lib/crc/x86/crc-pclmul-template.S",
            "the kernel's crc32_lsb_vpclmul_avx512() alone with CRC32C's constants, between "
            "kernel_fpu_begin() and kernel_fpu_end(): 512-bit VPCLMULQDQ folding (16 B and up)",
            needs=("avx512bw", "avx512vl", "vpclmulqdq"),
            min_len=16,
        ),
    ),
    newer=(("arch/x86/lib/crc32-glue.c", "the CRC library glue of Linux 6.14 to 6.16"),),
)

COMPONENTS: tuple[Component, ...] = (CSUM, CRC32C_INTEL, CRC32C_LIB)

# The AVC's lookup: built only by a tree's own Kbuild (kbuilt.py), never by
# the shim (avc.c needs most of the SELinux headers), so not in COMPONENTS.
AVC = Component(
    name="avc",
    lab="avc",
    kernels="Linux 5.x to 6.18 (6.19 hashes with MurmurHash3, not in a Debian package)",
    sources=(),
    headers=(),
    included=("security/selinux/avc.c",),
    glue="avc.c",
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

# What `hotpath kernels fetch` extracts from a linux-source package.
SOURCE_FILES: tuple[str, ...] = (
    "Makefile",
    *dict.fromkeys(f for c in COMPONENTS for f in c.files()),
)


def components_for(lab: str) -> tuple[Component, ...]:
    return tuple(c for c in COMPONENTS if c.lab == lab)
