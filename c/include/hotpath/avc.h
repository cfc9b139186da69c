/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SELinux access vector cache (security/selinux/avc.c) as a user-space
 * model: the hash functions proposed for avc_hash(), the cache itself
 * (slots, cache_threshold, reclaim, hash_stats, cache_stats), the limits a
 * random hash would reach, and a synthetic workload of permission checks.
 *
 * What is reproduced from Linux 6.19 and what is assumed (LP64, arm64 or
 * x86-64, no lock debugging):
 *
 * - Slots: an array of hlist_head (one pointer each). The kernel keeps a
 *   parallel spinlock_t array beside it (4 bytes a slot); lookups never
 *   touch it, so the model leaves it out of the walk and only counts it
 *   in hp_avc_memory(). The seed's first version packed both into a
 *   16-byte struct avc_slot; 6.19 kept the two arrays.
 * - Nodes: struct avc_node is { struct avc_entry ae; struct hlist_node
 *   list; struct rcu_head rhead; }, the entry FIRST, 72 bytes. The chain
 *   links point at the list member, 40 bytes into the node, so a walk
 *   reads the link at offset 40 and the key at offset 0 of each node.
 *   struct hp_avc_node has the same layout and size (asserted).
 * - Nodes come from a kmem_cache of 72-byte objects: the pool packs 56
 *   of them into each 4 KiB page, like SLUB without debugging, and hands
 *   them out in a shuffled order so that a chain is scattered in memory
 *   as a long-running kernel's is. Freed nodes go back on top of the free
 *   list (last freed, first reused). The kernel frees after an RCU grace
 *   period; the model frees at once.
 * - avc_alloc_node() counts the new node before it is linked and, when
 *   active nodes then exceed cache_threshold, runs avc_reclaim_node();
 *   avc_insert() replaces an existing node of the same key in place.
 *   The policy-seqno check (avc_latest_notif_update) and extended
 *   permissions (xp_node) are not modelled.
 * - avc_reclaim_node() walks buckets round-robin from lru_hint + 1 and
 *   deletes nodes from the head of each chain; it stops the moment 16
 *   (AVC_CACHE_RECLAIM) are gone, which can be in the middle of a bucket.
 *   HP_AVC_RECLAIM_WHOLE_BUCKETS is the variant that always finishes the
 *   bucket it is in (at least 16 nodes, whole buckets only).
 * - Counters are those of struct avc_cache_stats on one CPU; hits is
 *   lookups - misses, as selinuxfs prints it.
 */
#ifndef HOTPATH_AVC_H
#define HOTPATH_AVC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- hash functions ---- */

/*
 * A hash of an AVC key. The cache uses the LOW bits: the slot is
 * hash & (slots - 1), as avc_hash() masks with AVC_CACHE_SLOTS - 1, so a
 * hash must make its low bits depend on every bit of the key.
 */
typedef uint32_t (*hp_avc_hash_fn)(uint32_t ssid, uint32_t tsid,
				   uint16_t tclass);

/* Each function below has an inline twin (..._inl) further down, for
 * benchmarks that want the hash inlined into the lookup as the kernel
 * has it; the two always agree. */

/* The original avc_hash() (Linux 2.6.0 to 6.18): ssid ^ (tsid << 2) ^
 * (tclass << 4). Low bits see only the low bits of each SID. */
uint32_t hp_avc_hash_orig(uint32_t ssid, uint32_t tsid, uint16_t tclass);
/* The seed's "Muladd": ssid * 0x9E3779B9 + tsid * 0x85EBCA77 +
 * tclass * 0xC2B2AE35, all modulo 2^32. */
uint32_t hp_avc_hash_muladd(uint32_t ssid, uint32_t tsid, uint16_t tclass);
/* Linux 6.19's av_hash(ssid, tsid, tclass): the MurmurHash3_x86_32 block
 * mix over the three words from hash 0, then its finaliser WITHOUT the
 * length xor (so it differs from MurmurHash3 of the 12 bytes by that). */
uint32_t hp_avc_hash_murmur3(uint32_t ssid, uint32_t tsid, uint16_t tclass);
/* The kernel's jhash_3words(ssid, tsid, tclass, 0) (include/linux/jhash.h). */
uint32_t hp_avc_hash_jhash(uint32_t ssid, uint32_t tsid, uint16_t tclass);
/*
 * hotpath's own: the key packed into 64 bits (ssid rotated to bits 40-63,
 * tclass at 24-39, tsid at 0-23: one-to-one while both SIDs are below
 * 2^24), xored with a constant and multiplied by another into 128 bits;
 * the two halves of the product are xored, then the two halves of that.
 * One 64x64->128 multiply (mul on x86-64, mul + umulh on arm64) and a few
 * shifts and xors, no loop. The product's middle bits, which depend on
 * every key bit, land in the low bits the cache masks; all 32 are usable.
 */
uint32_t hp_avc_hash_hp(uint32_t ssid, uint32_t tsid, uint16_t tclass);

struct hp_avc_hash_desc {
	const char *name;	/* "orig", "muladd", "murmur3", "jhash", "hp" */
	hp_avc_hash_fn fn;
	const char *what;	/* one line for tables */
};

/* Every hash above, in that order, ended by an entry with name NULL. */
extern const struct hp_avc_hash_desc hp_avc_hashes[];
/* The entry named @name, or NULL. */
const struct hp_avc_hash_desc *hp_avc_hash_find(const char *name);

/* ---- the cache model ---- */

#define HP_AVC_MAX_SLOTS	(1u << 20)
/* 1 << CONFIG_SECURITY_SELINUX_AVC_HASH_BITS at its default, 9 */
#define HP_AVC_DEF_SLOTS	512u
/* AVC_DEF_CACHE_THRESHOLD: 512 before 6.19; 6.19 makes it equal to the
 * slot count, which is 512 at the default hash bits */
#define HP_AVC_DEF_THRESHOLD	512u
/* AVC_CACHE_RECLAIM: nodes one reclaim pass frees */
#define HP_AVC_CACHE_RECLAIM	16u

/* What the kernel's structures cost on LP64 (see hp_avc_memory()). */
#define HP_AVC_KERNEL_SLOT_BYTES	12u	/* hlist_head + spinlock_t */
#define HP_AVC_KERNEL_NODE_BYTES	72u	/* sizeof(struct avc_node) */
#define HP_AVC_SLAB_PAGE_BYTES		4096u

struct hp_avc_hlist_node {
	struct hp_avc_hlist_node *next;
	struct hp_avc_hlist_node **pprev;
};

struct hp_avc_hlist_head {
	struct hp_avc_hlist_node *first;
};

/* struct av_decision */
struct hp_avc_decision {
	uint32_t allowed;
	uint32_t auditallow;
	uint32_t auditdeny;
	uint32_t seqno;
	uint32_t flags;
};

/* struct avc_entry */
struct hp_avc_entry {
	uint32_t ssid;
	uint32_t tsid;
	uint16_t tclass;
	struct hp_avc_decision avd;
	void *xp_node;		/* struct avc_xperms_node *: always NULL */
};

/* struct rcu_head (callback_head): room only; the pool links free
 * nodes through it, as SLUB keeps its free pointer inside objects */
struct hp_avc_rcu_pad {
	void *next;
	void (*func)(void *);
};

/* struct avc_node: the entry first, then the chain link */
struct hp_avc_node {
	struct hp_avc_entry ae;
	struct hp_avc_hlist_node list;
	struct hp_avc_rcu_pad rhead;	/* the pool's free-list link */
};

enum hp_avc_reclaim {
	/* avc_reclaim_node(): stop as soon as 16 nodes are gone */
	HP_AVC_RECLAIM_KERNEL = 0,
	/* free whole buckets until at least 16 nodes are gone */
	HP_AVC_RECLAIM_WHOLE_BUCKETS = 1,
};

struct hp_avc_params {
	uint32_t slots;		/* a power of two, 1 .. HP_AVC_MAX_SLOTS */
	uint32_t threshold;	/* cache_threshold */
	/* nodes in the pool; 0: enough for @threshold (threshold + 1, at
	 * least 2: the most the algorithm ever holds at once) */
	uint32_t pool_nodes;
	hp_avc_hash_fn hash;	/* NULL: hp_avc_hash_murmur3, as 6.19 */
	enum hp_avc_reclaim reclaim;
	uint64_t pool_seed;	/* the shuffle of the hand-out order */
	bool pool_sequential;	/* hand nodes out in address order instead */
};

/* struct avc_cache_stats plus hits, which selinuxfs derives */
struct hp_avc_stats {
	uint64_t lookups;
	uint64_t hits;
	uint64_t misses;
	uint64_t allocations;
	uint64_t reclaims;
	uint64_t frees;
};

/* What the last reclaim pass did. */
struct hp_avc_reclaim_info {
	uint32_t first_slot;	/* the first bucket it visited */
	uint32_t buckets;	/* buckets visited, round-robin from there */
	uint32_t nodes;		/* nodes it freed */
	uint64_t passes;	/* reclaim passes so far */
};

/* Embed it or allocate it; set up by hp_avc_init() only. */
struct hp_avc_cache {
	struct hp_avc_hlist_head *slots;
	uint32_t nslots;
	uint32_t mask;			/* nslots - 1 */
	hp_avc_hash_fn hash;
	uint32_t lru_hint;
	uint32_t active_nodes;
	uint32_t threshold;
	enum hp_avc_reclaim reclaim;
	struct hp_avc_stats stats;
	struct hp_avc_reclaim_info last_reclaim;
	/* the pool: 4 KiB pages of 72-byte nodes and a LIFO free list */
	void *pool;
	size_t pool_bytes;
	uint32_t pool_nodes;
	uint32_t pool_free;
	struct hp_avc_node *free_list;
};

/**
 * hp_avc_params_init() - the kernel's defaults.
 * @p: filled with 512 slots, threshold 512, murmur3, the kernel's reclaim,
 *     a shuffled pool with seed 1
 */
void hp_avc_params_init(struct hp_avc_params *p);

/**
 * hp_avc_init() - set up an empty cache.
 * @c: the cache
 * @p: its configuration
 *
 * Return: 0; -EINVAL if @p->slots is 0, not a power of two or above
 * HP_AVC_MAX_SLOTS, @p->pool_nodes is too small for @p->threshold, the
 * pool would pass 2^24 nodes, or @p->reclaim is unknown; -ENOMEM. On
 * failure @c holds nothing to destroy.
 */
int hp_avc_init(struct hp_avc_cache *c, const struct hp_avc_params *p);

/* Free what hp_avc_init() allocated; @c may then be initialised again. */
void hp_avc_destroy(struct hp_avc_cache *c);

/**
 * hp_avc_set_threshold() - write cache_threshold.
 * @c: the cache
 * @threshold: the new value; lowering it frees nothing at once (the
 *             kernel's does not either: later inserts reclaim)
 *
 * Return: 0, or -EINVAL when the pool could not hold that many nodes.
 */
int hp_avc_set_threshold(struct hp_avc_cache *c, uint32_t threshold);

/* The slot a key hashes to. */
static inline uint32_t hp_avc_slot(const struct hp_avc_cache *c,
				   uint32_t ssid, uint32_t tsid,
				   uint16_t tclass)
{
	return c->hash(ssid, tsid, tclass) & c->mask;
}

/* container_of(list, struct hp_avc_node, list) */
static inline struct hp_avc_node *hp_avc_node_of(struct hp_avc_hlist_node *l)
{
	return (struct hp_avc_node *)((char *)l -
				      offsetof(struct hp_avc_node, list));
}

/**
 * hp_avc_search_slot() - avc_search_node()'s walk of one chain.
 * @c: the cache
 * @slot: the bucket, from hp_avc_slot() or an inlined hash
 * @ssid: source SID
 * @tsid: target SID
 * @tclass: target class
 *
 * Compares ssid, then tclass, then tsid, the order avc_search_node() uses
 * (avc_insert() uses ssid, tsid, tclass). Counts nothing.
 *
 * Return: the node, or NULL.
 */
static inline struct hp_avc_node *
hp_avc_search_slot(const struct hp_avc_cache *c, uint32_t slot,
		   uint32_t ssid, uint32_t tsid, uint16_t tclass)
{
	struct hp_avc_hlist_node *pos;

	for (pos = c->slots[slot].first; pos; pos = pos->next) {
		struct hp_avc_node *node = hp_avc_node_of(pos);

		if (ssid == node->ae.ssid && tclass == node->ae.tclass &&
		    tsid == node->ae.tsid)
			return node;
	}
	return NULL;
}

/* avc_search_node(): hash, then walk; counts nothing. */
struct hp_avc_node *hp_avc_search(const struct hp_avc_cache *c,
				  uint32_t ssid, uint32_t tsid,
				  uint16_t tclass);

/**
 * hp_avc_lookup() - avc_lookup(): search and count.
 * @c: the cache
 * @ssid: source SID
 * @tsid: target SID
 * @tclass: target class
 *
 * Return: the node, or NULL on a miss.
 */
struct hp_avc_node *hp_avc_lookup(struct hp_avc_cache *c, uint32_t ssid,
				  uint32_t tsid, uint16_t tclass);

/**
 * hp_avc_insert() - avc_insert(): allocate (reclaiming when over the
 * threshold), then link at the head of the key's chain, or take the
 * place of the node that already has the key.
 * @c: the cache
 * @ssid: source SID
 * @tsid: target SID
 * @tclass: target class
 * @avd: the decision to store, or NULL for zeros
 *
 * Return: the new node, or NULL when the pool is empty (cannot happen
 * while the pool was sized by hp_avc_init()).
 */
struct hp_avc_node *hp_avc_insert(struct hp_avc_cache *c, uint32_t ssid,
				  uint32_t tsid, uint16_t tclass,
				  const struct hp_avc_decision *avd);

/* One permission check: lookup, and insert on a miss as
 * avc_has_perm_noaudit() does via avc_compute_av(). Return: true on a hit. */
bool hp_avc_access(struct hp_avc_cache *c, uint32_t ssid, uint32_t tsid,
		   uint16_t tclass);

/**
 * hp_avc_reclaim_node() - one avc_reclaim_node() pass.
 * @c: the cache
 *
 * Return: the number of nodes freed (16, or fewer when the cache held
 * fewer; at least 16 in whole-bucket mode when it held that many).
 */
uint32_t hp_avc_reclaim_node(struct hp_avc_cache *c);

/* avc_flush(): delete every node (counted as frees, not reclaims). */
void hp_avc_flush(struct hp_avc_cache *c);

/* ---- statistics ---- */

struct hp_avc_hash_counts {
	uint32_t entries;	/* active nodes */
	uint32_t buckets_used;
	uint32_t buckets;
	uint32_t longest_chain;
};

/* The three numbers of hash_stats (and the slot count), by walking. */
void hp_avc_get_hash_counts(const struct hp_avc_cache *c,
			    struct hp_avc_hash_counts *hc);

/**
 * hp_avc_hash_stats() - /sys/fs/selinux/avc/hash_stats.
 * @c: the cache
 * @buf: where to write "entries: %d\nbuckets used: %d/%d\nlongest
 *       chain: %d\n", NUL-terminated and cut to fit
 * @n: size of @buf
 *
 * Return: characters written, without the NUL (scnprintf's convention).
 */
int hp_avc_hash_stats(const struct hp_avc_cache *c, char *buf, size_t n);

/**
 * hp_avc_chain_histogram() - how many buckets have each chain length.
 * @c: the cache
 * @hist: @nbins counters: hist[k] is the number of chains of length k,
 *        the last counting every chain of length nbins - 1 or more
 * @nbins: number of counters (0: only the longest chain is wanted)
 *
 * Return: the longest chain.
 */
uint32_t hp_avc_chain_histogram(const struct hp_avc_cache *c, uint32_t *hist,
				size_t nbins);

/**
 * hp_avc_cache_stats() - /sys/fs/selinux/avc/cache_stats for one CPU.
 * @c: the cache
 * @buf: where to write "lookups hits misses allocations reclaims frees\n"
 *       and one line of the six counters
 * @n: size of @buf
 *
 * Return: characters written, without the NUL.
 */
int hp_avc_cache_stats(const struct hp_avc_cache *c, char *buf, size_t n);

struct hp_avc_memory {
	size_t slot_bytes;	/* slots * HP_AVC_KERNEL_SLOT_BYTES */
	size_t node_bytes;	/* nodes * HP_AVC_KERNEL_NODE_BYTES */
	size_t node_slab_bytes;	/* whole 4 KiB slab pages of 56 nodes */
	size_t total;		/* slot_bytes + node_slab_bytes */
};

/**
 * hp_avc_memory() - what a configuration costs the kernel.
 * @slots: hash slots
 * @nodes: cached nodes (the threshold, for a full cache)
 * @m: the bytes, LP64 with no lock debugging
 */
void hp_avc_memory(uint32_t slots, uint32_t nodes, struct hp_avc_memory *m);

/* ---- what a random hash would give ---- */

/**
 * hp_avc_expected_used() - expected buckets used by @n keys thrown
 * uniformly and independently into @m buckets: m (1 - (1 - 1/m)^n).
 * @n: keys
 * @m: buckets, at least 1
 *
 * Return: the expectation (divide by @m for the utilisation).
 */
double hp_avc_expected_used(double n, double m);

/**
 * hp_avc_expected_longest() - expected longest chain for @n keys in @m
 * buckets under a random hash.
 * @n: keys
 * @m: buckets, at least 1
 *
 * Sums P(longest >= k) over k, taking each bucket's load as
 * Binomial(n, 1/m) (exact) and the buckets as independent (they are not
 * quite: the loads add up to n). The independence slightly overstates
 * the maximum; the tests bound the error against simulation.
 *
 * Return: the estimate.
 */
double hp_avc_expected_longest(uint32_t n, uint32_t m);

/* ---- synthetic workload ---- */

/*
 * A stream of permission checks (ssid, tsid, tclass) shaped like a phone's:
 *
 * - SIDs are small integers handed out in sequence, as the kernel's sidtab
 *   does: @first_sid follows the initial SIDs (27 in recent kernels, so
 *   28), then boot-time contexts in first-seen order, domains (subjects)
 *   and types (objects) interleaved at random. Each app start adds
 *   @burst_sids new SIDs (its domain with fresh MLS categories, then its
 *   data, cache and socket types).
 * - A live set of @live_triples distinct triples, ranked by popularity;
 *   each check picks rank r with probability proportional to
 *   1 / r^@zipf_s. Subjects favour early (system) domains, targets mix
 *   domains and types, classes are Zipf(@class_zipf_s) over @classes
 *   class numbers in a seeded order.
 * - App start-up: on average every @burst_interval checks an app starts;
 *   its @burst_triples new triples are checked back to back, then take
 *   the place of as many live triples at random ranks (the app that
 *   stopped), so the live set keeps its size and its skew.
 *
 * Why these defaults are plausible: the seed measured > 90,000 checks/s
 * on an 8-core phone whose 512-node cache missed often enough to matter,
 * and its 8192-node, 8192-bucket run showed 60% of buckets used with
 * MurmurHash3, which a random hash gives at about 7,500 entries: so the
 * working set under stress is a few thousand triples (default 3000, try
 * 300 to 8000). Access to cached objects is commonly Zipf-like with s near
 * 1; Android policies have about 130 classes, a few dozen of them (file,
 * dir, binder, fd, process, capability, socket classes) taking most
 * checks; an app cold start touches tens to a hundred new triples.
 */
struct hp_avc_workload_params {
	uint64_t seed;
	uint32_t live_triples;	/* distinct triples in play (3000) */
	uint32_t domains;	/* subject SIDs at boot (200) */
	uint32_t types;		/* object SIDs at boot (1500) */
	uint32_t first_sid;	/* first SID handed out (28) */
	uint32_t classes;	/* tclass in 1..classes (100) */
	double zipf_s;		/* skew of triple popularity (1.0) */
	double class_zipf_s;	/* skew of class choice (1.2) */
	uint32_t burst_interval;	/* mean checks between app starts
					 * (20000); 0: no app starts */
	uint32_t burst_triples;	/* new triples per app start (64) */
	uint32_t burst_sids;	/* new SIDs per app start (4) */
};

struct hp_avc_key {
	uint32_t ssid;
	uint32_t tsid;
	uint16_t tclass;
};

struct hp_avc_workload {
	struct hp_avc_workload_params p;
	uint64_t rng;
	uint32_t next_sid;
	uint32_t *domains;		/* subject SIDs, in order handed out */
	uint32_t ndomains;
	uint32_t cap_domains;
	uint32_t *types;		/* object SIDs */
	uint32_t ntypes;
	uint32_t cap_types;
	uint16_t *class_of_rank;	/* class number by popularity */
	double *class_cdf;
	double *rank_cdf;		/* Zipf CDF over live ranks */
	struct hp_avc_key *live;	/* by rank, most popular first */
	/* open-addressing set of the live keys: no duplicates */
	uint32_t *set;			/* index + 1 into live, 0: empty */
	uint32_t set_mask;
	struct hp_avc_key *burst;	/* the app start being played */
	uint32_t burst_len, burst_pos;
	uint64_t until_burst;		/* checks left before the next */
	uint64_t emitted;
	uint64_t app_starts;
};

/* Fill @p with the defaults above. */
void hp_avc_workload_params_init(struct hp_avc_workload_params *p);

/**
 * hp_avc_workload_init() - build the boot-time SIDs and the live set.
 * @w: the workload
 * @p: its parameters; the same parameters give the same stream
 *
 * Return: 0; -EINVAL if @p->live_triples is 0 or above a quarter of the
 * distinct triples the boot SIDs and classes allow (domains x (domains +
 * types) x classes), @p->domains, @p->types or @p->classes is 0, a skew
 * is negative or NaN, or @p->classes > 65535; -ENOMEM.
 */
int hp_avc_workload_init(struct hp_avc_workload *w,
			 const struct hp_avc_workload_params *p);

/* The next permission check. */
void hp_avc_workload_next(struct hp_avc_workload *w, uint32_t *ssid,
			  uint32_t *tsid, uint16_t *tclass);

/* The live triple of popularity rank @rank (0 is the most popular). */
struct hp_avc_key hp_avc_workload_live(const struct hp_avc_workload *w,
				       uint32_t rank);

void hp_avc_workload_destroy(struct hp_avc_workload *w);

/* ---- inline twins of the hash functions ---- */

static inline uint32_t hp_avc_rol32(uint32_t x, unsigned int r)
{
	return (x << r) | (x >> (32 - r));
}

static inline uint32_t hp_avc_hash_orig_inl(uint32_t ssid, uint32_t tsid,
					    uint16_t tclass)
{
	return ssid ^ (tsid << 2) ^ ((uint32_t)tclass << 4);
}

static inline uint32_t hp_avc_hash_muladd_inl(uint32_t ssid, uint32_t tsid,
					      uint16_t tclass)
{
	return ssid * 0x9E3779B9u + tsid * 0x85EBCA77u +
	       (uint32_t)tclass * 0xC2B2AE35u;
}

/* One MurmurHash3_x86_32 block step: scramble @k, fold it into @h. */
static inline uint32_t hp_avc_murmur3_step(uint32_t h, uint32_t k)
{
	k *= 0xcc9e2d51u;
	k = hp_avc_rol32(k, 15);
	k *= 0x1b873593u;
	h ^= k;
	h = hp_avc_rol32(h, 13);
	return h * 5 + 0xe6546b64u;
}

static inline uint32_t hp_avc_hash_murmur3_inl(uint32_t ssid, uint32_t tsid,
					       uint16_t tclass)
{
	uint32_t h = 0;

	h = hp_avc_murmur3_step(h, ssid);
	h = hp_avc_murmur3_step(h, tsid);
	h = hp_avc_murmur3_step(h, tclass);
	/* fmix32; av_hash() skips the "h ^= length" before it */
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static inline uint32_t hp_avc_hash_jhash_inl(uint32_t ssid, uint32_t tsid,
					     uint16_t tclass)
{
	/* JHASH_INITVAL + (3 words << 2) + initval 0 */
	uint32_t init = 0xdeadbeefu + (3u << 2);
	uint32_t a = ssid + init, b = tsid + init, c = tclass + init;

	/* __jhash_final(): seven xor-then-subtract-rotated steps */
	c = (c ^ b) - hp_avc_rol32(b, 14);
	a = (a ^ c) - hp_avc_rol32(c, 11);
	b = (b ^ a) - hp_avc_rol32(a, 25);
	c = (c ^ b) - hp_avc_rol32(b, 16);
	a = (a ^ c) - hp_avc_rol32(c, 4);
	b = (b ^ a) - hp_avc_rol32(a, 14);
	c = (c ^ b) - hp_avc_rol32(b, 24);
	return c;
}

/*
 * The two constants are wyhash's published (public-domain) secrets: odd,
 * four bits set in every byte. Tried on 8000 lattices of small sequential
 * SIDs against six random pairs and the golden ratio, this pair's worst
 * lattice was no worse than a random function's; some others' were.
 */
#define HP_AVC_HP_XOR	0x2d358dccaa6c78a5ull
#define HP_AVC_HP_MUL	0x8bb84b93962eacc9ull

static inline uint32_t hp_avc_hash_hp_inl(uint32_t ssid, uint32_t tsid,
					  uint16_t tclass)
{
	uint64_t s = ssid;
	/* a rotation, not a shift: SIDs of 2^24 and more lose no bit */
	uint64_t k = ((s << 40) | (s >> 24)) ^ ((uint64_t)tclass << 24) ^ tsid;
	unsigned __int128 p = (unsigned __int128)(k ^ HP_AVC_HP_XOR) *
			      HP_AVC_HP_MUL;
	uint64_t x = (uint64_t)p ^ (uint64_t)(p >> 64);

	return (uint32_t)x ^ (uint32_t)(x >> 32);
}

#endif /* HOTPATH_AVC_H */
