/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SELinux access vector cache (security/selinux/avc.c) as a user-space
 * model: the cache itself (slots, cache_threshold, reclaim, hash_stats,
 * cache_stats) and the limits a random hash would reach; the hash functions
 * proposed for avc_hash() are <hotpath/avc_hash.h>'s, the synthetic
 * workload of permission checks <hotpath/avc_workload.h>'s.
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

#include <hotpath/avc_hash.h>
#include <hotpath/avc_workload.h>

/* ---- a kernel's own lookup (the avc lab's linux-X variants) ---- */

/*
 * What a kernel tree's avc.c gives the lab (c/kload/glue/avc.c, built by
 * the tree's Kbuild and loaded by c/kload): the variant's fn points at
 * this. The lab builds its cache with @hash as the bucket function, in
 * nodes of its own layout, which must be the tree's struct avc_node
 * (checked: @node_size and the offsets); @adopt makes the slots' first
 * nodes the kernel's selinux_avc's, and @search is avc_search_node().
 */
typedef void *(*hp_avc_search_fn)(uint32_t ssid, uint32_t tsid, uint16_t tclass);

struct hp_avc_kernel_ops {
	uint32_t slots, node_size, list_offset, tsid_offset, tclass_offset;
	uint32_t (*hash)(uint32_t ssid, uint32_t tsid, uint16_t tclass);
	void (*adopt)(void *const *heads);
	hp_avc_search_fn search;
	/* the lookup loop loaded beside the kernel's code (c/kload/bursts):
	 * n calls of @search over @keys (HP_AVC_LOOKUP_KEYS of them), timed */
	uint64_t (*loop)(hp_avc_search_fn search, const struct hp_avc_key *keys,
			 int mode, unsigned n, uint64_t seed);
};

/* The avc_lookup primitive's stream of keys looked up, a power of two. */
#define HP_AVC_LOOKUP_KEYS 4096u

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

#endif /* HOTPATH_AVC_H */
