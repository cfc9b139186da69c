// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVC cache model: slots of hlist heads, 72-byte nodes from a pool
 * laid out like a slab, and the kernel's insert, replace and reclaim
 * paths (security/selinux/avc.c: avc_alloc_node, avc_insert,
 * avc_reclaim_node, avc_node_replace, avc_flush). One thread; no RCU:
 * a deleted node is back in the pool at once. hotpath/avc.h says what
 * the layouts assume.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hotpath/avc.h>

#include "avc_internal.h"

/* The model must walk the same bytes the kernel does. */
#if UINTPTR_MAX == 0xffffffffffffffffull
_Static_assert(sizeof(struct hp_avc_node) == HP_AVC_KERNEL_NODE_BYTES,
	       "struct hp_avc_node must be as large as struct avc_node");
_Static_assert(offsetof(struct hp_avc_node, list) == 40,
	       "the chain link sits 40 bytes into struct avc_node");
#endif

#define NODES_PER_PAGE	(HP_AVC_SLAB_PAGE_BYTES / sizeof(struct hp_avc_node))
/* A bound on the pool, so that a huge threshold fails cleanly. */
#define POOL_MAX_NODES	(1u << 24)

/* ---- hlist, as include/linux/list.h links it ---- */

static void hlist_add_head(struct hp_avc_hlist_node *n,
			   struct hp_avc_hlist_head *h)
{
	n->next = h->first;
	if (h->first)
		h->first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

static void hlist_del(struct hp_avc_hlist_node *n)
{
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
	n->next = NULL;
	n->pprev = NULL;
}

/* @new takes @old's place in its chain. */
static void hlist_replace(struct hp_avc_hlist_node *old,
			  struct hp_avc_hlist_node *new)
{
	new->next = old->next;
	new->pprev = old->pprev;
	*new->pprev = new;
	if (new->next)
		new->next->pprev = &new->next;
	old->next = NULL;
	old->pprev = NULL;
}

/* ---- the node pool ---- */

static struct hp_avc_node *pool_node(const struct hp_avc_cache *c,
				     uint32_t i)
{
	char *page = (char *)c->pool + (size_t)(i / NODES_PER_PAGE) *
		     HP_AVC_SLAB_PAGE_BYTES;

	return (struct hp_avc_node *)page + i % NODES_PER_PAGE;
}

static void pool_put(struct hp_avc_cache *c, struct hp_avc_node *node)
{
	node->rhead.next = c->free_list;
	c->free_list = node;
	c->pool_free++;
}

/* kmem_cache_zalloc(): a zeroed node, or NULL when none is left. */
static struct hp_avc_node *pool_get(struct hp_avc_cache *c)
{
	struct hp_avc_node *node = c->free_list;

	if (!node)
		return NULL;
	c->free_list = node->rhead.next;
	c->pool_free--;
	memset(node, 0, sizeof(*node));
	return node;
}

/*
 * Fill the free list so that nodes come out in a shuffled order: a chain
 * built from them jumps between pages as a long-running kernel's does,
 * where the slab's free lists have been stirred by millions of frees.
 */
static int pool_create(struct hp_avc_cache *c, uint32_t nodes, uint64_t seed,
		       bool sequential)
{
	size_t pages = (nodes + NODES_PER_PAGE - 1) / NODES_PER_PAGE;
	uint32_t *order, i;

	c->pool_bytes = pages * HP_AVC_SLAB_PAGE_BYTES;
	c->pool = aligned_alloc(HP_AVC_SLAB_PAGE_BYTES, c->pool_bytes);
	order = malloc(sizeof(*order) * nodes);
	if (!c->pool || !order) {
		free(c->pool);
		free(order);
		c->pool = NULL;
		return -ENOMEM;
	}
	memset(c->pool, 0, c->pool_bytes);
	for (i = 0; i < nodes; i++)
		order[i] = i;
	for (i = nodes - 1; !sequential && i > 0; i--) {
		uint32_t j = hp_avc_rand_below(&seed, i + 1);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	c->pool_nodes = nodes;
	c->pool_free = 0;
	c->free_list = NULL;
	/* pushed last to first, so order[0] is handed out first */
	for (i = nodes; i-- > 0;)
		pool_put(c, pool_node(c, order[i]));
	free(order);
	return 0;
}

/* The most nodes the algorithm holds at once for @threshold: it counts
 * the new node before reclaiming, and with threshold 0 the one it just
 * linked stays until the next insert frees it. */
static uint64_t nodes_needed(uint32_t threshold)
{
	return (uint64_t)(threshold ? threshold : 1) + 1;
}

/* ---- set-up ---- */

void hp_avc_params_init(struct hp_avc_params *p)
{
	memset(p, 0, sizeof(*p));
	p->slots = HP_AVC_DEF_SLOTS;
	p->threshold = HP_AVC_DEF_THRESHOLD;
	p->hash = hp_avc_hash_murmur3;
	p->reclaim = HP_AVC_RECLAIM_KERNEL;
	p->pool_seed = 1;
}

int hp_avc_init(struct hp_avc_cache *c, const struct hp_avc_params *p)
{
	uint64_t nodes = p->pool_nodes ? p->pool_nodes :
			 nodes_needed(p->threshold);
	int err;

	memset(c, 0, sizeof(*c));
	if (!p->slots || (p->slots & (p->slots - 1)) ||
	    p->slots > HP_AVC_MAX_SLOTS)
		return -EINVAL;
	if (nodes < nodes_needed(p->threshold) || nodes > POOL_MAX_NODES)
		return -EINVAL;
	if (p->reclaim != HP_AVC_RECLAIM_KERNEL &&
	    p->reclaim != HP_AVC_RECLAIM_WHOLE_BUCKETS)
		return -EINVAL;
	c->slots = calloc(p->slots, sizeof(*c->slots));
	if (!c->slots)
		return -ENOMEM;
	err = pool_create(c, (uint32_t)nodes, p->pool_seed,
			  p->pool_sequential);
	if (err) {
		free(c->slots);
		memset(c, 0, sizeof(*c));
		return err;
	}
	c->nslots = p->slots;
	c->mask = p->slots - 1;
	/* hp: its bucket is its top bits, the shift fixed here */
	c->hash = hp_avc_hash_for_slots(p->hash ? p->hash : hp_avc_hash_murmur3,
					p->slots);
	c->threshold = p->threshold;
	c->reclaim = p->reclaim;
	return 0;
}

void hp_avc_destroy(struct hp_avc_cache *c)
{
	free(c->slots);
	free(c->pool);
	memset(c, 0, sizeof(*c));
}

int hp_avc_set_threshold(struct hp_avc_cache *c, uint32_t threshold)
{
	if (nodes_needed(threshold) > c->pool_nodes)
		return -EINVAL;
	c->threshold = threshold;
	return 0;
}

/* ---- lookup ---- */

struct hp_avc_node *hp_avc_search(const struct hp_avc_cache *c,
				  uint32_t ssid, uint32_t tsid,
				  uint16_t tclass)
{
	return hp_avc_search_slot(c, hp_avc_slot(c, ssid, tsid, tclass),
				  ssid, tsid, tclass);
}

struct hp_avc_node *hp_avc_lookup(struct hp_avc_cache *c, uint32_t ssid,
				  uint32_t tsid, uint16_t tclass)
{
	struct hp_avc_node *node = hp_avc_search(c, ssid, tsid, tclass);

	c->stats.lookups++;
	if (node)
		c->stats.hits++;
	else
		c->stats.misses++;
	return node;
}

/* ---- delete and reclaim ---- */

/* avc_node_delete() and, at once, the RCU callback avc_node_free(). */
static void node_delete(struct hp_avc_cache *c, struct hp_avc_node *node)
{
	hlist_del(&node->list);
	c->active_nodes--;
	c->stats.frees++;
	pool_put(c, node);
}

/*
 * Delete @slot's chain from its head. In the kernel's mode stop at the
 * node that makes *freed reach AVC_CACHE_RECLAIM; in whole-bucket mode
 * finish the chain first. Return: true when the pass has freed enough.
 */
static bool reclaim_bucket(struct hp_avc_cache *c, uint32_t slot,
			   uint32_t *freed)
{
	struct hp_avc_hlist_node *pos = c->slots[slot].first;

	while (pos) {
		struct hp_avc_hlist_node *next = pos->next;

		node_delete(c, hp_avc_node_of(pos));
		c->stats.reclaims++;
		if (++*freed >= HP_AVC_CACHE_RECLAIM &&
		    c->reclaim == HP_AVC_RECLAIM_KERNEL)
			return true;
		pos = next;
	}
	return *freed >= HP_AVC_CACHE_RECLAIM;
}

uint32_t hp_avc_reclaim_node(struct hp_avc_cache *c)
{
	struct hp_avc_reclaim_info *ri = &c->last_reclaim;
	uint32_t try, freed = 0;

	/* atomic_inc_return(): the pass starts one past the last hint */
	ri->first_slot = (c->lru_hint + 1) & c->mask;
	ri->buckets = 0;
	for (try = 0; try < c->nslots; try++) {
		ri->buckets++;
		if (reclaim_bucket(c, ++c->lru_hint & c->mask, &freed))
			break;
	}
	ri->nodes = freed;
	ri->passes++;
	return freed;
}

void hp_avc_flush(struct hp_avc_cache *c)
{
	uint32_t i;

	for (i = 0; i < c->nslots; i++)
		while (c->slots[i].first)
			node_delete(c, hp_avc_node_of(c->slots[i].first));
}

/* ---- insert ---- */

/* avc_alloc_node(): count the node, then reclaim if over the threshold. */
static struct hp_avc_node *alloc_node(struct hp_avc_cache *c)
{
	struct hp_avc_node *node = pool_get(c);

	if (!node)
		return NULL;
	c->stats.allocations++;
	if (++c->active_nodes > c->threshold)
		hp_avc_reclaim_node(c);
	return node;
}

struct hp_avc_node *hp_avc_insert(struct hp_avc_cache *c, uint32_t ssid,
				  uint32_t tsid, uint16_t tclass,
				  const struct hp_avc_decision *avd)
{
	struct hp_avc_hlist_head *head;
	struct hp_avc_hlist_node *pos;
	struct hp_avc_node *node = alloc_node(c);

	if (!node)
		return NULL;
	node->ae.ssid = ssid;
	node->ae.tsid = tsid;
	node->ae.tclass = tclass;
	if (avd)
		node->ae.avd = *avd;

	/* hashed after the reclaim, as avc_insert() does */
	head = &c->slots[hp_avc_slot(c, ssid, tsid, tclass)];
	for (pos = head->first; pos; pos = pos->next) {
		struct hp_avc_node *old = hp_avc_node_of(pos);

		if (old->ae.ssid == ssid && old->ae.tsid == tsid &&
		    old->ae.tclass == tclass) {
			/* avc_node_replace(); avc_node_free() counts it */
			hlist_replace(&old->list, &node->list);
			c->active_nodes--;
			c->stats.frees++;
			pool_put(c, old);
			return node;
		}
	}
	hlist_add_head(&node->list, head);
	return node;
}

bool hp_avc_access(struct hp_avc_cache *c, uint32_t ssid, uint32_t tsid,
		   uint16_t tclass)
{
	if (hp_avc_lookup(c, ssid, tsid, tclass))
		return true;
	hp_avc_insert(c, ssid, tsid, tclass, NULL);
	return false;
}
