/* SPDX-License-Identifier: MIT */
/*
 * file.c - the experiment file of `pager experiment`, and
 * reading the workload's figures from its output.
 *
 * A line is KEY VALUE...; # starts a comment. Errors name FILE:LINE.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "../lib/util.h"

struct parse {
	const char *path;
	int line;
	char *err;
	size_t len;
};

static int fail(struct parse *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct parse *ps, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(ps->err, ps->len, "%s:%d: ", ps->path, ps->line);

	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->len - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int copy(struct parse *ps, char *dst, size_t len, const char *v,
		const char *key)
{
	if (!*v)
		return fail(ps, "%s: expected a value", key);
	if (strlen(v) >= len)
		return fail(ps, "%s: too long (at most %zu characters)", key,
			    len - 1);
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

static bool good_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' &&
		    *s != '.')
			return false;
	return true;
}

/* A pattern has one %f, optionally one %d before it, no other %. */
static bool good_pattern(const char *p)
{
	int d = 0, f = 0;

	for (const char *s = strchr(p, '%'); s; s = strchr(s + 2, '%')) {
		if (s[1] == 'd' && !f)
			d++;
		else if (s[1] == 'f')
			f++;
		else
			return false;
	}
	return f == 1 && d <= 1;
}

/* A new figure named by the first word of @v; *@rest is what follows
 * it and an optional lower|higher. NULL after an error. */
static struct exp_figure *new_figure(struct parse *ps, struct experiment *e,
				     char *v, const char *key,
				     const char *usage, char **rest)
{
	struct exp_figure *f;
	char *name = strtok(v, " \t"), *r = strtok(NULL, "");

	if (e->nr_figures == EXP_MAX_FIGURES) {
		fail(ps, "%s: at most %d figures and ratios", key,
		     EXP_MAX_FIGURES);
		return NULL;
	}
	if (!name || !good_name(name) || strlen(name) >= sizeof(f->name) - 4) {
		fail(ps, "%s: expected %s", key, usage);
		return NULL;
	}
	for (int k = 0; k < e->nr_figures; k++)
		if (!strcmp(e->figures[k].name, name)) {
			fail(ps, "%s %s: named twice", key, name);
			return NULL;
		}
	f = &e->figures[e->nr_figures];
	memset(f, 0, sizeof(*f));
	strcpy(f->name, name);
	while (r && isspace((unsigned char)*r))
		r++;
	if (r && (!strncmp(r, "lower", 5) || !strncmp(r, "higher", 6))) {
		size_t w = r[0] == 'l' ? 5 : 6;

		if (!r[w] || isspace((unsigned char)r[w])) {
			f->higher_better = r[0] == 'h';
			r += w;
			while (isspace((unsigned char)*r))
				r++;
		}
	}
	*rest = r;
	return f;
}

static int figure(struct parse *ps, struct experiment *e, char *v)
{
	char *rest;
	struct exp_figure *f = new_figure(ps, e, v, "figure",
					  "NAME [lower|higher] [PATTERN]",
					  &rest);

	if (!f)
		return -1;
	if (rest && *rest) {
		if (!good_pattern(rest))
			return fail(ps, "figure %s: a pattern has one %%f (the "
				    "value) and at most one %%d before it "
				    "(an index), and no other %%", f->name);
		if (copy(ps, f->pattern, sizeof(f->pattern), rest, "figure"))
			return -1;
	}
	e->nr_figures++;
	return 0;
}

/* ratio NAME [lower|higher] A B [SCALE]: A / B * SCALE of each run. */
static int ratio(struct parse *ps, struct experiment *e, char *v)
{
	static const char usage[] = "NAME [lower|higher] A B [SCALE] "
				    "(A / B * SCALE, of figures or counters)";
	char *rest, *a, *b, *k, *end;
	struct exp_figure *f = new_figure(ps, e, v, "ratio", usage, &rest);

	if (!f)
		return -1;
	a = rest ? strtok(rest, " \t") : NULL;
	b = a ? strtok(NULL, " \t") : NULL;
	k = b ? strtok(NULL, " \t") : NULL;
	if (!b || strtok(NULL, " \t") || !good_name(a) || !good_name(b) ||
	    strlen(a) >= sizeof(f->of[0]) || strlen(b) >= sizeof(f->of[1]))
		return fail(ps, "ratio: expected %s", usage);
	f->scale = 1;
	if (k) {
		f->scale = strtod(k, &end);
		if (*end || end == k || !(f->scale > 0) || f->scale > 1e12)
			return fail(ps, "ratio %s: the scale '%.32s' is not a "
				    "number above 0", f->name, k);
	}
	strcpy(f->of[0], a);
	strcpy(f->of[1], b);
	e->nr_figures++;
	return 0;
}

static int config(struct parse *ps, struct experiment *e, char *v)
{
	struct exp_config *c;
	char *name = strtok(v, " \t"), *kv;

	if (e->nr_configs == EXP_MAX_CONFIGS)
		return fail(ps, "config: at most %d", EXP_MAX_CONFIGS);
	if (!name || !good_name(name) || strlen(name) >= sizeof(c->name))
		return fail(ps, "config: expected NAME [native | memcg] "
			    "[KEY=VALUE]...");
	for (int k = 0; k < e->nr_configs; k++)
		if (!strcmp(e->configs[k].name, name))
			return fail(ps, "config %s: named twice", name);
	c = &e->configs[e->nr_configs];
	memset(c, 0, sizeof(*c));
	strcpy(c->name, name);
	c->line = ps->line;
	e->nr_configs++;	/* counted now, so a failure frees its sets */
	while ((kv = strtok(NULL, " \t"))) {
		/* One of these words, first: the kernel in a memory cgroup,
		 * or the pager reclaiming as one (a group of the budget). */
		if ((!strcmp(kv, "native") || !strcmp(kv, "memcg")) &&
		    !c->nr_sets && !c->native && !c->memcg) {
			c->native = !strcmp(kv, "native");
			c->memcg = !c->native;
			continue;
		}
		if (!strchr(kv, '=') || kv[0] == '=')
			return fail(ps, "config %s: '%s' is not KEY=VALUE "
				    "(or `native` or `memcg` first)", name, kv);
		if (c->nr_sets == EXP_MAX_SETS)
			return fail(ps, "config %s: at most %d settings", name,
				    EXP_MAX_SETS);
		c->sets[c->nr_sets++] = pgr_xstrdup(kv);
	}
	return 0;
}

static int common(struct parse *ps, struct experiment *e, char *v)
{
	char *kv = strtok(v, " \t");

	if (!kv)
		return fail(ps, "set: expected KEY=VALUE...");
	for (; kv; kv = strtok(NULL, " \t")) {
		if (!strchr(kv, '=') || kv[0] == '=')
			return fail(ps, "set: '%s' is not KEY=VALUE", kv);
		if (e->nr_common == EXP_MAX_SETS)
			return fail(ps, "set: at most %d settings",
				    EXP_MAX_SETS);
		e->common_line[e->nr_common] = ps->line;
		e->common[e->nr_common++] = pgr_xstrdup(kv);
	}
	return 0;
}

static int number(struct parse *ps, const char *key, const char *v, int min,
		  int max, int *out)
{
	uint64_t n;

	if (pgr_parse_u64(v, &n) || n < (uint64_t)min || n > (uint64_t)max)
		return fail(ps, "%s: expected a number from %d to %d", key, min,
			    max);
	*out = (int)n;
	return 0;
}

static int size(struct parse *ps, const char *key, const char *v, char *dst,
		size_t len, bool none_ok)
{
	uint64_t b;

	if (none_ok && !strcmp(v, "none"))
		return copy(ps, dst, len, v, key);
	if (pgr_parse_size(v, &b) || b < 1 << 20)
		return fail(ps, "%s: expected a size of 1M or more (K/M/G)%s",
			    key, none_ok ? ", or none" : "");
	return copy(ps, dst, len, v, key);
}

/* disk KEY=VALUE...: rbps and wbps in bytes a second (K/M/G), riops and
 * wiops in requests a second, as io.max takes them. */
static int disk(struct parse *ps, struct experiment *e, char *v)
{
	struct exp_disk *d = &e->disk;
	char *kv;

	if (copy(ps, d->text, sizeof(d->text), v, "disk"))
		return -1;
	for (kv = strtok(v, " \t"); kv; kv = strtok(NULL, " \t")) {
		char *val = strchr(kv, '=');
		uint64_t n, *dst;
		bool bytes;

		if (val)
			*val++ = 0;
		bytes = !strcmp(kv, "rbps") || !strcmp(kv, "wbps");
		dst = !strcmp(kv, "rbps") ? &d->rbps : !strcmp(kv, "wbps") ?
		      &d->wbps : !strcmp(kv, "riops") ? &d->riops :
		      !strcmp(kv, "wiops") ? &d->wiops : NULL;
		if (!dst || !val)
			return fail(ps, "disk: '%.40s' is not rbps=, wbps=, "
				    "riops= or wiops=", kv);
		if ((bytes ? pgr_parse_size(val, &n) : pgr_parse_u64(val, &n))
		    || !n || n > (1ULL << 50))
			return fail(ps, "disk %s: expected %s above 0", kv,
				    bytes ? "bytes a second (K/M/G)" :
				    "requests a second");
		*dst = n;
	}
	return 0;
}

static int line(struct parse *ps, struct experiment *e, char *s)
{
	char *key, *v;

	s[strcspn(s, "\n")] = 0;
	/* A comment: # at the start or after a blank. */
	for (char *h = s; (h = strchr(h, '#')); h++) {
		if (h == s || isspace((unsigned char)h[-1])) {
			*h = 0;
			break;
		}
	}
	while (isspace((unsigned char)*s))
		s++;
	for (char *t = s + strlen(s); t > s && isspace((unsigned char)t[-1]);)
		*--t = 0;
	if (!*s)
		return 0;
	key = s;
	v = s + strcspn(s, " \t");
	if (*v)
		*v++ = 0;
	while (isspace((unsigned char)*v))
		v++;
	if (!strcmp(key, "title"))
		return copy(ps, e->title, sizeof(e->title), v, key);
	if (!strcmp(key, "workload"))
		return copy(ps, e->workload, sizeof(e->workload), v, key);
	if (!strcmp(key, "dir"))
		return copy(ps, e->dir, sizeof(e->dir), v, key);
	if (!strcmp(key, "mem"))
		return size(ps, key, v, e->mem, sizeof(e->mem), false);
	if (!strcmp(key, "swap"))
		return size(ps, key, v, e->swap, sizeof(e->swap), true);
	if (!strcmp(key, "disk"))
		return disk(ps, e, v);
	if (!strcmp(key, "repeat"))
		return number(ps, key, v, 1, EXP_MAX_REPEAT, &e->repeat);
	if (!strcmp(key, "timeout"))
		return number(ps, key, v, 1, 86400, &e->timeout_s);
	if (!strcmp(key, "plot"))
		return copy(ps, e->plot, sizeof(e->plot), v, key);
	if (!strcmp(key, "counters"))
		return copy(ps, e->counters, sizeof(e->counters), v, key);
	if (!strcmp(key, "figure"))
		return figure(ps, e, v);
	if (!strcmp(key, "ratio"))
		return ratio(ps, e, v);
	if (!strcmp(key, "config"))
		return config(ps, e, v);
	if (!strcmp(key, "set"))
		return common(ps, e, v);
	return fail(ps, "unknown key '%.40s' (title, workload, dir, mem, swap, "
		    "disk, repeat, timeout, set, figure, ratio, counters, "
		    "plot, config)",
		    key);
}

int exp_parse(const char *path, struct experiment *e, char *err, size_t len)
{
	FILE *f = fopen(path, "re");
	int rc;

	if (!f) {
		memset(e, 0, sizeof(*e));
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = exp_parse_stream(f, path, e, err, len);
	fclose(f);
	return rc;
}

int exp_parse_stream(FILE *f, const char *path, struct experiment *e,
		     char *err, size_t len)
{
	struct parse ps = { .path = path, .err = err, .len = len };
	char buf[2048];
	int rc = 0;

	memset(e, 0, sizeof(*e));
	e->repeat = 1;
	e->timeout_s = 1800;
	while (!rc && fgets(buf, sizeof(buf), f)) {
		ps.line++;
		if (!strchr(buf, '\n') && !feof(f))
			rc = fail(&ps, "line too long");
		else
			rc = line(&ps, e, buf);
	}
	ps.line++;
	if (!rc && !e->workload[0])
		rc = fail(&ps, "no workload line");
	if (!rc && !e->mem[0])
		rc = fail(&ps, "no mem line (the budget)");
	if (!rc && !e->nr_configs)
		rc = fail(&ps, "no config line (the first is the base)");
	if (!rc && e->plot[0]) {
		bool found = false;

		for (int k = 0; k < e->nr_figures; k++)
			found = found || !strcmp(e->figures[k].name, e->plot);
		if (!found)
			rc = fail(&ps, "plot %s: no such figure", e->plot);
	}
	if (rc)
		exp_release(e);
	return rc;
}

void exp_release(struct experiment *e)
{
	for (int k = 0; k < e->nr_common; k++)
		free(e->common[k]);
	e->nr_common = 0;
	for (int c = 0; c < e->nr_configs; c++)
		for (int k = 0; k < e->configs[c].nr_sets; k++)
			free(e->configs[c].sets[k]);
	e->nr_configs = 0;
}

void exp_run_add(struct exp_run *run, const char *name, double v)
{
	struct exp_value *x;

	pgr_grow(&run->vals, &run->cap, run->nr + 1, sizeof(*run->vals));
	x = &run->vals[run->nr++];
	snprintf(x->name, sizeof(x->name), "%s", name);
	x->v = v;
}

void exp_run_set(struct exp_run *run, const char *name, double v)
{
	for (size_t k = 0; k < run->nr; k++) {
		if (!strcmp(run->vals[k].name, name)) {
			run->vals[k].v = v;
			return;
		}
	}
	exp_run_add(run, name, v);
}

bool exp_run_value(const struct exp_run *run, const char *name, double *v)
{
	for (size_t k = 0; k < run->nr; k++) {
		if (!strcmp(run->vals[k].name, name)) {
			if (v)
				*v = run->vals[k].v;
			return true;
		}
	}
	return false;
}

/* Match @line against @pat: literal text, one optional %d, one %f. */
static bool match(const char *pat, const char *line, long *idx, double *v,
		  bool *has_idx)
{
	*has_idx = false;
	while (*pat) {
		if (pat[0] == '%' && (pat[1] == 'd' || pat[1] == 'f')) {
			char *end;

			if (pat[1] == 'd') {
				*idx = strtol(line, &end, 10);
				*has_idx = true;
			} else {
				*v = strtod(line, &end);
			}
			if (end == line)
				return false;
			line = end;
			pat += 2;
			continue;
		}
		if (*pat != *line)
			return false;
		pat++;
		line++;
	}
	return true;
}

void exp_match_line(const struct experiment *e, const char *line,
		    struct exp_run *run)
{
	for (int k = 0; k < e->nr_figures; k++) {
		const struct exp_figure *f = &e->figures[k];
		char name[64];
		double v = 0;
		long idx = 0;
		bool has_idx;

		if (f->of[0][0])
			continue;	/* a ratio */
		if (!f->pattern[0]) {
			size_t n = strlen(f->name);
			char *end;

			if (strncmp(line, f->name, n) || line[n] != ' ')
				continue;
			v = strtod(line + n + 1, &end);
			if (end != line + n + 1)
				exp_run_add(run, f->name, v);
			continue;
		}
		if (!match(f->pattern, line, &idx, &v, &has_idx))
			continue;
		if (has_idx)
			snprintf(name, sizeof(name), "%s%ld", f->name, idx);
		else
			snprintf(name, sizeof(name), "%s", f->name);
		exp_run_add(run, name, v);
	}
}

void exp_add_ratios(const struct experiment *e, struct exp_run *run)
{
	for (int k = 0; k < e->nr_figures; k++) {
		const struct exp_figure *f = &e->figures[k];
		double a, b;

		if (!f->of[0][0] || exp_run_value(run, f->name, NULL))
			continue;
		if (exp_run_value(run, f->of[0], &a) &&
		    exp_run_value(run, f->of[1], &b) && b != 0)
			exp_run_add(run, f->name, a / b * f->scale);
	}
}
