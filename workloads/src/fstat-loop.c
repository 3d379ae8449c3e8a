/*
 * fstat-loop - fstat() on one open fd, `iterations` times.
 * The cheapest stat: no path walk, so it isolates the cost of copying
 * struct stat out to user memory.
 *
 * Job keys: iterations (100000), warmup (1000), detailed_warmup (0),
 * settle_ms (50): the harness's (microbench.h); none of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/stat.h>

#define BENCH_NAME "fstat-loop"
#define BENCH_SUBJECT int	/* the target's fd */
#include "microbench.h"

#define TARGET "/tmp/fstat-target"

/* The target, created (or truncated) with 100 fixed bytes: its fd. */
static int bench_setup(struct bench *b)
{
	b->subject[0] = bench_create(TARGET, 100);
	return b->subject[0] < 0;
}

static inline void bench_op(int fd, struct result *r)
{
	struct stat st;

	if (fstat(fd, &st) == 0)
		result_hash_stat(r, &st);
	else
		result_error(r, "fstat", TARGET, errno);
}
