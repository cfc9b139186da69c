// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVC lab's synthetic workload: bad parameters refused, replayed from
 * its seed, its shape (Zipf head, classes, SIDs), app starts and churn.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hotpath/avc.h>

#include "check.h"
#define TEST_RNG_SEED 0x5e1a0a7c0ffee006ull
#include "testdata.h"

/* ---- the workload ---- */

static void test_workload_params(void)
{
	struct hp_avc_workload_params p;
	struct hp_avc_workload w;

	hp_avc_workload_params_init(&p);
	p.live_triples = 0;
	CHECK(hp_avc_workload_init(&w, &p) == -EINVAL, "no triples");
	hp_avc_workload_params_init(&p);
	p.classes = 0;
	CHECK(hp_avc_workload_init(&w, &p) == -EINVAL, "no classes");
	hp_avc_workload_params_init(&p);
	p.zipf_s = NAN;
	CHECK(hp_avc_workload_init(&w, &p) == -EINVAL, "NaN skew");
	hp_avc_workload_params_init(&p);
	p.domains = 2;
	p.types = 3;
	p.classes = 2;	/* 2 x 5 x 2 = 20 triples: 3000 cannot be live */
	CHECK(hp_avc_workload_init(&w, &p) == -EINVAL, "too few SIDs");
}

/* Same seed, same stream; another seed, another. */
static void test_workload_replay(void)
{
	struct hp_avc_workload_params p;
	struct hp_avc_workload a, b, d;
	uint32_t i, same = 0, diff = 0;

	hp_avc_workload_params_init(&p);
	p.seed = 42;
	CHECK(!hp_avc_workload_init(&a, &p) && !hp_avc_workload_init(&b, &p),
	      "init");
	p.seed = 43;
	CHECK(!hp_avc_workload_init(&d, &p), "init");
	for (i = 0; i < 300000; i++) {
		uint32_t s1, t1, s2, t2, s3, t3;
		uint16_t c1, c2, c3;

		hp_avc_workload_next(&a, &s1, &t1, &c1);
		hp_avc_workload_next(&b, &s2, &t2, &c2);
		hp_avc_workload_next(&d, &s3, &t3, &c3);
		same += s1 == s2 && t1 == t2 && c1 == c2;
		diff += s1 != s3 || t1 != t3 || c1 != c3;
	}
	CHECK(same == 300000, "same seed differs %u times", 300000 - same);
	CHECK(diff > 200000, "another seed agrees %u times", 300000 - diff);
	CHECK(a.app_starts == b.app_starts && a.next_sid == b.next_sid,
	      "same app starts");
	hp_avc_workload_destroy(&a);
	hp_avc_workload_destroy(&b);
	hp_avc_workload_destroy(&d);
}

static int key_cmp(const void *x, const void *y)
{
	const struct hp_avc_key *a = x, *b = y;

	if (a->ssid != b->ssid)
		return a->ssid < b->ssid ? -1 : 1;
	if (a->tsid != b->tsid)
		return a->tsid < b->tsid ? -1 : 1;
	return (int)a->tclass - (int)b->tclass;
}

static uint32_t live_duplicates(const struct hp_avc_workload *w)
{
	uint32_t n = w->p.live_triples, i, dup = 0;
	struct hp_avc_key *k = malloc(sizeof(*k) * n);

	for (i = 0; i < n; i++)
		k[i] = hp_avc_workload_live(w, i);
	qsort(k, n, sizeof(*k), key_cmp);
	for (i = 1; i < n; i++)
		dup += !key_cmp(&k[i - 1], &k[i]);
	free(k);
	return dup;
}

/* SIDs in sequence, classes in range, distinct live set, Zipf head. */
static void test_workload_shape(void)
{
	struct hp_avc_workload_params p;
	struct hp_avc_workload w;
	uint32_t i, n = 400000, out = 0, top = 0, sid0;
	struct hp_avc_key k0;
	double h = 0, share;

	hp_avc_workload_params_init(&p);
	p.burst_interval = 0;	/* a still live set, for the Zipf head */
	CHECK(!hp_avc_workload_init(&w, &p), "init");
	sid0 = w.next_sid;
	CHECK(sid0 == p.first_sid + p.domains + p.types, "boot SIDs %u", sid0);
	CHECK(!live_duplicates(&w), "duplicate live triples");
	k0 = hp_avc_workload_live(&w, 0);
	for (i = 0; i < n; i++) {
		uint32_t s, t;
		uint16_t c;

		hp_avc_workload_next(&w, &s, &t, &c);
		out += s < p.first_sid || s >= sid0 || t < p.first_sid ||
		       t >= sid0 || c < 1 || c > p.classes;
		top += s == k0.ssid && t == k0.tsid && c == k0.tclass;
	}
	for (i = 1; i <= p.live_triples; i++)
		h += 1.0 / i;
	share = (double)top / n;
	CHECK(!out, "%u checks out of range", out);
	/* rank 0 has weight 1 / H(3000) = 11.5%; 400k draws: sd 0.05% */
	CHECK(fabs(share - 1 / h) < 0.005, "top share %.4f, want %.4f", share,
	      1 / h);
	hp_avc_workload_destroy(&w);
}

/* App starts: new SIDs, new triples played back to back. */
static void test_workload_bursts(void)
{
	struct hp_avc_workload_params p;
	struct hp_avc_workload w;
	uint32_t i, n = 1000000, new_sid = 0;
	uint32_t boot_end;

	hp_avc_workload_params_init(&p);
	CHECK(!hp_avc_workload_init(&w, &p), "init");
	boot_end = w.next_sid;
	for (i = 0; i < n; i++) {
		uint32_t s, t;
		uint16_t c;

		hp_avc_workload_next(&w, &s, &t, &c);
		new_sid += s >= boot_end || t >= boot_end;
	}
	/* n / 20000 = 50 expected; Poisson sd about 7 */
	CHECK(w.app_starts >= 25 && w.app_starts <= 80, "%llu app starts",
	      (unsigned long long)w.app_starts);
	CHECK(w.next_sid == boot_end + w.app_starts * p.burst_sids,
	      "SIDs handed out in sequence: %u", w.next_sid);
	CHECK(new_sid > w.app_starts * p.burst_triples / 2,
	      "%u checks on apps' SIDs", new_sid);
	CHECK(!live_duplicates(&w), "duplicate live triples after bursts");
	hp_avc_workload_destroy(&w);
}

/*
 * A tiny live set in a tiny SID space with constant app starts: the
 * generator's set of live keys (16 slots) is deleted from and wraps
 * around all the time; a key it loses track of would come back as a
 * duplicate.
 */
static void test_workload_churn(void)
{
	struct hp_avc_workload_params p;
	struct hp_avc_workload w;
	uint32_t i, dup = 0;

	hp_avc_workload_params_init(&p);
	p.live_triples = 8;
	p.domains = 2;
	p.types = 2;
	p.classes = 4;
	p.burst_interval = 3;
	p.burst_triples = 5;
	p.burst_sids = 0;
	CHECK(!hp_avc_workload_init(&w, &p), "init");
	for (i = 0; i < 20000; i++) {
		uint32_t s, t;
		uint16_t c;

		hp_avc_workload_next(&w, &s, &t, &c);
		if (!(i % 8))
			dup += live_duplicates(&w);
	}
	CHECK(!dup && w.app_starts > 1000, "%u duplicates in %llu app starts",
	      dup, (unsigned long long)w.app_starts);
	CHECK(w.next_sid == p.first_sid + 4, "no SIDs added");
	hp_avc_workload_destroy(&w);
}

/* The workload through the cache: the counters keep their identities. */

int main(void)
{
	test_workload_params();
	test_workload_replay();
	test_workload_shape();
	test_workload_bursts();
	test_workload_churn();
	return check_summary("test_avc_workload");
}
