/* SPDX-License-Identifier: GPL-2.0-only */
/* hotpath kernel shim: the string functions, as gcc's builtins. */
#ifndef HP_KSHIM_LINUX_STRING_H
#define HP_KSHIM_LINUX_STRING_H
#define memcpy __builtin_memcpy
#define memset __builtin_memset
#endif
