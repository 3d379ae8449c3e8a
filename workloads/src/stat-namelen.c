/*
 * stat-namelen - stat() cost as a function of the file name length.
 * For each L in [name_len_min, name_len_max] it creates /tmp/nl/<L chars>
 * and stats it `iterations` times. The kernel copies the path from user
 * memory byte-string-wise, so the per-L times show that cost's slope.
 * One ROI covers all lengths; per-length times are taken inside it with
 * the (vDSO) monotonic clock between lengths (microbench.h, BENCH_SUBJECTS).
 *
 * Job keys: name_len_min (1), name_len_max (32); and the harness's:
 *           iterations (100000), warmup (1000), detailed_warmup (0),
 *           settle_ms (50).
 * Extra result fields: "name_lens":[min,max], "per_len_ns":[ns/op per L].
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NAME_MAX_LEN 255
#define BENCH_NAME "stat-namelen"
#define BENCH_SUBJECT const char *	/* one length's path */
#define BENCH_SUBJECTS NAME_MAX_LEN
#include "microbench.h"

#define DIR_PATH "/tmp/nl"

static long long lmin, lmax;

/* /tmp/nl/ followed by L letters "abc...zab..."; unique per length. */
static char *make_file(int len)
{
	size_t dl = strlen(DIR_PATH);
	char *p = malloc(dl + 1 + len + 1);
	int fd;

	if (!p)
		return NULL;
	memcpy(p, DIR_PATH "/", dl + 1);
	for (int i = 0; i < len; i++)
		p[dl + 1 + i] = 'a' + i % 26;
	p[dl + 1 + len] = '\0';
	fd = bench_create(p, 0);
	if (fd < 0) {
		free(p);
		return NULL;
	}
	close(fd);
	return p;
}

/* The per-length figures, in ns per call. */
static void report(const struct bench *b, struct result *r)
{
	char arr[(NAME_MAX_LEN + 1) * 24];
	size_t used = 0;

	for (int k = 0; k < b->n; k++)
		used += snprintf(arr + used, sizeof(arr) - used, "%s%.2f",
				 k == 0 ? "" : ",", (double)b->ns[k] / b->iters);
	result_extra(r, "name_lens", "[%lld,%lld]", lmin, lmax);
	result_extra(r, "per_len_ns", "[%s]", arr);
}

/* One file per length, each a subject. */
static int bench_setup(struct bench *b)
{
	lmin = job_int("name_len_min", 1);
	lmax = job_int("name_len_max", 32);
	if (lmin < 1 || lmax > NAME_MAX_LEN || lmin > lmax) {
		fprintf(stderr, BENCH_NAME ": need 1 <= name_len_min <= "
			"name_len_max <= %d\n", NAME_MAX_LEN);
		return JOBCONF_EXIT_BAD;
	}
	umask(0);	/* st_mode is hashed: do not let the caller's umask in */
	if (mkdir(DIR_PATH, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, BENCH_NAME ": cannot create %s: %s\n", DIR_PATH,
			strerror(errno));
		return 1;
	}
	b->n = (int)(lmax - lmin + 1);
	for (int k = 0; k < b->n; k++) {
		b->subject[k] = make_file((int)(lmin + k));
		if (!b->subject[k])
			return 1;
	}
	b->report = report;
	return 0;
}

static inline void bench_op(const char *path, struct result *r)
{
	struct stat st;

	if (stat(path, &st) == 0)
		result_hash_stat(r, &st);
	else
		result_error(r, "stat", path, errno);
}
