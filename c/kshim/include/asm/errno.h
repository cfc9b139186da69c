/* SPDX-License-Identifier: GPL-2.0-only */
/* hotpath kernel shim: the error numbers kernel code returns. */
#ifndef HP_KSHIM_ASM_ERRNO_H
#define HP_KSHIM_ASM_ERRNO_H
#define EFAULT 14
#define EINVAL 22
#define ENODEV 19
#endif
