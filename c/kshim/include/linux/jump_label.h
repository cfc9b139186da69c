/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Static keys, resolved as the kernel resolves them (the init code enables
 * a key from the CPU's features, hotpath's detector answering), kept as a
 * flag that each static_branch_*() tests: a load and a predicted branch
 * where the kernel has a patched nop or jmp (docs/kernel-source.md).
 * hotpath kernel shim.
 */
#ifndef HP_KSHIM_LINUX_JUMP_LABEL_H
#define HP_KSHIM_LINUX_JUMP_LABEL_H
struct static_key_false {
	int enabled;
};
struct static_key_true {
	int enabled;
};
#define DEFINE_STATIC_KEY_FALSE(name) struct static_key_false name = { 0 }
#define DEFINE_STATIC_KEY_TRUE(name) struct static_key_true name = { 1 }
#define static_branch_likely(key) __builtin_expect((key)->enabled, 1)
#define static_branch_unlikely(key) __builtin_expect((key)->enabled, 0)
#define static_branch_enable(key) ((key)->enabled = 1)
#define static_branch_disable(key) ((key)->enabled = 0)
#define static_key_enabled(key) ((key)->enabled)
#endif
