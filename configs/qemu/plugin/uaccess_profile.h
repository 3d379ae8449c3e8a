/*
 * uaccess_profile.h - what the plugin's files share: its types, the state
 * each file owns (named beside each declaration), and the functions one
 * file offers another. What the plugin counts, and how, is described at
 * the top of uaccess_profile.c.
 *
 *   uaccess_profile.c  arguments, translation, the ROI markers, exit
 *   symbols.c          System.map: load, look up, kernel entry points
 *   decode.c           instruction bytes -> marker, fact or REP kind
 *   interrupts.c       the part of the counts that interrupts ran, and
 *                      the tasks the ROI's task was switched away to
 *   bbv.c              SimPoint basic-block vectors (bbv=)
 *   report.c           counters -> results -> the JSON file (out=)
 *   util.c             messages and allocation
 */
#ifndef UACCESS_PROFILE_H
#define UACCESS_PROFILE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qemu_plugin_api.h"

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

/* aarch64 load and store pairs (LDP, STP and their kin), per symbol. */
enum pair_kind { P_LDP, P_STP, N_PAIRS };

struct rep_desc {
	const char *name;
	unsigned per_iter;	/* guest memory accesses in one iteration */
	bool conditional;	/* CMPS/SCAS: may stop without empty pass */
};
extern const struct rep_desc rep_desc[N_REP];

/* A run of consecutive kernel instructions of one TB inside one symbol,
 * and how many of them are load or store pairs (aarch64). */
struct sym_group {
	uint32_t sym;
	uint32_t n;
	uint32_t pairs[N_PAIRS];
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

/* The task switch's accesses to the two tasks' structs (decode.c,
 * switch_access): the outgoing task's, the incoming task's. */
enum switch_side { SWITCH_PREV, SWITCH_NEXT };

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
	bool switcher;		/* the task switch (__switch_to_asm, cpu_switch_to) */
};

struct results {
	uint64_t total, user, kernel;
	uint64_t facts[N_FACTS];
	uint64_t rep_exec[N_REP], rep_iter[N_REP];
	uint64_t *sym;		/* n_syms + 1 entries, last is "[unknown]" */
	uint64_t *sym_pairs;	/* N_PAIRS per entry of sym (aarch64) */
	/* The part of the above that interrupts ran (all kernel mode), and
	 * the tasks the ROI's task was switched away to (irq_switches times). */
	uint64_t irq_taken, irq_insns, irq_switches;
	uint64_t irq_facts[N_FACTS];
	uint64_t irq_rep_exec[N_REP], irq_rep_iter[N_REP];
};

enum roi_state { ROI_BEFORE, ROI_ACTIVE, ROI_DONE };

/* uaccess_profile.c: configuration and run-time state. */
extern enum arch arch;
extern const char *out_path, *map_path;	/* point into argv */
extern char *out_tmp;
extern pthread_mutex_t lock;		/* guards tb_list and the ROI's end */
extern struct tb_info *tb_list;		/* every translation, newest first */
extern enum roi_state roi_state;
extern struct dyn_counters dyn, dyn_begin;
extern int64_t insn_fixup_user, insn_fixup_kernel;

/* symbols.c: System.map, sorted by address, one entry per address. */
extern struct symbol *syms;
extern size_t n_syms;
extern char *sym_names;
int load_map(const char *path);
uint32_t sym_lookup(uint64_t pc, uint64_t *lo, uint64_t *next);
const char *sym_name(uint32_t i);

/* decode.c */
void x86_classify(const uint8_t *b, size_t len, int *marker, int *fact, int *rep);
void a64_classify(const uint8_t *b, size_t len, int *marker, int *fact);
int a64_pair(const uint8_t *b, size_t len);
bool is_entry_return(const uint8_t *b, size_t len);
int switch_access(const uint8_t *b, size_t len);

/* interrupts.c: interrupts taken in the ROI and what they ran. */
extern struct dyn_counters irq_sum;
extern uint64_t irq_taken, switches;
void interrupts_roi_begin(void);
void entry_exec(unsigned int vcpu, void *udata);
void entry_return_exec(unsigned int vcpu, void *udata);
void switch_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
		void *udata);

/* bbv.c */
extern FILE *bbv_fp;
extern const char *bbv_path;		/* points into argv */
extern char *bbv_tmp;
extern uint64_t bbv_interval, bbv_intervals;
void bbv_exec(unsigned int vcpu, void *udata);
void bbv_finish(void);

/* report.c */
void collect(struct results *r);
void write_json(const struct results *r, bool begun, bool ended);

/* util.c */
void outf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void errf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrcat2(const char *a, const char *b);

#endif
