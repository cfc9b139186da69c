// SPDX-License-Identifier: GPL-2.0-only
/*
 * The crossing lab's correctness gate: after a path's first iteration the
 * file must hold exactly count x chunk bytes, every one zero. A path that
 * fails is reported WRONG and never timed.
 */
#define _GNU_SOURCE
#include "crossing.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define VERIFY_BLOCK (1u << 20)

int hp_xverify(const char *file, uint64_t bytes, char *why, size_t whylen)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int ret = 0;

	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		snprintf(why, whylen, "cannot read back %s: %s", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if ((uint64_t)st.st_size != bytes) {
		snprintf(why, whylen, "file has %" PRIu64 " bytes, expected %" PRIu64,
			 (uint64_t)st.st_size, bytes);
		close(fd);
		return -1;
	}
	unsigned char *buf = malloc(VERIFY_BLOCK);

	if (!buf) {
		close(fd);
		snprintf(why, whylen, "cannot read back %s: out of memory", file);
		return -ENOMEM;
	}
	for (uint64_t off = 0; off < bytes && !ret;) {
		ssize_t n = read(fd, buf, VERIFY_BLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -1;
			snprintf(why, whylen, "reading %s at %" PRIu64 ": %s", file, off,
				 n < 0 ? strerror(errno) : "unexpected end of file");
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i]) {
				snprintf(why, whylen, "byte %" PRIu64 " is 0x%02x, expected 0",
					 off + (uint64_t)i, buf[i]);
				ret = -1;
				break;
			}
		}
		off += (uint64_t)n;
	}
	free(buf);
	close(fd);
	return ret;
}
