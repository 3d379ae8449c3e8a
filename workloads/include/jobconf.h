/*
 * jobconf.h - the job file shared by init and every workload.
 *
 * Format: one "key=value" per line; whitespace around key and value is
 * trimmed; blank lines and lines whose first non-blank character is '#'
 * are ignored. A key given twice keeps its last value. Keys nobody asks
 * for are ignored: the Python side validates the job, not the workloads.
 */
#ifndef UACCESS_JOBCONF_H
#define UACCESS_JOBCONF_H

#define JOBCONF_DEFAULT_PATH "/etc/uaccess/job.conf"
#define JOBCONF_MAX_KEYS 64
#define JOBCONF_KEY_MAX 64	/* bytes, including the NUL */
#define JOBCONF_VAL_MAX 256	/* bytes, including the NUL */

/* Exit status a workload uses when the job file or a value in it is bad. */
#define JOBCONF_EXIT_BAD 2

/* Parse the file. 0 on success; on error prints why to stderr, returns -1. */
int jobconf_load(const char *path);

/* Value of key, or dflt if the key is absent. */
const char *job_str(const char *key, const char *dflt);

/* Integer / floating value of key, or dflt if absent. A value that does not
 * parse completely prints a message naming the key and exits with status
 * JOBCONF_EXIT_BAD. */
long long job_int(const char *key, long long dflt);
double job_double(const char *key, double dflt);

#endif /* UACCESS_JOBCONF_H */
