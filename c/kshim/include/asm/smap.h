/* SPDX-License-Identifier: GPL-2.0-only */
/* hotpath kernel shim: no SMAP in user space (see linux/uaccess.h). */
#ifndef HP_KSHIM_ASM_SMAP_H
#define HP_KSHIM_ASM_SMAP_H
#endif
