/*
 * lstat-storm - build a directory tree under `root`, then visit every entry
 * by absolute path with lstat/stat/statx/readlink, pass after pass. Each
 * op walks the full path, so the kernel copies and walks every component:
 * a path-lookup-heavy load like `find`, `ls -lR` or a build system's stat
 * storm.
 *
 * Job keys (defaults):
 *   root (/tmp/storm)       absolute; created if missing, must be empty
 *   mode (synthetic)        synthetic | kernel-tree
 *   synthetic: depth (2), dirs (4), files (16), name_len_min (4),
 *              name_len_max (16)
 *   kernel-tree: paths (/usr/share/uaccess/kernel-tree.paths), sample (0)
 *   symlink_ratio (0.0), passes (1), warm_passes (1), order (walk),
 *   mix_lstat (1), mix_stat (0), mix_statx (0), mix_readlink (0), seed (1),
 *   settle_ms (50): guest sleep after the warm passes (roi.h, roi_settle)
 * Extra result fields: entries, symlinks, passes, mean_name_len.
 *
 * Everything random comes from one seed through separate PRNG streams for
 * the tree, the visit order and the op mix, so e.g. changing the mix does
 * not change the tree.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobconf.h"
#include "result.h"
#include "roi.h"

#define NAME "lstat-storm"
#define NAME_MAX_LEN 255
#define MAX_ENTRIES 20000000.0	/* refuse absurd synthetic trees early */
#define MAX_DEPTH 32

/* ---------------------------------------------------------------- errors */

/* Bad job values: exit 2 like jobconf does. */
static void __attribute__((noreturn, format(printf, 1, 2)))
fail_conf(const char *fmt, ...)
{
	va_list ap;

	fputs(NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(JOBCONF_EXIT_BAD);
}

/* Setup (filesystem, memory) failures: exit 1. */
static void __attribute__((noreturn, format(printf, 1, 2)))
fail_setup(const char *fmt, ...)
{
	va_list ap;

	fputs(NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		fail_setup("out of memory");
	return p;
}

/* ------------------------------------------------------------------ PRNG */

/*
 * splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): the state advances by the golden-ratio
 * constant and each output is a bijective 64-bit mix of the state. Tiny,
 * every seed is valid, and the output is identical on every platform,
 * unlike rand().
 */
struct prng {
	uint64_t s;
};

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t prng_next(struct prng *p)
{
	p->s += 0x9e3779b97f4a7c15ULL;
	return mix64(p->s);
}

/*
 * Independent streams from one seed. Mixing (rather than adding a stream
 * number to the state) matters: splitmix states that differ by a multiple
 * of the increment would give the same sequence shifted by a few steps.
 */
enum { STREAM_TREE = 1, STREAM_ORDER = 2, STREAM_OPS = 3 };

static void prng_seed(struct prng *p, uint64_t seed, uint64_t stream)
{
	p->s = mix64(seed ^ mix64(stream));
}

/* Uniform in [0, n) by multiply-high; the bias (< n / 2^64) is negligible. */
static uint64_t prng_below(struct prng *p, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)prng_next(p) * n) >> 64);
}

/* Uniform in [0, 1) with 53 random bits. */
static double prng_unit(struct prng *p)
{
	return (double)(prng_next(p) >> 11) * 0x1.0p-53;
}

/* ------------------------------------------------------------- the tree */

enum etype { E_DIR, E_FILE, E_LINK };

struct entry {
	char *path;		/* absolute */
	const char *target;	/* symlinks: relative target name */
	long parent;		/* entry index of the parent; -1 = root */
	unsigned short name_len;/* length of the last component */
	unsigned char type;
};

struct tree {
	struct entry *v;
	size_t n, cap;
	size_t nlinks;
	char root[PATH_MAX];
	size_t root_len;
	struct prng rng;	/* STREAM_TREE: names, symlinks, sampling */
	double symlink_ratio;
	/* kernel-tree mode: relative path -> entry index + 1 (0 = free) */
	size_t *map;
	size_t map_cap;
};

static const char *entry_name(const struct entry *e)
{
	return e->path + strlen(e->path) - e->name_len;
}

static const char *entry_rel(const struct tree *t, const struct entry *e)
{
	return e->path + t->root_len + 1;
}

/*
 * Append an entry. Files get their seeded symlink draw here; the draw is
 * taken even when the ratio is 0 so the ratio does not shift later names.
 */
static size_t add_entry(struct tree *t, long parent, const char *rel,
			size_t name_len, enum etype type)
{
	size_t len = t->root_len + 1 + strlen(rel);
	struct entry *e;

	if (len >= PATH_MAX)
		fail_conf("path too long: %s/%s", t->root, rel);
	if (type == E_FILE && prng_unit(&t->rng) < t->symlink_ratio)
		type = E_LINK;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	e = &t->v[t->n];
	e->path = xrealloc(NULL, len + 1);
	memcpy(e->path, t->root, t->root_len);
	e->path[t->root_len] = '/';
	memcpy(e->path + t->root_len + 1, rel, len - t->root_len);
	e->target = NULL;
	e->parent = parent;
	e->name_len = (unsigned short)name_len;
	e->type = (unsigned char)type;
	t->nlinks += type == E_LINK;
	return t->n++;
}

/* Digits needed to write every index below n in base 36. */
static int base36_width(size_t n)
{
	int w = 1;

	for (n = n > 0 ? n - 1 : 0; n >= 36; n /= 36)
		w++;
	return w;
}

/*
 * Unique name of at least len characters for child idx of a directory:
 * idx in base 36, zero-padded to the width shared by all its siblings
 * (so the prefixes alone are unique), then filler letters up to len.
 */
static int make_name(char *out, size_t idx, int width, int len)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";

	if (len < width)
		len = width;
	for (int i = width - 1; i >= 0; i--, idx /= 36)
		out[i] = digits[idx % 36];
	for (int i = width; i < len; i++)
		out[i] = 'a' + (i - width) % 26;
	out[len] = '\0';
	return len;
}

struct synth {
	long long depth, dirs, files, len_min, len_max;
};

/* Depth-first: a directory's contents follow it immediately. */
static void gen_synthetic(struct tree *t, const struct synth *c, long parent,
			  const char *rel_dir, long long level)
{
	size_t nsub = level < c->depth ? (size_t)c->dirs : 0;
	size_t nchild = nsub + (size_t)c->files;
	int width = base36_width(nchild);

	for (size_t i = 0; i < nchild; i++) {
		char name[NAME_MAX_LEN + 1], rel[PATH_MAX];
		int len = (int)(c->len_min + (long long)prng_below(&t->rng,
				c->len_max - c->len_min + 1));
		size_t idx;

		len = make_name(name, i, width, len);
		if (snprintf(rel, sizeof(rel), "%s%s%s", rel_dir,
			     *rel_dir ? "/" : "", name) >= (int)sizeof(rel))
			fail_conf("path too long under %s", t->root);
		if (i < nsub) {
			idx = add_entry(t, parent, rel, len, E_DIR);
			gen_synthetic(t, c, (long)idx, rel, level + 1);
		} else {
			add_entry(t, parent, rel, len, E_FILE);
		}
	}
}

/* ---- kernel-tree mode: relative path -> entry map (open addressing) */

static size_t str_hash(const char *s)
{
	uint64_t h = FNV64_OFFSET;

	fnv64_bytes(&h, s, strlen(s));
	return (size_t)h;
}

static long map_find(const struct tree *t, const char *rel)
{
	if (!t->map_cap)
		return -1;
	for (size_t i = str_hash(rel) & (t->map_cap - 1);;
	     i = (i + 1) & (t->map_cap - 1)) {
		size_t slot = t->map[i];

		if (slot == 0)
			return -1;
		if (strcmp(entry_rel(t, &t->v[slot - 1]), rel) == 0)
			return (long)(slot - 1);
	}
}

static void map_put(struct tree *t, size_t idx)
{
	size_t i;

	if (2 * (idx + 1) >= t->map_cap) {
		/* Keep the load under 1/2: rebuild at double size. */
		size_t old_cap = t->map_cap;
		size_t *old = t->map;

		t->map_cap = old_cap ? 2 * old_cap : 4096;
		t->map = xrealloc(NULL, t->map_cap * sizeof(*t->map));
		memset(t->map, 0, t->map_cap * sizeof(*t->map));
		for (size_t j = 0; j < old_cap; j++)
			if (old[j])
				map_put(t, old[j] - 1);
		free(old);
	}
	i = str_hash(entry_rel(t, &t->v[idx])) & (t->map_cap - 1);
	while (t->map[i])
		i = (i + 1) & (t->map_cap - 1);
	t->map[i] = idx + 1;
}

/*
 * Add rel (a validated relative path) and any missing parents. Listing a
 * directory or file twice is harmless; a name that is both is an error.
 */
static void add_path(struct tree *t, char *rel, int is_dir)
{
	long parent = -1;
	char *comp = rel;

	for (;;) {
		char *slash = strchr(comp, '/');
		int last = slash == NULL;
		size_t len = last ? strlen(comp) : (size_t)(slash - comp);
		enum etype want = (!last || is_dir) ? E_DIR : E_FILE;
		long idx;

		if (slash)
			*slash = '\0';
		idx = map_find(t, rel);
		if (idx >= 0) {
			int have_dir = t->v[idx].type == E_DIR;

			if (have_dir != (want == E_DIR))
				fail_conf("paths: %s is both a file and a "
					  "directory", rel);
		} else {
			idx = (long)add_entry(t, parent, rel, len, want);
			map_put(t, (size_t)idx);
		}
		if (last)
			return;
		*slash = '/';
		parent = idx;
		comp = slash + 1;
	}
}

/* Relative, no empty, "." or ".." components, names within NAME_MAX. */
static int valid_rel(const char *rel)
{
	const char *c = rel;

	if (*rel == '\0' || *rel == '/')
		return 0;
	for (;;) {
		const char *end = strchrnul(c, '/');
		size_t len = (size_t)(end - c);

		if (len == 0 || len > NAME_MAX_LEN ||
		    (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (*end == '\0')
			return 1;
		c = end + 1;
	}
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

struct pline {
	char *rel;
	int is_dir;
};

static void gen_kernel_tree(struct tree *t, const char *paths_file,
			    long long sample)
{
	FILE *f = fopen(paths_file, "r");
	struct pline *lines = NULL;
	size_t nlines = 0, cap = 0, nfiles = 0, lcap = 0;
	size_t *files;
	char *buf = NULL;
	long lineno = 0;
	ssize_t len;

	if (!f)
		fail_setup("cannot open %s: %s", paths_file, strerror(errno));
	while ((len = getline(&buf, &lcap, f)) != -1) {
		int is_dir;

		lineno++;
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (len == 0)
			continue;
		is_dir = buf[len - 1] == '/';
		if (is_dir)
			buf[--len] = '\0';
		if (!valid_rel(buf))
			fail_conf("%s:%ld: not a clean relative path",
				  paths_file, lineno);
		if (nlines == cap) {
			cap = cap ? 2 * cap : 4096;
			lines = xrealloc(lines, cap * sizeof(*lines));
		}
		lines[nlines].rel = strdup(buf);
		if (!lines[nlines].rel)
			fail_setup("out of memory");
		lines[nlines++].is_dir = is_dir;
		nfiles += !is_dir;
	}
	if (ferror(f))
		fail_setup("error reading %s", paths_file);
	fclose(f);
	free(buf);

	if (sample == 0) {
		for (size_t i = 0; i < nlines; i++)
			add_path(t, lines[i].rel, lines[i].is_dir);
	} else {
		size_t k = (size_t)sample;

		files = xrealloc(NULL, nfiles * sizeof(*files));
		nfiles = 0;
		for (size_t i = 0; i < nlines; i++)
			if (!lines[i].is_dir)
				files[nfiles++] = i;
		if (k > nfiles) {
			fprintf(stderr, NAME ": sample=%lld but %s lists only "
				"%zu files; using all\n", sample, paths_file,
				nfiles);
			k = nfiles;
		}
		/* Partial Fisher-Yates: files[0..k) is a uniform sample. */
		for (size_t i = 0; i < k; i++) {
			size_t j = i + (size_t)prng_below(&t->rng, nfiles - i);
			size_t tmp = files[i];

			files[i] = files[j];
			files[j] = tmp;
		}
		/* Create in listing order so "walk" stays depth-first. */
		qsort(files, k, sizeof(*files), cmp_size);
		for (size_t i = 0; i < k; i++)
			add_path(t, lines[files[i]].rel, 0);
		free(files);
	}
	for (size_t i = 0; i < nlines; i++)
		free(lines[i].rel);
	free(lines);
	free(t->map);
	t->map = NULL;
	t->map_cap = 0;
}

/*
 * Point each symlink at a regular file in its own directory (the nearest
 * one before it, else after it) so stat() through it succeeds and
 * readlink() returns a real name. A directory with no regular file gets
 * "." (the directory itself), which always exists.
 */
static void resolve_links(struct tree *t)
{
	long *last = xrealloc(NULL, (t->n + 1) * sizeof(*last));

	for (int dir = 0; dir < 2; dir++) {
		for (size_t i = 0; i <= t->n; i++)
			last[i] = -1;
		for (size_t k = 0; k < t->n; k++) {
			size_t i = dir == 0 ? k : t->n - 1 - k;
			struct entry *e = &t->v[i];
			size_t p = (size_t)(e->parent + 1);

			if (e->type == E_FILE)
				last[p] = (long)i;
			else if (e->type == E_LINK && !e->target &&
				 last[p] >= 0)
				e->target = entry_name(&t->v[last[p]]);
		}
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].type == E_LINK && !t->v[i].target)
			t->v[i].target = ".";
	free(last);
}

/* ---------------------------------------------------- the filesystem */

/* mkdir -p the root, then insist it is empty: never delete anything. */
static void prepare_root(const struct tree *t)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s", t->root);
	for (char *p = path + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(path, 0755) != 0 && errno != EEXIST)
				fail_setup("cannot create %s: %s", path,
					   strerror(errno));
			*p = c;
			if (c == '\0')
				break;
		}
	}
	dir = opendir(t->root);
	if (!dir)
		fail_setup("cannot open %s: %s", t->root, strerror(errno));
	while ((d = readdir(dir)) != NULL)
		if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
			fail_setup("%s is not empty; remove it first", t->root);
	closedir(dir);
}

static void create_tree(const struct tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct entry *e = &t->v[i];
		int rc, fd;

		switch (e->type) {
		case E_DIR:
			rc = mkdir(e->path, 0755);
			break;
		case E_FILE:
			fd = open(e->path, O_WRONLY | O_CREAT | O_EXCL |
				  O_CLOEXEC, 0644);
			rc = fd < 0 ? -1 : close(fd);
			break;
		default:
			/* May dangle until its target is created below. */
			rc = symlink(e->target, e->path);
			break;
		}
		if (rc != 0)
			fail_setup("cannot create %s: %s", e->path,
				   strerror(errno));
	}
}

/* -------------------------------------------------------- the workload */

enum op { OP_LSTAT, OP_STAT, OP_STATX, OP_READLINK, OP_COUNT };

static const char *const op_keys[OP_COUNT] = {
	"mix_lstat", "mix_stat", "mix_statx", "mix_readlink",
};

struct visit {
	const char *path;
	unsigned char op;
};

/*
 * The whole visit sequence (order and op per visit) is fixed before the
 * ROI and replayed by every pass, warm or measured, so the ROI holds only
 * syscalls and hashing.
 */
static struct visit *make_plan(const struct tree *t, int shuffle,
			       const long long mix[OP_COUNT], uint64_t seed)
{
	struct visit *plan = xrealloc(NULL, t->n * sizeof(*plan));
	size_t *order = xrealloc(NULL, t->n * sizeof(*order));
	struct prng rng;

	for (size_t i = 0; i < t->n; i++)
		order[i] = i;
	if (shuffle) {
		prng_seed(&rng, seed, STREAM_ORDER);
		for (size_t i = t->n; i > 1; i--) {
			size_t j = (size_t)prng_below(&rng, i);
			size_t tmp = order[i - 1];

			order[i - 1] = order[j];
			order[j] = tmp;
		}
	}
	prng_seed(&rng, seed, STREAM_OPS);
	for (size_t i = 0; i < t->n; i++) {
		const struct entry *e = &t->v[order[i]];
		int link = e->type == E_LINK;
		long long total = 0, r;
		int op = OP_LSTAT;

		/* readlink is only eligible for symlinks. */
		for (int k = 0; k < OP_COUNT; k++)
			if (k != OP_READLINK || link)
				total += mix[k];
		if (total > 0) {
			r = (long long)prng_below(&rng, (uint64_t)total);
			for (op = 0; op < OP_COUNT; op++) {
				if (op == OP_READLINK && !link)
					continue;
				if (r < mix[op])
					break;
				r -= mix[op];
			}
		}
		plan[i].path = e->path;
		plan[i].op = (unsigned char)op;
	}
	free(order);
	return plan;
}

/* noinline: warm-up and ROI run the very same code. */
static __attribute__((noinline)) void run_pass(const struct visit *plan,
					       size_t n, struct result *r)
{
	char buf[PATH_MAX];
	struct statx stx;
	struct stat st;
	ssize_t len;

	for (size_t i = 0; i < n; i++) {
		const char *p = plan[i].path;

		switch (plan[i].op) {
		case OP_LSTAT:
			if (lstat(p, &st) == 0)
				result_hash_stat(r, &st);
			else
				result_error(r, "lstat", p, errno);
			break;
		case OP_STAT:
			if (stat(p, &st) == 0)
				result_hash_stat(r, &st);
			else
				result_error(r, "stat", p, errno);
			break;
		case OP_STATX:
			if (statx(AT_FDCWD, p, AT_SYMLINK_NOFOLLOW,
				  STATX_BASIC_STATS, &stx) == 0)
				result_hash_statx(r, &stx);
			else
				result_error(r, "statx", p, errno);
			break;
		default:
			len = readlink(p, buf, sizeof(buf));
			if (len >= 0)
				result_hash_readlink(r, len, buf);
			else
				result_error(r, "readlink", p, errno);
			break;
		}
	}
	r->ops += n;
}

static void set_root(struct tree *t, const char *root)
{
	size_t len = strlen(root);

	while (len > 1 && root[len - 1] == '/')
		len--;
	if (root[0] != '/' || len < 2)
		fail_conf("root must be an absolute path other than /: '%s'",
			  root);
	if (len >= sizeof(t->root) - 2)
		fail_conf("root too long");
	memcpy(t->root, root, len);
	t->root[len] = '\0';
	t->root_len = len;
}

static void build_tree(struct tree *t, const char *mode)
{
	if (strcmp(mode, "synthetic") == 0) {
		struct synth c = {
			.depth = job_int("depth", 2),
			.dirs = job_int("dirs", 4),
			.files = job_int("files", 16),
			.len_min = job_int("name_len_min", 4),
			.len_max = job_int("name_len_max", 16),
		};
		double total = 0, level_dirs = 1;

		if (c.depth < 0 || c.depth > MAX_DEPTH || c.dirs < 0 ||
		    c.files < 0)
			fail_conf("need 0 <= depth <= %d, dirs >= 0, "
				  "files >= 0", MAX_DEPTH);
		if (c.len_min < 1 || c.len_max > NAME_MAX_LEN ||
		    c.len_min > c.len_max)
			fail_conf("need 1 <= name_len_min <= name_len_max "
				  "<= %d", NAME_MAX_LEN);
		for (long long l = 0; l <= c.depth; l++) {
			total += level_dirs * (double)c.files;
			level_dirs *= (double)c.dirs;
			if (l < c.depth)
				total += level_dirs;
		}
		if (total > MAX_ENTRIES)
			fail_conf("tree would have %.0f entries (max %.0f)",
				  total, MAX_ENTRIES);
		gen_synthetic(t, &c, -1, "", 0);
	} else if (strcmp(mode, "kernel-tree") == 0) {
		long long sample = job_int("sample", 0);

		if (sample < 0)
			fail_conf("sample must be >= 0");
		gen_kernel_tree(t, job_str("paths",
			"/usr/share/uaccess/kernel-tree.paths"), sample);
	} else {
		fail_conf("unknown mode '%s' (synthetic|kernel-tree)", mode);
	}
	if (t->n == 0)
		fail_conf("the tree is empty: nothing to visit");
	resolve_links(t);
}

int main(int argc, char **argv)
{
	static struct tree t;
	struct result res, scratch;
	long long mix[OP_COUNT], passes, warm_passes, mix_total = 0, t0, t1;
	const char *order;
	uint64_t seed;
	double name_sum = 0;
	struct visit *plan;

	roi_init();
	if (jobconf_load(argc > 1 ? argv[1] : JOBCONF_DEFAULT_PATH) != 0)
		return JOBCONF_EXIT_BAD;

	/* Read and check every key before touching the filesystem. */
	set_root(&t, job_str("root", "/tmp/storm"));
	seed = (uint64_t)job_int("seed", 1);
	passes = job_int("passes", 1);
	warm_passes = job_int("warm_passes", 1);
	order = job_str("order", "walk");
	t.symlink_ratio = job_double("symlink_ratio", 0.0);
	for (int k = 0; k < OP_COUNT; k++) {
		mix[k] = job_int(op_keys[k], k == OP_LSTAT ? 1 : 0);
		if (mix[k] < 0 || mix[k] > 1000000000)
			fail_conf("%s must be in [0, 1e9]", op_keys[k]);
		mix_total += mix[k];
	}
	if (mix_total == 0)
		fail_conf("all mix_* weights are 0");
	if (passes < 1 || warm_passes < 0)
		fail_conf("need passes >= 1, warm_passes >= 0");
	if (!(t.symlink_ratio >= 0.0 && t.symlink_ratio <= 1.0))
		fail_conf("symlink_ratio must be in [0, 1]");
	if (strcmp(order, "walk") != 0 && strcmp(order, "shuffle") != 0)
		fail_conf("unknown order '%s' (walk|shuffle)", order);

	prng_seed(&t.rng, seed, STREAM_TREE);
	build_tree(&t, job_str("mode", "synthetic"));
	plan = make_plan(&t, strcmp(order, "shuffle") == 0, mix, seed);

	umask(0);	/* st_mode is hashed: do not let the caller's umask in */
	prepare_root(&t);
	create_tree(&t);

	result_init(&scratch, NAME);
	result_anchor_mount(&scratch, t.root);
	for (long long p = 0; p < warm_passes; p++)
		run_pass(plan, t.n, &scratch);
	roi_settle(job_int("settle_ms", 50));

	result_init(&res, NAME);
	result_anchor_mount(&res, t.root);
	t0 = mono_ns();
	roi_begin();
	for (long long p = 0; p < passes; p++)
		run_pass(plan, t.n, &res);
	roi_end();
	t1 = mono_ns();
	res.roi_ns = t1 - t0;

	for (size_t i = 0; i < t.n; i++)
		name_sum += t.v[i].name_len;
	result_extra(&res, "entries", "%zu", t.n);
	result_extra(&res, "symlinks", "%zu", t.nlinks);
	result_extra(&res, "passes", "%lld", passes);
	result_extra(&res, "mean_name_len", "%.2f", name_sum / (double)t.n);
	result_print(&res);
	return 0;
}
