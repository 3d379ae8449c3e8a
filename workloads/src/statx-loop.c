/*
 * statx-loop - statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS) on one open
 * fd, `iterations` times. Like fstat-loop but through statx, which copies
 * the (larger) struct statx and also reads the empty path string from user
 * memory.
 *
 * Job keys: iterations (100000), warmup (1000), detailed_warmup (0),
 * settle_ms (50): the harness's (microbench.h); none of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#define BENCH_NAME "statx-loop"
#define BENCH_SUBJECT int	/* the target's fd */
#include "microbench.h"

#define TARGET "/tmp/statx-target"

/* The target, created (or truncated) with 100 fixed bytes: its fd; and
 * its mount, which stx_mnt_id is taken relative to. */
static int bench_setup(struct bench *b)
{
	b->anchor = TARGET;
	b->subject[0] = bench_create(TARGET, 100);
	return b->subject[0] < 0;
}

static inline void bench_op(int fd, struct result *r)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) == 0)
		result_hash_statx(r, &stx);
	else
		result_error(r, "statx", TARGET, errno);
}
