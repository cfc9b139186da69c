/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A cache of the AVC model with the parameters a test picks, the rest the
 * defaults (the pool's seed from the test's rnd()): test_avc.c and
 * test_avc_stats.c. Include after testdata.h.
 */
#ifndef HOTPATH_TEST_AVC_SETUP_H
#define HOTPATH_TEST_AVC_SETUP_H

#include <hotpath/avc.h>

static inline int init_with(struct hp_avc_cache *c, uint32_t slots,
		     uint32_t threshold, uint32_t pool, hp_avc_hash_fn hash,
		     enum hp_avc_reclaim mode)
{
	struct hp_avc_params p;

	hp_avc_params_init(&p);
	p.slots = slots;
	p.threshold = threshold;
	p.pool_nodes = pool;
	p.hash = hash;
	p.reclaim = mode;
	p.pool_seed = rnd();
	return hp_avc_init(c, &p);
}

#endif /* HOTPATH_TEST_AVC_SETUP_H */
