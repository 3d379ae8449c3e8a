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
