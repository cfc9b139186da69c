// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotpath's entry points into a kernel tree's SipHash (lib/siphash.c and
 * the inline siphash() of include/linux/siphash.h), in the fn lab's
 * type: (data, len, seed). The kernel's functions take the key by
 * pointer; the key is { seed, ~seed }, as hotpath's reference builds it
 * (c/fn), so latency mode chains each hash into the next call's key.
 * Built by the tree's Kbuild as an external module's object
 * (python/hotpath/kernelsrc/kbuilt.py) and loaded beside lib/siphash.o.
 */
#include <linux/siphash.h>
#if __has_include(<linux/unaligned.h>)
#include <linux/unaligned.h>	/* Linux 6.12 and later */
#else
#include <asm/unaligned.h>
#endif

u64 hp_glue_siphash(const void *data, size_t len, u64 seed);
u64 hp_glue_siphash_1u64(const void *data, size_t len, u64 seed);
u64 hp_glue_siphash_2u64(const void *data, size_t len, u64 seed);

u64 hp_glue_siphash(const void *data, size_t len, u64 seed)
{
	const siphash_key_t key = { { seed, ~seed } };

	return siphash(data, len, &key);
}

/* The words as a caller has them in registers: read from the buffer. */
u64 hp_glue_siphash_1u64(const void *data, size_t len, u64 seed)
{
	const siphash_key_t key = { { seed, ~seed } };

	return siphash_1u64(get_unaligned_le64(data), &key);
}

u64 hp_glue_siphash_2u64(const void *data, size_t len, u64 seed)
{
	const siphash_key_t key = { { seed, ~seed } };

	return siphash_2u64(get_unaligned_le64(data), get_unaligned_le64(data + 8), &key);
}
