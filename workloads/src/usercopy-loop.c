/*
 * usercopy-loop - one tmpfs file read or written at offset 0, `size`
 * bytes a call, `iterations` times: pread() copies the bytes to user
 * memory (copy_to_user), pwrite() from it (copy_from_user). The
 * 2025-2026 arm64 usercopy threads (005_cda112d08e81cce1 on Neoverse V2,
 * 006_a7fd6bff499fa938 on Kunpeng 920) timed __arch_copy_{to,from}_user
 * at sizes from 128 bytes to 64 KiB; here the same copies are the bulk
 * of a system call's work. The file's pages stay in the page cache, so a
 * call finds them and copies, one copy per 4 KiB page (6.1's shmem read
 * and generic_perform_write go page by page). On arm64 6.1 (QEMU-counted,
 * stock's copy) the copy is 6 % of a 128-byte pread's kernel
 * instructions, about half of a 4 KiB call's (1,167 of 2,303 to user,
 * of 2,571 from) and 73 % (to) or 64 % (from) of a 64 KiB call's.
 *
 * Both sides are page aligned (the buffer here, offset 0 of the file
 * there) and every page is touched before the ROI, so no call faults and
 * every copy takes the same path. The checksum covers each call's return
 * value and, once after the ROI, the bytes: the last read's buffer
 * (cleared before the ROI, so the ROI's reads wrote it) or the file read
 * back (the ROI writes other bytes than the warm-up did). Hashing every call's bytes inside the ROI would
 * put a user-space loop over up to `size` bytes beside the copy it
 * measures.
 *
 * Job keys: iterations (100000), warmup (1000), detailed_warmup (0),
 * settle_ms (50), size (4096), direction (to: pread, copy_to_user; from:
 * pwrite, copy_from_user).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobconf.h"
#include "result.h"
#include "roi.h"

#define NAME "usercopy-loop"
#define TARGET "/tmp/usercopy-file"
#define PAGE 4096
/* workloads/script.py allows no more (the guest's /tmp holds it twice over). */
#define MAX_SIZE (1 << 20)

/* The job: how many calls, and what each copies. */
struct job {
	long long calls, warm, detailed, size;
	int to_user;
};

/* Read and check the job file; prints why and returns -1 when it is bad. */
static int read_job(const char *path, struct job *j)
{
	const char *way;

	if (jobconf_load(path) != 0)
		return -1;
	j->calls = job_int("iterations", 100000);
	j->warm = job_int("warmup", 1000);
	j->detailed = job_int("detailed_warmup", 0);
	j->size = job_int("size", 4096);
	way = job_str("direction", "to");
	j->to_user = strcmp(way, "to") == 0;
	if (j->calls >= 1 && j->warm >= 0 && j->detailed >= 0 && j->size >= 1 &&
	    j->size <= MAX_SIZE && (j->to_user || strcmp(way, "from") == 0))
		return 0;
	fprintf(stderr, NAME ": need iterations >= 1, warmup >= 0, "
		"detailed_warmup >= 0, 1 <= size <= %d, direction to or from\n",
		MAX_SIZE);
	return -1;
}

/* The bytes the file starts with, and the other ones the writes bring. */
static void fill(unsigned char *buf, long long n, unsigned seed)
{
	for (long long i = 0; i < n; i++)
		buf[i] = (unsigned char)(i * 131 + seed);
}

/* noinline: warm-up and ROI run the very same code. */
static __attribute__((noinline)) void run(int fd, unsigned char *buf,
					  const struct job *j, long long n,
					  struct result *r)
{
	for (long long i = 0; i < n; i++) {
		ssize_t got = j->to_user ? pread(fd, buf, j->size, 0)
					 : pwrite(fd, buf, j->size, 0);

		if (got >= 0)
			fnv64_u64(&r->hash, (uint64_t)got);
		else
			result_error(r, j->to_user ? "pread" : "pwrite", TARGET, errno);
	}
	r->ops += n;
}

/* The bytes the ROI moved: the buffer a read filled, or the file. */
static int hash_bytes(int fd, unsigned char *buf, const struct job *j,
		      struct result *r)
{
	if (!j->to_user) {
		memset(buf, 0, j->size);
		if (pread(fd, buf, j->size, 0) != j->size) {
			fprintf(stderr, NAME ": cannot read %s back: %s\n",
				TARGET, strerror(errno));
			return -1;
		}
	}
	fnv64_bytes(&r->hash, buf, j->size);
	return 0;
}

int main(int argc, char **argv)
{
	struct result res, scratch;
	struct job j;
	long long t0, t1;
	unsigned char *buf;
	int fd;

	roi_init();
	if (read_job(argc > 1 ? argv[1] : JOBCONF_DEFAULT_PATH, &j) != 0)
		return JOBCONF_EXIT_BAD;
	if (posix_memalign((void **)&buf, PAGE, j.size) != 0) {
		fprintf(stderr, NAME ": cannot allocate %lld bytes\n", j.size);
		return 1;
	}
	/* The file, with its pages in the page cache; the buffer, touched. */
	fill(buf, j.size, 7);
	fd = open(TARGET, O_RDWR | O_CREAT | O_TRUNC | O_NOATIME | O_CLOEXEC, 0644);
	if (fd < 0 || pwrite(fd, buf, j.size, 0) != j.size) {
		fprintf(stderr, NAME ": cannot create %s: %s\n", TARGET,
			strerror(errno));
		return 1;
	}
	if (!j.to_user)
		fill(buf, j.size, 11);	/* what the warm-up writes */

	result_init(&scratch, NAME);
	run(fd, buf, &j, j.warm, &scratch);
	roi_settle(job_int("settle_ms", 50));
	roi_switch();
	run(fd, buf, &j, j.detailed, &scratch);
	/* So the bytes hashed after the ROI are the ROI's own. */
	if (j.to_user)
		memset(buf, 0, j.size);
	else
		fill(buf, j.size, 13);

	result_init(&res, NAME);
	t0 = mono_ns();
	roi_begin();
	run(fd, buf, &j, j.calls, &res);
	roi_end();
	t1 = mono_ns();
	res.roi_ns = t1 - t0;

	if (hash_bytes(fd, buf, &j, &res) != 0)
		return 1;
	result_print(&res);
	return 0;
}
