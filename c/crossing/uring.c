// SPDX-License-Identifier: GPL-2.0-only
/*
 * The io_uring path: the same chunks as IORING_OP_WRITE requests at their
 * own offsets, HP_XURING_DEPTH of them per io_uring_submit_and_wait(), so
 * one kernel crossing submits 64 writes and reaps the last batch's
 * completions. Offsets are explicit, so the order the kernel runs them in
 * does not change the file. A short completion is resubmitted for its rest.
 *
 * Built only with liburing (Debian liburing-dev, detected in lab.mk); the
 * ring is set up inside the timed region, once per iteration, as a program
 * writing one file this way would.
 */
#define _GNU_SOURCE
#include "crossing.h"

#ifdef HOTPATH_HAVE_LIBURING
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <string.h>

int hp_xwrite_uring(int fd, const void *zero, size_t chunk, size_t count, char *why,
		    size_t whylen);

struct pending {
	uint64_t off;
	size_t len;
};

static int uring_failed(const char *call, int err, char *why, size_t whylen)
{
	snprintf(why, whylen, "%s: %s", call, strerror(err));
	return -err;
}

int hp_xwrite_uring(int fd, const void *zero, size_t chunk, size_t count, char *why,
		    size_t whylen)
{
	struct io_uring ring;
	struct pending req[HP_XURING_DEPTH];
	int err = io_uring_queue_init(HP_XURING_DEPTH, &ring, 0);

	if (err < 0) {
		/* A kernel without io_uring, or with it turned off
		 * (kernel.io_uring_disabled): the path is unavailable, not wrong. */
		uring_failed("io_uring_queue_init", -err, why, whylen);
		return err == -ENOSYS || err == -EPERM ? -ENOSYS : err;
	}
	for (size_t next = 0; next < count && !err;) {
		unsigned n = 0;

		for (; n < HP_XURING_DEPTH && next < count; n++, next++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			req[n].off = (uint64_t)next * chunk;
			req[n].len = chunk;
			io_uring_prep_write(sqe, fd, zero, (unsigned)chunk, req[n].off);
			io_uring_sqe_set_data64(sqe, n);
		}
		/* Reap this batch; resubmit the rest of any short write. */
		for (unsigned inflight = n; inflight && !err;) {
			int got = io_uring_submit_and_wait(&ring, inflight);
			struct io_uring_cqe *cqe;

			if (got < 0 && got != -EINTR) {
				err = uring_failed("io_uring_submit_and_wait", -got, why, whylen);
				break;
			}
			while (inflight && io_uring_peek_cqe(&ring, &cqe) == 0) {
				struct pending *p = &req[io_uring_cqe_get_data64(cqe)];
				int res = cqe->res;

				io_uring_cqe_seen(&ring, cqe);
				inflight--;
				if (res < 0) {
					err = uring_failed("io_uring write", -res, why, whylen);
				} else if (res == 0) {
					err = uring_failed("io_uring write", ENOSPC, why, whylen);
				} else if ((size_t)res < p->len) {
					struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

					/* Every byte is zero: the rest comes from
					 * the buffer's start as well as from its middle. */
					p->off += (unsigned)res;
					p->len -= (unsigned)res;
					io_uring_prep_write(sqe, fd, zero, (unsigned)p->len, p->off);
					io_uring_sqe_set_data64(sqe, (uint64_t)(p - req));
					inflight++;
				}
			}
		}
	}
	io_uring_queue_exit(&ring);
	return err;
}
#endif
