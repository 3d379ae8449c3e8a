/*
 * bbv.c - SimPoint basic-block vectors of the ROI (bbv=, interval=): a
 * dense id per translation's start address, instructions per id, one
 * "T:id:count ..." line per interval of executed instructions.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "uaccess_profile.h"

/* BBV state: vaddr -> dense id, per-id counts of the current interval. */
FILE *bbv_fp;
const char *bbv_path;		/* points into argv */
char *bbv_tmp;
uint64_t bbv_interval;
static uint64_t *bb_keys;
static uint32_t *bb_vals;
static size_t bb_cap, bb_used;		/* hash table */
static uint64_t *bb_count;		/* indexed by id */
static uint32_t *bb_touched;
static size_t bb_ids, bb_count_cap, bb_n_touched;
static uint64_t bbv_in_interval;
uint64_t bbv_intervals;

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

void bbv_exec(unsigned int vcpu, void *udata)
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

void bbv_finish(void)
{
	if (!bbv_fp)
		return;
	bbv_emit();
	if (fclose(bbv_fp) != 0 || rename(bbv_tmp, bbv_path) != 0)
		errf("bbv=%s: %s\n", bbv_path, strerror(errno));
	bbv_fp = NULL;
}
