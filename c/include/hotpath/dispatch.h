/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which method hp_csum() and hp_crc32c() use at each length, per CPU.
 *
 * The fastest method for a length depends on the core: on a Zen 1-class
 * core the vector checksum pays off from about 1 KiB, on a Zen 4 its
 * AVX-512 loop wins from 256 bytes at even addresses and loses to AVX2 at
 * odd ones. So the choice is data: a row of steps ("from this length, this
 * method") per CPU, never constants in the code.
 *
 * The row in use is, in this order:
 * - the file named by HOTPATH_DISPATCH (what `hotpath dispatch --write`
 *   measured on this machine): applied without recompiling;
 * - the row measured on this CPU (`hotpath dispatch --save`, the set-up
 *   runs it; `--system` for every user), found by this CPU's key;
 * - the built-in row whose CPU (vendor, family, model range) matches;
 * - the generic row.
 * A method this CPU cannot run is replaced by the step before it (the
 * first step by the portable method), so any row runs anywhere.
 *
 * Row text, one key per line, '#' comments:
 *   name = zen4
 *   csum.even = scalar 0, avx512 256, avx2 4096
 *   csum.odd = scalar 0, avx2 256
 *   crc32c = sse42 0, sse42-3way 64, avx512 256
 * Steps ascend from 0; at most HP_STEPS_MAX of them. The methods' names,
 * and the variant that runs each alone, are hp_dispatch_primitives[]'s
 * (c/dispatch/format.c, the one place; `hotpath-bench list` exports
 * them): the checksum's first step is scalar (below HP_CSUM_SHORT and up
 * to the second step hp_csum() runs its own adc chains).
 *
 * The checksum and CRC code ask this module for their row (hp_dispatch());
 * this module asks nothing of them: the enums below are the methods' ids.
 */
#ifndef HOTPATH_DISPATCH_H
#define HOTPATH_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#define HP_STEPS_MAX 8
/* A row file holds fewer bytes than this (a row is about 200): a larger
 * file is refused unread, so a file that never ends (/dev/zero) cannot
 * make the library read without end. */
#define HP_ROW_FILE_MAX 4096
/* Lengths below this always take hp_csum()'s scalar path: a row cannot
 * start a vector method before it. Up to 80 bytes hp_csum() never loads
 * the row (its adc ladder; consulting the row from 64 bytes had cost 5
 * cycles at 64 bytes on a Zen 3, 15.1 against 10.1); past 80 it compares
 * the length with the row's first vector step in any case, so a bound
 * above 80 costs no CPU anything. 96: on an Emerald Rapids (family 6
 * model 207) hp-csum-avx512 takes 14.0 core cycles at 128 and 192 bytes
 * where the scalar path takes 17.0 and 20.6 (latency, 2026-11-26), and
 * the scalar path still wins at 96 (15.0 against 15.5). */
#define HP_CSUM_SHORT 96

struct hp_steps {
	uint32_t from[HP_STEPS_MAX];	/* ascending, from[0] == 0 */
	uint8_t method[HP_STEPS_MAX];
	uint8_t n;
};

/* hp_csum()'s methods (a row's csum steps), and AUTO for "the row's". */
enum hp_csum_path {
	HP_CSUM_PATH_AUTO = 0,	/* the fastest this CPU runs */
	HP_CSUM_PATH_SCALAR,	/* adc chains only */
	HP_CSUM_PATH_AVX2,	/* vector adds only */
	HP_CSUM_PATH_AVX2_HYBRID,	/* vector adds and adc chains at once */
	HP_CSUM_PATH_AVX512,
	HP_CSUM_NPATHS
};

enum hp_crc32c_method {
	HP_CRC32C_SLICE8,
	HP_CRC32C_SSE42,
	HP_CRC32C_SSE42_3WAY,
	HP_CRC32C_FOLD4,
	HP_CRC32C_FOLD8,
	HP_CRC32C_AVX512,
	HP_CRC32C_SSE42_4WAY,
	HP_CRC32C_SSE42_SEEDLAST,
	HP_CRC32C_SSE42_4WAY_SEEDLAST,
	HP_CRC32C_AVX512_FUSED,
	HP_CRC32C_AVX2_VPCLMUL,		/* the fold on 256-bit registers, no AVX-512 */
	HP_CRC32C_AVX2_FUSED,		/* that fold and four crc32q streams */
	HP_CRC32C_AVX512_SEEDLAST,	/* the 512-bit fold, the input CRC last */
	HP_CRC32C_AVX2_SEEDLAST,	/* the 256-bit fold, the input CRC last */
	HP_CRC32C_AVX2_FUSED_4X24,	/* avx2-fused with 4 x 24 bytes of crc32q per step */
	HP_CRC32C_AVX2_FUSED_4X32,	/* ... and 4 x 32 (a slower VPCLMULQDQ: Zen 3) */
	HP_CRC32C_NMETHODS
};

struct hp_dispatch_row {
	char name[32];
	char source[256];		/* "built-in" or the file it came from */
	struct hp_steps csum[2];	/* [0] even addresses, [1] odd; enum hp_csum_path */
	struct hp_steps crc32c;		/* enum hp_crc32c_method */
};

/* The row in use (chosen once, on first use; thread-safe after that). */
const struct hp_dispatch_row *hp_dispatch(void);

/* The built-in row for a CPU (vendor string as cpuid gives it). */
const struct hp_dispatch_row *hp_dispatch_builtin(const char *vendor,
						  unsigned int family,
						  unsigned int model);

/* Where `hotpath dispatch --save` keeps measured rows for all users (root's). */
#define HP_SYSTEM_ROWS "/var/cache/hotpath/dispatch"

/* This CPU's key for measured rows (c/dispatch/measured.c says what it
 * holds); returns the length it needs. */
size_t hp_dispatch_key(char *buf, size_t len);

/* The measured row file for this CPU's key: the user's (@system 0) or
 * HP_SYSTEM_ROWS's; 0, or -1 when there is no such place (no HOME). */
int hp_dispatch_measured_path(int system, char *buf, size_t len);

/* Why the measured row file of @system (as hp_dispatch_measured_path())
 * was refused when the row in use was chosen ("writable by others", a
 * parse error), or NULL: taken, absent, or never looked at. */
const char *hp_dispatch_refused(int system);

/* Parse row text into *row; 0, or -1 with a one-line reason in err: the
 * line number and what was expected there, never the text itself (a
 * set-uid program must not show a file's content to whoever runs it). */
int hp_dispatch_parse(const char *text, struct hp_dispatch_row *row,
		      char *err, size_t errlen);

/* The row file at @path as the library reads HOTPATH_DISPATCH's (opened
 * without blocking, only a regular file of fewer than HP_ROW_FILE_MAX
 * bytes with no NUL): its text into @text (HP_ROW_FILE_MAX bytes) and its
 * row into *row. 0; -1 with the reason in err when the file cannot be
 * read as a row file (@text empty); -2 when its text does not parse. */
int hp_dispatch_read_file(const char *path, char *text, struct hp_dispatch_row *row,
			  char *err, size_t errlen);

/* Row text (the format above) into buf; returns the length it needs. */
size_t hp_dispatch_format(const struct hp_dispatch_row *row, char *buf,
			  size_t len);

/*
 * The facts of dispatch, in one place: per dispatched primitive its row
 * keys, hotpath's own variant (which runs the row in use), and per method
 * (indexed by enum hp_csum_path or enum hp_crc32c_method, from @first) the
 * name a row gives it and the variant that runs it alone (what `hotpath
 * dispatch` times). The runner's listing exports them.
 */
struct hp_dispatch_method {
	const char *name;
	const char *variant;
};

struct hp_dispatch_primitive {
	const char *primitive;		/* the runner's name: csum_partial, crc32c */
	const char *keys[2];		/* its row keys ([1] NULL: one key) */
	const struct hp_dispatch_method *methods;
	int first, n;			/* methods[first .. n - 1] */
};

enum { HP_DISPATCH_CSUM, HP_DISPATCH_CRC32C, HP_DISPATCH_NPRIMITIVES };
extern const struct hp_dispatch_primitive hp_dispatch_primitives[HP_DISPATCH_NPRIMITIVES];

/* A method's name ("unknown" past the table), and a name's method (-1:
 * none); @prim is HP_DISPATCH_CSUM or HP_DISPATCH_CRC32C. */
const char *hp_dispatch_method_name(int prim, int method);
int hp_dispatch_method_find(int prim, const char *name);
/* The methods' names into @buf, ", " between, the word @last before the
 * last ("or" gives "a, b or c"; "" gives "a, b, c"). */
void hp_dispatch_methods_list(int prim, const char *last, char *buf, size_t len);

const char *hp_crc32c_method_name(enum hp_crc32c_method method);

#endif /* HOTPATH_DISPATCH_H */
