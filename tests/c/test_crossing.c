// SPDX-License-Identifier: GPL-2.0-only
/*
 * The crossing lab's user-space paths write exactly count x chunk zero
 * bytes: every path of the table (hp_xpaths), over chunk sizes and counts
 * that cross the batch edges (writev's IOV_MAX, io_uring's queue depth),
 * over a file that held more, other bytes, before (O_TRUNC). The gate
 * (hp_xverify) catches a short file, a long one and a non-zero byte, and a
 * path that hits a file size limit fails with the reason instead of
 * pretending. Files go to a fresh folder under /tmp.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../c/crossing/crossing.h"
#include "check.h"

static char dir[] = "/tmp/hotpath-test-crossing-XXXXXX";
static char file[256];

/* Read the file back on its own: its size and whether every byte is zero. */
static int file_is_zeros(uint64_t bytes)
{
	int fd = open(file, O_RDONLY);
	struct stat st;
	unsigned char buf[65536];
	uint64_t total = 0;
	ssize_t n;
	int ok;

	if (fd < 0 || fstat(fd, &st))
		return 0;
	ok = (uint64_t)st.st_size == bytes;
	while (ok && (n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			ok &= buf[i] == 0;
		total += (uint64_t)n;
	}
	close(fd);
	return ok && total == bytes;
}

static void fill_file(size_t bytes, unsigned char value)
{
	unsigned char *buf = malloc(bytes);
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	memset(buf, value, bytes);
	if (fd >= 0 && write(fd, buf, bytes) != (ssize_t)bytes)
		fprintf(stderr, "fill_file: short write\n");
	if (fd >= 0)
		close(fd);
	free(buf);
}

static void test_paths_write_right_bytes(void)
{
	static const size_t chunks[] = { 1, 7, 512, 1024, 4096, 65537 };
	static const size_t counts[] = { 1, 3, 63, 64, 65, 129, 1023, 1024, 1025, 2049 };
	size_t batch = hp_xwritev_batch();
	void *zero = calloc(1, 65537);

	CHECK(batch >= 16, "IOV_MAX batch %zu", batch);
	for (size_t p = 0; p < hp_nxpaths; p++) {
		const struct hp_xpath *path = &hp_xpaths[p];

		if (path->unavailable) {
			printf("skip %s: %s\n", path->name, path->unavailable);
			continue;
		}
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
				size_t chunk = chunks[c], count = counts[k];
				uint64_t bytes = (uint64_t)chunk * count, ns = 0, ticks = 0;
				char why[256] = "";
				int err;

				if (bytes > (8u << 20))
					continue;
				/* A longer file of other bytes first: open must truncate it. */
				fill_file(bytes + 4096, 0xa5);
				err = hp_xiteration(path, file, zero, chunk, count, &ns, &ticks,
						    why, sizeof(why));
				if (err == -ENOSYS) {
					printf("skip %s: %s\n", path->name, why);
					goto next_path;
				}
				CHECK(err == 0, "%s chunk %zu count %zu: %s", path->name, chunk,
				      count, why);
				CHECK(file_is_zeros(bytes), "%s chunk %zu count %zu: file is not "
				      "%llu zero bytes", path->name, chunk, count,
				      (unsigned long long)bytes);
				CHECK(hp_xverify(file, bytes, why, sizeof(why)) == 0,
				      "%s chunk %zu count %zu: gate says %s", path->name, chunk,
				      count, why);
				CHECK(ns > 0 && ticks > 0, "%s: timed %llu ns %llu ticks", path->name,
				      (unsigned long long)ns, (unsigned long long)ticks);
			}
		}
next_path:;
	}
	free(zero);
}

static void test_gate_catches_wrong_files(void)
{
	char why[256];

	fill_file(4096, 0);
	CHECK(hp_xverify(file, 4096, why, sizeof(why)) == 0, "%s", why);
	CHECK(hp_xverify(file, 4097, why, sizeof(why)) == -1 && strstr(why, "4096 bytes"),
	      "short file: %s", why);
	CHECK(hp_xverify(file, 4095, why, sizeof(why)) == -1, "long file: %s", why);

	/* One byte not zero, past the first read block. */
	fill_file((1u << 20) + 100, 0);
	int fd = open(file, O_WRONLY);

	CHECK(fd >= 0 && pwrite(fd, "\x01", 1, (1u << 20) + 42) == 1, "poke");
	close(fd);
	CHECK(hp_xverify(file, (1u << 20) + 100, why, sizeof(why)) == -1 &&
	      strstr(why, "byte 1048618 is 0x01"), "non-zero byte: %s", why);

	unlink(file);
	CHECK(hp_xverify(file, 1, why, sizeof(why)) == -ENOENT, "missing file: %s", why);
}

/*
 * Under a file size limit the kernel gives a short write, then EFBIG: each
 * path must report the failure with the call that hit it (in a child, so
 * the limit does not outlive the case).
 */
static void test_paths_report_failure(void)
{
	for (size_t p = 0; p < hp_nxpaths; p++) {
		const struct hp_xpath *path = &hp_xpaths[p];
		int pipefd[2];
		char why[256] = "";

		if (path->unavailable || pipe(pipefd))
			continue;
		pid_t pid = fork();

		if (pid == 0) {
			struct rlimit lim = { 10000, 10000 };
			void *zero = calloc(1, 1024);
			uint64_t ns, ticks;
			int err;

			signal(SIGXFSZ, SIG_IGN);
			setrlimit(RLIMIT_FSIZE, &lim);
			err = hp_xiteration(path, file, zero, 1024, 100, &ns, &ticks, why,
					    sizeof(why));
			if (write(pipefd[1], why, sizeof(why)) < 0)
				_exit(3);
			_exit(err == -EFBIG ? 0 : err == -ENOSYS ? 2 : 1);
		}
		int status = 0;

		if (read(pipefd[0], why, sizeof(why)) < 0)
			why[0] = 0;
		waitpid(pid, &status, 0);
		close(pipefd[0]);
		close(pipefd[1]);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
			continue; /* io_uring turned off in this kernel */
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && why[0],
		      "%s under RLIMIT_FSIZE: status %d, '%s'", path->name, status, why);
	}
}

static void test_price_and_fs(void)
{
	uint64_t ns = 0, ticks = 0;
	char fs[64];
	double tpc = hp_xticks_per_cycle(11);

	hp_xsyscall_block(100, &ns, &ticks);
	CHECK(ns > 0 && ticks > 0, "getppid block: %llu ns %llu ticks",
	      (unsigned long long)ns, (unsigned long long)ticks);
	CHECK(tpc > 0.05 && tpc < 20.0, "ticks per cycle %f", tpc);
	if (access("/dev/shm", W_OK) == 0)
		CHECK(!strcmp(hp_xfs_type("/dev/shm", fs, sizeof(fs)), "tmpfs") ||
		      !strncmp(fs, "0x", 2), "/dev/shm is %s", fs);
	CHECK(!strcmp(hp_xfs_type("/nonexistent-hotpath", fs, sizeof(fs)), "unknown"), "%s", fs);
	CHECK(hp_xpath_find("write") == &hp_xpaths[0] && !hp_xpath_find("splice"), "find");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(file, sizeof(file), "%s/data", dir);
	test_paths_write_right_bytes();
	test_gate_catches_wrong_files();
	test_paths_report_failure();
	test_price_and_fs();
	unlink(file);
	rmdir(dir);
	return check_summary("test_crossing");
}
