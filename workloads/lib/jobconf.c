/* jobconf.c - key=value job file parser; see jobconf.h for the format. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobconf.h"

struct kv {
	char key[JOBCONF_KEY_MAX];
	char val[JOBCONF_VAL_MAX];
};

/* A fixed table keeps the parser allocation-free; jobs are tiny. */
static struct kv table[JOBCONF_MAX_KEYS];
static int nkeys;

/* Trim leading and trailing whitespace in place; returns the new start. */
static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static struct kv *find(const char *key)
{
	for (int i = 0; i < nkeys; i++)
		if (strcmp(table[i].key, key) == 0)
			return &table[i];
	return NULL;
}

/* Store one trimmed line. Returns NULL or a description of what is wrong. */
static const char *store(char *line)
{
	char *eq = strchr(line, '=');
	char *key, *val;
	struct kv *slot;

	if (!eq)
		return "expected key=value";
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (*key == '\0')
		return "empty key";
	if (strlen(key) >= JOBCONF_KEY_MAX)
		return "key too long";
	if (strlen(val) >= JOBCONF_VAL_MAX)
		return "value too long";
	slot = find(key);
	if (!slot) {
		if (nkeys == JOBCONF_MAX_KEYS)
			return "too many keys";
		slot = &table[nkeys++];
		strcpy(slot->key, key);
	}
	strcpy(slot->val, val);
	return NULL;
}

int jobconf_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	int rc = 0;

	nkeys = 0;
	if (!f) {
		fprintf(stderr, "jobconf: cannot open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) != -1) {
		char *s = trim(line);
		const char *why;

		lineno++;
		if (*s == '\0' || *s == '#')
			continue;
		why = store(s);
		if (why) {
			fprintf(stderr, "jobconf: %s:%ld: %s\n", path, lineno,
				why);
			rc = -1;
			break;
		}
	}
	if (rc == 0 && ferror(f)) {
		fprintf(stderr, "jobconf: error reading %s\n", path);
		rc = -1;
	}
	free(line);
	fclose(f);
	if (rc != 0)
		nkeys = 0;
	return rc;
}

const char *job_str(const char *key, const char *dflt)
{
	const struct kv *kv = find(key);

	return kv ? kv->val : dflt;
}

static void bad_value(const char *key, const char *val, const char *what)
{
	fprintf(stderr, "jobconf: key '%s': '%s' is not %s\n", key, val, what);
	exit(JOBCONF_EXIT_BAD);
}

long long job_int(const char *key, long long dflt)
{
	const char *val = job_str(key, NULL);
	char *end;
	long long v;

	if (!val)
		return dflt;
	errno = 0;
	/* Base 10 only: a leading zero must not silently mean octal. */
	v = strtoll(val, &end, 10);
	if (end == val || *end != '\0' || errno == ERANGE)
		bad_value(key, val, "an integer");
	return v;
}

double job_double(const char *key, double dflt)
{
	const char *val = job_str(key, NULL);
	char *end;
	double v;

	if (!val)
		return dflt;
	errno = 0;
	v = strtod(val, &end);
	if (end == val || *end != '\0' || errno == ERANGE || !isfinite(v))
		bad_value(key, val, "a finite number");
	return v;
}
