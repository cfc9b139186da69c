/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Static calls as a function pointer: static_call_update() sets it when
 * the init code chooses, as the kernel rewrites its call sites then. The
 * kernel's call is then direct (patched), here indirect through the
 * pointer: a predicted indirect call, a cycle or so more per call at most
 * (docs/kernel-source.md). hotpath kernel shim.
 */
#ifndef HP_KSHIM_LINUX_STATIC_CALL_H
#define HP_KSHIM_LINUX_STATIC_CALL_H
#define DEFINE_STATIC_CALL(name, func) static __typeof__(&(func)) __hp_kshim_sc_##name = (func)
#define static_call(name) (__hp_kshim_sc_##name)
#define static_call_update(name, func) (__hp_kshim_sc_##name = (func))
#endif
