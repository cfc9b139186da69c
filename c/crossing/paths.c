// SPDX-License-Identifier: GPL-2.0-only
/*
 * The user-space paths of the crossing lab: the seed's loop of write()
 * calls, the same with pwrite() (the offset given, no file position
 * shared), and writev() carrying IOV_MAX chunks per call, so one kernel
 * crossing moves up to 1024 chunks. io_uring is in uring.c.
 *
 * Every path copes with short writes (a regular file rarely gives one,
 * but a full file system does), so a path either writes every byte or
 * says why not: the bytes are checked (hp_xverify) before anything is timed.
 */
#define _GNU_SOURCE
#include "crossing.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

int hp_xwrite_uring(int fd, const void *zero, size_t chunk, size_t count, char *why,
		    size_t whylen);

static int failed(const char *call, int err, char *why, size_t whylen)
{
	snprintf(why, whylen, "%s: %s", call, strerror(err));
	return -err;
}

/* @len bytes at @off through write() or pwrite(), short writes resumed. */
static int put(int fd, const char *buf, size_t len, off_t off, int positional,
	       char *why, size_t whylen)
{
	while (len) {
		ssize_t n = positional ? pwrite(fd, buf, len, off) : write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return failed(positional ? "pwrite" : "write", errno, why, whylen);
		}
		if (n == 0)
			return failed(positional ? "pwrite" : "write", ENOSPC, why, whylen);
		buf += n;
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_loop(int fd, const void *zero, size_t chunk, size_t count, char *why,
		      size_t whylen)
{
	for (size_t i = 0; i < count; i++) {
		int err = put(fd, zero, chunk, 0, 0, why, whylen);

		if (err)
			return err;
	}
	return 0;
}

static int pwrite_loop(int fd, const void *zero, size_t chunk, size_t count, char *why,
		       size_t whylen)
{
	for (size_t i = 0; i < count; i++) {
		int err = put(fd, zero, chunk, (off_t)(i * chunk), 1, why, whylen);

		if (err)
			return err;
	}
	return 0;
}

size_t hp_xwritev_batch(void)
{
	long max = sysconf(_SC_IOV_MAX);

	return max > 0 ? (size_t)max : 1024;
}

/*
 * writev() with up to IOV_MAX chunks per call. Every iovec points at the
 * same zero buffer, so after a short write the rest of the batch is just
 * its remaining byte count, cut again into pieces of at most @chunk.
 */
static int writev_batched(int fd, const void *zero, size_t chunk, size_t count, char *why,
			  size_t whylen)
{
	size_t batch = hp_xwritev_batch();
	struct iovec *iov = calloc(batch, sizeof(*iov));

	if (!iov)
		return failed("calloc", ENOMEM, why, whylen);
	for (size_t done = 0; done < count;) {
		size_t n = count - done < batch ? count - done : batch;
		size_t left = n * chunk;

		while (left) {
			size_t pieces = 0, rest = left;

			/* The first piece takes the odd remainder, so the rest fit. */
			while (rest && pieces < batch) {
				size_t piece = !pieces && rest % chunk ? rest % chunk : chunk;

				iov[pieces].iov_base = (void *)zero;
				iov[pieces].iov_len = piece;
				rest -= piece;
				pieces++;
			}
			ssize_t got = writev(fd, iov, (int)pieces);

			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				int err = failed("writev", got < 0 ? errno : ENOSPC, why, whylen);

				free(iov);
				return err;
			}
			left -= (size_t)got;
		}
		done += n;
	}
	free(iov);
	return 0;
}

#ifdef HOTPATH_HAVE_LIBURING
#define URING_FN hp_xwrite_uring
#define URING_MISSING NULL
#else
#define URING_FN NULL
#define URING_MISSING "built without liburing: install Debian's liburing-dev and run make again"
#endif

const struct hp_xpath hp_xpaths[] = {
	{ "write", write_loop, "write() per chunk: the seed's loop", NULL },
	{ "pwrite", pwrite_loop, "pwrite() per chunk at its own offset", NULL },
	{ "writev", writev_batched, "writev() with IOV_MAX chunks per call", NULL },
	{ "io_uring", URING_FN,
	  "io_uring (liburing) writes at their offsets, 64 per submission", URING_MISSING },
};
const size_t hp_nxpaths = sizeof(hp_xpaths) / sizeof(hp_xpaths[0]);

const struct hp_xpath *hp_xpath_find(const char *name)
{
	for (size_t i = 0; i < hp_nxpaths; i++)
		if (!strcmp(hp_xpaths[i].name, name))
			return &hp_xpaths[i];
	return NULL;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int hp_xiteration(const struct hp_xpath *path, const char *file, const void *zero,
		  size_t chunk, size_t count, uint64_t *ns, uint64_t *ticks,
		  char *why, size_t whylen)
{
	if (!path->write_all) {
		snprintf(why, whylen, "%s", path->unavailable);
		return -ENOSYS;
	}
	/* Timed as the module times its kernel_write() loop: open to close. */
	uint64_t t0 = mono_ns(), c0 = hp_xtsc();
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return failed("open", errno, why, whylen);
	int err = path->write_all(fd, zero, chunk, count, why, whylen);

	if (close(fd) && !err)
		err = failed("close", errno, why, whylen);
	uint64_t c1 = hp_xtsc(), t1 = mono_ns();

	*ns = t1 - t0;
	*ticks = c1 - c0;
	return err;
}
