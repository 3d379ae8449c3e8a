/*
 * interrupts.c - the part of the ROI's counts that interrupts ran (see
 * "Interrupts" in uaccess_profile.c): an exec callback on every kernel
 * entry point and on every exception return keeps the entry depth, and
 * the counters' difference over each outermost interrupt is summed. So is
 * the counters' difference over each stretch in which another task ran (a
 * memory callback on the task switch's two accesses names the tasks).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "uaccess_profile.h"

/* Interrupt accounting: open kernel entries, the depth at which the
 * outermost open interrupt began (-1: none), dyn at its start, and the
 * sum over the ROI's finished interrupts. */
static uint32_t entry_depth;
static int64_t irq_depth = -1;
static struct dyn_counters irq_start;
struct dyn_counters irq_sum;
uint64_t irq_taken;

/* Task switches: the ROI task's switch address (0 until it is first
 * switched away from), whether another task runs, whether the switch away
 * came inside an interrupt (whose window then counts it), dyn at the
 * switch away, and how many times the ROI task was switched away from. */
static uint64_t roi_task;
static bool away, away_in_irq;
static struct dyn_counters away_start;
uint64_t switches;

/* ROI begin: a user instruction, so this task has no entry open. */
void interrupts_roi_begin(void)
{
	entry_depth = 0;
	irq_depth = -1;
	roi_task = 0;
	away = false;
}

/* sum += now - start, every counter. */
static void add_span(struct dyn_counters *sum, const struct dyn_counters *start)
{
	for (int k = 0; k < N_REP; k++) {
		sum->rep_pass[k] += dyn.rep_pass[k] - start->rep_pass[k];
		sum->rep_access[k] += dyn.rep_access[k] - start->rep_access[k];
		sum->rep_first[k] += dyn.rep_first[k] - start->rep_first[k];
	}
	for (int f = 0; f < N_FACTS; f++)
		sum->facts[f] += dyn.facts[f] - start->facts[f];
	sum->insns += dyn.insns - start->insns;
}

/*
 * The task switch's access to a task's struct (decode.c, switch_access;
 * udata: the enum switch_side). The first outgoing task in the ROI is the
 * ROI's own: the ROI begins in it. From a switch to another task until the
 * switch back, the entry depth is left alone (the other tasks' entries and
 * returns are not the ROI task's: an IRETQ of a task preempted in an
 * interrupt would otherwise end the ROI task's interrupt early), and what
 * runs is summed with the interrupts' work, unless an interrupt's window,
 * open at the switch away, counts it already. The switch TB's instructions
 * are counted at its entry, so the ROI task keeps the whole TB of its switch
 * away and none of its switch back: the same count each round trip.
 */
void switch_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
		void *udata)
{
	(void)vcpu;
	(void)info;
	if (roi_state != ROI_ACTIVE)
		return;
	if ((uintptr_t)udata == SWITCH_PREV) {
		if (!roi_task)
			roi_task = vaddr;
		return;
	}
	if (!roi_task)
		return;
	if (!away && vaddr != roi_task) {
		away = true;
		away_in_irq = irq_depth >= 0;
		away_start = dyn;
		switches++;
	} else if (away && vaddr == roi_task) {
		away = false;
		if (!away_in_irq)
			add_span(&irq_sum, &away_start);
	}
}

void entry_exec(unsigned int vcpu, void *udata)
{
	const struct entry_site *e = udata;

	(void)vcpu;
	if (away)
		return;
	if (e->kind == ENTRY_INTERRUPT && irq_depth < 0 &&
	    roi_state == ROI_ACTIVE) {
		irq_depth = entry_depth;
		irq_start = dyn;
		irq_start.insns -= e->tb_tail;	/* already counted, but ours */
		irq_taken++;
	}
	entry_depth++;
}

void entry_return_exec(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	if (away || !entry_depth)
		return;		/* another task's, or opened before the ROI began */
	if (--entry_depth != irq_depth)
		return;
	/* The return's own TB was counted at its entry: it is the irq's. */
	add_span(&irq_sum, &irq_start);
	irq_depth = -1;
}
