/*
 * report.c - the ROI's results from the counters (executions since begin
 * times each translation's static facts; the inline counters; REP
 * instances and iterations), and the JSON file that holds them (out=).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "uaccess_profile.h"

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
void collect(struct results *r)
{
	memset(r, 0, sizeof(*r));
	r->sym = xcalloc(n_syms + 1, sizeof(*r->sym));
	r->sym_pairs = xcalloc((n_syms + 1) * N_PAIRS, sizeof(*r->sym_pairs));
	if (roi_state == ROI_BEFORE)
		return;
	for (struct tb_info *t = tb_list; t; t = t->next) {
		uint64_t d = t->exec - t->base;

		if (!d)
			continue;
		r->kernel += d * t->n_kernel;
		r->user += d * (t->n_insns - t->n_kernel);
		for (uint32_t g = 0; g < t->n_groups; g++) {
			const struct sym_group *s = &t->groups[g];

			r->sym[s->sym] += d * s->n;
			for (int k = 0; k < N_PAIRS; k++)
				r->sym_pairs[s->sym * N_PAIRS + k] += d * s->pairs[k];
		}
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
	r->irq_switches = switches;
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

/* Output rows: one per symbol name, with `width` counts each (its
 * instructions, or its LDP and STP); same-named symbols (static
 * functions) are summed. */
struct sym_row {
	const char *name;
	uint64_t count[N_PAIRS];
	uint64_t sum;
};

static int row_name_cmp(const void *pa, const void *pb)
{
	const struct sym_row *a = pa, *b = pb;

	return strcmp(a->name, b->name);
}

static int row_count_cmp(const void *pa, const void *pb)
{
	const struct sym_row *a = pa, *b = pb;

	if (a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The rows of `values` (width per symbol) that are not all zero, largest
 * sum first. */
static size_t symbol_rows(const uint64_t *values, int width,
			  struct sym_row **out)
{
	struct sym_row *rows = xmalloc((n_syms + 1) * sizeof(*rows));
	size_t n = 0, m = 0;

	for (uint32_t i = 0; i <= n_syms; i++) {
		struct sym_row row = { sym_name(i), { 0 }, 0 };

		for (int k = 0; k < width; k++) {
			row.count[k] = values[(size_t)i * width + k];
			row.sum += row.count[k];
		}
		if (row.sum)
			rows[n++] = row;
	}
	qsort(rows, n, sizeof(*rows), row_name_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(rows[m - 1].name, rows[i].name)) {
			for (int k = 0; k < width; k++)
				rows[m - 1].count[k] += rows[i].count[k];
			rows[m - 1].sum += rows[i].sum;
		} else {
			rows[m++] = rows[i];
		}
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

void write_json(const struct results *r, bool begun, bool ended)
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

	n = symbol_rows(r->sym, 1, &rows);
	fputs(" \"symbols\":{", f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		json_str(f, rows[i].name);
		fprintf(f, ":%" PRIu64, rows[i].count[0]);
	}
	fputs(n ? "\n }" : "}", f);
	free(rows);
	if (arch == ARCH_AARCH64) {
		n = symbol_rows(r->sym_pairs, N_PAIRS, &rows);
		fputs(",\n \"pairs\":{", f);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ",\n  " : "\n  ", f);
			json_str(f, rows[i].name);
			fprintf(f, ":{\"ldp\":%" PRIu64 ",\"stp\":%" PRIu64 "}",
				rows[i].count[P_LDP], rows[i].count[P_STP]);
		}
		fputs(n ? "\n }" : "}", f);
		free(rows);
	}

	fputs(",\n ", f);
	write_facts(f, r->facts, r->rep_exec, r->rep_iter);
	fprintf(f, ",\n \"interrupts\":{\"taken\":%" PRIu64 ",\"switches\":%"
		PRIu64 ",\"insns\":%" PRIu64 ",", r->irq_taken, r->irq_switches,
		r->irq_insns);
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
