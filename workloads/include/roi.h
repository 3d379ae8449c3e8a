/*
 * roi.h - region-of-interest (ROI) markers for uaccess-lab workloads.
 *
 * A workload brackets its measured loop with roi_begin()/roi_end() so the
 * simulator can measure exactly that region. Which marker is emitted is
 * chosen once at run time by roi_init() from the environment variable
 * UACCESS_BACKEND (the init process copies it from the kernel command line):
 *
 *   "gem5"  gem5 "m5ops": instructions reserved for the simulator.
 *           x86_64: bytes 0f 04 followed by a 16-bit little-endian function
 *           number; arguments in rdi, rsi, result in rax.
 *           arm64:  the word 0xff000110 | (func << 16); arguments in x0, x1,
 *           result in x0.
 *           These are undefined instructions on real CPUs and under QEMU:
 *           they raise SIGILL. That is why they must only ever execute when
 *           the backend is explicitly gem5.
 *
 *   "qemu"  a NOP carrying a magic immediate that a TCG plugin recognises by
 *           its exact bytes. It is architecturally a no-op, so it is safe on
 *           any CPU (the x86_64 binaries run it natively in tests):
 *           x86_64: nopl 0x4c4155KK(%rax,%rax,1)
 *                   = bytes 0f 1f 84 00 KK 55 41 4c
 *           arm64:  movk xzr, #0x55KK (a write to the zero register)
 *                   = word 0xf2800000 | ((0x5500 | KK) << 5) | 31
 *           where KK is the marker kind (ROI_KIND_BEGIN / ROI_KIND_END).
 *           0x4c4155 spells "UAL" (uaccess-lab) in the x86 displacement.
 *
 *   anything else or unset: no marker at all.
 *
 * The backend lives in a file-scope static, so call roi_init() and the
 * markers from the same translation unit (each workload's main file).
 */
#ifndef UACCESS_ROI_H
#define UACCESS_ROI_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Marker kinds; the same numbers as gem5's workbegin/workend. */
#define ROI_KIND_BEGIN 0x5a
#define ROI_KIND_END   0x5b

/* gem5 m5op function numbers (gem5 include/gem5/asm/generic/m5ops.h). */
#define M5OP_EXIT       0x21
#define M5OP_CHECKPOINT 0x43
#define M5OP_WORK_BEGIN 0x5a
#define M5OP_WORK_END   0x5b
#define M5OP_READ_FILE  0x50
#define M5OP_SWITCH_CPU 0x52

/*
 * Byte patterns for plugin authors (C expressions, not used by the asm
 * below, which spells the same values out with .byte/.inst).
 */
#define ROI_QEMU_X86_64_BYTES(kind) \
	{ 0x0f, 0x1f, 0x84, 0x00, (kind), 0x55, 0x41, 0x4c }
#define ROI_QEMU_X86_64_LEN 8
#define ROI_QEMU_ARM64_INSN(kind) \
	(0xf2800000u | ((0x5500u | (uint32_t)(kind)) << 5) | 31u)
#define M5OP_X86_64_BYTES(func) \
	{ 0x0f, 0x04, (func) & 0xff, ((func) >> 8) & 0xff }
#define M5OP_ARM64_INSN(func) (0xff000110u | ((uint32_t)(func) << 16))

/* Two-level stringify so macro values land in the asm text as numbers. */
#define ROI_STR_(x) #x
#define ROI_STR(x) ROI_STR_(x)

#if defined(__x86_64__)

/* .word is 16 bits in x86 GAS, matching the m5op's 16-bit function field. */
#define M5OP_CALL2(func, x, y) do {					\
	register uint64_t a0_ __asm__("rdi") = (x);			\
	register uint64_t a1_ __asm__("rsi") = (y);			\
	__asm__ __volatile__(".byte 0x0f, 0x04\n\t.word " ROI_STR(func)	\
			     : "+r"(a0_), "+r"(a1_) : : "rax", "memory");	\
} while (0)

/* Three arguments and a result: m5 readfile (rdi, rsi, rdx -> rax). */
#define M5OP_CALL3_RET(func, x, y, z, ret) do {				\
	register uint64_t a0_ __asm__("rdi") = (x);			\
	register uint64_t a1_ __asm__("rsi") = (y);			\
	register uint64_t a2_ __asm__("rdx") = (z);			\
	register uint64_t r_ __asm__("rax");				\
	__asm__ __volatile__(".byte 0x0f, 0x04\n\t.word " ROI_STR(func)	\
			     : "=r"(r_), "+r"(a0_), "+r"(a1_), "+r"(a2_)	\
			     : : "memory");					\
	(ret) = r_;							\
} while (0)

#define ROI_QEMU_MARK(kind)						\
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x84, 0x00, "		\
			     ROI_STR(kind) ", 0x55, 0x41, 0x4c" : : : "memory")

#elif defined(__aarch64__)

#define M5OP_CALL2(func, x, y) do {					\
	register uint64_t a0_ __asm__("x0") = (x);			\
	register uint64_t a1_ __asm__("x1") = (y);			\
	__asm__ __volatile__(".inst (0xff000110 | (" ROI_STR(func) " << 16))" \
			     : "+r"(a0_), "+r"(a1_) : : "memory");	\
} while (0)

#define M5OP_CALL3_RET(func, x, y, z, ret) do {				\
	register uint64_t a0_ __asm__("x0") = (x);			\
	register uint64_t a1_ __asm__("x1") = (y);			\
	register uint64_t a2_ __asm__("x2") = (z);			\
	__asm__ __volatile__(".inst (0xff000110 | (" ROI_STR(func) " << 16))" \
			     : "+r"(a0_), "+r"(a1_), "+r"(a2_) : : "memory");	\
	(ret) = a0_;							\
} while (0)

#define ROI_QEMU_MARK(kind)						\
	__asm__ __volatile__(".inst (0xf2800000 | ((0x5500 | "		\
			     ROI_STR(kind) ") << 5) | 31)" : : : "memory")

#else
#error "roi.h: unsupported architecture (need x86_64 or aarch64)"
#endif

/* gem5 pseudo-ops. Only call these when running under gem5. */
static inline void m5_work_begin(uint64_t workid, uint64_t threadid)
{
	M5OP_CALL2(M5OP_WORK_BEGIN, workid, threadid);
}

static inline void m5_work_end(uint64_t workid, uint64_t threadid)
{
	M5OP_CALL2(M5OP_WORK_END, workid, threadid);
}

static inline void m5_checkpoint(uint64_t delay, uint64_t period)
{
	M5OP_CALL2(M5OP_CHECKPOINT, delay, period);
}

static inline void m5_exit(uint64_t delay)
{
	M5OP_CALL2(M5OP_EXIT, delay, 0);
}

/*
 * Copy up to len bytes of the host file gem5 was given as the board's
 * readfile, from offset, into buf; returns the bytes copied (0 at its
 * end). gem5 writes through the guest's page tables, so buf must be
 * mapped: the caller touches it first.
 */
static inline uint64_t m5_read_file(void *buf, uint64_t len, uint64_t offset)
{
	uint64_t n;

	M5OP_CALL3_RET(M5OP_READ_FILE, (uint64_t)(uintptr_t)buf, len, offset, n);
	return n;
}

enum roi_backend { ROI_BACKEND_NONE, ROI_BACKEND_QEMU, ROI_BACKEND_GEM5 };

/* unused: init.c includes this header only for m5_exit(). */
static enum roi_backend roi_backend_ __attribute__((unused)) = ROI_BACKEND_NONE;
static int roi_ready_ __attribute__((unused));

static inline void roi_init(void)
{
	const char *b;

	if (roi_ready_)
		return;
	roi_ready_ = 1;
	b = getenv("UACCESS_BACKEND");
	if (b && strcmp(b, "gem5") == 0)
		roi_backend_ = ROI_BACKEND_GEM5;
	else if (b && strcmp(b, "qemu") == 0)
		roi_backend_ = ROI_BACKEND_QEMU;
	else
		roi_backend_ = ROI_BACKEND_NONE;
}

/*
 * The functional warm-up is over: under gem5 the host switches to the
 * detailed core here (m5 switchcpu), and what runs until roi_begin() is
 * the detailed warm-up. Elsewhere it marks nothing.
 */
static inline void roi_switch(void)
{
	if (roi_backend_ == ROI_BACKEND_GEM5)
		M5OP_CALL2(M5OP_SWITCH_CPU, 0, 0);
}

/*
 * Let the kernel finish the asynchronous work that the set-up and the
 * warm-up started, before anything is measured: sleep `ms` milliseconds of
 * guest time. The set-up closes and unlinks files, and the kernel frees
 * what they held after an RCU grace period, from a softirq at some later
 * timer tick. Without the pause those callbacks run wherever the next
 * ticks fall: inside the ROI under gem5 (simulated time) and outside it
 * under QEMU (host time), so the two simulators measured different work.
 * Idle guest time is cheap in both (the CPU halts).
 */
static inline void roi_settle(long long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (ms > 0 && nanosleep(&ts, &ts) != 0)
		;
}

static inline void roi_begin(void)
{
	if (roi_backend_ == ROI_BACKEND_GEM5)
		m5_work_begin(0, 0);
	else if (roi_backend_ == ROI_BACKEND_QEMU)
		ROI_QEMU_MARK(ROI_KIND_BEGIN);
}

static inline void roi_end(void)
{
	if (roi_backend_ == ROI_BACKEND_GEM5)
		m5_work_end(0, 0);
	else if (roi_backend_ == ROI_BACKEND_QEMU)
		ROI_QEMU_MARK(ROI_KIND_END);
}

#endif /* UACCESS_ROI_H */
