/*
 * statx-loop - statx(fd, PATH, AT_EMPTY_PATH, STATX_BASIC_STATS) on one
 * open fd, `iterations` times. Like fstat-loop but through statx, which
 * copies the (larger) struct statx.
 *
 * Each call hashes the ten fields fstat-loop hashes of struct stat
 * (result_hash_statx_basic), so the two loops do the same user work, as
 * the thread's did; after the ROI one more call's whole struct is hashed
 * (report_whole), so a kernel that writes a statx-only field wrongly
 * still changes the checksum.
 *
 * Job keys: path (empty): "empty" passes "", which Linux 6.1 copies in
 * (getname) and resolves to the fd (a path lookup); "null" passes NULL,
 * the 2017 thread's call (000_ccfae2f7fd7a499e), which 6.1 fails with
 * EFAULT and 6.11 (kernels/layers/statx-null-path) takes as the fd alone.
 * And the harness's (microbench.h): iterations (100000), warmup (1000),
 * detailed_warmup (0), settle_ms (50).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define BENCH_NAME "statx-loop"
#define BENCH_SUBJECT int	/* the target's fd */
#include "microbench.h"

#define TARGET "/tmp/statx-target"

/* The path every call passes: "" or NULL (the job's path). One load in
 * the loop either way, so both modes run the same user instructions. */
static const char *stx_path = "";

/* After the ROI: one more call, its whole struct hashed (result.h). */
static void report_whole(const struct bench *b, struct result *r)
{
	struct statx stx;

	if (statx(b->subject[0], stx_path, AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) == 0)
		result_hash_statx(r, &stx);
	else
		result_error(r, "statx", TARGET, errno);
}

/* The target, created (or truncated) with 100 fixed bytes: its fd; and
 * its mount, which stx_mnt_id is taken relative to. */
static int bench_setup(struct bench *b)
{
	const char *path = job_str("path", "empty");

	if (strcmp(path, "null") == 0) {
		stx_path = NULL;
	} else if (strcmp(path, "empty") != 0) {
		fprintf(stderr, BENCH_NAME ": path must be empty or null, not %s\n", path);
		return JOBCONF_EXIT_BAD;
	}
	b->anchor = TARGET;
	b->report = report_whole;
	b->subject[0] = bench_create(TARGET, 100);
	return b->subject[0] < 0;
}

static inline void bench_op(int fd, struct result *r)
{
	struct statx stx;

	if (statx(fd, stx_path, AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) == 0)
		result_hash_statx_basic(r, &stx);
	else
		result_error(r, "statx", TARGET, errno);
}
