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
 * stock's copy, 200 calls) the copy is 4 % of a 128-byte pread's kernel
 * instructions (51 of 1,170), about half of a 4 KiB call's (1,167 of
 * 2,116 to user, of 2,589 from) and 72 % (to) or 65 % (from) of a
 * 64 KiB call's.
 *
 * Both sides are page aligned (the buffer here, offset 0 of the file
 * there) and every page is touched before the ROI, so no call faults and
 * every copy takes the same path. The checksum covers each call's return
 * value and, once after the ROI (b->report), the bytes: the buffer the
 * reads filled, or the file read back. The harness runs nothing between
 * the warm-up and the ROI, so with a warm-up those bytes are what the
 * warm-up's calls and the ROI's (the same copy) both moved; the file
 * starts with other bytes than the writes bring, so a job without a
 * warm-up hashes the ROI's alone. Hashing every call's bytes inside the
 * ROI would put a user-space loop over up to `size` bytes beside the
 * copy it measures.
 *
 * Job keys: size (4096), direction (to: pread, copy_to_user; from:
 * pwrite, copy_from_user); and the harness's (microbench.h): iterations
 * (100000), warmup (1000), detailed_warmup (0), settle_ms (50).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_NAME "usercopy-loop"
#define BENCH_SUBJECT const struct copy *	/* the file, buffer and size */
struct copy;
#include "microbench.h"

#define TARGET "/tmp/usercopy-file"
#define PAGE 4096
/* workloads/script.py allows no more (the guest's /tmp holds it twice over). */
#define MAX_SIZE (1 << 20)

/* What every call copies, and which way. */
struct copy {
	int fd;
	int to_user;
	unsigned char *buf;
	size_t size;
};

static struct copy the_copy;

/* The bytes the file starts with, and the other ones the writes bring. */
static void fill(unsigned char *buf, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)(i * 131 + seed);
}

/* After the ROI: the bytes the calls moved, the buffer a read filled or
 * the file the writes wrote. */
static void hash_bytes(const struct bench *b, struct result *r)
{
	const struct copy *c = b->subject[0];

	if (!c->to_user) {
		memset(c->buf, 0, c->size);
		if (pread(c->fd, c->buf, c->size, 0) != (ssize_t)c->size) {
			result_error(r, "pread", TARGET, errno);
			return;
		}
	}
	fnv64_bytes(&r->hash, c->buf, c->size);
}

/* The file, its pages in the page cache, and the buffer, touched. */
static int bench_setup(struct bench *b)
{
	struct copy *c = &the_copy;
	long long size = job_int("size", 4096);
	const char *way = job_str("direction", "to");

	c->to_user = strcmp(way, "to") == 0;
	if (size < 1 || size > MAX_SIZE || (!c->to_user && strcmp(way, "from") != 0)) {
		fprintf(stderr, BENCH_NAME ": need 1 <= size <= %d, direction to or "
			"from\n", MAX_SIZE);
		return JOBCONF_EXIT_BAD;
	}
	c->size = (size_t)size;
	if (posix_memalign((void **)&c->buf, PAGE, c->size) != 0) {
		fprintf(stderr, BENCH_NAME ": cannot allocate %zu bytes\n", c->size);
		return 1;
	}
	fill(c->buf, c->size, 7);
	c->fd = open(TARGET, O_RDWR | O_CREAT | O_TRUNC | O_NOATIME | O_CLOEXEC, 0644);
	if (c->fd < 0 || pwrite(c->fd, c->buf, c->size, 0) != (ssize_t)c->size) {
		fprintf(stderr, BENCH_NAME ": cannot create %s: %s\n", TARGET,
			strerror(errno));
		return 1;
	}
	if (c->to_user)
		memset(c->buf, 0, c->size);	/* the reads fill it */
	else
		fill(c->buf, c->size, 11);	/* what the writes bring */
	b->subject[0] = c;
	b->report = hash_bytes;
	return 0;
}

static inline void bench_op(const struct copy *c, struct result *r)
{
	ssize_t got = c->to_user ? pread(c->fd, c->buf, c->size, 0)
				 : pwrite(c->fd, c->buf, c->size, 0);

	if (got >= 0)
		fnv64_u64(&r->hash, (uint64_t)got);
	else
		result_error(r, c->to_user ? "pread" : "pwrite", TARGET, errno);
}
