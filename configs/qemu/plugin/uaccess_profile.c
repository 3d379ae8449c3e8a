/*
 * uaccess_profile.c - QEMU 7.2 TCG plugin: what does the guest kernel
 * execute, and how often does it open user memory, inside a workload's
 * region of interest (ROI)?
 *
 * The workload brackets its measured loop with two no-op marker
 * instructions (workloads/include/roi.h), matched here by their bytes:
 *   x86_64  nopl 0x4c4155KK(%rax,%rax,1) = 0f 1f 84 00 KK 55 41 4c
 *   arm64   movk xzr, #0x55KK             = 0xf2800000|((0x5500|KK)<<5)|31
 * with KK = 0x5a (begin) or 0x5b (end). Only what runs between the first
 * begin and the next end is reported.
 *
 * How it counts. Every translation block (TB) gets an inline 64-bit
 * execution counter that always runs (cheap: no helper call). At
 * translation time the plugin stores the TB's static facts: instruction
 * count, how many are kernel (virtual address bit 63 set), which System.map
 * symbol each kernel instruction belongs to (a TB may span symbols, so it
 * keeps runs of (symbol, count)). Each STAC/CLAC, LFENCE/SERIALIZE, MSR
 * PAN, LDTR* or STTR* instruction gets an inline counter of its own kind.
 * The marker instructions get an exec callback: at begin it snapshots
 * every counter, at end it sums (count - snapshot) * static facts and
 * writes the JSON. TBs translated after begin start from zero. Total
 * instructions are corrected for the part of the two marker TBs that lies
 * outside the ROI.
 *
 * REP string instructions (x86). QEMU 7.2 translates a REP string
 * instruction (target/i386/tcg/translate.c, gen_repz) as: "if rCX == 0 go
 * to the next instruction; do ONE iteration; rCX--; [CMPS/SCAS: if the
 * condition fails go to the next instruction]; jump back to this same
 * instruction". The early exit on rCX reaching zero (repz_opt) is only used
 * when goto_tb chaining is off (single-step, icount), so in a normal run
 * every instance that ends by exhausting rCX makes one extra, empty pass.
 * The instruction's code therefore runs once per iteration plus once, and
 * the API (version 1) cannot read rCX. So:
 *   iterations = memory accesses made by the instruction / accesses per
 *                iteration (inline memory counters: STOS, LODS, SCAS, OUTS
 *                make one access; MOVS a load and a store; CMPS two loads;
 *                INS two stores, as QEMU does a dummy store first to be
 *                restartable);
 *   instances  = passes - iterations for MOVS/STOS/LODS/INS/OUTS (each
 *                instance makes exactly one empty pass), exact even if an
 *                interrupt arrives between iterations;
 *              = first passes for CMPS/SCAS, which may stop on the
 *                condition without an empty pass. An exec callback on the
 *                instruction calls a pass a continuation when the previous
 *                REP pass seen was this same instruction and exactly one TB
 *                ran since (a global TB counter is bumped inline in every
 *                TB; the jump back always starts a new TB).
 *
 * What it cannot see, or gets wrong:
 *   - The TB counter runs at TB entry. If an instruction faults in the
 *     middle of a TB (a page fault, #UD, ...), the rest of that TB's
 *     instructions are counted although they did not run (not its facts:
 *     their counters sit on the instructions). Interrupts are only taken
 *     between TBs, so they do not cause this.
 *   - Kernel/user is decided by address, not by privilege level (the x86
 *     vsyscall page at 0xffffffffff600000 would count as kernel).
 *   - Symbols come from a static System.map: a randomised (KASLR) kernel
 *     is attributed wrongly; kernel code outside every text symbol (BPF
 *     JIT, trampolines, module text) is counted as "[unknown]".
 *   - A REP instance that starts with rCX == 0 counts as an instance with
 *     zero iterations. A page fault inside a REP loop that is handled and
 *     resumed adds a pass without an iteration, so MOVS-like kinds count
 *     one instance too many (an instance aborted through the exception
 *     table is counted right: its faulting pass stands in for the empty
 *     one). For CMPS/SCAS an interrupt or fault between two iterations
 *     starts a new instance.
 *   - Only explicit PAN writes (MSR PAN, #imm and MSR PAN, Xn) are seen;
 *     PSTATE.PAN also changes on exception entry and on ERET, which are
 *     not instructions the plugin can match.
 *   - BBV counts whole TBs and only TBs that start inside the ROI.
 *   - Counters are plain (non-atomic) and the ROI state is global: run
 *     with -smp 1 for exact numbers.
 *
 * Interrupts. QEMU delivers timer and device interrupts by host time, so
 * a ROI catches a different number of them on every boot, and each runs
 * kernel code of its own (x86: the entry stub's CLAC, error_entry's
 * LFENCE, timekeeping's REP MOVS; softirqs and RCU callbacks on the way
 * out). The totals include that work, as the CPU executed it; the
 * "interrupts" object says how much of it there was, so the calls' own
 * counts are the totals less it, exactly. An interrupt begins at the first
 * instruction of an interrupt entry symbol (x86: asm_common_interrupt,
 * asm_spurious_interrupt, asm_sysvec_*; arm64: el{0t,1t,1h}_{64,32}_{irq,
 * fiq}) and ends at the exception return (IRETQ, ERET) that brings the
 * entry depth back to where it was; exception entries (asm_exc_*,
 * el*_sync, el*_error) only move the depth, so a page fault inside an
 * interrupt does not end it, and the calls' own exceptions stay theirs.
 * Everything the CPU runs in between is the interrupt's, including a task
 * the exit path switches to. The depth restarts at zero at ROI begin (a
 * user instruction: no entry of this task is open); another task's return
 * from an entry opened before the ROI is ignored at depth zero, but inside
 * an interrupt it ends the interrupt early (counted as the calls' own).
 *
 * Arguments: out=<json> (required), map=<System.map>, bbv=<file>,
 * interval=<instructions> (with bbv only; default 10000000). Anything else
 * makes qemu_plugin_install fail, so QEMU refuses to start.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define PLUGIN_NAME "uaccess_profile"
#define ROI_KIND_BEGIN 0x5a
#define ROI_KIND_END 0x5b
#define KERNEL_ADDR_BIT (1ULL << 63)
#define DEFAULT_INTERVAL 10000000ULL
#define NO_ADDR UINT64_MAX

enum arch { ARCH_X86_64, ARCH_AARCH64 };

/* User-access facts: instructions counted by kind, each by an inline counter. */
enum fact {
	F_STAC, F_CLAC, F_LFENCE, F_SERIALIZE,	/* x86_64 */
	F_PAN0, F_PAN1, F_PAN_REG, F_LDTR, F_STTR,	/* aarch64 */
	N_FACTS
};

enum rep_kind { R_MOVS, R_STOS, R_CMPS, R_SCAS, R_LODS, R_INS, R_OUTS, N_REP };

/*
 * Iterations are counted through the instruction's memory accesses. We ask
 * for all of them (RW): QEMU 7.2's read/write filter for memory callbacks
 * is off by one (accel/tcg/plugin-gen.c op_rw() adds 1 to an already
 * 1-based value, so a W filter also passes loads and an R filter passes
 * only stores); RW is the one filter that means the same before and after
 * the fix.
 */
static const struct rep_desc {
	const char *name;
	unsigned per_iter;	/* guest memory accesses in one iteration */
	bool conditional;	/* CMPS/SCAS: may stop without empty pass */
} rep_desc[N_REP] = {
	[R_MOVS] = { "movs", 2, false },	/* load + store */
	[R_STOS] = { "stos", 1, false },	/* store */
	[R_CMPS] = { "cmps", 2, true },	/* two loads */
	[R_SCAS] = { "scas", 1, true },	/* load */
	[R_LODS] = { "lods", 1, false },	/* load */
	[R_INS]  = { "ins",  2, false },	/* dummy store + store */
	[R_OUTS] = { "outs", 1, false },	/* load */
};

/* A run of consecutive kernel instructions of one TB inside one symbol. */
struct sym_group {
	uint32_t sym;
	uint32_t n;
};

/* Static facts of one translation, plus its inline execution counter. */
struct tb_info {
	uint64_t exec;		/* bumped inline at every TB entry */
	uint64_t base;		/* exec at ROI begin (0 if translated later) */
	uint64_t vaddr;
	struct tb_info *next;
	uint32_t n_insns;
	uint32_t n_kernel;
	uint32_t bb_id;		/* dense BBV id, assigned on first ROI run */
	uint32_t n_groups;
	struct sym_group groups[];
};

struct marker {
	struct tb_info *tb;
	uint32_t idx;		/* position of the marker inside the TB */
	uint8_t kind;
};

struct rep_site {
	uint64_t vaddr;
	enum rep_kind kind;
};

/* Counters driven at run time (inline ops and callbacks). */
struct dyn_counters {
	uint64_t rep_pass[N_REP];
	uint64_t rep_access[N_REP];
	uint64_t rep_first[N_REP];
	uint64_t facts[N_FACTS];	/* inline, on each fact instruction */
	uint64_t insns;			/* inline, n_insns at each TB entry */
};

/* Kernel entry points (see "Interrupts" above). */
enum entry_kind { ENTRY_NONE, ENTRY_EXCEPTION, ENTRY_INTERRUPT };

/* An entry instruction, and how many of its TB's instructions (counted at
 * TB entry, before its callback runs) lie at or after it. */
struct entry_site {
	enum entry_kind kind;
	uint32_t tb_tail;
};

struct symbol {
	uint64_t addr;
	uint32_t name;		/* offset into sym_names */
	uint32_t order;		/* line number, for a stable sort */
	uint8_t rank;		/* 0..3 text (T, W, t, w), 4 anything else */
	uint8_t entry;		/* enum entry_kind */
};

struct results {
	uint64_t total, user, kernel;
	uint64_t facts[N_FACTS];
	uint64_t rep_exec[N_REP], rep_iter[N_REP];
	uint64_t *sym;		/* n_syms + 1 entries, last is "[unknown]" */
	/* The part of the above that interrupts ran (all kernel mode). */
	uint64_t irq_taken, irq_insns;
	uint64_t irq_facts[N_FACTS];
	uint64_t irq_rep_exec[N_REP], irq_rep_iter[N_REP];
};

/* Configuration. */
static enum arch arch;
static const char *out_path, *map_path, *bbv_path;	/* point into argv */
static char *out_tmp, *bbv_tmp;
static uint64_t bbv_interval;

/* System.map, sorted by address, one entry per address. */
static struct symbol *syms;
static size_t n_syms;
static char *sym_names;

/* All translations ever made, newest first. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct tb_info *tb_list;

/* Run-time state. */
static enum { ROI_BEFORE, ROI_ACTIVE, ROI_DONE } roi_state;
static struct dyn_counters dyn, dyn_begin;
static uint64_t tb_seq;			/* x86: bumped inline in every TB */
static uint64_t last_rep_vaddr = NO_ADDR, last_rep_seq;
static int64_t insn_fixup_user, insn_fixup_kernel;
static bool extra_marker_reported;

/* Interrupt accounting: open kernel entries, the depth at which the
 * outermost open interrupt began (-1: none), dyn at its start, and the
 * sum over the ROI's finished interrupts. */
static uint32_t entry_depth;
static int64_t irq_depth = -1;
static struct dyn_counters irq_start, irq_sum;
static uint64_t irq_taken;

/* BBV state: vaddr -> dense id, per-id counts of the current interval. */
static FILE *bbv_fp;
static uint64_t *bb_keys;
static uint32_t *bb_vals;
static size_t bb_cap, bb_used;		/* hash table */
static uint64_t *bb_count;		/* indexed by id */
static uint32_t *bb_touched;
static size_t bb_ids, bb_count_cap, bb_n_touched;
static uint64_t bbv_in_interval, bbv_intervals;

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

static void outf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void outf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout(false, fmt, ap);
	va_end(ap);
}

static void errf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void errf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout(true, fmt, ap);
	va_end(ap);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		errf("out of memory\n");
		abort();
	}
	return p;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		errf("out of memory\n");
		abort();
	}
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		errf("out of memory\n");
		abort();
	}
	return p;
}

static char *xstrcat2(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = xmalloc(la + lb + 1);

	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	return s;
}

/* ---------------------------------------------------------------- symbols */

static int sym_cmp(const void *pa, const void *pb)
{
	const struct symbol *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->order < b->order ? -1 : (a->order > b->order);
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

/* Is this symbol one of the kernel's exception or interrupt entries? */
static enum entry_kind entry_kind_of(const char *name)
{
	if (arch == ARCH_X86_64) {
		if (has_prefix(name, "asm_sysvec_") ||
		    !strcmp(name, "asm_common_interrupt") ||
		    !strcmp(name, "asm_spurious_interrupt"))
			return ENTRY_INTERRUPT;
		return has_prefix(name, "asm_exc_") ? ENTRY_EXCEPTION
						    : ENTRY_NONE;
	}
	/* arm64 entry.S: el0t_64_irq, el1h_64_sync, ... (not *_handler). */
	if (!has_prefix(name, "el0t_") && !has_prefix(name, "el1t_") &&
	    !has_prefix(name, "el1h_"))
		return ENTRY_NONE;
	if (has_suffix(name, "_64_irq") || has_suffix(name, "_64_fiq") ||
	    has_suffix(name, "_32_irq") || has_suffix(name, "_32_fiq"))
		return ENTRY_INTERRUPT;
	if (has_suffix(name, "_64_sync") || has_suffix(name, "_64_error") ||
	    has_suffix(name, "_32_sync") || has_suffix(name, "_32_error"))
		return ENTRY_EXCEPTION;
	return ENTRY_NONE;
}

static int load_map(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0, names_len = 0, names_cap = 0, out;
	char *line = NULL;
	size_t line_cap = 0;
	uint32_t lineno = 0;

	if (!f) {
		errf("map=%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &line_cap, f) > 0) {
		char *end, *p, *name;
		uint64_t addr;
		char type;
		size_t len;
		uint8_t rank;

		lineno++;
		errno = 0;
		addr = strtoull(line, &end, 16);
		if (errno || end == line || *end != ' ')
			goto bad;
		p = end + 1;
		type = *p;
		if (!type || p[1] != ' ')
			goto bad;
		name = p + 2;
		len = strcspn(name, " \t\r\n");
		if (!len)
			goto bad;
		/* Absolute and unknown symbols are not places in the image. */
		if (type == 'a' || type == 'A' || type == '?' || type == 'U' ||
		    type == 'N' || !(addr & KERNEL_ADDR_BIT))
			continue;
		switch (type) {
		case 'T': rank = 0; break;
		case 'W': rank = 1; break;
		case 't': rank = 2; break;
		case 'w': rank = 3; break;
		default:  rank = 4; break;	/* only ends the text before it */
		}
		if (n_syms == cap) {
			cap = cap ? cap * 2 : 16384;
			syms = xrealloc(syms, cap * sizeof(*syms));
		}
		if (names_len + len + 1 > names_cap) {
			names_cap = (names_cap + len + 1) * 2;
			sym_names = xrealloc(sym_names, names_cap);
		}
		memcpy(sym_names + names_len, name, len);
		sym_names[names_len + len] = '\0';
		syms[n_syms++] = (struct symbol){
			.addr = addr, .name = (uint32_t)names_len,
			.order = lineno, .rank = rank,
			.entry = (uint8_t)entry_kind_of(sym_names + names_len),
		};
		names_len += len + 1;
		continue;
bad:
		errf("map=%s:%" PRIu32 ": not a System.map line\n", path, lineno);
		free(line);
		fclose(f);
		return -1;
	}
	free(line);
	fclose(f);

	qsort(syms, n_syms, sizeof(*syms), sym_cmp);
	/* One entry per address: the best-ranked alias wins. */
	out = 0;
	for (size_t i = 0; i < n_syms; i++) {
		if (out && syms[out - 1].addr == syms[i].addr)
			continue;
		syms[out++] = syms[i];
	}
	n_syms = out;
	for (size_t i = 0; i < n_syms; i++)
		if (syms[i].rank < 4)
			return 0;
	errf("map=%s: no kernel text symbols (t/T/w/W)\n", path);
	return -1;
}

/*
 * Symbol index for a kernel address, or n_syms for "[unknown]". *next is
 * set to the address where the answer may change, so the caller can skip
 * the search for the following instructions.
 */
static uint32_t sym_lookup(uint64_t pc, uint64_t *lo, uint64_t *next)
{
	size_t a = 0, b = n_syms;

	while (a < b) {		/* first symbol with addr > pc */
		size_t m = a + (b - a) / 2;

		if (syms[m].addr <= pc)
			a = m + 1;
		else
			b = m;
	}
	*next = a < n_syms ? syms[a].addr : UINT64_MAX;
	if (a == 0) {
		*lo = 0;
		return (uint32_t)n_syms;
	}
	*lo = syms[a - 1].addr;
	return syms[a - 1].rank < 4 ? (uint32_t)(a - 1) : (uint32_t)n_syms;
}

/* ------------------------------------------------------------ decoding */

/*
 * x86_64: ROI marker kind, STAC/CLAC/LFENCE/SERIALIZE fact, or REP string
 * kind. LFENCE and SERIALIZE are matched in their plain 3-byte forms
 * (0f ae e8, 0f 01 e8), the ones the smap-model kernel layer writes at
 * stac/clac sites and the kernel's barrier_nospec() emits.
 */
static void x86_classify(const uint8_t *b, size_t len, int *marker,
			 int *fact, int *rep)
{
	size_t i = 0;
	bool has_rep = false;

	if (len == 8 && b[0] == 0x0f && b[1] == 0x1f && b[2] == 0x84 &&
	    b[3] == 0x00 && b[5] == 0x55 && b[6] == 0x41 && b[7] == 0x4c &&
	    (b[4] == ROI_KIND_BEGIN || b[4] == ROI_KIND_END)) {
		*marker = b[4];
		return;
	}
	if (len == 3 && b[0] == 0x0f && b[1] == 0x01 &&
	    (b[2] == 0xcb || b[2] == 0xca)) {
		*fact = b[2] == 0xcb ? F_STAC : F_CLAC;
		return;
	}
	if (len == 3 && b[0] == 0x0f && b[1] == 0xae && b[2] == 0xe8) {
		*fact = F_LFENCE;
		return;
	}
	if (len == 3 && b[0] == 0x0f && b[1] == 0x01 && b[2] == 0xe8) {
		*fact = F_SERIALIZE;
		return;
	}
	/* Legacy prefixes, then an optional REX, then a one-byte opcode. */
	for (; i < len; i++) {
		uint8_t p = b[i];

		if (p == 0xf2 || p == 0xf3)
			has_rep = true;
		else if (p != 0x66 && p != 0x67 && p != 0x2e && p != 0x36 &&
			 p != 0x3e && p != 0x26 && p != 0x64 && p != 0x65 &&
			 p != 0xf0)
			break;
	}
	if (!has_rep)
		return;
	if (i < len && (b[i] & 0xf0) == 0x40)
		i++;
	if (i + 1 != len)	/* string instructions have no operand bytes */
		return;
	switch (b[i]) {
	case 0xa4: case 0xa5: *rep = R_MOVS; break;
	case 0xaa: case 0xab: *rep = R_STOS; break;
	case 0xa6: case 0xa7: *rep = R_CMPS; break;
	case 0xae: case 0xaf: *rep = R_SCAS; break;
	case 0xac: case 0xad: *rep = R_LODS; break;
	case 0x6c: case 0x6d: *rep = R_INS; break;
	case 0x6e: case 0x6f: *rep = R_OUTS; break;
	default: break;
	}
}

/* aarch64: ROI marker kind, or a PAN-write / unprivileged-access fact. */
static void a64_classify(const uint8_t *b, size_t len, int *marker, int *fact)
{
	uint32_t w;

	if (len != 4)
		return;
	w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
	if (w == (0xf2800000u | ((0x5500u | ROI_KIND_BEGIN) << 5) | 31u)) {
		*marker = ROI_KIND_BEGIN;
	} else if (w == (0xf2800000u | ((0x5500u | ROI_KIND_END) << 5) | 31u)) {
		*marker = ROI_KIND_END;
	} else if ((w & 0xfffff0ffu) == 0xd500409fu) {
		/* MSR PAN, #imm: op1=0, CRn=4, op2=4, Rt=31; imm in CRm<0>. */
		*fact = (w >> 8) & 1 ? F_PAN1 : F_PAN0;
	} else if ((w & 0xffffffe0u) == 0xd5184260u) {
		*fact = F_PAN_REG;	/* MSR S3_0_C4_C2_3 (PAN), Xt */
	} else if ((w & 0x3f200c00u) == 0x38000800u) {
		/* LDTR/STTR family: opc (bits 23:22) zero is the store. */
		*fact = (w >> 22) & 3 ? F_LDTR : F_STTR;
	}
}

/* ------------------------------------------------------------ run time */

/* IRETQ (48 cf) or ERET (d69f03e0): the end of a kernel entry. */
static bool is_entry_return(const uint8_t *b, size_t len)
{
	if (arch == ARCH_X86_64)
		return len == 2 && b[0] == 0x48 && b[1] == 0xcf;
	return len == 4 && b[0] == 0xe0 && b[1] == 0x03 && b[2] == 0x9f &&
	       b[3] == 0xd6;
}

static void entry_exec(unsigned int vcpu, void *udata)
{
	const struct entry_site *e = udata;

	(void)vcpu;
	if (e->kind == ENTRY_INTERRUPT && irq_depth < 0 &&
	    roi_state == ROI_ACTIVE) {
		irq_depth = entry_depth;
		irq_start = dyn;
		irq_start.insns -= e->tb_tail;	/* already counted, but ours */
		irq_taken++;
	}
	entry_depth++;
}

static void entry_return_exec(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	if (!entry_depth)
		return;		/* an entry opened before the ROI began */
	if (--entry_depth != irq_depth)
		return;
	/* The return's own TB was counted at its entry: it is the irq's. */
	for (int k = 0; k < N_REP; k++) {
		irq_sum.rep_pass[k] += dyn.rep_pass[k] - irq_start.rep_pass[k];
		irq_sum.rep_access[k] += dyn.rep_access[k] - irq_start.rep_access[k];
		irq_sum.rep_first[k] += dyn.rep_first[k] - irq_start.rep_first[k];
	}
	for (int f = 0; f < N_FACTS; f++)
		irq_sum.facts[f] += dyn.facts[f] - irq_start.facts[f];
	irq_sum.insns += dyn.insns - irq_start.insns;
	irq_depth = -1;
}

static void rep_cond_exec(unsigned int vcpu, void *udata)
{
	const struct rep_site *s = udata;

	(void)vcpu;
	if (s->vaddr != last_rep_vaddr || tb_seq != last_rep_seq + 1)
		dyn.rep_first[s->kind]++;
	last_rep_vaddr = s->vaddr;
	last_rep_seq = tb_seq;
}

static uint32_t bb_id_for(uint64_t vaddr)
{
	size_t h;

	if (2 * (bb_used + 1) > bb_cap) {
		size_t ncap = bb_cap ? bb_cap * 2 : 65536;
		uint64_t *nk = xmalloc(ncap * sizeof(*nk));
		uint32_t *nv = xcalloc(ncap, sizeof(*nv));

		for (size_t i = 0; i < bb_cap; i++) {
			if (!bb_vals[i])
				continue;
			h = (size_t)((bb_keys[i] * 0x9e3779b97f4a7c15ULL) >> 20) &
			    (ncap - 1);
			while (nv[h])
				h = (h + 1) & (ncap - 1);
			nk[h] = bb_keys[i];
			nv[h] = bb_vals[i];
		}
		free(bb_keys);
		free(bb_vals);
		bb_keys = nk;
		bb_vals = nv;
		bb_cap = ncap;
	}
	h = (size_t)((vaddr * 0x9e3779b97f4a7c15ULL) >> 20) & (bb_cap - 1);
	while (bb_vals[h]) {
		if (bb_keys[h] == vaddr)
			return bb_vals[h];
		h = (h + 1) & (bb_cap - 1);
	}
	bb_keys[h] = vaddr;
	bb_vals[h] = (uint32_t)++bb_ids;
	bb_used++;
	if (bb_ids >= bb_count_cap) {
		size_t ncap = bb_count_cap ? bb_count_cap * 2 : 65536;

		bb_count = xrealloc(bb_count, ncap * sizeof(*bb_count));
		memset(bb_count + bb_count_cap, 0,
		       (ncap - bb_count_cap) * sizeof(*bb_count));
		bb_touched = xrealloc(bb_touched, ncap * sizeof(*bb_touched));
		bb_count_cap = ncap;
	}
	return (uint32_t)bb_ids;
}

static int u32_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return a < b ? -1 : a > b;
}

static void bbv_emit(void)
{
	if (!bb_n_touched)
		return;
	qsort(bb_touched, bb_n_touched, sizeof(*bb_touched), u32_cmp);
	fputc('T', bbv_fp);
	for (size_t i = 0; i < bb_n_touched; i++) {
		uint32_t id = bb_touched[i];

		fprintf(bbv_fp, "%s:%" PRIu32 ":%" PRIu64, i ? " " : "", id,
			bb_count[id]);
		bb_count[id] = 0;
	}
	fputc('\n', bbv_fp);
	bb_n_touched = 0;
	bbv_in_interval = 0;
	bbv_intervals++;
}

static void bbv_exec(unsigned int vcpu, void *udata)
{
	struct tb_info *t = udata;
	uint32_t id;

	(void)vcpu;
	if (roi_state != ROI_ACTIVE)
		return;
	id = t->bb_id;
	if (!id)
		id = t->bb_id = bb_id_for(t->vaddr);
	if (!bb_count[id])
		bb_touched[bb_n_touched++] = id;
	bb_count[id] += t->n_insns;
	bbv_in_interval += t->n_insns;
	if (bbv_in_interval >= bbv_interval)
		bbv_emit();
}

static void bbv_finish(void)
{
	if (!bbv_fp)
		return;
	bbv_emit();
	if (fclose(bbv_fp) != 0 || rename(bbv_tmp, bbv_path) != 0)
		errf("bbv=%s: %s\n", bbv_path, strerror(errno));
	bbv_fp = NULL;
}

/* Instances and iterations of one REP kind from its pass, memory access
 * and first-pass counts (see "REP string instructions" above). */
static void rep_counts(int k, uint64_t pass, uint64_t access, uint64_t first,
		       uint64_t *exec, uint64_t *iter)
{
	*iter = access / rep_desc[k].per_iter;
	if (rep_desc[k].conditional)
		*exec = first;
	else
		*exec = pass > *iter ? pass - *iter : 0;
}

/* Instructions and symbols: (executions since begin) * (static facts) over
 * every translation; user-access facts and REP: the inline counters. */
static void collect(struct results *r)
{
	memset(r, 0, sizeof(*r));
	r->sym = xcalloc(n_syms + 1, sizeof(*r->sym));
	if (roi_state == ROI_BEFORE)
		return;
	for (struct tb_info *t = tb_list; t; t = t->next) {
		uint64_t d = t->exec - t->base;

		if (!d)
			continue;
		r->kernel += d * t->n_kernel;
		r->user += d * (t->n_insns - t->n_kernel);
		for (uint32_t g = 0; g < t->n_groups; g++)
			r->sym[t->groups[g].sym] += d * t->groups[g].n;
	}
	r->user += (uint64_t)insn_fixup_user;
	r->kernel += (uint64_t)insn_fixup_kernel;
	r->total = r->user + r->kernel;
	for (int k = 0; k < N_REP; k++) {
		rep_counts(k, dyn.rep_pass[k] - dyn_begin.rep_pass[k],
			   dyn.rep_access[k] - dyn_begin.rep_access[k],
			   dyn.rep_first[k] - dyn_begin.rep_first[k],
			   &r->rep_exec[k], &r->rep_iter[k]);
		rep_counts(k, irq_sum.rep_pass[k], irq_sum.rep_access[k],
			   irq_sum.rep_first[k], &r->irq_rep_exec[k],
			   &r->irq_rep_iter[k]);
	}
	for (int f = 0; f < N_FACTS; f++)
		r->facts[f] = dyn.facts[f] - dyn_begin.facts[f];
	r->irq_taken = irq_taken;
	r->irq_insns = irq_sum.insns;
	memcpy(r->irq_facts, irq_sum.facts, sizeof(r->irq_facts));
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Output rows: same-named symbols (static functions) are summed. */
struct sym_row {
	const char *name;
	uint64_t count;
};

static int row_name_cmp(const void *pa, const void *pb)
{
	const struct sym_row *a = pa, *b = pb;

	return strcmp(a->name, b->name);
}

static int row_count_cmp(const void *pa, const void *pb)
{
	const struct sym_row *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->name, b->name);
}

static const char *sym_name(uint32_t i)
{
	return i == n_syms ? "[unknown]" : sym_names + syms[i].name;
}

static size_t symbol_rows(const struct results *r, struct sym_row **out)
{
	struct sym_row *rows = xmalloc((n_syms + 1) * sizeof(*rows));
	size_t n = 0, m = 0;

	for (uint32_t i = 0; i <= n_syms; i++)
		if (r->sym[i])
			rows[n++] = (struct sym_row){ sym_name(i), r->sym[i] };
	qsort(rows, n, sizeof(*rows), row_name_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(rows[m - 1].name, rows[i].name))
			rows[m - 1].count += rows[i].count;
		else
			rows[m++] = rows[i];
	}
	qsort(rows, m, sizeof(*rows), row_count_cmp);
	*out = rows;
	return m;
}

/* The arch's user-access facts, as "x86":{...} or "arm64":{...}. */
static void write_facts(FILE *f, const uint64_t *facts,
			const uint64_t *rep_exec, const uint64_t *rep_iter)
{
	if (arch == ARCH_X86_64) {
		fprintf(f, "\"x86\":{\"stac\":%" PRIu64 ",\"clac\":%" PRIu64
			",\"lfence\":%" PRIu64 ",\"serialize\":%" PRIu64
			",\"rep\":{", facts[F_STAC], facts[F_CLAC],
			facts[F_LFENCE], facts[F_SERIALIZE]);
		for (int k = 0; k < N_REP; k++)
			fprintf(f, "%s\n  \"%s\":{\"executions\":%" PRIu64
				",\"iterations\":%" PRIu64 "}", k ? "," : "",
				rep_desc[k].name, rep_exec[k], rep_iter[k]);
		fputs("}}", f);
	} else {
		fprintf(f, "\"arm64\":{\"pan_set_0\":%" PRIu64
			",\"pan_set_1\":%" PRIu64 ",\"pan_msr_reg\":%" PRIu64
			",\"ldtr\":%" PRIu64 ",\"sttr\":%" PRIu64 "}",
			facts[F_PAN0], facts[F_PAN1], facts[F_PAN_REG],
			facts[F_LDTR], facts[F_STTR]);
	}
}

static void write_json(const struct results *r, bool begun, bool ended)
{
	FILE *f = fopen(out_tmp, "w");
	struct sym_row *rows;
	size_t n;

	if (!f) {
		errf("out=%s: %s\n", out_tmp, strerror(errno));
		return;
	}
	fprintf(f, "{\"plugin\":\"" PLUGIN_NAME "\",\"version\":1,"
		"\"arch\":\"%s\",\n", arch == ARCH_X86_64 ? "x86_64" : "aarch64");
	fprintf(f, " \"roi\":{\"begun\":%s,\"ended\":%s},\n",
		begun ? "true" : "false", ended ? "true" : "false");
	fprintf(f, " \"insns\":{\"total\":%" PRIu64 ",\"user\":%" PRIu64
		",\"kernel\":%" PRIu64 "},\n", r->total, r->user, r->kernel);

	n = symbol_rows(r, &rows);
	fputs(" \"symbols\":{", f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		json_str(f, rows[i].name);
		fprintf(f, ":%" PRIu64, rows[i].count);
	}
	fputs(n ? "\n }" : "}", f);
	free(rows);

	fputs(",\n ", f);
	write_facts(f, r->facts, r->rep_exec, r->rep_iter);
	fprintf(f, ",\n \"interrupts\":{\"taken\":%" PRIu64 ",\"insns\":%"
		PRIu64 ",", r->irq_taken, r->irq_insns);
	write_facts(f, r->irq_facts, r->irq_rep_exec, r->irq_rep_iter);
	fputc('}', f);
	if (bbv_path) {
		fputs(",\n \"bbv\":{\"path\":", f);
		json_str(f, bbv_path);
		fprintf(f, ",\"interval\":%" PRIu64 ",\"intervals\":%" PRIu64 "}",
			bbv_interval, bbv_intervals);
	}
	fputs("\n}\n", f);
	if (fclose(f) != 0 || rename(out_tmp, out_path) != 0)
		errf("out=%s: %s\n", out_path, strerror(errno));
}

/* Instructions of a marker's TB that lie on the far side of the marker. */
static void marker_fixup(const struct marker *m, int64_t n)
{
	if (m->tb->vaddr & KERNEL_ADDR_BIT)
		insn_fixup_kernel += n;
	else
		insn_fixup_user += n;
}

static void roi_begin(const struct marker *m)
{
	pthread_mutex_lock(&lock);
	for (struct tb_info *t = tb_list; t; t = t->next)
		t->base = t->exec;
	dyn_begin = dyn;
	entry_depth = 0;	/* a user instruction: this task has none open */
	irq_depth = -1;
	/* This TB's entry was counted before the snapshot; its tail is ROI. */
	marker_fixup(m, (int64_t)m->tb->n_insns - m->idx - 1);
	roi_state = ROI_ACTIVE;
	pthread_mutex_unlock(&lock);
	outf("ROI begun at 0x%" PRIx64 "\n", m->tb->vaddr);
}

static void roi_end(const struct marker *m)
{
	struct results r;

	pthread_mutex_lock(&lock);
	/* This TB was counted whole; the marker and what follows are not ROI. */
	marker_fixup(m, -((int64_t)m->tb->n_insns - m->idx));
	collect(&r);
	roi_state = ROI_DONE;
	bbv_finish();
	write_json(&r, true, true);
	pthread_mutex_unlock(&lock);
	outf("ROI ended: %" PRIu64 " instructions (%" PRIu64 " kernel), "
	     "wrote %s\n", r.total, r.kernel, out_path);
	free(r.sym);
}

static void marker_exec(unsigned int vcpu, void *udata)
{
	const struct marker *m = udata;

	(void)vcpu;
	if (m->kind == ROI_KIND_BEGIN && roi_state == ROI_BEFORE) {
		roi_begin(m);
	} else if (m->kind == ROI_KIND_END && roi_state == ROI_ACTIVE) {
		roi_end(m);
	} else if (!extra_marker_reported) {
		extra_marker_reported = true;
		outf("ignoring ROI %s marker at 0x%" PRIx64 " (only the first "
		     "begin..end pair is measured)\n",
		     m->kind == ROI_KIND_BEGIN ? "begin" : "end",
		     m->tb->vaddr);
	}
}

/* -------------------------------------------------------- translation */

#define STACK_GROUPS 512	/* TCG_MAX_INSNS in 7.2 */

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct sym_group stack_groups[STACK_GROUPS], *groups = stack_groups;
	uint32_t n_groups = 0, n_kernel = 0, n_markers = 0, cur_sym = 0;
	uint64_t sym_lo = 1, sym_next = 0;	/* empty cache */
	struct tb_info *t;

	(void)id;
	if (n > STACK_GROUPS)
		groups = xmalloc(n * sizeof(*groups));

	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		const uint8_t *b = qemu_plugin_insn_data(insn);
		size_t len = qemu_plugin_insn_size(insn);
		int marker = -1, fact = -1, rep = -1;

		if (pc & KERNEL_ADDR_BIT) {
			n_kernel++;
			if (n_syms) {
				if (pc < sym_lo || pc >= sym_next)
					cur_sym = sym_lookup(pc, &sym_lo, &sym_next);
				if (n_groups && groups[n_groups - 1].sym == cur_sym)
					groups[n_groups - 1].n++;
				else
					groups[n_groups++] =
						(struct sym_group){ cur_sym, 1 };
				if (cur_sym < n_syms && syms[cur_sym].entry &&
				    pc == syms[cur_sym].addr) {
					struct entry_site *e = xmalloc(sizeof(*e));

					e->kind = (enum entry_kind)syms[cur_sym].entry;
					e->tb_tail = (uint32_t)(n - i);
					qemu_plugin_register_vcpu_insn_exec_cb(
						insn, entry_exec,
						QEMU_PLUGIN_CB_NO_REGS, e);
				}
			}
			if (is_entry_return(b, len))
				qemu_plugin_register_vcpu_insn_exec_cb(
					insn, entry_return_exec,
					QEMU_PLUGIN_CB_NO_REGS, NULL);
		}
		if (arch == ARCH_X86_64)
			x86_classify(b, len, &marker, &fact, &rep);
		else
			a64_classify(b, len, &marker, &fact);
		if (marker >= 0)
			n_markers++;
		if (fact >= 0) {
			qemu_plugin_register_vcpu_insn_exec_inline(
				insn, QEMU_PLUGIN_INLINE_ADD_U64,
				&dyn.facts[fact], 1);
		}
		if (rep >= 0) {
			qemu_plugin_register_vcpu_insn_exec_inline(
				insn, QEMU_PLUGIN_INLINE_ADD_U64,
				&dyn.rep_pass[rep], 1);
			qemu_plugin_register_vcpu_mem_inline(
				insn, QEMU_PLUGIN_MEM_RW, QEMU_PLUGIN_INLINE_ADD_U64,
				&dyn.rep_access[rep], 1);
			if (rep_desc[rep].conditional) {
				struct rep_site *s = xmalloc(sizeof(*s));

				s->vaddr = pc;
				s->kind = (enum rep_kind)rep;
				qemu_plugin_register_vcpu_insn_exec_cb(
					insn, rep_cond_exec,
					QEMU_PLUGIN_CB_NO_REGS, s);
			}
		}
	}

	t = xcalloc(1, sizeof(*t) + n_groups * sizeof(*groups));
	t->vaddr = qemu_plugin_tb_vaddr(tb);
	t->n_insns = (uint32_t)n;
	t->n_kernel = n_kernel;
	t->n_groups = n_groups;
	memcpy(t->groups, groups, n_groups * sizeof(*groups));
	if (groups != stack_groups)
		free(groups);

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &t->exec, 1);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &dyn.insns, n);
	if (arch == ARCH_X86_64)
		qemu_plugin_register_vcpu_tb_exec_inline(
			tb, QEMU_PLUGIN_INLINE_ADD_U64, &tb_seq, 1);
	if (bbv_fp)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, bbv_exec,
						     QEMU_PLUGIN_CB_NO_REGS, t);

	/* Markers are rare: a second pass registers them with t known. */
	for (size_t i = 0; n_markers && i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *b = qemu_plugin_insn_data(insn);
		size_t len = qemu_plugin_insn_size(insn);
		int marker = -1, fact = -1, rep = -1;
		struct marker *m;

		if (arch == ARCH_X86_64)
			x86_classify(b, len, &marker, &fact, &rep);
		else
			a64_classify(b, len, &marker, &fact);
		if (marker < 0)
			continue;
		m = xmalloc(sizeof(*m));
		m->tb = t;
		m->idx = (uint32_t)i;
		m->kind = (uint8_t)marker;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_exec,
						       QEMU_PLUGIN_CB_NO_REGS, m);
		n_markers--;
	}

	pthread_mutex_lock(&lock);
	t->next = tb_list;
	tb_list = t;
	pthread_mutex_unlock(&lock);
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	struct results r;

	(void)id;
	(void)udata;
	pthread_mutex_lock(&lock);
	if (roi_state != ROI_DONE) {
		bool begun = roi_state == ROI_ACTIVE;

		collect(&r);
		bbv_finish();
		write_json(&r, begun, false);
		outf("exit before the ROI %s; wrote %s\n",
		     begun ? "ended" : "began", out_path);
		free(r.sym);
	}
	pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------ install */

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* argv stays valid for the plugin's lifetime, so we keep pointers into it. */
static int set_once(const char **slot, const char *key, const char *val)
{
	if (*slot) {
		errf("argument %s= given twice\n", key);
		return -1;
	}
	if (!*val) {
		errf("argument %s= needs a value\n", key);
		return -1;
	}
	*slot = val;
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *interval_arg = NULL;
	FILE *probe;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t klen = eq ? (size_t)(eq - a) : 0;
		int rc;

		if (eq && klen == 3 && !strncmp(a, "out", 3))
			rc = set_once(&out_path, "out", eq + 1);
		else if (eq && klen == 3 && !strncmp(a, "map", 3))
			rc = set_once(&map_path, "map", eq + 1);
		else if (eq && klen == 3 && !strncmp(a, "bbv", 3))
			rc = set_once(&bbv_path, "bbv", eq + 1);
		else if (eq && klen == 8 && !strncmp(a, "interval", 8))
			rc = set_once(&interval_arg, "interval", eq + 1);
		else {
			errf("unknown argument '%s' (expected out=, map=, bbv=, "
			     "interval=)\n", a);
			return -1;
		}
		if (rc)
			return -1;
	}
	if (!out_path) {
		errf("missing required argument out=<path.json>\n");
		return -1;
	}
	if (interval_arg) {
		if (!bbv_path) {
			errf("interval= only makes sense with bbv=\n");
			return -1;
		}
		if (parse_u64(interval_arg, &bbv_interval) || !bbv_interval) {
			errf("interval=%s: need a positive instruction count\n",
			     interval_arg);
			return -1;
		}
	} else if (bbv_path) {
		bbv_interval = DEFAULT_INTERVAL;
	}

	if (!strcmp(info->target_name, "x86_64")) {
		arch = ARCH_X86_64;
	} else if (!strcmp(info->target_name, "aarch64")) {
		arch = ARCH_AARCH64;
	} else {
		errf("unsupported target '%s' (x86_64 or aarch64 only)\n",
		     info->target_name);
		return -1;
	}
	if (!info->system_emulation) {
		errf("needs system emulation (qemu-system-%s)\n",
		     info->target_name);
		return -1;
	}
	if (info->system.smp_vcpus > 1)
		outf("warning: %d vCPUs; counters are not atomic, use -smp 1 "
		     "for exact numbers\n", info->system.smp_vcpus);

	if (map_path && load_map(map_path))
		return -1;

	out_tmp = xstrcat2(out_path, ".tmp");
	probe = fopen(out_tmp, "w");
	if (!probe) {
		errf("out=%s: cannot create %s: %s\n", out_path, out_tmp,
		     strerror(errno));
		return -1;
	}
	fclose(probe);
	remove(out_tmp);

	if (bbv_path) {
		bbv_tmp = xstrcat2(bbv_path, ".tmp");
		bbv_fp = fopen(bbv_tmp, "w");
		if (!bbv_fp) {
			errf("bbv=%s: cannot create %s: %s\n", bbv_path,
			     bbv_tmp, strerror(errno));
			return -1;
		}
	}

	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
