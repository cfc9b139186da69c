/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The synchronous hash API's structures, as far as a driver's update
 * touches them: a transform holds the key context (the CRC's seed), a
 * descriptor holds the running state right behind it, as the kernel lays
 * it out. crypto_register_shash() keeps the algorithm for the glue
 * (c/kshim/glue/crc32c_shash.c), which calls it as crypto_shash_update()
 * does: through the algorithm's update pointer. hotpath kernel shim.
 */
#ifndef HP_KSHIM_CRYPTO_INTERNAL_HASH_H
#define HP_KSHIM_CRYPTO_INTERNAL_HASH_H
#include <linux/types.h>
#include <asm/errno.h>
#include <asm/byteorder.h>

#define CRYPTO_ALG_OPTIONAL_KEY 0x00004000

struct crypto_tfm {
	u32 ctx[1];
};

struct crypto_shash {
	struct crypto_tfm base;
};

struct shash_desc {
	struct crypto_shash *tfm;
	u32 ctx[1];
};

struct crypto_alg {
	const char *cra_name;
	const char *cra_driver_name;
	int cra_priority;
	u32 cra_flags;
	unsigned int cra_blocksize;
	unsigned int cra_ctxsize;
	void *cra_module;
	int (*cra_init)(struct crypto_tfm *tfm);
};

struct shash_alg {
	int (*init)(struct shash_desc *desc);
	int (*update)(struct shash_desc *desc, const u8 *data, unsigned int len);
	int (*final)(struct shash_desc *desc, u8 *out);
	int (*finup)(struct shash_desc *desc, const u8 *data, unsigned int len, u8 *out);
	int (*digest)(struct shash_desc *desc, const u8 *data, unsigned int len, u8 *out);
	int (*setkey)(struct crypto_shash *tfm, const u8 *key, unsigned int keylen);
	unsigned int descsize;
	unsigned int digestsize;
	struct crypto_alg base;
};

static inline void *crypto_shash_ctx(struct crypto_shash *tfm)
{
	return tfm->base.ctx;
}

static inline void *crypto_tfm_ctx(struct crypto_tfm *tfm)
{
	return tfm->ctx;
}

static inline void *shash_desc_ctx(struct shash_desc *desc)
{
	return desc->ctx;
}

extern struct shash_alg *hp_kshim_shash;

static inline int crypto_register_shash(struct shash_alg *alg)
{
	hp_kshim_shash = alg;
	return 0;
}

static inline void crypto_unregister_shash(struct shash_alg *alg)
{
	(void)alg;
	hp_kshim_shash = NULL;
}
#endif
