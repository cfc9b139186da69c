/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hotpath's kernel shim: what the kernel's own build puts in front of
 * every file (its Kconfig and compiler_types.h), for the few files of a
 * kernel tree that hotpath builds in user space (python/hotpath/kernelsrc,
 * docs/kernel-source.md). Force-included (-include kshim.h) into every
 * kernel file, C and assembly, built with -nostdinc: a header the shim
 * does not provide is an error naming it, never a host header.
 *
 * Written for, and checked against, Linux 6.1 and 6.12 (Debian's
 * linux-source packages) and the upstream trees between and after them
 * that keep the same file layout; HP_KSHIM_VERSION changes when it does.
 */
#ifndef HP_KSHIM_H
#define HP_KSHIM_H

#define HP_KSHIM_VERSION 1

/* The configuration of Debian's amd64 kernels, where these files look. */
#define __KERNEL__ 1
#define CONFIG_X86 1
#define CONFIG_X86_64 1
#define CONFIG_64BIT 1
#define CONFIG_DCACHE_WORD_ACCESS 1
#define CONFIG_AS_AVX512 1
#define CONFIG_AS_VPCLMULQDQ 1

#include <linux/linkage.h>
#ifndef __ASSEMBLY__
#include <linux/types.h>
#include <linux/compiler.h>
#endif

#endif /* HP_KSHIM_H */
