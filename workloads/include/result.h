/*
 * result.h - checksum and result line shared by all workloads.
 *
 * Each workload prints exactly one line on stdout at the end:
 *   @@UACCESS-RESULT {"workload":"<name>","ops":N,"errors":E,
 *                     "checksum":"<16 hex>","roi_ns":NS[,extra fields]}
 *
 * The checksum is FNV-1a 64 over, in op order, only results that are the
 * same on every boot and kernel: mode, size, nlink, uid, gid for stat-like
 * calls; length and bytes for readlink; errno for a failed call. Each number
 * is fed as 8 little-endian bytes so the checksum does not depend on the
 * width a given architecture uses for st_nlink, st_mode, ...
 * Inode numbers, devices, times and block counts vary, so they are never
 * hashed.
 */
#ifndef UACCESS_RESULT_H
#define UACCESS_RESULT_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before any include (needed for struct statx)"
#endif

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#define FNV64_OFFSET 0xcbf29ce484222325ULL
#define FNV64_PRIME  0x00000100000001b3ULL

struct result {
	const char *workload;
	unsigned long long ops;		/* syscalls done in the ROI */
	unsigned long long errors;	/* how many of them returned -1 */
	uint64_t hash;			/* FNV-1a 64 state */
	long long roi_ns;
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

/* Fixed width, fixed byte order: identical on x86_64 and arm64. */
static inline void fnv64_u64(uint64_t *h, uint64_t v)
{
	uint64_t x = *h;

	for (int i = 0; i < 8; i++) {
		x ^= (v >> (8 * i)) & 0xff;
		x *= FNV64_PRIME;
	}
	*h = x;
}

static inline void result_hash_stat(struct result *r, const struct stat *st)
{
	fnv64_u64(&r->hash, st->st_mode);
	fnv64_u64(&r->hash, (uint64_t)st->st_size);
	fnv64_u64(&r->hash, st->st_nlink);
	fnv64_u64(&r->hash, st->st_uid);
	fnv64_u64(&r->hash, st->st_gid);
}

static inline void result_hash_statx(struct result *r, const struct statx *stx)
{
	fnv64_u64(&r->hash, stx->stx_mode);
	fnv64_u64(&r->hash, stx->stx_size);
	fnv64_u64(&r->hash, stx->stx_nlink);
	fnv64_u64(&r->hash, stx->stx_uid);
	fnv64_u64(&r->hash, stx->stx_gid);
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

/* Count a failed call: hashes err, remembers the first failure. */
void result_error(struct result *r, const char *op, const char *path, int err);

/* Append ,"key":<printf-formatted JSON value> to the result line. */
void result_extra(struct result *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Report the first error (if any) on stderr, print the line, flush. */
void result_print(const struct result *r);

#endif /* UACCESS_RESULT_H */
