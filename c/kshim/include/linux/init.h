/* SPDX-License-Identifier: GPL-2.0-only */
/* hotpath kernel shim: init and exit code is ordinary code here. */
#ifndef HP_KSHIM_LINUX_INIT_H
#define HP_KSHIM_LINUX_INIT_H
#define __init
#define __exit
#define __initdata
#endif
