/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A very small test harness: CHECK() counts, reports the first few
 * failures with their case, and check_summary() prints the closing
 * "N passed, N failed" line that CI reads, returning the exit status.
 */
#ifndef HOTPATH_TEST_CHECK_H
#define HOTPATH_TEST_CHECK_H

#include <stdio.h>

static unsigned long check_passed, check_failed;

#define CHECK(cond, ...)						\
	do {								\
		if (cond) {						\
			check_passed++;					\
		} else {						\
			if (check_failed++ < 20) {			\
				fprintf(stderr, "%s:%d: FAIL %s: ",	\
					__FILE__, __LINE__, #cond);	\
				fprintf(stderr, __VA_ARGS__);		\
				fputc('\n', stderr);			\
			}						\
		}							\
	} while (0)

static inline int check_summary(const char *suite)
{
	printf("%s: %lu passed, %lu failed\n", suite, check_passed,
	       check_failed);
	return check_failed ? 1 : 0;
}

#endif /* HOTPATH_TEST_CHECK_H */
