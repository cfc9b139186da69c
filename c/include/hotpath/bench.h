/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hotpath measurement engine: the primitive and variant descriptions every
 * lab fills in, the three timing modes, and the helpers a burst function
 * uses so that the compiler can neither delete nor hoist the timed work.
 *
 * A primitive (csum_partial, crc32c, crc32c_combine, ...) is data: a table
 * of variants (name, function pointer, CPU needs, domain, description,
 * origin) plus callbacks: check one case against the reference, time one
 * burst of calls, and name the property a variant promises. A lab groups
 * the primitives of one hot path. The engine (c/bench/) owns sampling,
 * calibration, interleaving and the JSON that the Python side reads; a
 * primitive never reads the clock itself except through HP_TIMED().
 */
#ifndef HOTPATH_BENCH_H
#define HOTPATH_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include <hotpath/cpu_features.h>

enum hp_mode {
	HP_LATENCY,	/* each call's result is the next call's input */
	HP_THROUGHPUT,	/* calls independent, results consumed */
	HP_FENCED,	/* lfence around each call, empty call subtracted */
	HP_NMODES
};

extern const char *const hp_mode_names[HP_NMODES];

/* CPU features a variant may need: <hotpath/cpu_features.h>. */

/* Variant flags. */
enum hp_variant_flag {
	/* The function ignores its chained input (seed 000's "assume zero
	 * input sum"): latency mode has no chain to follow. */
	HP_V_NO_LATENCY = 1u << 0,
	/* Code from a peer library rather than written here. */
	HP_V_PEER = 1u << 1,
	/* Loaded from the user's own file with --with. */
	HP_V_USER = 1u << 2,
	/* The kernel's own code, built from a kernel tree (--with-kernel;
	 * python/hotpath/kernelsrc): not a re-implementation. */
	HP_V_KERNEL = 1u << 3,
	/* hotpath's own implementation of the primitive: the one a user
	 * links (hp_csum, hp_crc32c, ...); the reports set it beside the rest. */
	HP_V_OWN = 1u << 4,
	/* A re-implementation of a released kernel's code (kernel-5.17,
	 * kernel-x86), as opposed to the kernel's own code (HP_V_KERNEL). */
	HP_V_REIMPL = 1u << 5,
	/* Runs the dispatch row in use (hp_csum(), hp_crc32c(): hotpath/
	 * dispatch.h), so its figures depend on the row: `hotpath-bench facts`
	 * names the primitives that have such a variant (row_primitives). */
	HP_V_ROW = 1u << 6,
};

/* Time @n calls of @fn in @mode; returns elapsed TSC ticks. */
typedef uint64_t (*hp_burst_fn)(const void *fn, const uint8_t *buf,
				size_t len, uint64_t seed, enum hp_mode mode,
				unsigned n);

struct hp_variant {
	const char *name;	/* stable, kebab-case: "kernel-5.17" */
	const void *fn;		/* signature fixed by the primitive */
	uint32_t needs;		/* enum hp_cpu_feature bits */
	uint32_t flags;		/* enum hp_variant_flag bits */
	size_t min_len;		/* domain: lengths the variant is defined for */
	size_t max_len;		/* 0 means no upper bound */
	uint32_t promise;	/* primitive-specific: which property is checked */
	const char *desc;	/* one line */
	const char *origin;	/* where the algorithm comes from */
	const char *mode_note;	/* why a mode is n/a (with HP_V_NO_LATENCY) */
	const char *unavailable;/* non-NULL: built without it, and why */
	/* non-NULL: the primitive's burst copies to time it through instead
	 * of the primitive's own (the kernel's objects: their image's, loaded
	 * beside them, c/kload/bursts) */
	const hp_burst_fn *burst;
};

/* The first case on which a variant disagreed with the reference. */
struct hp_failure {
	size_t len;
	size_t align;
	uint64_t seed;
	uint64_t expected;
	uint64_t got;
	/* "mismatch", "read outside the buffer", "crashed: SIGILL (...)",
	 * "did not return within 30 s (--time-limit)" */
	char what[160];
};

/*
 * A primitive's burst function exists in HP_BURST_SITES copies, and each
 * variant of a run is timed through a copy of its own. An indirect call
 * site that has seen several targets stays slower even while it calls one
 * of them thousands of times in a row: on a Zen 3 core, hp-csum at 40
 * bytes measured 8.1 cycles timed alone and 11.1 once another variant had
 * been timed through the same call site, for every sample of the run. In
 * the kernel the call is direct; one target per call site is the fair
 * measurement. The last copy times the empty call.
 */
#define HP_BURST_SITES 48

struct hp_json;	/* the engine's JSON writer (<hotpath/json.h>) */

struct hp_primitive {
	const char *name;	/* "csum_partial", "crc32c", ... */
	const char *lab;	/* "csum", "crc32c", "calibrate" */
	const char *seed_name;	/* what the chained input is: "sum", "crc" */
	const struct hp_variant *variants;
	size_t nvariants;
	/* identity function with the primitive's signature: the empty call */
	const void *empty_fn;
	/* 0 when @fn agrees with the reference on this case, else fills
	 * *expected and *got with the values the promise compares. */
	int (*check)(const struct hp_variant *v, const uint8_t *buf,
		     size_t len, uint64_t seed, uint64_t *expected,
		     uint64_t *got);
	/* HP_BURST_SITES copies of one burst function (HP_BURST_COPIES) */
	const hp_burst_fn *burst;
	/* promise value -> words for the report, e.g. "csum_fold equal" */
	const char *(*promise_name)(uint32_t promise);
	/* Optional: sizes the primitive accepts beyond the variant's
	 * [min_len, max_len] (e.g. multiples of 4); NULL accepts all. */
	int (*size_ok)(size_t size);
	/* Optional: a likely reason for a mismatch the check found ("inverting
	 * convention?"), or NULL; the gate adds it to the failure. */
	const char *(*explain)(const uint8_t *buf, size_t len, uint64_t seed,
			       uint64_t got);
	/* Optional: a parameter of the primitive's own (`--param KEY=VALUE`,
	 * e.g. the AVC cache's slots); NULL when taken, else what is allowed. */
	const char *(*configure)(const char *key, const char *value);
	/* Optional: what the primitive's model says of @v at @size, not timed
	 * (`hotpath-bench analyze`; the AVC cache's hash_stats): one JSON
	 * object written to @j with the engine's writer (c/bench/json.c),
	 * and 0; or -1, having written nothing, when it could not. */
	int (*analyze)(const struct hp_variant *v, size_t size, struct hp_json *j);
	/* Optional: why @v cannot run in this configuration (a kernel's AVC
	 * lookup at another slot count), or NULL; the gate then lists it
	 * unavailable with the reason instead of checking it. */
	const char *(*unavailable)(const struct hp_variant *v);
	/* Optional: sizes timed when the user names none. */
	const size_t *default_sizes;
	size_t ndefault_sizes;
};

/* Primitives the runner knows, NULL-terminated (c/bench/primitives.c). */
extern const struct hp_primitive *const hp_primitives[];
const struct hp_primitive *hp_primitive_find(const char *name);
/* The name of the variant its registry flags HP_V_OWN, or "" (none, or p NULL). */
const char *hp_own_variant(const struct hp_primitive *p);

/* Who made this CPU and which one it is (cpuid leaves 0, 1, 80000002h-4h). */
struct hp_cpu_id {
	char vendor[13];
	char brand[49];
	unsigned family, model, stepping;
	int hypervisor;	/* cpuid 1 ECX bit 31: a hypervisor says it is there */
};

/* The one decoder of cpuid's vendor, family, model and stepping (c/bench/cpu.c,
 * linked into libhpsum too): hp_csum()'s fallback, the built-in rows and the
 * runner's cpu object all take them from it. */
void hp_cpu_identify(struct hp_cpu_id *id);
/* Whether this CPU has rdtscp (hp_tsc_end() needs it). */
int hp_cpu_has_rdtscp(void);
const char *hp_cpu_feature_name(unsigned bit);
/* "comma-separated, of: sse4.2 ...", for messages. */
const char *hp_cpu_features_allowed(void);
int hp_cpu_parse_features(const char *list, uint32_t *bits, char *badbuf,
			  size_t badlen);
/* Features HOTPATH_CPU_HIDE takes away from hp_cpu_features() (cpu.c). */
uint32_t hp_cpu_hidden(void);
/* 0 when HOTPATH_CPU_HIDE names something that is not a feature (said). */
int hp_cpu_hide_ok(void);

/* ---- What a lab's own program may use of the engine (c/crossing/) ---- */
/* SIGKILL this process when its parent dies (PR_SET_PDEATHSIG); exits at
 * once if the parent is gone already. Not inherited by fork() (lifetime.c). */
void hp_die_with_parent(void);
double hp_tsc_hz(void);	/* the TSC's rate, measured once (clock.c) */
/* One calibration sample: TSC ticks for @reps x 100 dependent adds (clock.c). */
uint64_t hp_calib_burst(unsigned reps);
double hp_median(double *v, size_t n);	/* sorts v (median.c) */

/* ---- Clock primitives used inside burst functions ---- */

static inline void hp_lfence(void)
{
	__asm__ volatile("lfence" ::: "memory");
}

/* Start of a timed region: earlier work finished, nothing later started. */
static inline uint64_t hp_tsc_begin(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc\n\tlfence"
			 : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* End of a timed region: rdtscp waits for earlier instructions. */
static inline uint64_t hp_tsc_end(void)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp\n\tlfence"
			 : "=a"(lo), "=d"(hi), "=c"(aux) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* The value must be computed: the compiler cannot drop the call. */
#define HP_CONSUME(x) __asm__ volatile("" : : "r"(x))
/* The compiler forgets what it knows about x: no constant folding. */
#define HP_OPAQUE(x) __asm__ volatile("" : "+r"(x))
/* A macro's value as a string, for constants inside asm text. */
#define HP_STR_(x) #x
#define HP_STR(x) HP_STR_(x)

/*
 * HP_TIMED(n, stmt): ticks spent running stmt n times. The loop counter
 * is not on any data chain that stmt builds, so it overlaps with the work.
 */
#define HP_TIMED(n, ...)						\
	({								\
		unsigned hp_n_ = (n);					\
		uint64_t hp_t0_;					\
		HP_OPAQUE(hp_n_);					\
		hp_t0_ = hp_tsc_begin();				\
		for (unsigned hp_i_ = 0; hp_i_ < hp_n_; hp_i_++) {	\
			__VA_ARGS__;					\
		}							\
		hp_tsc_end() - hp_t0_;					\
	})

/*
 * hp_depend(): @p, made to depend on @v. For a primitive with no chained
 * input (ip_fast_csum), latency mode chains calls through the address of
 * the next call's input instead: the pointer is @p + (@v & 0), computed so
 * the compiler cannot see the zero. Costs one and + one add on the chain.
 */
static inline const uint8_t *hp_depend(const uint8_t *p, uint64_t v)
{
	__asm__("and $0,%0" : "+r"(v));
	return p + v;
}

/*
 * HP_BURST_MODES(mode, n, s, call): the body of every burst function.
 * @s is the chained value (sum, crc) and @call an expression using it:
 * - latency:    s = call, so each call waits for the previous one;
 * - throughput: the result is consumed but never fed back;
 * - fenced:     lfence on both sides of each call, chained as in latency.
 * Evaluates to the elapsed TSC ticks.
 */
#define HP_BURST_MODES(mode, n, s, call)				\
	({								\
		__typeof__(s) hp_r_;					\
		uint64_t hp_t_ = 0;					\
		switch (mode) {						\
		case HP_LATENCY:					\
			hp_t_ = HP_TIMED(n, s = (call));		\
			break;						\
		case HP_THROUGHPUT:					\
			hp_t_ = HP_TIMED(n, hp_r_ = (call);		\
					 HP_CONSUME(hp_r_));		\
			break;						\
		case HP_FENCED:						\
			hp_t_ = HP_TIMED(n, hp_lfence(); s = (call);	\
					 hp_lfence());			\
			break;						\
		default:						\
			break;						\
		}							\
		HP_CONSUME(s);						\
		hp_t_;							\
	})

/*
 * HP_BURST_COPIES(name, body): `static const hp_burst_fn name[]`, the
 * HP_BURST_SITES copies of @body, a `static inline` function with
 * hp_burst_fn's signature that is inlined into each copy. The asm line
 * makes the copies differ, so the compiler cannot fold them into one.
 * The copies are named after @name, so primitives sharing one body each
 * get sites of their own.
 */
#define HP_BURST_COPY_(name, body, k)					\
	static __attribute__((noinline)) uint64_t name##_site##k(	\
		const void *fn, const uint8_t *buf, size_t len,		\
		uint64_t seed, enum hp_mode mode, unsigned n)		\
	{								\
		__asm__ volatile("# burst call site %c0" : : "i"(k));	\
		return body(fn, buf, len, seed, mode, n);		\
	}
#define HP_BURST_COPY8_(name, body, k)					\
	HP_BURST_COPY_(name, body, k##0) HP_BURST_COPY_(name, body, k##1) \
	HP_BURST_COPY_(name, body, k##2) HP_BURST_COPY_(name, body, k##3) \
	HP_BURST_COPY_(name, body, k##4) HP_BURST_COPY_(name, body, k##5) \
	HP_BURST_COPY_(name, body, k##6) HP_BURST_COPY_(name, body, k##7)
#define HP_BURST_NAME8_(name, k)					\
	name##_site##k##0, name##_site##k##1, name##_site##k##2,	\
	name##_site##k##3, name##_site##k##4, name##_site##k##5,	\
	name##_site##k##6, name##_site##k##7
#define HP_BURST_COPIES(name, body)					\
	HP_BURST_COPY8_(name, body, 1) HP_BURST_COPY8_(name, body, 2)	\
	HP_BURST_COPY8_(name, body, 3) HP_BURST_COPY8_(name, body, 4)	\
	HP_BURST_COPY8_(name, body, 5) HP_BURST_COPY8_(name, body, 6)	\
	static const hp_burst_fn name[HP_BURST_SITES] = {		\
		HP_BURST_NAME8_(name, 1), HP_BURST_NAME8_(name, 2),	\
		HP_BURST_NAME8_(name, 3), HP_BURST_NAME8_(name, 4),	\
		HP_BURST_NAME8_(name, 5), HP_BURST_NAME8_(name, 6),	\
	}

#endif /* HOTPATH_BENCH_H */
