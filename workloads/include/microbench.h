/*
 * microbench.h - the one main() of the loop microbenchmarks.
 *
 * A microbenchmark makes one system call `iterations` times in the ROI,
 * on something it sets up first (an open fd, a path). All the rest is the
 * same for every one of them and is written here once: the job keys every
 * loop reads (iterations, warmup, detailed_warmup, settle_ms), the warm-up
 * on gem5's functional core, the switch to the detailed core, the ROI
 * markers and clock around the measured loop, the checksum and the result
 * line (result.h). Buildroot's package infrastructure is the model: a
 * package declares only what is its own, every shared step lives once.
 *
 * A microbenchmark's file (src/<name>.c) defines, before including this:
 *   BENCH_NAME      its name: the binary's, the script's workload and the
 *                   result line's "workload"
 *   BENCH_SUBJECT   the type of what one call works on (int: an fd;
 *                   const char *: a path)
 *   BENCH_SUBJECTS  optional, default 1: how many subjects at most. With
 *                   more than one, the ROI runs the loop on each in turn
 *                   and times each, clock to clock (stat-namelen).
 * and after it the two functions declared below, bench_setup and bench_op.
 *
 * bench_op is an always_inline function, not a function pointer, so that
 * the compiler inlines it into run()'s loop: the measured loop is the call
 * and its hash and nothing else, instruction for instruction what it was
 * when each microbenchmark wrote its own loop. A call, through a pointer
 * or not, would add instructions to every op the ROI counts (GCC -O2 left
 * readlink-loop's out of line for its 4 KiB buffer without the attribute).
 */
#ifndef UACCESS_MICROBENCH_H
#define UACCESS_MICROBENCH_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobconf.h"
#include "result.h"
#include "roi.h"

#if !defined(BENCH_NAME) || !defined(BENCH_SUBJECT)
#error "define BENCH_NAME and BENCH_SUBJECT before including microbench.h"
#endif
#ifndef BENCH_SUBJECTS
#define BENCH_SUBJECTS 1
#endif

/* One run: the loop's job keys, which the harness reads, and what
 * bench_setup fills in. */
struct bench {
	long long iters;		/* calls per subject in the ROI */
	long long warm, detailed;	/* calls per subject before it: on gem5's
					 * functional core, then its detailed one */
	BENCH_SUBJECT subject[BENCH_SUBJECTS];	/* what the calls work on */
	int n;				/* subjects set, 1 .. BENCH_SUBJECTS */
	/* statx's mnt_id is hashed relative to the mount of this directory
	 * (result.h, result_anchor_mount); NULL: the op hashes no mnt_id. */
	const char *anchor;
	/* Extra fields for the result line, after the ROI; NULL: none. */
	void (*report)(const struct bench *b, struct result *r);
	long long ns[BENCH_SUBJECTS];	/* BENCH_SUBJECTS > 1: ROI ns of each */
};

/*
 * The microbenchmark's own part. bench_setup reads its own job keys, makes
 * its files and sets b->subject[] and b->n (b->anchor and b->report where
 * it needs them). It returns 0, or the exit status after saying why on
 * stderr: JOBCONF_EXIT_BAD for a bad job value, 1 for a failed set-up.
 * bench_op makes one call and hashes what it returned into r
 * (result_hash_*), or counts its failure (result_error).
 */
static int bench_setup(struct bench *b);
static inline __attribute__((always_inline)) void
bench_op(BENCH_SUBJECT s, struct result *r);

/*
 * For a set-up: create (or truncate) `path` holding `size` (at most 256)
 * bytes of 'u', mode 0644 whatever the caller's umask (st_mode is
 * hashed); its fd, or -1 after saying why.
 */
static inline int bench_create(const char *path, size_t size)
{
	char buf[256];
	int fd;

	if (size > sizeof(buf)) {
		fprintf(stderr, BENCH_NAME ": %s: %zu bytes, more than "
			"bench_create writes\n", path, size);
		return -1;
	}
	memset(buf, 'u', sizeof(buf));
	umask(0);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (size && write(fd, buf, size) != (ssize_t)size)) {
		fprintf(stderr, BENCH_NAME ": cannot create %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return fd;
}

/* A checksum state of its own for each phase: the warm-ups' calls must
 * not reach the one the result line prints. */
static __attribute__((noinline)) void start_result(struct result *r,
						   const struct bench *b)
{
	result_init(r, BENCH_NAME);
	if (b->anchor)
		result_anchor_mount(r, b->anchor);
}

/*
 * noinline: warm-up and ROI run the very same code. aligned(16): where the
 * loop starts does not depend on the size of the code before it (on arm64
 * GCC aligns functions to 4 bytes, and the padding before the loop head
 * moved with it).
 */
static __attribute__((noinline, aligned(16))) void
run(BENCH_SUBJECT s, long long n, struct result *r)
{
	for (long long i = 0; i < n; i++)
		bench_op(s, r);
	r->ops += n;
}

/*
 * n calls on each subject, outside the ROI (the warm-ups). This and
 * start_result stay out of main() (noinline), so that main() keeps in
 * registers what the ROI's few instructions around run() use, as each
 * microbenchmark's own main() did.
 */
static __attribute__((noinline)) void run_each(const struct bench *b,
					       long long n, struct result *r)
{
	for (int k = 0; k < b->n; k++)
		run(b->subject[k], n, r);
}

/* The loop's own job keys, checked; 0, or the exit status. */
static int read_keys(struct bench *b)
{
	b->iters = job_int("iterations", 100000);
	b->warm = job_int("warmup", 1000);
	b->detailed = job_int("detailed_warmup", 0);
	if (b->iters < 1 || b->warm < 0 || b->detailed < 0) {
		fprintf(stderr, BENCH_NAME ": need iterations >= 1, warmup >= 0, "
			"detailed_warmup >= 0\n");
		return JOBCONF_EXIT_BAD;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b = { .n = 1 };
	struct result res, scratch;
	long long iters, t0, t1;
	BENCH_SUBJECT only;
	int n, status;

	roi_init();
	if (jobconf_load(argc > 1 ? argv[1] : JOBCONF_DEFAULT_PATH) != 0)
		return JOBCONF_EXIT_BAD;
	status = read_keys(&b);
	if (status == 0)
		status = bench_setup(&b);
	if (status != 0)
		return status;
	/* Locals, so that the ROI keeps them in registers. */
	only = b.subject[0];
	iters = b.iters;
	n = b.n;

	start_result(&scratch, &b);
	run_each(&b, b.warm, &scratch);
	roi_settle(job_int("settle_ms", 50));
	roi_switch();
	run_each(&b, b.detailed, &scratch);

	/*
	 * The ROI. Its instructions (the markers, the moves into run()'s
	 * arguments, the call) are the ones each microbenchmark's own main()
	 * had, on both arches; the compiler's layout of main() can move them,
	 * so compare `objdump -d` of main() before and after editing it.
	 */
	start_result(&res, &b);
	t0 = mono_ns();
	roi_begin();
	if (BENCH_SUBJECTS == 1) {
		run(only, iters, &res);
	} else {
		/* The first per-subject clock is taken inside the ROI so every
		 * subject is timed the same way: clock to clock, no marker. */
		long long prev = mono_ns(), now;

		for (int k = 0; k < n; k++) {
			run(b.subject[k], iters, &res);
			now = mono_ns();
			b.ns[k] = now - prev;
			prev = now;
		}
	}
	roi_end();
	t1 = mono_ns();
	res.roi_ns = t1 - t0;

	if (b.report)
		b.report(&b, &res);
	result_print(&res);
	return 0;
}

#endif /* UACCESS_MICROBENCH_H */
