/*
 * result.h - checksum and result line shared by all workloads.
 *
 * Each workload prints exactly one line on stdout at the end:
 *   @@UACCESS-RESULT {"workload":"<name>","ops":N,"errors":E,
 *                     "checksum":"<16 hex>","roi_ns":NS,
 *                     "times_checksum":"<16 hex>"[,extra fields]}
 *
 * The checksum is a 64-bit FNV-1a-style hash over, in op order, every
 * field the kernel returns that is the same on every boot of the same
 * image, so a variant that writes any one of them wrongly is caught
 * (tests/test_checksum.py boots a kernel with one deliberately wrong
 * statx field and sees it):
 *  - stat: dev, ino, mode, nlink, uid, gid, rdev, size, blksize, blocks.
 *    Every workload works in the guest's /tmp, a tmpfs that init mounts in
 *    a fixed order, so dev is fixed; tmpfs numbers inodes per superblock
 *    in creation order, and the workload creates its files in a seeded
 *    order, so ino is fixed too.
 *  - statx, where a loop compares it with fstat (statx-loop's calls): the
 *    same ten fields as stat's, from struct statx (result_hash_statx_basic),
 *    so that both loops do the same user work a call, as the 2017
 *    thread's two benchmarks did (0.270 s and 0.275 s of user time for
 *    10M calls each, 000_ccfae2f7fd7a499e); and once after the ROI the
 *    whole struct as below, so that a wrong statx-only field still shows.
 *  - statx elsewhere: the whole 256-byte struct as the kernel wrote it (mask,
 *    attributes and their mask, DIO alignment, the spare words the kernel
 *    must zero), except the four timestamps, and with stx_mnt_id taken
 *    relative to the mount id /proc/self/mountinfo gives for the
 *    workload's directory (result_anchor_mount; 0 when the two agree).
 *    The raw id counts the mounts made before /tmp, and that depends on
 *    the boot medium, not on the stat path: booted from the ext2 disk
 *    (as gem5 boots) the kernel mounts one more filesystem than from the
 *    initramfs (as QEMU boots), and /tmp's id is 15, not 14 (measured
 *    with the same kernel and image under QEMU; every other statx field
 *    was equal). Relative, a wrong mnt_id is still caught, and the same
 *    point has the same checksum under both simulators.
 *  - readlink: length and bytes; a failed call: errno.
 * Timestamps are not: the guest clock starts from the host's under QEMU,
 * so every file the workload creates has other times on every boot (the
 * raw times go to the diagnostic "times_checksum", which the same test
 * shows differing between two boots of one image). What is stable about
 * them is hashed instead: mtime == ctime (nothing modifies a file after it
 * is created; atime is left out, since whether a read moves it depends on
 * the clock tick, see relatime) and every tv_nsec below 10^9.
 * The hash runs inside the ROI, so it is cheap: each number is one 64-bit
 * word, mixed by FNV-1a's step (xor, multiply) applied to the word instead
 * of to each byte: a few instructions a field. Measured on statx-loop
 * (x86_64, QEMU plugin): 186 user instructions per op, against 1,751 for
 * a byte loop over the same fields and 358 for the old byte-wise hash of
 * five fields. Both steps are bijections of the state, so one wrong field
 * always changes the sum (though only in the bits at and above it).
 * Numbers are widened to 64 bits first, so the checksum does not depend
 * on the width an architecture uses for st_nlink, st_mode, ...
 */
#ifndef UACCESS_RESULT_H
#define UACCESS_RESULT_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before any include (needed for struct statx)"
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#define FNV64_OFFSET 0xcbf29ce484222325ULL
#define FNV64_PRIME  0x00000100000001b3ULL

struct result {
	const char *workload;
	unsigned long long ops;		/* syscalls done in the ROI */
	unsigned long long errors;	/* how many of them returned -1 */
	uint64_t hash;			/* FNV-1a 64 state: the checksum */
	uint64_t times_hash;		/* raw timestamps: diagnostic only */
	long long roi_ns;
	uint64_t mnt_id;		/* of the workload's directory, see above */
	/* First failure, reported on stderr by result_print(). */
	int first_errno;
	char first_op[16];
	char first_path[256];
	/* Pre-rendered ",\"key\":value" pairs appended to the line. */
	char extra[8192];
	size_t extra_len;
};

static inline void fnv64_bytes(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t x = *h;

	for (size_t i = 0; i < n; i++) {
		x ^= b[i];
		x *= FNV64_PRIME;
	}
	*h = x;
}

/* One number, widened to 64 bits: identical on x86_64 and arm64. */
static inline void fnv64_u64(uint64_t *h, uint64_t v)
{
	*h = (*h ^ v) * FNV64_PRIME;
}

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "fnv64_words reads native words: checksums assume little-endian");

/* n bytes (a multiple of 8) as little-endian words, on both arches. */
static inline void fnv64_words(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, sizeof(w));
		fnv64_u64(h, w);
	}
}

/* What is stable about a file's timestamps, and the raw times aside. */
static inline void result_hash_times(struct result *r, int64_t a_sec,
				     uint64_t a_nsec, int64_t m_sec,
				     uint64_t m_nsec, int64_t c_sec,
				     uint64_t c_nsec)
{
	fnv64_u64(&r->hash, m_sec == c_sec && m_nsec == c_nsec);
	fnv64_u64(&r->hash, a_nsec < 1000000000 && m_nsec < 1000000000 &&
		  c_nsec < 1000000000);
	fnv64_u64(&r->times_hash, (uint64_t)a_sec);
	fnv64_u64(&r->times_hash, a_nsec);
	fnv64_u64(&r->times_hash, (uint64_t)m_sec);
	fnv64_u64(&r->times_hash, m_nsec);
	fnv64_u64(&r->times_hash, (uint64_t)c_sec);
	fnv64_u64(&r->times_hash, c_nsec);
}

static inline void result_hash_stat(struct result *r, const struct stat *st)
{
	fnv64_u64(&r->hash, st->st_dev);
	fnv64_u64(&r->hash, st->st_ino);
	fnv64_u64(&r->hash, st->st_mode);
	fnv64_u64(&r->hash, st->st_nlink);
	fnv64_u64(&r->hash, st->st_uid);
	fnv64_u64(&r->hash, st->st_gid);
	fnv64_u64(&r->hash, st->st_rdev);
	fnv64_u64(&r->hash, (uint64_t)st->st_size);
	fnv64_u64(&r->hash, (uint64_t)st->st_blksize);
	fnv64_u64(&r->hash, (uint64_t)st->st_blocks);
	result_hash_times(r, st->st_atim.tv_sec, st->st_atim.tv_nsec,
			  st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
			  st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

/*
 * struct statx is fixed-width and little-endian on both arches, so its
 * bytes are hashed as they are: no field, present or future, is skipped
 * by accident. Only the four timestamps are cut out.
 */
static inline void result_hash_statx(struct result *r, const struct statx *stx)
{
	const unsigned char *b = (const void *)stx;
	size_t t0 = offsetof(struct statx, stx_atime);
	size_t t1 = offsetof(struct statx, stx_mtime) +
		    sizeof(stx->stx_mtime);

	_Static_assert(sizeof(struct statx) == 256, "statx ABI is 256 bytes");
	_Static_assert(offsetof(struct statx, stx_btime) > offsetof(struct statx, stx_atime) &&
		       offsetof(struct statx, stx_ctime) > offsetof(struct statx, stx_btime) &&
		       offsetof(struct statx, stx_mtime) > offsetof(struct statx, stx_ctime),
		       "the four timestamps are contiguous: atime btime ctime mtime");
	_Static_assert(offsetof(struct statx, stx_atime) % 8 == 0 &&
		       sizeof(struct statx) % 8 == 0, "statx is 8-byte aligned");
	size_t m0 = offsetof(struct statx, stx_mnt_id);
	size_t m1 = m0 + sizeof(stx->stx_mnt_id);

	_Static_assert(offsetof(struct statx, stx_mnt_id) >
		       offsetof(struct statx, stx_mtime), "stx_mnt_id follows the times");
	fnv64_words(&r->hash, b, t0);
	fnv64_words(&r->hash, b + t1, m0 - t1);
	fnv64_u64(&r->hash, stx->stx_mnt_id - r->mnt_id);
	fnv64_words(&r->hash, b + m1, sizeof(*stx) - m1);
	result_hash_times(r, stx->stx_atime.tv_sec, stx->stx_atime.tv_nsec,
			  stx->stx_mtime.tv_sec, stx->stx_mtime.tv_nsec,
			  stx->stx_ctime.tv_sec, stx->stx_ctime.tv_nsec);
}

/*
 * The ten fields result_hash_stat hashes, from struct statx, in the same
 * order and as many words: a device is (major << 32 | minor), one word as
 * st_dev is. What a statx-only field holds is left to one whole-struct
 * hash outside the ROI (statx-loop's report).
 */
static inline void result_hash_statx_basic(struct result *r, const struct statx *stx)
{
	fnv64_u64(&r->hash, (uint64_t)stx->stx_dev_major << 32 | stx->stx_dev_minor);
	fnv64_u64(&r->hash, stx->stx_ino);
	fnv64_u64(&r->hash, stx->stx_mode);
	fnv64_u64(&r->hash, stx->stx_nlink);
	fnv64_u64(&r->hash, stx->stx_uid);
	fnv64_u64(&r->hash, stx->stx_gid);
	fnv64_u64(&r->hash, (uint64_t)stx->stx_rdev_major << 32 | stx->stx_rdev_minor);
	fnv64_u64(&r->hash, stx->stx_size);
	fnv64_u64(&r->hash, stx->stx_blksize);
	fnv64_u64(&r->hash, stx->stx_blocks);
	result_hash_times(r, stx->stx_atime.tv_sec, stx->stx_atime.tv_nsec,
			  stx->stx_mtime.tv_sec, stx->stx_mtime.tv_nsec,
			  stx->stx_ctime.tv_sec, stx->stx_ctime.tv_nsec);
}

static inline void result_hash_readlink(struct result *r, ssize_t len,
					const char *buf)
{
	fnv64_u64(&r->hash, (uint64_t)len);
	fnv64_bytes(&r->hash, buf, (size_t)len);
}

/* Monotonic clock in nanoseconds (vDSO, cheap enough around the ROI). */
static inline long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void result_init(struct result *r, const char *workload);

/* Take statx's mnt_id relative to the mount holding `dir` (see above);
 * exits with a message if /proc/self/mountinfo cannot tell. */
void result_anchor_mount(struct result *r, const char *dir);

/* Count a failed call: hashes err, remembers the first failure. */
void result_error(struct result *r, const char *op, const char *path, int err);

/* Append ,"key":<printf-formatted JSON value> to the result line. */
void result_extra(struct result *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Report the first error (if any) on stderr, print the line, flush. */
void result_print(const struct result *r);

#endif /* UACCESS_RESULT_H */
