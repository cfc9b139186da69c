/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A module's init function becomes hp_kshim_module_init(), which the
 * shim's glue calls once when the shared object loads, as the kernel
 * calls it when the module loads (hotpath kernel shim). Its metadata is
 * dropped.
 */
#ifndef HP_KSHIM_LINUX_MODULE_H
#define HP_KSHIM_LINUX_MODULE_H
#include <linux/init.h>
#define THIS_MODULE ((void *)0)
#define module_init(fn) \
	int hp_kshim_module_init(void); \
	int hp_kshim_module_init(void) { return fn(); }
#define module_exit(fn) \
	void hp_kshim_module_exit(void); \
	void hp_kshim_module_exit(void) { fn(); }
#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_LICENSE(x)
#define MODULE_ALIAS_CRYPTO(x)
#define MODULE_DEVICE_TABLE(type, name)
#endif
