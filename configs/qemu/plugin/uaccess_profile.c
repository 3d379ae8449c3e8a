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
 * keeps runs of (symbol, count)) and, on aarch64, how many of each run's
 * instructions are load or store pairs (LDP, STP): per symbol, because
 * every function's prologue has them, and the pairs of a user copy show
 * only in its own symbol. Each STAC/CLAC, LFENCE/SERIALIZE, MSR
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
 * user instruction: no entry of this task is open); a return from an entry
 * opened before the ROI is ignored at depth zero.
 *
 * Task switches. A reschedule an interrupt asks for may come after its
 * window has closed: a tick inside a system call sets need_resched, its
 * IRETQ returns into the call, and the call's return to user switches to
 * another task (seen on x86: a kernel thread's 15,600 instructions and two
 * clock reads, LFENCE; RDTSC, in the calls' counts). So the plugin follows
 * the ROI's task: a memory callback on the task switch's store into the
 * outgoing task's struct and load from the incoming one's (x86
 * __switch_to_asm, arm64 cpu_switch_to; decode.c, switch_access) names
 * both by address. The first task switched away from in the ROI is the
 * ROI's (the ROI begins in it). From a switch to another task to the switch
 * back, the other tasks' entries and returns leave the depth alone (one's
 * IRETQ would otherwise end the ROI task's interrupt early), and what runs
 * is added to the interrupts' part, unless an interrupt's window, open at
 * the switch away, counts it already; "switches" says how many times. The
 * ROI task's own path into and out of schedule() stays the calls': kernel
 * instructions, a few hundred a round trip, no user-access fact.
 *
 * Arguments: out=<json> (required), map=<System.map>, bbv=<file>,
 * interval=<instructions> (with bbv only; default 10000000). Anything else
 * makes qemu_plugin_install fail, so QEMU refuses to start.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "uaccess_profile.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* Configuration. */
enum arch arch;
const char *out_path, *map_path;	/* point into argv */
char *out_tmp;

/* All translations ever made, newest first. */
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
struct tb_info *tb_list;

/* Run-time state. */
enum roi_state roi_state;
struct dyn_counters dyn, dyn_begin;
static uint64_t tb_seq;			/* x86: bumped inline in every TB */
static uint64_t last_rep_vaddr = NO_ADDR, last_rep_seq;
int64_t insn_fixup_user, insn_fixup_kernel;
static bool extra_marker_reported;


static void rep_cond_exec(unsigned int vcpu, void *udata)
{
	const struct rep_site *s = udata;

	(void)vcpu;
	if (s->vaddr != last_rep_vaddr || tb_seq != last_rep_seq + 1)
		dyn.rep_first[s->kind]++;
	last_rep_vaddr = s->vaddr;
	last_rep_seq = tb_seq;
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
	interrupts_roi_begin();
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
	free(r.sym_pairs);
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
						(struct sym_group){ cur_sym, 1, { 0 } };
				if (arch == ARCH_AARCH64) {
					int pair = a64_pair(b, len);

					if (pair >= 0)
						groups[n_groups - 1].pairs[pair]++;
				}
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
			if (n_syms && cur_sym < n_syms && syms[cur_sym].switcher) {
				int side = switch_access(b, len);

				if (side >= 0)
					qemu_plugin_register_vcpu_mem_cb(
						insn, switch_mem,
						QEMU_PLUGIN_CB_NO_REGS,
						QEMU_PLUGIN_MEM_RW,
						(void *)(uintptr_t)side);
			}
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
		free(r.sym_pairs);
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
