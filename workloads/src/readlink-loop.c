/*
 * readlink-loop - readlink() on one symlink, `iterations` times. The path
 * is read from user memory and the 24-byte target copied back to it.
 *
 * Job keys: iterations (100000), warmup (1000), detailed_warmup (0),
 * settle_ms (50).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jobconf.h"
#include "result.h"
#include "roi.h"

#define NAME "readlink-loop"
#define LINK "/tmp/rl-link"
/* The target need not exist: readlink never follows it. */
#define LINK_TARGET "uaccess-readlink-target0"
_Static_assert(sizeof(LINK_TARGET) - 1 == 24, "target must be 24 bytes");

/* noinline: warm-up and ROI run the very same code. */
static __attribute__((noinline)) void run(long long n, struct result *r)
{
	char buf[PATH_MAX];

	for (long long i = 0; i < n; i++) {
		ssize_t len = readlink(LINK, buf, sizeof(buf));

		if (len >= 0)
			result_hash_readlink(r, len, buf);
		else
			result_error(r, "readlink", LINK, errno);
	}
	r->ops += n;
}

int main(int argc, char **argv)
{
	struct result res, scratch;
	long long iters, warm, detailed, t0, t1;

	roi_init();
	if (jobconf_load(argc > 1 ? argv[1] : JOBCONF_DEFAULT_PATH) != 0)
		return JOBCONF_EXIT_BAD;
	iters = job_int("iterations", 100000);
	warm = job_int("warmup", 1000);
	detailed = job_int("detailed_warmup", 0);
	if (iters < 1 || warm < 0 || detailed < 0) {
		fprintf(stderr, NAME ": need iterations >= 1, warmup >= 0, "
			"detailed_warmup >= 0\n");
		return JOBCONF_EXIT_BAD;
	}
	/* Replace a leftover link from an earlier run. */
	if ((unlink(LINK) != 0 && errno != ENOENT) ||
	    symlink(LINK_TARGET, LINK) != 0) {
		fprintf(stderr, NAME ": cannot create %s: %s\n", LINK,
			strerror(errno));
		return 1;
	}

	result_init(&scratch, NAME);
	run(warm, &scratch);
	roi_settle(job_int("settle_ms", 50));
	roi_switch();
	run(detailed, &scratch);

	result_init(&res, NAME);
	t0 = mono_ns();
	roi_begin();
	run(iters, &res);
	roi_end();
	t1 = mono_ns();
	res.roi_ns = t1 - t0;

	result_print(&res);
	return 0;
}
