/*
 * interrupts.c - the part of the ROI's counts that interrupts ran (see
 * "Interrupts" in uaccess_profile.c): an exec callback on every kernel
 * entry point and on every exception return keeps the entry depth, and
 * the counters' difference over each outermost interrupt is summed.
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

/* ROI begin: a user instruction, so this task has no entry open. */
void interrupts_roi_begin(void)
{
	entry_depth = 0;
	irq_depth = -1;
}

void entry_exec(unsigned int vcpu, void *udata)
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

void entry_return_exec(unsigned int vcpu, void *udata)
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
