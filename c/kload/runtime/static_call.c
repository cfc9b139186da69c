// SPDX-License-Identifier: GPL-2.0-only
/*
 * __static_call_update(), as the kernel's (kernel/static_call_inline.c,
 * arch/x86/kernel/static_call.c) for an image's own init code: the key
 * takes the new function and the trampoline becomes a `jmp` to it (a
 * `ret` for NULL). The call sites objtool listed in .static_call_sites
 * are patched by the loader once the init has run (c/kload/patch.c), from
 * the keys' functions then.
 */
struct static_call_key {
	void *func;
	unsigned long type;
};

void __static_call_update(struct static_call_key *key, void *tramp, void *func)
{
	unsigned char *t = tramp;

	key->func = func;
	if (!func) {
		t[0] = 0xc3;	/* ret */
		return;
	}
	int rel = (int)((long)func - (long)(t + 5));

	__builtin_memcpy(t + 1, &rel, 4);
	t[0] = 0xe9;	/* jmp rel32 */
}
