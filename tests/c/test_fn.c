// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fn lab: each reference against published vectors (CRC check values
 * of "123456789" in the conventions the catalogues of CRCs name, lookup3's
 * and xxHash's own vectors, the SipHash paper's and the kernel's
 * siphash_kunit vectors), then every variant of every fn primitive, walked
 * from the runner's table, through the correctness gate (guard pages,
 * every length to 1536 at every alignment that matters).
 */
#include <hotpath/bench.h>
#include <hotpath/fn.h>

#include <string.h>

#include "check.h"
#include "engine.h"
#include "registry_walk.h"

static const uint8_t nine[] = "123456789";

static void crc_vectors(void)
{
	CHECK(~hp_fn_crc32_le_ref(~0u, nine, 9) == 0xCBF43926u, "CRC-32");
	CHECK(hp_fn_crc32_le_ref(~0u, nine, 9) == 0x340BC6D9u, "CRC-32/JAMCRC");
	CHECK(~hp_fn_crc32_be_ref(~0u, nine, 9) == 0xFC891918u, "CRC-32/BZIP2");
	CHECK(hp_fn_crc32_be_ref(~0u, nine, 9) == 0x0376E6E7u, "CRC-32/MPEG-2");
	CHECK(hp_fn_crc64_be_ref(0, nine, 9) == 0x6C40DF5F0B497347ull, "CRC-64/ECMA-182");
	CHECK(~hp_fn_crc64_be_ref(~0ull, nine, 9) == 0x62EC59E3F1A4F00Aull, "CRC-64/WE");
	CHECK(hp_fn_crc64_rocksoft_ref(0, nine, 9) == 0xAE8B14860A799888ull, "CRC-64/NVME");
	CHECK(hp_fn_crc_t10dif_ref(0, nine, 9) == 0xD0DB, "CRC-16/T10-DIF");
	CHECK(hp_fn_crc16_ref(0, nine, 9) == 0xBB3D, "CRC-16/ARC");
	CHECK(hp_fn_crc16_ref(0xffff, nine, 9) == 0x4B37, "CRC-16/MODBUS");
	CHECK(hp_fn_crc_itu_t_ref(0, nine, 9) == 0x31C3, "CRC-16/XMODEM");
	CHECK(hp_fn_crc_itu_t_ref(0xffff, nine, 9) == 0x29B1, "CRC-16/IBM-3740");
	/* continuing: the register out is the next call's register in */
	CHECK(hp_fn_crc64_rocksoft_ref(hp_fn_crc64_rocksoft_ref(0, nine, 4), nine + 4, 5) ==
	      0xAE8B14860A799888ull, "CRC-64/NVME in two calls");
	CHECK(hp_fn_crc32_be_ref(hp_fn_crc32_be_ref(~0u, nine, 3), nine + 3, 6) ==
	      ~0xFC891918u, "CRC-32/BZIP2 in two calls");
}

/* The kernel's lib/siphash_kunit.c vectors, the first 16 (the paper's
 * Appendix A vector is the 16th: 15 bytes 00..0e): key 00..0f, message
 * 00, 01, ..., len-1. */
static const uint64_t sip_vectors[16] = {
	0x726fdb47dd0e0e31ull, 0x74f839c593dc67fdull, 0x0d6c8009d9a94f5aull,
	0x85676696d7fb7e2dull, 0xcf2794e0277187b7ull, 0x18765564cd99a68dull,
	0xcbc9466e58fee3ceull, 0xab0200f58b01d137ull, 0x93f5f5799a932462ull,
	0x9e0082df0ba9e4b0ull, 0x7a5dbbc594ddb9f3ull, 0xf4b32f46226bada7ull,
	0x751e8fbc860ee5fbull, 0x14ea5627c0843d90ull, 0xf723ca908e7af2eeull,
	0xa129ca6149be45e5ull,
};

static void hash_vectors(void)
{
	static const char four[] = "Four score and seven years ago";
	static const char nobody[] = "Nobody inspects the spammish repetition";
	static const char u32s[] = "I want an unsigned 32-bit seed!";
	static const char u64s[] = "I want an unsigned 64-bit seed!";
	uint8_t in[16];

	/* lookup3.c's driver5() */
	CHECK(hp_fn_jhash_ref("", 0, 0) == 0xdeadbeefu, "jhash empty");
	CHECK(hp_fn_jhash_ref(four, 30, 0) == 0x17770551u, "jhash four score, 0");
	CHECK(hp_fn_jhash_ref(four, 30, 1) == 0xcd628161u, "jhash four score, 1");
	/* xxHash's (and python-xxhash's) vectors */
	CHECK(hp_fn_xxh32_ref("", 0, 0) == 0x02CC5D05u, "xxh32 empty");
	CHECK(hp_fn_xxh64_ref("", 0, 0) == 0xEF46DB3751D8E999ull, "xxh64 empty");
	CHECK(hp_fn_xxh32_ref("abc", 3, 0) == 0x32D153FFu, "xxh32 abc");
	CHECK(hp_fn_xxh64_ref("abc", 3, 0) == 0x44BC2CF5AD770999ull, "xxh64 abc");
	CHECK(hp_fn_xxh32_ref(nobody, 39, 0) == 0xE2293B2Fu, "xxh32 nobody %08x",
	      hp_fn_xxh32_ref(nobody, 39, 0));
	CHECK(hp_fn_xxh64_ref(nobody, 39, 0) == 0xFBCEA83C8A378BF1ull, "xxh64 nobody");
	CHECK(hp_fn_xxh32_ref(u32s, 31, 0) == 0xF7A35AF8u, "xxh32 seed 0 %08x",
	      hp_fn_xxh32_ref(u32s, 31, 0));
	CHECK(hp_fn_xxh32_ref(u32s, 31, 1) == 0xD8D4B4BAu, "xxh32 seed 1 %08x",
	      hp_fn_xxh32_ref(u32s, 31, 1));
	CHECK(hp_fn_xxh64_ref(u64s, 31, 0) == 0xD4CB0A70A2B8C7C1ull, "xxh64 seed 0");
	CHECK(hp_fn_xxh64_ref(u64s, 31, 1) == 0xCE5087F12470D961ull, "xxh64 seed 1");
	for (int i = 0; i < 16; i++)
		in[i] = (uint8_t)i;
	for (int len = 0; len < 16; len++)
		CHECK(hp_fn_siphash_keyed(in, len, 0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull) ==
		      sip_vectors[len], "siphash len %d", len);
	/* the primitives' key: {seed, ~seed} */
	CHECK(hp_fn_siphash_ref(in, 15, 0x0706050403020100ull) ==
	      hp_fn_siphash_keyed(in, 15, 0x0706050403020100ull, ~0x0706050403020100ull),
	      "siphash seed form");
}

/* Every variant of every fn primitive through the gate. */
static void gate_all(void)
{
	static const size_t sizes[] = { 8, 16, 64, 4096 };
	static const size_t aligns[] = { 0, 1, 7 };
	struct hp_gate_opts o = { sizes, 4, aligns, 3, 42 };
	unsigned nprim = 0;

	for (const struct hp_primitive *const *p = hp_primitives; *p; p++) {
		if (strcmp((*p)->lab, "fn"))
			continue;
		nprim++;
		for (size_t i = 0; i < (*p)->nvariants; i++) {
			const struct hp_variant *v = &(*p)->variants[i];
			struct hp_failure f = { 0 };
			unsigned long ncases = 0;
			const char *why = skip_reason(v);

			if (!why && (*p)->unavailable)
				why = (*p)->unavailable(v);
			if (why) {
				printf("skip %s %s: %s\n", (*p)->name, v->name, why);
				continue;
			}
			CHECK(!hp_gate(*p, v, &o, &f, &ncases, NULL) && ncases > 0,
			      "%s %s: %s at size %zu align %zu", (*p)->name, v->name, f.what,
			      f.len, f.align);
		}
	}
	CHECK(nprim >= 13, "fn primitives in the table: %u", nprim);
}

int main(void)
{
	crc_vectors();
	hash_vectors();
	gate_all();
	return check_summary("test_fn");
}
