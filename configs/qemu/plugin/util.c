/* util.c - the plugin's messages and allocation (uaccess_profile.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "uaccess_profile.h"

/*
 * Messages go through qemu_plugin_outs(), which QEMU 7.2 only shows with
 * "-d plugin" (or in the -D log file). Errors are also written to stderr,
 * so that a refused start always says why.
 */
static void vout(bool error, const char *fmt, va_list ap)
{
	char buf[1024];
	int n;

	n = snprintf(buf, sizeof(buf), PLUGIN_NAME ": %s",
		     error ? "error: " : "");
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	qemu_plugin_outs(buf);
	if (error)
		fputs(buf, stderr);
}

void outf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout(false, fmt, ap);
	va_end(ap);
}

void errf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout(true, fmt, ap);
	va_end(ap);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		errf("out of memory\n");
		abort();
	}
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		errf("out of memory\n");
		abort();
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		errf("out of memory\n");
		abort();
	}
	return p;
}

char *xstrcat2(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = xmalloc(la + lb + 1);

	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	return s;
}
