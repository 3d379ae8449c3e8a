/*
 * init - PID 1 of the simulated machine.
 *
 * It mounts the pseudo filesystems, reports what it booted on, runs the
 * one workload named in /etc/uaccess/job.conf (or, with uaccess.job=readfile
 * under gem5, in the job the host hands over after a checkpoint) and shuts
 * the machine down.
 * The host parses stdout, so every fact is one "@@UACCESS-..." line and
 * every failure is one "@@UACCESS-ERROR ..." line followed by shutdown.
 *
 * PID 1 must never return or exit (the kernel panics), so every path
 * ends in power_off(), which does not return.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobconf.h"
#include "roi.h"

#define JOB_PATH JOBCONF_DEFAULT_PATH
#define WORKLOAD_DIR "/usr/bin/"
#define WORKLOAD_NAME_MAX 64
#define BACKEND_MAX 32
#define JOB_MAX 65536

#if defined(__x86_64__)
#define CPUINFO_LABEL "flags"
#elif defined(__aarch64__)
#define CPUINFO_LABEL "Features"
#else
#error "init: unsupported architecture"
#endif

extern char **environ;

static char backend[BACKEND_MAX + 1] = "none";
/* uaccess.job=readfile: the job comes from the host after a checkpoint. */
static int job_from_host;

static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void __attribute__((noreturn)) power_off(void)
{
	fflush(stdout);
	sync();
	if (strcmp(backend, "gem5") == 0) {
		/* Ends the simulation; only valid under gem5 (SIGILL elsewhere). */
		m5_exit(0);
	} else {
		/* QEMU runs with -no-reboot, so a reboot ends it without ACPI. */
		reboot(RB_AUTOBOOT);
	}
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

/* If the kernel gave us no console (no /dev/console on the root), make one. */
static void setup_console(void)
{
	int fd;

	if (fcntl(1, F_GETFD) != -1)
		return;
	mkdir("/dev", 0755);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) != 0 &&
	    errno != EBUSY)
		power_off();	/* nowhere to report it */
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		power_off();
	for (int i = 0; i <= 2; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
}

struct mnt {
	const char *what, *where, *type, *opts;
	int busy_ok;	/* devtmpfs may already be mounted by the kernel */
};

static void mount_all(void)
{
	static const struct mnt mnts[] = {
		{ "proc", "/proc", "proc", NULL, 0 },
		{ "sysfs", "/sys", "sysfs", NULL, 0 },
		{ "devtmpfs", "/dev", "devtmpfs", NULL, 1 },
		{ "tmpfs", "/tmp", "tmpfs", "mode=1777", 0 },
	};

	for (size_t i = 0; i < sizeof(mnts) / sizeof(mnts[0]); i++) {
		const struct mnt *m = &mnts[i];

		/* Usually exists already (ext2 image or initramfs). */
		mkdir(m->where, 0755);
		if (mount(m->what, m->where, m->type, 0, m->opts) == 0)
			continue;
		if (m->busy_ok && errno == EBUSY)
			continue;
		say("@@UACCESS-ERROR mount %s: %s", m->where, strerror(errno));
		power_off();
	}
}

/* Small files from /proc: read whole into buf; 0 or -1. */
static int read_file(const char *path, char *buf, size_t size)
{
	size_t used = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (used + 1 < size &&
	       (n = read(fd, buf + used, size - 1 - used)) > 0)
		used += (size_t)n;
	close(fd);
	buf[used] = '\0';
	return 0;
}

/*
 * uaccess.backend=<word> from the kernel command line, else "none"; and
 * uaccess.job=readfile, the boot-once handoff.
 */
static void find_backend(void)
{
	static const char key[] = "uaccess.backend=";
	static const char job_key[] = "uaccess.job=readfile";
	char cmdline[4096];
	char *tok, *save = NULL;

	if (read_file("/proc/cmdline", cmdline, sizeof(cmdline)) != 0) {
		say("@@UACCESS-ERROR read /proc/cmdline: %s", strerror(errno));
		power_off();
	}
	for (tok = strtok_r(cmdline, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (strncmp(tok, key, sizeof(key) - 1) == 0 &&
		    tok[sizeof(key) - 1] != '\0')
			snprintf(backend, sizeof(backend), "%s",
				 tok + sizeof(key) - 1);
		if (strcmp(tok, job_key) == 0)
			job_from_host = 1;
	}
	setenv("UACCESS_BACKEND", backend, 1);
}

/* The value of the first "<label> : value" line of /proc/cpuinfo. */
static void print_cpuflags(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char *line = NULL, *value = NULL;
	size_t cap = 0;

	while (f && getline(&line, &cap, f) != -1) {
		char *colon = strchr(line, ':');
		size_t n;

		if (!colon)
			continue;
		/* Exact label match: x86 also has "vmx flags", "bugs", ... */
		n = (size_t)(colon - line);
		while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
			n--;
		if (n != strlen(CPUINFO_LABEL) ||
		    strncmp(line, CPUINFO_LABEL, n) != 0)
			continue;
		value = colon + 1;
		value += strspn(value, " \t");
		value[strcspn(value, "\n")] = '\0';
		n = strlen(value);
		while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t'))
			value[--n] = '\0';
		break;
	}
	say("@@UACCESS-CPUFLAGS %s", value ? value : "");
	free(line);
	if (f)
		fclose(f);
}

static int valid_workload(const char *w)
{
	size_t n = strlen(w);

	if (n == 0 || n > WORKLOAD_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((w[i] >= 'a' && w[i] <= 'z') ||
		      (w[i] >= '0' && w[i] <= '9') || w[i] == '-'))
			return 0;
	return 1;
}

/*
 * The boot-once handoff under gem5: stop at a checkpoint that every job
 * of this kernel, disk and command line can start from, then take this
 * run's job from the host with m5 readfile. The boot's gem5 process ends
 * at the checkpoint; each run restores it and continues from the next
 * instruction, with its own job as the board's readfile.
 *
 * The job goes into a memfd, not a file in /tmp: tmpfs numbers a mount's
 * inodes in creation order and the workloads hash inode numbers, so one
 * more file in /tmp would change every checksum (measured: 860df19a...
 * against the cold scheme's 399e4e9c... for the same statx job). A memfd
 * lives on the kernel's internal shmem mount. Its path for the workload
 * is /proc/self/fd/N, which the child inherits (no close-on-exec).
 */
static char handoff_path[32];

static int fetch_job(void)
{
	static char buf[JOB_MAX];
	uint64_t used = 0, n;
	ssize_t w;
	int fd;

	if (strcmp(backend, "gem5") != 0) {
		say("@@UACCESS-ERROR job: uaccess.job=readfile needs uaccess.backend=gem5");
		return -1;
	}
	memset(buf, 0, sizeof(buf));	/* mapped before gem5 writes into it */
	say("@@UACCESS-READY");
	m5_checkpoint(0, 0);
	while (used < sizeof(buf) &&
	       (n = m5_read_file(buf + used, sizeof(buf) - used, used)) > 0)
		used += n;
	if (used == 0 || used == sizeof(buf)) {
		say("@@UACCESS-ERROR job: m5 readfile gave %llu bytes",
		    (unsigned long long)used);
		return -1;
	}
	fd = memfd_create("uaccess-job", 0);
	if (fd < 0) {
		say("@@UACCESS-ERROR job: memfd_create: %s", strerror(errno));
		return -1;
	}
	w = write(fd, buf, used);
	if (w != (ssize_t)used) {
		say("@@UACCESS-ERROR job: write to the memfd: %s", strerror(errno));
		return -1;
	}
	snprintf(handoff_path, sizeof(handoff_path), "/proc/self/fd/%d", fd);
	say("@@UACCESS-JOB bytes=%llu", (unsigned long long)used);
	return 0;
}

static void run_workload(void)
{
	char path[sizeof(WORKLOAD_DIR) + WORKLOAD_NAME_MAX];
	const char *job = JOB_PATH;
	const char *w;
	pid_t pid;
	int st;

	if (job_from_host) {
		if (fetch_job() != 0)
			return;
		job = handoff_path;
	}
	if (jobconf_load(job) != 0) {
		say("@@UACCESS-ERROR job: cannot load %s", job);
		return;
	}
	w = job_str("workload", NULL);
	if (!w) {
		say("@@UACCESS-ERROR job: no workload= in %s", JOB_PATH);
		return;
	}
	if (!valid_workload(w)) {
		say("@@UACCESS-ERROR job: bad workload name '%s'", w);
		return;
	}
	snprintf(path, sizeof(path), WORKLOAD_DIR "%s", w);

	say("@@UACCESS-BEGIN workload=%s", w);
	pid = fork();
	if (pid < 0) {
		say("@@UACCESS-ERROR fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		char *argv[] = { path, (char *)job, NULL };

		/*
		 * No restartable sequences in the workload: glibc (2.35 and
		 * later) registers an rseq area at start-up, and then every
		 * return to user space after a context switch makes the kernel
		 * read and write it (__rseq_handle_notify_resume: one get_user,
		 * three put_user). A kworker that happened to run inside the
		 * ROI added those user accesses to some runs and not others, so
		 * per-op uaccess counts were not exact.
		 */
		setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0", 1);
		execve(path, argv, environ);
		say("@@UACCESS-ERROR exec %s: %s", path, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			say("@@UACCESS-ERROR waitpid: %s", strerror(errno));
			return;
		}
	}
	if (WIFSIGNALED(st))
		say("@@UACCESS-END signal=%d", WTERMSIG(st));
	else
		say("@@UACCESS-END status=%d", WEXITSTATUS(st));
}

int main(void)
{
	struct utsname u;

	setup_console();
	setvbuf(stdout, NULL, _IOLBF, 0);
	mount_all();
	find_backend();

	if (uname(&u) != 0) {
		say("@@UACCESS-ERROR uname: %s", strerror(errno));
		power_off();
	}
	say("@@UACCESS-BOOT release=%s version=%s machine=%s backend=%s",
	    u.release, u.version, u.machine, backend);
	print_cpuflags();
	run_workload();
	power_off();
}
