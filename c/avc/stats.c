// SPDX-License-Identifier: GPL-2.0-only
/*
 * What selinuxfs shows of the AVC (hash_stats, cache_stats), a chain
 * length histogram, the memory a configuration costs, and what a random
 * hash would give, to judge the real ones against.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <hotpath/avc.h>

static uint32_t chain_length(const struct hp_avc_cache *c, uint32_t slot)
{
	const struct hp_avc_hlist_node *pos;
	uint32_t len = 0;

	for (pos = c->slots[slot].first; pos; pos = pos->next)
		len++;
	return len;
}

/* avc_get_hash_stats()'s walk; entries is active_nodes, as there. */
void hp_avc_get_hash_counts(const struct hp_avc_cache *c,
			    struct hp_avc_hash_counts *hc)
{
	uint32_t i;

	memset(hc, 0, sizeof(*hc));
	hc->entries = c->active_nodes;
	hc->buckets = c->nslots;
	for (i = 0; i < c->nslots; i++) {
		uint32_t len = chain_length(c, i);

		if (len)
			hc->buckets_used++;
		if (len > hc->longest_chain)
			hc->longest_chain = len;
	}
}

/* snprintf() that returns what it wrote, as the kernel's scnprintf(). */
static int written(int ret, size_t n)
{
	if (ret < 0 || !n)
		return 0;
	return (size_t)ret >= n ? (int)(n - 1) : ret;
}

int hp_avc_hash_stats(const struct hp_avc_cache *c, char *buf, size_t n)
{
	struct hp_avc_hash_counts hc;

	hp_avc_get_hash_counts(c, &hc);
	return written(snprintf(buf, n, "entries: %d\nbuckets used: %d/%d\n"
				"longest chain: %d\n", (int)hc.entries,
				(int)hc.buckets_used, (int)hc.buckets,
				(int)hc.longest_chain), n);
}

uint32_t hp_avc_chain_histogram(const struct hp_avc_cache *c, uint32_t *hist,
				size_t nbins)
{
	uint32_t i, longest = 0;

	memset(hist, 0, sizeof(*hist) * nbins);
	for (i = 0; i < c->nslots; i++) {
		uint32_t len = chain_length(c, i);

		if (nbins)
			hist[len < nbins ? len : nbins - 1]++;
		if (len > longest)
			longest = len;
	}
	return longest;
}

int hp_avc_cache_stats(const struct hp_avc_cache *c, char *buf, size_t n)
{
	const struct hp_avc_stats *st = &c->stats;

	return written(snprintf(buf, n, "lookups hits misses allocations "
				"reclaims frees\n"
				"%llu %llu %llu %llu %llu %llu\n",
				(unsigned long long)st->lookups,
				(unsigned long long)st->hits,
				(unsigned long long)st->misses,
				(unsigned long long)st->allocations,
				(unsigned long long)st->reclaims,
				(unsigned long long)st->frees), n);
}

void hp_avc_memory(uint32_t slots, uint32_t nodes, struct hp_avc_memory *m)
{
	size_t per_page = HP_AVC_SLAB_PAGE_BYTES / HP_AVC_KERNEL_NODE_BYTES;
	size_t pages = ((size_t)nodes + per_page - 1) / per_page;

	m->slot_bytes = (size_t)slots * HP_AVC_KERNEL_SLOT_BYTES;
	m->node_bytes = (size_t)nodes * HP_AVC_KERNEL_NODE_BYTES;
	m->node_slab_bytes = pages * HP_AVC_SLAB_PAGE_BYTES;
	m->total = m->slot_bytes + m->node_slab_bytes;
}

double hp_avc_expected_used(double n, double m)
{
	if (n <= 0)
		return 0;
	/* 1 - (1 - 1/m)^n without losing digits when m is large */
	return -m * expm1(n * log1p(-1 / m));
}

/* ln P(Binomial(n, p) = j), 0 < p < 1 */
static double binom_lpmf(uint32_t n, double p, uint32_t j)
{
	return lgamma(n + 1.0) - lgamma(j + 1.0) - lgamma(n - j + 1.0) +
	       j * log(p) + (n - j) * log1p(-p);
}

/* P(Binomial(n, p) >= k), summed upwards from k until the terms vanish */
static double binom_tail(uint32_t n, double p, uint32_t k)
{
	double sum = 0;
	uint32_t j;

	for (j = k; j <= n; j++) {
		double t = exp(binom_lpmf(n, p, j));

		sum += t;
		if (t < sum * 1e-17)
			break;
	}
	return sum > 1 ? 1 : sum;
}

double hp_avc_expected_longest(uint32_t n, uint32_t m)
{
	double p, mean, below = 0, sum = 0;
	uint32_t k;

	if (!n || m <= 1)
		return n;
	p = 1.0 / m;
	mean = (double)n / m;
	/* E[max] = sum over k >= 1 of P(max >= k) = 1 - P(load < k)^m */
	for (k = 1; k <= n; k++) {
		double q;

		below += exp(binom_lpmf(n, p, k - 1));
		if (k <= mean + 1) {
			/* the lower tail is small here: use it directly */
			q = -expm1(m * log(below < 1 ? below : 1));
		} else {
			/* the upper tail is small here: keep its digits */
			q = -expm1(m * log1p(-binom_tail(n, p, k)));
		}
		sum += q;
		if (k > mean + 1 && q < 1e-12)
			break;
	}
	/* The independence approximation undershoots for a handful of keys
	 * (2 keys in 512 buckets: 0.87); the longest chain is never below
	 * ceil(n / m). */
	return fmax(sum, ceil((double)n / m));
}
