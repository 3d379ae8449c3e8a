/*
 * symbols.c - System.map: kernel text symbols sorted by address, the
 * lookup of an address, and which symbols are the kernel's exception and
 * interrupt entries (see "Interrupts" in uaccess_profile.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "uaccess_profile.h"

struct symbol *syms;
size_t n_syms;
char *sym_names;

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

int load_map(const char *path)
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
			.switcher = !strcmp(sym_names + names_len,
					    arch == ARCH_X86_64 ? "__switch_to_asm"
								: "cpu_switch_to"),
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
uint32_t sym_lookup(uint64_t pc, uint64_t *lo, uint64_t *next)
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

const char *sym_name(uint32_t i)
{
	return i == n_syms ? "[unknown]" : sym_names + syms[i].name;
}
