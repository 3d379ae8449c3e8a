/*
 * fstat-loop - fstat() on one open fd, `iterations` times.
 * The cheapest stat: no path walk, so it isolates the cost of copying
 * struct stat out to user memory.
 *
 * Job keys: iterations (100000), warmup (1000), detailed_warmup (0),
 * settle_ms (50).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobconf.h"
#include "result.h"
#include "roi.h"

#define NAME "fstat-loop"
#define TARGET "/tmp/fstat-target"
#define TARGET_SIZE 100

/* Create (or truncate) the target with fixed content; returns an fd. */
static int make_target(void)
{
	char buf[TARGET_SIZE];
	int fd;

	memset(buf, 'u', sizeof(buf));
	umask(0);	/* st_mode is hashed: do not let the caller's umask in */
	fd = open(TARGET, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		fprintf(stderr, NAME ": cannot create %s: %s\n", TARGET,
			strerror(errno));
		return -1;
	}
	return fd;
}

/* noinline: warm-up and ROI run the very same code. */
static __attribute__((noinline)) void run(int fd, long long n,
					  struct result *r)
{
	struct stat st;

	for (long long i = 0; i < n; i++) {
		if (fstat(fd, &st) == 0)
			result_hash_stat(r, &st);
		else
			result_error(r, "fstat", TARGET, errno);
	}
	r->ops += n;
}

int main(int argc, char **argv)
{
	struct result res, scratch;
	long long iters, warm, detailed, t0, t1;
	int fd;

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
	fd = make_target();
	if (fd < 0)
		return 1;

	result_init(&scratch, NAME);
	run(fd, warm, &scratch);
	roi_settle(job_int("settle_ms", 50));
	roi_switch();
	run(fd, detailed, &scratch);

	result_init(&res, NAME);
	t0 = mono_ns();
	roi_begin();
	run(fd, iters, &res);
	roi_end();
	t1 = mono_ns();
	res.roi_ns = t1 - t0;

	result_print(&res);
	return 0;
}
