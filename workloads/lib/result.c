/* result.c - the out-of-line (rare or end-of-run) half of result.h. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

void result_init(struct result *r, const char *workload)
{
	memset(r, 0, sizeof(*r));
	r->workload = workload;
	r->hash = FNV64_OFFSET;
	r->times_hash = FNV64_OFFSET;
}

/* Is `mnt` (a mount point) `dir` itself or one of its ancestors? */
static int mount_covers(const char *mnt, const char *dir)
{
	size_t n = strlen(mnt);

	if (strcmp(mnt, "/") == 0)
		return 1;
	return strncmp(dir, mnt, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

void result_anchor_mount(struct result *r, const char *dir)
{
	/* mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT ...". The deepest
	 * mount point covering dir holds it; a later line for the same
	 * point is a mount over the earlier one, so ties go to the later. */
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096], point[4096];
	size_t best = 0;
	unsigned long long id;
	int found = 0;

	if (!f)
		goto fail;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llu %*u %*s %*s %4095s", &id, point) == 2 &&
		    mount_covers(point, dir) && strlen(point) >= best) {
			best = strlen(point);
			r->mnt_id = id;
			found = 1;
		}
	fclose(f);
	if (found)
		return;
fail:
	fprintf(stderr, "%s: no mount for %s in /proc/self/mountinfo\n",
		r->workload, dir);
	exit(1);
}

void result_error(struct result *r, const char *op, const char *path, int err)
{
	fnv64_u64(&r->hash, (uint64_t)err);
	/* Only copy on the first failure: keep the ROI cost of errors low. */
	if (r->errors++ == 0) {
		r->first_errno = err;
		snprintf(r->first_op, sizeof(r->first_op), "%s", op);
		snprintf(r->first_path, sizeof(r->first_path), "%s", path);
	}
}

void result_extra(struct result *r, const char *key, const char *fmt, ...)
{
	size_t room = sizeof(r->extra) - r->extra_len;
	char *p = r->extra + r->extra_len;
	va_list ap;
	int n, m;

	n = snprintf(p, room, ",\"%s\":", key);
	if (n < 0 || (size_t)n >= room)
		goto overflow;
	va_start(ap, fmt);
	m = vsnprintf(p + n, room - n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= room - n)
		goto overflow;
	r->extra_len += n + m;
	return;
overflow:
	/* A truncated line would be invalid JSON; better to fail loudly. */
	fprintf(stderr, "%s: result field '%s' does not fit\n", r->workload,
		key);
	exit(1);
}

void result_print(const struct result *r)
{
	if (r->errors)
		fprintf(stderr, "%s: %llu failed calls; first: %s(%s): %s "
			"(errno %d)\n", r->workload, r->errors, r->first_op,
			r->first_path, strerror(r->first_errno),
			r->first_errno);
	printf("@@UACCESS-RESULT {\"workload\":\"%s\",\"ops\":%llu,"
	       "\"errors\":%llu,\"checksum\":\"%016" PRIx64 "\","
	       "\"roi_ns\":%lld,\"times_checksum\":\"%016" PRIx64 "\"%s}\n",
	       r->workload, r->ops, r->errors, r->hash, r->roi_ns,
	       r->times_hash, r->extra);
	fflush(stdout);
}
