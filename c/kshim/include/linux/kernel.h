/* SPDX-License-Identifier: GPL-2.0-only */
/* hotpath kernel shim: linux/kernel.h is only its includes here. */
#ifndef HP_KSHIM_LINUX_KERNEL_H
#define HP_KSHIM_LINUX_KERNEL_H
#include <linux/compiler.h>
#include <linux/bitops.h>
#include <linux/wordpart.h>
#endif
