# SPDX-License-Identifier: GPL-2.0-only
"""The catalogue of kernel hot functions hotpath can time (plain data).

Each function has a kind: a calling convention with its reference, its
gate and its axes (KINDS; the runner's primitives carry the code, c/fn/
for the fn lab's). An entry names the kernel function as a developer
writes it, its kind, the lab and primitive that time it, where a tree
defines it (the file and the symbol the runner calls: the kernel's own,
or hotpath's glue where the kernel's is a static inline or takes a key
by pointer) and the kernels that have it in that form. Whether a given
tree has it is its layout's to say (shapes.Component: files and symbols
checked before anything is built).

The csum, crc32c and avc labs' functions are the labs' components
(layouts.py); the fn lab's are built here, one Kbuild component per
object (FN_KBUILD). `hotpath kernels TREE` lists what a tree provides,
`hotpath fn NAME` times one function, `hotpath patch` finds the ones a
commit touched (docs/patch.md).
"""

from dataclasses import dataclass

from hotpath.kernelsrc.shapes import Component, Entry, KbuildComponent


@dataclass(frozen=True)
class Kind:
    name: str
    calls: str  # the calling convention, in the kernel's words
    reference: str  # what hotpath checks every variant against
    axes: str  # what a run varies
    sizes: tuple[int, ...]  # the sizes `hotpath patch` times by default (none: the lab's)


KINDS = {
    kind.name: kind
    for kind in (
        Kind(
            "crc",
            "crc = f(crc, buf, len): the register in, the register out, no inversion "
            "unless the function's own convention has one",
            "a bitwise CRC written from the polynomial, in the kernel's convention",
            "length, the buffer's alignment; latency chains the CRC",
            (16, 64, 256, 1500, 4096),
        ),
        Kind(
            "hash",
            "h = f(buf, len, seed or key)",
            "the algorithm written from its paper or definition (test vectors)",
            "length, the buffer's alignment; latency chains the hash into the seed",
            (16, 64, 256, 1500, 4096),
        ),
        Kind(
            "copy",
            "dst = f(dst, src or byte, len)",
            "a byte loop; every byte of the destination and its surroundings compared",
            "length, both buffers' alignments (--param dst_align), overlap (--param overlap)",
            (8, 64, 256, 1500, 4096),
        ),
        Kind(
            "search",
            "position = f(buf, ...): memchr's byte, a string's NUL, a bitmap's set bit",
            "a byte (bit) loop; the searched-for item last, a guard page behind",
            "length, the buffer's alignment; latency chains the buffer's address",
            (16, 64, 256, 4096),
        ),
        Kind(
            "csum",
            "the Internet checksum's functions (the csum lab)",
            "the RFC 1071 sum, folded as the kernel folds it",
            "length, odd and even alignment",
            (),  # each function's own: the lab's
        ),
        Kind(
            "crc32c",
            "crc = crc32c(crc, buf, len) (the crc32c lab)",
            "the bitwise CRC32C (0x82F63B78)",
            "length, alignment",
            (),
        ),
        Kind(
            "avc",
            "node = avc_search_node(ssid, tsid, tclass) over the lab's cache (the avc lab)",
            "hotpath's model of the cache: the node the keys name",
            "cache nodes, buckets (--slots)",
            (),
        ),
    )
}


@dataclass(frozen=True)
class Function:
    """One catalogue entry: a kernel function and how hotpath times it."""

    name: str  # as the kernel names it: crc32_le, memset, find_next_bit
    kind: str
    lab: str
    primitive: str  # the runner's primitive that times it
    component: str  # the layout component (shapes.Component.name) that builds it
    kernels: str  # the kernels that have it in this form
    sizes: tuple[int, ...] = ()  # when not the kind's (siphash_1u64: 8 bytes only)

    def default_sizes(self) -> tuple[int, ...]:
        return self.sizes or KINDS[self.kind].sizes


def _fn(
    name: str,
    files: tuple[str, ...],
    symbols: tuple[tuple[str, str], ...],
    entries: tuple[Entry, ...],
    targets: tuple[str, ...],
    kernels: str,
    glue: str | None = None,
    stub_unreached: bool = False,
    init: str | None = None,
) -> KbuildComponent:
    """A fn-lab component: its layout and how Kbuild builds it."""
    layout = Component(name, "fn", kernels, files, symbols, entries)
    return KbuildComponent(
        layout=layout, targets=targets, glue=glue, stub_unreached=stub_unreached, init=init
    )


def _own(primitive: str, where: str, symbol: str | None = None, why: str = "") -> Entry:
    """The kernel's own function, called directly by its symbol."""
    said = f"the kernel's own {symbol or primitive}(), called directly" + (
        f" ({why})" if why else ""
    )
    return Entry(primitive, symbol or primitive, "", where, said)


def _glued(primitive: str, where: str, what: str) -> Entry:
    return Entry(primitive, f"hp_glue_{primitive}", "", where, what)


SIPHASH_KEY = "the key {seed, ~seed}"
OLD_AND_NEW = "Linux 6.1 to 6.12 (Debian's both)"

# Each object's own component: a commit that changes one file is rebuilt
# and timed for the functions of that file only.
FN_KBUILD: tuple[KbuildComponent, ...] = (
    _fn(
        "crc32",
        ("lib/crc32.c", "lib/crc32defs.h", "lib/gen_crc32table.c"),
        (("lib/crc32.c", "crc32_le("), ("lib/crc32.c", "crc32_be(")),
        (
            _own("crc32_le", "lib/crc32.c", why="slice-by-8 as Debian configures it"),
            _own("crc32_be", "lib/crc32.c"),
        ),
        ("lib/crc32.o",),
        "Linux 2.6 to 6.13 (lib/crc32.c with its generated tables)",
    ),
    _fn(
        "crc64",
        ("lib/crc64.c",),
        (("lib/crc64.c", "crc64_be("), ("lib/crc64.c", "crc64_rocksoft_generic(")),
        (
            _own("crc64_be", "lib/crc64.c"),
            _own("crc64_rocksoft", "lib/crc64.c", "crc64_rocksoft_generic"),
        ),
        ("lib/crc64.o",),
        "Linux 6.0 to 6.13 (crc64_rocksoft_generic from 6.0)",
    ),
    _fn(
        "crc-t10dif",
        ("crypto/crct10dif_common.c",),
        (("crypto/crct10dif_common.c", "crc_t10dif_generic("),),
        (_own("crc_t10dif", "crypto/crct10dif_common.c", "crc_t10dif_generic"),),
        ("crypto/crct10dif_common.o",),
        "Linux 3.11 to 6.13 (the table-driven generic form)",
    ),
    _fn(
        "crct10dif-pclmul",
        ("arch/x86/crypto/crct10dif-pcl-asm_64.S", "arch/x86/crypto/crct10dif-pclmul_glue.c"),
        (("arch/x86/crypto/crct10dif-pclmul_glue.c", "crc_t10dif_pcl("),),
        (
            Entry(
                "crc_t10dif",
                "hp_glue_crc_t10dif_pcl",
                ":pcl",
                "arch/x86/crypto/crct10dif-pcl-asm_64.S",
                "the crct10dif-pclmul driver's update as crc_t10dif_update() reaches it: "
                "crc_t10dif_pcl() between kernel_fpu_begin() and kernel_fpu_end() from 16 "
                "bytes, the generic table below",
                needs=("pclmulqdq",),
            ),
        ),
        ("arch/x86/crypto/crct10dif-pcl-asm_64.o", "crypto/crct10dif_common.o"),
        "Linux 4.10 to 6.13 (the crypto driver; lib/crc/x86 from 6.14)",
        glue="c/kload/glue/fn_crct10dif_pclmul.c",
    ),
    _fn(
        "crc16",
        ("lib/crc16.c",),
        (("lib/crc16.c", "crc16("),),
        (_own("crc16", "lib/crc16.c"),),
        ("lib/crc16.o",),
        "Linux 2.6 and later",
    ),
    _fn(
        "crc-itu-t",
        ("lib/crc-itu-t.c", "include/linux/crc-itu-t.h"),
        (("lib/crc-itu-t.c", "crc_itu_t("),),
        (_own("crc_itu_t", "lib/crc-itu-t.c"),),
        ("lib/crc-itu-t.o",),
        "Linux 2.6 and later",
    ),
    _fn(
        "siphash",
        ("lib/siphash.c", "include/linux/siphash.h"),
        (("include/linux/siphash.h", "siphash("), ("lib/siphash.c", "siphash_2u64(")),
        (
            _glued(
                "siphash",
                "lib/siphash.c",
                f"the kernel's siphash() (an inline over "
                f"__siphash_aligned/unaligned) with {SIPHASH_KEY}, through hotpath's glue",
            ),
            _glued(
                "siphash_1u64",
                "lib/siphash.c",
                f"the kernel's siphash_1u64() with "
                f"{SIPHASH_KEY}, the word read from the buffer by hotpath's glue",
            ),
            _glued(
                "siphash_2u64",
                "lib/siphash.c",
                f"the kernel's siphash_2u64() with "
                f"{SIPHASH_KEY}, the words read from the buffer by hotpath's glue",
            ),
        ),
        ("lib/siphash.o",),
        "Linux 4.11 and later",
        glue="c/kload/glue/fn_siphash.c",
    ),
    _fn(
        "jhash",
        ("include/linux/jhash.h",),
        (("include/linux/jhash.h", "static inline u32 jhash("),),
        (
            _glued(
                "jhash",
                "include/linux/jhash.h",
                "the kernel's inline jhash() in a function of hotpath's glue",
            ),
        ),
        (),
        "Linux 2.6 and later (lookup3 since 2.6.38)",
        glue="c/kload/glue/fn_jhash.c",
    ),
    _fn(
        "xxhash",
        ("lib/xxhash.c",),
        (("lib/xxhash.c", "xxh32("), ("lib/xxhash.c", "xxh64(")),
        (_own("xxh32", "lib/xxhash.c"), _own("xxh64", "lib/xxhash.c")),
        ("lib/xxhash.o", "arch/x86/lib/memcpy_64.o"),  # its tail copies with memcpy
        "Linux 4.14 and later",
        stub_unreached=True,  # the streaming API's WARN_ON: __warn_printk
    ),
    _fn(
        "memcpy",
        ("arch/x86/lib/memcpy_64.S",),
        (("arch/x86/lib/memcpy_64.S", "memcpy"),),
        (_own("memcpy", "arch/x86/lib/memcpy_64.S", why="its alternatives applied for this CPU"),),
        ("arch/x86/lib/memcpy_64.o",),
        "Linux 2.6 and later (FSRM alternative from 5.6, ERMS form rewritten in 6.3)",
    ),
    _fn(
        "memmove",
        ("arch/x86/lib/memmove_64.S",),
        (("arch/x86/lib/memmove_64.S", "memmove"),),
        (_own("memmove", "arch/x86/lib/memmove_64.S", why="its alternatives applied"),),
        ("arch/x86/lib/memmove_64.o",),
        "Linux 2.6 and later",
    ),
    _fn(
        "memset",
        ("arch/x86/lib/memset_64.S",),
        (("arch/x86/lib/memset_64.S", "memset"),),
        (_own("memset", "arch/x86/lib/memset_64.S", why="its alternatives applied"),),
        ("arch/x86/lib/memset_64.o",),
        "Linux 2.6 and later (FSRS alternative from 6.3)",
    ),
    _fn(
        "string",
        ("lib/string.c",),
        (("lib/string.c", "strlen("), ("lib/string.c", "strnlen("), ("lib/string.c", "memchr(")),
        (
            _own("memchr", "lib/string.c"),
            _own("strlen", "lib/string.c"),
            _own("strnlen", "lib/string.c"),
        ),
        ("lib/string.o", "arch/x86/lib/memcpy_64.o"),
        "Linux 2.6 and later (x86-64 has no assembly strlen since 2.6.26)",
        stub_unreached=True,  # strcasecmp's _ctype, never reached from these
    ),
    _fn(
        "find_bit",
        ("lib/find_bit.c", "include/linux/find.h"),
        (("lib/find_bit.c", "_find_next_bit("),),
        (
            _own(
                "find_next_bit",
                "lib/find_bit.c",
                "_find_next_bit",
                "find_next_bit()'s out-of-line body for bitmaps longer than a word",
            ),
        ),
        ("lib/find_bit.o",),
        "Linux 6.1 and later (_find_next_bit(addr, nbits, start))",
        stub_unreached=True,  # __sw_hweight64 of the find_nth forms
    ),
)

FN_LAYOUTS: tuple[Component, ...] = tuple(c.layout for c in FN_KBUILD)


def _functions() -> tuple[Function, ...]:
    kinds = {
        "crc32_le": "crc", "crc32_be": "crc", "crc64_be": "crc", "crc64_rocksoft": "crc",
        "crc_t10dif": "crc", "crc16": "crc", "crc_itu_t": "crc",
        "siphash": "hash", "siphash_1u64": "hash", "siphash_2u64": "hash", "jhash": "hash",
        "xxh32": "hash", "xxh64": "hash",
        "memcpy": "copy", "memmove": "copy", "memset": "copy",
        "memchr": "search", "strlen": "search", "strnlen": "search", "find_next_bit": "search",
    }  # fmt: skip
    sizes = {"siphash_1u64": (8,), "siphash_2u64": (16,)}
    found = [
        Function(e.primitive, kinds[e.primitive], "fn", e.primitive, c.name, c.kernels,
                 sizes.get(e.primitive, ()))
        for c in FN_LAYOUTS
        for e in c.entries
        if not e.suffix  # a function's other forms (crc_t10dif:pcl) are variants of it
    ]  # fmt: skip
    since = "Linux 5.17 and later (the C rewrite)"
    labs = (
        ("csum_partial", "csum", "csum", since, (40, 64, 256, 1500)),
        ("csum_fold", "csum", "csum", since, ()),
        ("ip_fast_csum", "csum", "csum", since, ()),
        ("csum_ipv6_magic", "csum", "csum", since, ()),
        ("csum_partial_copy", "csum", "csum", since, (40, 256, 1500)),
        ("crc32c", "crc32c", "crc32c-intel", "Linux 6.1 to 6.13 (the crypto driver)",
         (64, 256, 1500, 4096)),
        ("avc_lookup", "avc", "avc", "Linux 5.x to 6.18", ()),
    )  # fmt: skip
    found += [Function(n, kind, kind, n, comp, since_, sz) for n, kind, comp, since_, sz in labs]
    return tuple(found)


FUNCTIONS: tuple[Function, ...] = _functions()
BY_NAME = {f.name: f for f in FUNCTIONS}
