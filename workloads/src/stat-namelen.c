/*
 * stat-namelen - stat() cost as a function of the file name length.
 * For each L in [name_len_min, name_len_max] it creates /tmp/nl/<L chars>
 * and stats it `iterations` times. The kernel copies the path from user
 * memory byte-string-wise, so the per-L times show that cost's slope.
 * One ROI covers all lengths; per-length times are taken inside it with
 * the (vDSO) monotonic clock between lengths.
 *
 * Job keys: iterations (100000), warmup (1000), detailed_warmup (0),
 *           settle_ms (50), name_len_min (1), name_len_max (32).
 * Extra result fields: "name_lens":[min,max], "per_len_ns":[ns/op per L].
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobconf.h"
#include "result.h"
#include "roi.h"

#define NAME "stat-namelen"
#define DIR_PATH "/tmp/nl"
#define NAME_MAX_LEN 255

/* noinline: warm-up and ROI run the very same code. */
static __attribute__((noinline)) void run(const char *path, long long n,
					  struct result *r)
{
	struct stat st;

	for (long long i = 0; i < n; i++) {
		if (stat(path, &st) == 0)
			result_hash_stat(r, &st);
		else
			result_error(r, "stat", path, errno);
	}
	r->ops += n;
}

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
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, NAME ": cannot create %s: %s\n", p,
			strerror(errno));
		free(p);
		return NULL;
	}
	close(fd);
	return p;
}

int main(int argc, char **argv)
{
	struct result res, scratch;
	long long iters, warm, detailed, lmin, lmax, t0, t1;
	char *paths[NAME_MAX_LEN + 1];
	long long ns[NAME_MAX_LEN + 1];
	char arr[(NAME_MAX_LEN + 1) * 24];
	size_t used = 0;

	roi_init();
	if (jobconf_load(argc > 1 ? argv[1] : JOBCONF_DEFAULT_PATH) != 0)
		return JOBCONF_EXIT_BAD;
	iters = job_int("iterations", 100000);
	warm = job_int("warmup", 1000);
	detailed = job_int("detailed_warmup", 0);
	lmin = job_int("name_len_min", 1);
	lmax = job_int("name_len_max", 32);
	if (iters < 1 || warm < 0 || detailed < 0) {
		fprintf(stderr, NAME ": need iterations >= 1, warmup >= 0, "
			"detailed_warmup >= 0\n");
		return JOBCONF_EXIT_BAD;
	}
	if (lmin < 1 || lmax > NAME_MAX_LEN || lmin > lmax) {
		fprintf(stderr, NAME ": need 1 <= name_len_min <= "
			"name_len_max <= %d\n", NAME_MAX_LEN);
		return JOBCONF_EXIT_BAD;
	}

	umask(0);	/* st_mode is hashed: do not let the caller's umask in */
	if (mkdir(DIR_PATH, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, NAME ": cannot create %s: %s\n", DIR_PATH,
			strerror(errno));
		return 1;
	}
	for (long long l = lmin; l <= lmax; l++) {
		paths[l] = make_file((int)l);
		if (!paths[l])
			return 1;
	}

	result_init(&scratch, NAME);
	for (long long l = lmin; l <= lmax; l++)
		run(paths[l], warm, &scratch);
	roi_settle(job_int("settle_ms", 50));
	roi_switch();
	for (long long l = lmin; l <= lmax; l++)
		run(paths[l], detailed, &scratch);

	result_init(&res, NAME);
	t0 = mono_ns();
	roi_begin();
	/* The first per-length clock is taken inside the ROI so every
	 * length is timed the same way: clock to clock, no marker. */
	for (long long l = lmin, prev = mono_ns(); l <= lmax; l++) {
		long long now;

		run(paths[l], iters, &res);
		now = mono_ns();
		ns[l] = now - prev;
		prev = now;
	}
	roi_end();
	t1 = mono_ns();
	res.roi_ns = t1 - t0;

	for (long long l = lmin; l <= lmax; l++)
		used += snprintf(arr + used, sizeof(arr) - used, "%s%.2f",
				 l == lmin ? "" : ",", (double)ns[l] / iters);
	result_extra(&res, "name_lens", "[%lld,%lld]", lmin, lmax);
	result_extra(&res, "per_len_ns", "[%s]", arr);
	result_print(&res);
	return 0;
}
