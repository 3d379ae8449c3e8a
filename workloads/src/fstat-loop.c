/*
 * fstat-loop - fstat of one open fd, `iterations` times.
 * The cheapest stat: no path walk, so it isolates the cost of copying
 * struct stat out to user memory.
 *
 * Job keys: call (syscall): "syscall" makes the fstat system call itself,
 * syscall(SYS_fstat, ...), as the seeds' glibc made fstat() (2013, 2017):
 * the fd alone. "glibc" calls glibc's fstat(), which glibc 2.33 and later
 * (the image's 2.36) make newfstatat(fd, "", AT_EMPTY_PATH): Linux 6.1
 * copies that empty name in (getname, strncpy_from_user: a user access
 * window and an lfence of its own) and looks it up, work no seed's fstat
 * did (upstream short-cut it later, 9013c51c630a). And the harness's
 * (microbench.h): iterations (100000), warmup (1000), detailed_warmup
 * (0), settle_ms (50).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BENCH_NAME "fstat-loop"
#define BENCH_SUBJECT int	/* the target's fd */
#include "microbench.h"

#define TARGET "/tmp/fstat-target"

/* The job's call: glibc's fstat() (1) or the fstat system call (0). */
static int via_glibc;

/* The target, created (or truncated) with 100 fixed bytes: its fd. */
static int bench_setup(struct bench *b)
{
	const char *call = job_str("call", "syscall");

	if (strcmp(call, "glibc") == 0) {
		via_glibc = 1;
	} else if (strcmp(call, "syscall") != 0) {
		fprintf(stderr, BENCH_NAME ": call must be syscall or glibc, not %s\n", call);
		return JOBCONF_EXIT_BAD;
	}
	b->subject[0] = bench_create(TARGET, 100);
	return b->subject[0] < 0;
}

/* Both calls fill the same struct stat: glibc's is the kernel's on x86_64
 * and arm64, so the checksum is the same either way. The test of
 * via_glibc is a load and a branch a call, the same in both modes. */
static inline void bench_op(int fd, struct result *r)
{
	struct stat st;
	long ret = via_glibc ? fstat(fd, &st) : syscall(SYS_fstat, fd, &st);

	if (ret == 0)
		result_hash_stat(r, &st);
	else
		result_error(r, "fstat", TARGET, errno);
}
