/*
 * make-build - a no-op `make -j` on a fully built tree, as the 2015 thread
 * profiled one (003_745c0868b36e6c6e: strncpy_from_user was 1.5 % of "a
 * 'make -j' on the fully built kernel", two thirds of it SMAP).
 *
 * The image carries the tree (workloads/make_tree.py: kbuild's makefiles,
 * each object's .cmd dependency list, every file it names) and GNU make,
 * built statically from Debian's source. Before the ROI the tree is copied
 * into the guest's /tmp (a tmpfs on both simulators, so QEMU's initramfs
 * root and gem5's ext2 root run the same kernel code), every file given
 * one fixed time, so make finds all up to date. Each pass forks and execs
 * `make -s -rR -j<jobs>` there (kbuild's flags: no built-in rules or
 * variables) and waits: make reads the makefiles, runs one make per
 * directory, and stats every file the .cmd files name. The ROI holds the
 * whole of it, make's user code and every process it starts.
 *
 * Job keys (defaults): jobs (2), passes (1), warm_passes (1), settle_ms (50)
 * Extra result fields: files, passes, jobs.
 * The checksum hashes each pass's exit status and everything make printed:
 * nothing, when the tree is up to date; a target found out of date runs
 * `echo`, which the image does not have, and make fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobconf.h"
#include "result.h"
#include "roi.h"

#define NAME "make-build"
#ifndef TREE	/* -D on the host, to try it there */
#define TREE "/usr/share/uaccess/make-tree"
#define WORK "/tmp/build"
#define MAKE "/usr/bin/make"
#endif
/*
 * Every file's time: the epoch. Any one time makes every target exactly as
 * old as what it depends on, which make counts as up to date; it must also
 * be no later than the guest's clock, or make warns of clock skew (the Arm
 * virt guest under QEMU starts its clock at the epoch: a time of 2001
 * was "999999998 s in the future" there).
 */
#define FIXED_TIME_S 0

extern char **environ;
static long files;

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	close(in);
	close(out);
	return n < 0 ? -1 : 0;
}

static int copy_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	char to[4096];

	(void)st;
	(void)f;
	if (snprintf(to, sizeof(to), WORK "%s", path + strlen(TREE)) >= (int)sizeof(to))
		return -1;
	if (flag == FTW_D)
		return mkdir(to, 0755) == 0 || errno == EEXIST ? 0 : -1;
	if (flag != FTW_F)
		return -1;
	files++;
	return copy_file(path, to);
}

static int set_time(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	struct timespec t[2] = { { FIXED_TIME_S, 0 }, { FIXED_TIME_S, 0 } };

	(void)st;
	(void)flag;
	(void)f;
	return utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW);
}

/* What the last make printed, first bytes only: said when it failed. */
static char said[2048];
static size_t said_len;

/* One `make` in WORK; its exit status and output go into the checksum. */
static void make_once(const char *jobs_flag, struct result *r)
{
	char *argv[] = { "make", "-s", "-rR", (char *)jobs_flag, NULL };
	char buf[4096];
	int fds[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe(fds) != 0) {
		result_error(r, "pipe", WORK, errno);
		return;
	}
	pid = fork();
	if (pid < 0) {
		result_error(r, "fork", MAKE, errno);
		return;
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		/* A shell's PATH: make finds itself for each recursive make. */
		setenv("PATH", "/usr/bin:/bin", 1);
		if (chdir(WORK) == 0)
			execve(MAKE, argv, environ);
		_exit(127);
	}
	close(fds[1]);
	said_len = 0;
	while ((n = read(fds[0], buf, sizeof(buf))) > 0) {
		fnv64_bytes(&r->hash, buf, n);
		if (said_len < sizeof(said) - 1) {
			size_t k = (size_t)n < sizeof(said) - 1 - said_len ?
				(size_t)n : sizeof(said) - 1 - said_len;
			memcpy(said + said_len, buf, k);
			said_len += k;
		}
	}
	said[said_len] = 0;
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	fnv64_u64(&r->hash, (uint64_t)st);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		result_error(r, "make", WORK, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	r->ops++;
}

int main(int argc, char **argv)
{
	struct result res, scratch;
	long long jobs, passes, warm, t0, t1;
	char jobs_flag[32];

	roi_init();
	if (jobconf_load(argc > 1 ? argv[1] : JOBCONF_DEFAULT_PATH) != 0)
		return JOBCONF_EXIT_BAD;
	jobs = job_int("jobs", 2);
	passes = job_int("passes", 1);
	warm = job_int("warm_passes", 1);
	if (jobs < 1 || passes < 1 || warm < 0) {
		fprintf(stderr, NAME ": need jobs >= 1, passes >= 1, warm_passes >= 0\n");
		return JOBCONF_EXIT_BAD;
	}
	snprintf(jobs_flag, sizeof(jobs_flag), "-j%lld", jobs);
	if (mkdir(WORK, 0755) != 0 || nftw(TREE, copy_one, 64, FTW_PHYS) != 0 ||
	    nftw(WORK, set_time, 64, FTW_PHYS) != 0) {
		fprintf(stderr, NAME ": copying %s to %s: %s\n", TREE, WORK, strerror(errno));
		return 1;
	}

	result_init(&scratch, NAME);
	for (long long i = 0; i < warm; i++)
		make_once(jobs_flag, &scratch);
	if (scratch.errors) {
		fprintf(stderr, NAME ": the warm-up make failed (the tree is not up to date?); "
			"it said:\n%s\n", said);
		return 1;
	}
	roi_settle(job_int("settle_ms", 50));
	roi_switch();

	result_init(&res, NAME);
	t0 = mono_ns();
	roi_begin();
	for (long long i = 0; i < passes; i++)
		make_once(jobs_flag, &res);
	roi_end();
	t1 = mono_ns();
	res.roi_ns = t1 - t0;
	result_extra(&res, "files", "%ld", files);
	result_extra(&res, "passes", "%lld", passes);
	result_extra(&res, "jobs", "%lld", jobs);
	result_print(&res);
	if (said_len)	/* after the ROI: what the last make printed, if anything */
		fprintf(stderr, NAME ": make said:\n%s\n", said);
	return 0;
}
