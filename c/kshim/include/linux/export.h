/* SPDX-License-Identifier: GPL-2.0-only */
/* A symbol the kernel exports is a plain global symbol of the shared
 * object here (hotpath kernel shim). */
#ifndef HP_KSHIM_LINUX_EXPORT_H
#define HP_KSHIM_LINUX_EXPORT_H
#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
#endif
