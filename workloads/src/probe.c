/*
 * probe - what a simulated core delivers, in the units the CPU documents
 * quote: load-to-use latency at each cache level (a pointer chase over
 * buffers sized for L1, L2, L3 and memory), the cost of a mispredicted
 * branch, the latency of a dependent add, the round trip of an empty
 * system call, and on x86 the cost of a rep string with almost nothing
 * to move (rep stosb, rep movsb and repe cmpsb of one byte, back to
 * back: their start-up, as uops.info times them with RCX at 0 to 2). It exists to
 * check a CPU preset against its sources
 * (analysis/probe.py sets each figure beside the documented one).
 *
 * Time is the core's own clock where the ISA gives one to user space:
 * x86's RDTSC, which gem5 advances with the CPU's cycles (so under gem5 a
 * figure is core cycles; under QEMU or on a host it is TSC ticks). arm64
 * has no user-readable cycle counter, so there the unit is nanoseconds of
 * CLOCK_MONOTONIC. The result line says which (probe_unit).
 *
 * What it cannot see: the chase measures latency through the whole load
 * path (TLB included: each page is visited as a block of its lines in a
 * random order, so there is one TLB miss per 64 loads at most); the
 * mispredict figure assumes the predictor guesses a random bit right half
 * the time, which the gem5 statistics of the same run can confirm.
 *
 * Job keys: chase_loads (4096), branch_iterations (20000),
 * add_iterations (20000), syscalls (2000), rep_strings (2000; x86 only),
 * settle_ms (50).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jobconf.h"
#include "result.h"
#include "roi.h"

#define NAME "probe"
#define LINE 64
#define PAGE 4096
#define LINES_PER_PAGE (PAGE / LINE)

/* Buffer sizes: inside L1D (32 KiB on both seed machines), inside L2
 * (256 KiB), inside L3 but past L2 (8 and 12 MiB), and past any L3. */
static const struct {
	const char *name;
	size_t bytes;
} levels[] = {
	{ "l1d", 16 << 10 },
	{ "l2", 128 << 10 },
	{ "l3", 2 << 20 },
	{ "mem", 64 << 20 },
};
#define NLEVELS (sizeof(levels) / sizeof(levels[0]))

#if defined(__x86_64__)
#define UNIT "cycles"
static inline uint64_t now(void)
{
	uint32_t lo, hi;

	/* LFENCE first: RDTSC does not wait for older instructions. */
	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}
#else
#define UNIT "ns"
static inline uint64_t now(void)
{
	return (uint64_t)mono_ns();
}
#endif

/* A deterministic generator: the same chase on every simulator. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void shuffle(size_t *a, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rng() % (i + 1), t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
}

/*
 * Link every line of buf into one cycle: pages in a random order, and the
 * lines of each page in a random order, so that no stride prefetcher finds
 * a pattern and each page is visited once per lap. Returns the first line.
 */
static void **build_chase(char *buf, size_t bytes)
{
	size_t pages = bytes / PAGE, n = bytes / LINE;
	size_t *page_order = malloc(pages * sizeof(size_t));
	size_t *order = malloc(n * sizeof(size_t));
	size_t line_order[LINES_PER_PAGE];

	if (!page_order || !order) {
		fprintf(stderr, NAME ": out of memory\n");
		exit(1);
	}
	for (size_t p = 0; p < pages; p++)
		page_order[p] = p;
	shuffle(page_order, pages);
	for (size_t p = 0, k = 0; p < pages; p++) {
		for (size_t l = 0; l < LINES_PER_PAGE; l++)
			line_order[l] = l;
		shuffle(line_order, LINES_PER_PAGE);
		for (size_t l = 0; l < LINES_PER_PAGE; l++)
			order[k++] = page_order[p] * PAGE + line_order[l] * LINE;
	}
	for (size_t i = 0; i < n; i++)
		*(void **)(buf + order[i]) = buf + order[(i + 1) % n];
	void **first = (void **)(buf + order[0]);
	free(order);
	free(page_order);
	return first;
}

static __attribute__((noinline)) void **chase(void **p, long long n)
{
	for (long long i = 0; i < n; i++)
		p = (void **)*p;
	return p;
}

/* A branch on each element of bits: taken or not as the bit says. */
static __attribute__((noinline)) uint64_t branches(const uint8_t *bits, long long n)
{
	uint64_t x = 0;

	for (long long i = 0; i < n; i++) {
		if (bits[i]) {
			/* An empty asm keeps the compiler from making this a cmov. */
			__asm__ volatile("" ::: "memory");
			x += i;
		}
	}
	return x;
}

/* Eight dependent adds per iteration. */
static __attribute__((noinline)) uint64_t adds(uint64_t x, long long n)
{
	for (long long i = 0; i < n; i++) {
#if defined(__x86_64__)
		__asm__ volatile("add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
				 "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
				 : "+r"(x) : "r"(i));
#else
		__asm__ volatile("add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
				 "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
				 "add %0, %0, %1\n\tadd %0, %0, %1"
				 : "+r"(x) : "r"(i));
#endif
	}
	return x;
}

static __attribute__((noinline)) long syscalls(long long n)
{
	long sum = 0;

	for (long long i = 0; i < n; i++)
		sum += syscall(SYS_getppid);
	return sum;
}

#if defined(__x86_64__)
/* The one-byte strings' bytes: a line to store to, the next to copy from. */
static char line[2 * LINE] __attribute__((aligned(LINE)));

/* n rep strings of one byte each, back to back: each sets RCX, RSI and
 * RDI again, so none waits on another's count or pointers, as uops.info's
 * throughput runs do (nanoBench's cpuBench.py: "mov RCX, 1" before each). */
static __attribute__((noinline)) uint64_t rep_stos(char *dst, long long n)
{
	for (long long i = 0; i < n; i++) {
		void *d = dst;
		long c = 1;

		__asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(i) : "memory");
	}
	return (uint8_t)dst[0];
}

static __attribute__((noinline)) uint64_t rep_movs(char *dst, const char *src, long long n)
{
	for (long long i = 0; i < n; i++) {
		void *d = dst;
		const void *s = src + (i & 1);
		long c = 1;

		__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) :: "memory");
	}
	return (uint8_t)dst[0];
}

/* The same with repe cmpsb, which starts as a compare string does (on
 * Intel's cores more slowly than a move: it ends on a mismatch as well as
 * on RCX). Its bytes are equal, so each compares its one byte; the sum of
 * what the flags said is returned, so the work is not dead. */
static __attribute__((noinline)) uint64_t rep_cmps(const char *a, const char *b, long long n)
{
	uint64_t equal = 0;

	for (long long i = 0; i < n; i++) {
		const void *s = a, *d = b;
		long c = 1;
		unsigned char z;

		__asm__ volatile("repe cmpsb; sete %3"
				 : "+S"(s), "+D"(d), "+c"(c), "=q"(z) :: "cc", "memory");
		equal += z;
	}
	return equal;
}
#endif

int main(int argc, char **argv)
{
	struct result res;
	long long loads, biters, aiters, calls, strings;
	void **start[NLEVELS];
	char *bufs[NLEVELS];
	uint8_t *random_bits, *zero_bits;
	uint64_t t0, t1;
	double per[NLEVELS], predictable, unpredictable, add, call, stos = 0, movs = 0, cmps = 0;
	long long total_ops;
	uint64_t roi_start_ns;

	roi_init();
	if (jobconf_load(argc > 1 ? argv[1] : JOBCONF_DEFAULT_PATH) != 0)
		return JOBCONF_EXIT_BAD;
	loads = job_int("chase_loads", 4096);
	biters = job_int("branch_iterations", 20000);
	aiters = job_int("add_iterations", 20000);
	calls = job_int("syscalls", 2000);
	strings = job_int("rep_strings", 2000);
	if (loads < 1 || biters < 1 || aiters < 1 || calls < 1 || strings < 1) {
		fprintf(stderr, NAME ": need chase_loads, branch_iterations, "
			"add_iterations, syscalls and rep_strings >= 1\n");
		return JOBCONF_EXIT_BAD;
	}

	/* Set-up (on gem5's functional core): every buffer linked, the bits
	 * drawn. Pages are touched here, so no page fault falls in the ROI. */
	for (size_t i = 0; i < NLEVELS; i++) {
		bufs[i] = mmap(NULL, levels[i].bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (bufs[i] == MAP_FAILED) {
			perror(NAME ": mmap");
			return 1;
		}
		start[i] = build_chase(bufs[i], levels[i].bytes);
	}
	random_bits = malloc(biters);
	zero_bits = calloc(biters, 1);
	if (!random_bits || !zero_bits) {
		fprintf(stderr, NAME ": out of memory\n");
		return 1;
	}
	for (long long i = 0; i < biters; i++)
		random_bits[i] = rng() & 1;
	roi_settle(job_int("settle_ms", 50));
	roi_switch();

	result_init(&res, NAME);
	roi_start_ns = (uint64_t)mono_ns();
	roi_begin();
	for (size_t i = 0; i < NLEVELS; i++) {
		void **p = start[i];
		size_t lap = levels[i].bytes / LINE;

		/* One lap brings a cache-sized buffer in; memory's is left cold. */
		if (strcmp(levels[i].name, "mem") != 0)
			p = chase(p, (long long)lap);
		t0 = now();
		p = chase(p, loads);
		t1 = now();
		per[i] = (double)(t1 - t0) / loads;
		fnv64_u64(&res.hash, (uint64_t)((char *)p - bufs[i]));
	}
	branches(zero_bits, biters);	/* warm the code, not the predictor's bits */
	t0 = now();
	fnv64_u64(&res.hash, branches(zero_bits, biters));
	t1 = now();
	predictable = (double)(t1 - t0) / biters;
	t0 = now();
	fnv64_u64(&res.hash, branches(random_bits, biters));
	t1 = now();
	unpredictable = (double)(t1 - t0) / biters;
	t0 = now();
	fnv64_u64(&res.hash, adds(1, aiters));
	t1 = now();
	add = (double)(t1 - t0) / (8.0 * aiters);
	t0 = now();
	/* Each call returns the parent's pid: hash that they all did. */
	fnv64_u64(&res.hash, (uint64_t)(syscalls(calls) == calls * (long)getppid()));
	t1 = now();
	call = (double)(t1 - t0) / calls;
#if defined(__x86_64__)
	fnv64_u64(&res.hash, rep_stos(line, strings / 8 + 1));	/* warm the code */
	t0 = now();
	fnv64_u64(&res.hash, rep_stos(line, strings));
	t1 = now();
	stos = (double)(t1 - t0) / strings;
	fnv64_u64(&res.hash, rep_movs(line, line + LINE, strings / 8 + 1));
	t0 = now();
	fnv64_u64(&res.hash, rep_movs(line, line + LINE, strings));
	t1 = now();
	movs = (double)(t1 - t0) / strings;
	fnv64_u64(&res.hash, rep_cmps(line, line + LINE, strings / 8 + 1));
	t0 = now();
	fnv64_u64(&res.hash, rep_cmps(line, line + LINE, strings));
	t1 = now();
	cmps = (double)(t1 - t0) / strings;
#else
	strings = 0;
#endif
	roi_end();
	res.roi_ns = mono_ns() - (long long)roi_start_ns;

	total_ops = (long long)NLEVELS * loads + 2 * biters + 8 * aiters + calls + 3 * strings;
	res.ops = (unsigned long long)total_ops;
	result_extra(&res, "probe_unit", "\"%s\"", UNIT);
	for (size_t i = 0; i < NLEVELS; i++)
		{
		char key[32];

		snprintf(key, sizeof(key), "probe_%s", levels[i].name);
		result_extra(&res, key, "%.2f", per[i]);
	}
	/* Half of the random branches mispredict: each costs twice the extra. */
	result_extra(&res, "probe_mispredict", "%.2f", 2.0 * (unpredictable - predictable));
	result_extra(&res, "probe_add", "%.3f", add);
	result_extra(&res, "probe_syscall", "%.1f", call);
	if (strings) {
		result_extra(&res, "probe_rep_stos", "%.1f", stos);
		result_extra(&res, "probe_rep_movs", "%.1f", movs);
		result_extra(&res, "probe_rep_cmps", "%.1f", cmps);
	}
	result_print(&res);
	return 0;
}
