// SPDX-License-Identifier: GPL-2.0-only
/*
 * The correctness gate: before a variant is timed it must agree with the
 * primitive's reference on every case here. Buffers sit against guard
 * pages and the whole walk runs under a fault trap, so an over-read is
 * reported as a failing case rather than a crash.
 */
#include "engine.h"
#include <hotpath/guard.h>

#include <signal.h>
#include <stdio.h>

#include <string.h>

/* Lengths 0..DENSE_MAX at every alignment 0..63; up to SPARSE_MAX at a
 * few alignments; then the run's own sizes at the run's alignments. */
#define DENSE_MAX 256
#define SPARSE_MAX 1536
#define RANDOM_BIG 65536
#define GATE_BUF (RANDOM_BIG + 4096)

static const size_t sparse_aligns[] = { 0, 1, 3, 7 };

struct gate {
	const struct hp_primitive *p;
	const struct hp_variant *v;
	const struct hp_gate_opts *o;
	struct hp_guarded g;
	uint64_t rng;
	unsigned long ncases;
	/* the case being run, for the report if it faults */
	struct hp_failure cur;
	int failed;
	int dirty_upper;	/* as hp_gate()'s */
};

static int in_domain(const struct gate *s, size_t len)
{
	if (len < s->v->min_len || (s->v->max_len && len > s->v->max_len))
		return 0;
	return !s->p->size_ok || s->p->size_ok(len);
}

/* One case at @buf; returns nonzero (and records it) on a mismatch. */
static int one(struct gate *s, const uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t exp, got;

	s->cur.len = len;
	s->cur.align = (uintptr_t)buf & 63;	/* the offset the docs speak of */
	s->cur.seed = seed;
	s->ncases++;
	hp_clean_upper();
	if (!s->p->check(s->v, buf, len, seed, &exp, &got)) {
		hp_trap_beat++;
		if (!s->dirty_upper)
			s->dirty_upper = hp_upper_dirty();
		return 0;
	}
	s->cur.expected = exp;
	s->cur.got = got;
	strcpy(s->cur.what, "mismatch");
	if (s->p->explain) {
		const char *why = s->p->explain(buf, len, seed, got);

		if (why)
			snprintf(s->cur.what, sizeof(s->cur.what),
				 "mismatch (%s)", why);
	}
	s->failed = 1;
	return 1;
}

/* Seeds 0, all-ones (as 32 bits: every primitive's chained value is at
 * most that wide here) and one random value. */
static int seeds(struct gate *s, const uint8_t *buf, size_t len)
{
	return one(s, buf, len, 0) || one(s, buf, len, 0xffffffffu) ||
	       one(s, buf, len, hp_rng_next(&s->rng) & 0xffffffffu);
}

static int placed(struct gate *s, size_t len, size_t align)
{
	if (!in_domain(s, len) || len + 64 > s->g.size)
		return 0;
	return seeds(s, hp_guarded_place(&s->g, len, align), len);
}

static void walk(void *arg)
{
	struct gate *s = arg;
	const struct hp_gate_opts *o = s->o;
	size_t len, a, i;

	for (len = 0; len <= DENSE_MAX; len++)
		for (a = 0; a < 64; a++)
			if (placed(s, len, a))
				return;
	for (len = DENSE_MAX + 1; len <= SPARSE_MAX; len++)
		for (i = 0; i < sizeof(sparse_aligns) / sizeof(*sparse_aligns); i++)
			if (placed(s, len, sparse_aligns[i]))
				return;
	for (i = 0; i < 64; i++) {
		len = hp_rng_next(&s->rng) % (RANDOM_BIG + 1);
		if (placed(s, len, hp_rng_next(&s->rng) & 63))
			return;
	}
	/* Last byte against the rear guard; first byte at the front one. */
	for (len = 0; len <= SPARSE_MAX; len++) {
		if (!in_domain(s, len))
			continue;
		if (one(s, hp_guarded_butt(&s->g, len), len,
			hp_rng_next(&s->rng) & 0xffffffffu) ||
		    one(s, s->g.base + (len & 7), len,
			hp_rng_next(&s->rng) & 0xffffffffu))
			return;
	}
	/* The sizes and alignments this run will time. */
	for (i = 0; i < o->nsizes; i++)
		for (a = 0; a < o->naligns; a++)
			if (placed(s, o->sizes[i], o->aligns[a]))
				return;
	/* All 0xff: every add carries. */
	memset(s->g.base, 0xff, s->g.size);
	for (len = 0; len <= DENSE_MAX; len++)
		for (a = 0; a < 8; a++)
			if (placed(s, len, a))
				return;
}

int hp_gate(const struct hp_primitive *p, const struct hp_variant *v,
	    const struct hp_gate_opts *o, struct hp_failure *fail,
	    unsigned long *ncases, int *dirty_upper)
{
	struct gate s = { .p = p, .v = v, .o = o, .rng = o->rng_seed };
	size_t size = GATE_BUF;
	int rc = 0;

	for (size_t i = 0; i < o->nsizes; i++)
		if (o->sizes[i] + 128 > size)
			size = o->sizes[i] + 128;
	if (hp_guarded_alloc(&s.g, size)) {
		strcpy(fail->what, "could not map the gate's buffer");
		return -1;
	}
	hp_fill_random(s.g.base, s.g.size, &s.rng);
	if (hp_guarded_call(walk, &s)) {
		struct hp_fault f = hp_trap_fault();
		const uint8_t *a = f.addr, *map = s.g.map;

		/* A guard page is an over-read (the gate's, or one of a
		 * check's own buffers); anything else, a crash. */
		if ((f.sig == SIGSEGV || f.sig == SIGBUS) &&
		    ((a >= map && a < map + s.g.map_size) || hp_guarded_is_guard(a)))
			strcpy(s.cur.what, "read outside the buffer");
		else
			hp_fault_describe(&f, s.cur.what, sizeof(s.cur.what));
		s.cur.expected = s.cur.got = 0;
		s.failed = 1;
	}
	if (s.failed) {
		*fail = s.cur;
		rc = 1;
	}
	*ncases = s.ncases;
	if (dirty_upper)
		*dirty_upper = s.dirty_upper;
	hp_clean_upper();
	hp_guarded_free(&s.g);
	return rc;
}

void hp_fill_random(uint8_t *buf, size_t len, uint64_t *state)
{
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t r = hp_rng_next(state);

		memcpy(buf + i, &r, 8);
	}
	for (; i < len; i++)
		buf[i] = (uint8_t)hp_rng_next(state);
}
