/* SPDX-License-Identifier: MIT */
/*
 * tunables.c - every knob under the name users know from /proc/sys/vm and
 * cgroup files, with its range, parsed and printed here so that the CLI,
 * the control socket and trace files all accept the same text.
 *
 * Defaults are the modern kernel (6.x, classic LRU). Each seed switch is
 * "on" when the patch is applied; off is the kernel before the patch.
 * docs/tunables.md explains each one.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

enum kind { K_BOOL, K_INT, K_INT64, K_ENUM, K_LRU_GEN };	/* K_INT64: int64_t field */

struct tunable {
	const char *name;
	const char *alias;		/* the reclaim-policy.md name, or NULL */
	enum kind kind;
	size_t off;			/* field in struct tunables */
	int64_t min, max;
	const char *const *choices;	/* K_ENUM: names, NULL-terminated */
	const char *help;
};

static const char *const balance_modes[] = { "legacy419", "seed000", "root55",
					     NULL };
static const char *const cost_models[] = { "rotation57", "io58", "io_rot62",
					   NULL };
static const char *const ws_rules[] = { "file_active47", "anon58", "full59",
					NULL };
static const char *const minfile_modes[] = { "shrink_list2010",
					     "scan_anon_cros", NULL };

#define F(field) offsetof(struct tunables, field)
#define BOOL(n, a, f, h) { n, a, K_BOOL, F(f), 0, 1, NULL, h }
#define INT(n, a, f, lo, hi, h) { n, a, K_INT, F(f), lo, hi, NULL, h }
#define INT64(n, a, f, lo, hi, h) { n, a, K_INT64, F(f), lo, hi, NULL, h }
#define ENUM(n, a, f, c, h) { n, a, K_ENUM, F(f), 0, 0, c, h }

static const struct tunable table[] = {
	/* the five seed switches */
	BOOL("use_once_mapped", "vm.use_once_mapped", use_once_mapped,
	     "seed 001: mapped file pages used once are not activated"),
	BOOL("refault_scan_anon", NULL, balance_mode,
	     "seed 000: file refaults make reclaim scan anon (off: "
	     "vm.balance.mode=legacy419, vm.workingset.size_rule=file_active47)"),
	BOOL("cache_trim_retry", "vm.cache_trim_retry", cache_trim_retry,
	     "seed 002: retry a node pass without cache_trim_mode if it "
	     "scanned nothing"),
	BOOL("protect_inode_cache", "vm.inode.protect_pagecache",
	     protect_inode_cache,
	     "seed 003: the inode shrinker skips inodes with page cache of "
	     "protected groups"),
	{ "vm.min_filelist_kbytes", NULL, K_INT64, F(min_filelist_kbytes), 0,
	  INT64_C(1) << 40, NULL,
	  "seed 004: no file reclaim while the file LRU is below this (KiB)" },
	/* /proc/sys/vm */
	INT("vm.swappiness", NULL, swappiness, 0, 200,
	    "anon vs file scan balance, 0..200"),
	INT("vm.watermark_scale_factor", NULL, watermark_scale_factor, 1, 3000,
	    "watermark gaps in 1/10000 of the budget"),
	{ "vm.min_free_kbytes", NULL, K_INT64, F(min_free_kbytes), -1,
	  INT64_C(1) << 40, NULL,
	  "min watermark in KiB (-1: derived from the budget)" },
	INT("vm.laptop_mode", NULL, laptop_mode, 0, 1,
	    "1: reclaim does not write pages until priority drops"),
	INT("vm.vfs_cache_pressure", NULL, vfs_cache_pressure, 0, 10000,
	    "inode shrinker pressure, percent"),
	ENUM("vm.min_filelist_mode", NULL, min_filelist_mode, minfile_modes,
	     "seed 004 form: shrink_list2010 (as posted) or scan_anon_cros"),
	BOOL("vm.min_filelist_counts_reclaimable", NULL,
	     min_filelist_counts_reclaimable,
	     "count protected file pages as reclaimable for OOM (the livelock)"),
	INT("vm.oom.max_no_progress", NULL, oom_max_no_progress, 1, 1000,
	    "direct reclaim rounds without progress before OOM"),
	BOOL("vm.lru.anon_starts_active", NULL, anon_starts_active,
	     "new anon pages start on the active list (<=5.8)"),
	BOOL("vm.lru.swapin_activate", NULL, swapin_activate,
	     "swapped-in pages are activated unconditionally (<=5.8)"),
	BOOL("vm.refs.exec_first_use", NULL, exec_first_use,
	     "VM_EXEC file pages are activated on their first young scan"),
	BOOL("vm.refs.shared_multi_ref", NULL, shared_multi_ref,
	     "pages young in several mappings are activated"),
	BOOL("vm.refs.anon_use_once", NULL, anon_use_once,
	     "anon pages get the look-twice treatment (5.9+)"),
	ENUM("vm.balance.mode", NULL, balance_mode, balance_modes,
	     "refault rule: legacy419, seed000 (4.19 + seed 000), root55"),
	INT("vm.balance.inactive_ratio", NULL, inactive_ratio, 0, 1000,
	    "inactive:active target ratio (0: kernel formula)"),
	ENUM("vm.balance.cost_model", NULL, cost_model, cost_models,
	     "SCAN_FRACT: rotation57, io58 or io_rot62"),
	BOOL("vm.cache_trim_mode", NULL, cache_trim_mode,
	     "reclaim only file while inactive file is plentiful (5.5+)"),
	BOOL("vm.kswapd_cache_trim_retry", NULL, kswapd_cache_trim_retry,
	     "kswapd retries its loop without cache_trim_mode (6.10+)"),
	INT64("vm.debug.lru_size_skew", NULL, lru_size_skew, 0, INT64_C(1) << 32,
	    "pages of per-CPU counter error (per group) in the inactive file "
	      "size cache_trim_mode reads (seed 002)"),
	BOOL("vm.reclaim.writeback_from_reclaim", NULL, writeback_from_reclaim,
	     "kswapd writes dirty file pages itself"),
	BOOL("vm.reclaim.proportional_latch", NULL, proportional_latch,
	     "<=5.10 proportional scan adjustment (scan the rest)"),
	ENUM("vm.workingset.size_rule", NULL, ws_size_rule, ws_rules,
	     "refault workingset size: file_active47, anon58, full59"),
	BOOL("vm.workingset.legacy_age", NULL, ws_legacy_age,
	     "advance the age before reading it at eviction (<=6.0)"),
	INT64("vm.workingset.max_shadows", NULL, ws_max_shadows, -1,
	    INT64_C(1) << 40, "shadow entries kept (-1: the budget in pages)"),
	BOOL("vm.workingset.ignore_write_refaults", NULL,
	     ws_ignore_write_refaults,
	     "pages brought in for a pure write skip the refault test"),
	BOOL("vm.inode.keep_cached_off_lru", NULL, keep_cached_off_lru,
	     "inodes with page cache stay off the inode LRU (5.16+)"),
	BOOL("memory_recursiveprot", NULL, memory_recursiveprot,
	     "cgroup2 memory_recursiveprot mount option"),
	/* /sys/kernel/mm/lru_gen */
	{ "lru_gen.enabled", "/sys/kernel/mm/lru_gen/enabled", K_LRU_GEN,
	  F(lru_gen_enabled), 0, 0, NULL,
	  "the multi-generational LRU: y, n or a mask (0x0001 the core; "
	  "0x0002 and 0x0004 need a hardware accessed bit: accepted, not "
	  "shown); switching moves every page between the two policies" },
	BOOL("lru_gen.look_around", NULL, lru_gen_look_around,
	     "MGLRU: a young page at eviction has the young bits of up to 64 "
	     "pages around it tested and cleared, the young ones promoted "
	     "(lru_gen_look_around; off: the pager's measure of its cost)"),
	INT("lru_gen.min_ttl_ms", "/sys/kernel/mm/lru_gen/min_ttl_ms",
	    lru_gen_min_ttl_ms, 0, 2147483647,
	    "MGLRU: kswapd asks for an OOM kill when no group's oldest "
	    "generation is this old (ms; 0: never; needs the caller's clock)"),

};

#define NR_TUNABLES (sizeof(table) / sizeof(table[0]))

void pol__tunables_init(struct tunables *t)
{
	memset(t, 0, sizeof(*t));
	t->swappiness = 60;
	t->lru_gen_look_around = 1;
	t->watermark_scale_factor = 10;
	t->min_free_kbytes = -1;
	t->vfs_cache_pressure = 100;
	t->oom_max_no_progress = MAX_RECLAIM_RETRIES;
	t->use_once_mapped = 1;
	t->exec_first_use = 1;
	t->shared_multi_ref = 1;
	t->anon_use_once = 1;
	t->balance_mode = BAL_ROOT55;
	t->cost_model = COST_IO_ROT62;
	t->cache_trim_mode = 1;
	t->kswapd_cache_trim_retry = 1;
	t->ws_size_rule = WS_FULL59;
	t->ws_max_shadows = -1;
	t->ws_ignore_write_refaults = 1;
	t->keep_cached_off_lru = 1;
}

/* ---- parsing, without the C library's locale-dependent helpers -------- */

static int parse_int(const char *s, int64_t *out)
{
	bool neg = *s == '-';
	uint64_t v = 0;

	if (neg)
		s++;
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (UINT64_C(1) << 62) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* Bytes with an optional K/M/G/T suffix (powers of 1024), or "max". */
static int parse_size(const char *s, uint64_t *out)
{
	char num[32];
	size_t n = strlen(s);
	unsigned int shift = 0;
	int64_t v;

	if (!strcmp(s, "max")) {
		*out = UINT64_MAX;
		return 0;
	}
	if (n == 0 || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	}
	if (shift)
		num[--n] = 0;
	if (parse_int(num, &v) || v < 0)
		return -EINVAL;
	if ((uint64_t)v > (UINT64_C(1) << 52) >> shift)
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_bool(const char *s, int *out)
{
	if (!strcmp(s, "on") || !strcmp(s, "1") || !strcmp(s, "true") ||
	    !strcmp(s, "yes")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(s, "off") || !strcmp(s, "0") || !strcmp(s, "false") ||
	    !strcmp(s, "no")) {
		*out = 0;
		return 0;
	}
	return -EINVAL;
}

static const struct tunable *lookup(const char *key)
{
	for (size_t i = 0; i < NR_TUNABLES; i++)
		if (!strcmp(table[i].name, key) ||
		    (table[i].alias && !strcmp(table[i].alias, key)))
			return &table[i];
	return NULL;
}

static int64_t field_get(const struct tunables *t, const struct tunable *d)
{
	const char *p = (const char *)t + d->off;

	if (d->kind == K_INT64)
		return *(const int64_t *)p;
	return *(const int *)p;
}

static void field_set(struct tunables *t, const struct tunable *d, int64_t v)
{
	char *p = (char *)t + d->off;

	if (d->kind == K_INT64)
		*(int64_t *)p = v;
	else
		*(int *)p = (int)v;
}

/* Parse @value for @d into *v; say why not in *why. */
static int parse_value(const struct tunable *d, const char *value,
		       int64_t *v, const char **why)
{
	int b, err;

	switch (d->kind) {
	case K_BOOL:
		if (parse_bool(value, &b)) {
			*why = "expected on or off";
			return -EINVAL;
		}
		*v = b;
		return 0;
	case K_ENUM:
		for (int i = 0; d->choices[i]; i++) {
			if (!strcmp(d->choices[i], value)) {
				*v = i;
				return 0;
			}
		}
		*why = "not one of the listed choices";
		return -EINVAL;
	default:
		err = parse_int(value, v);
		if (err) {
			*why = "expected an integer";
			return err;
		}
		if (*v < d->min || *v > d->max) {
			*why = "out of range";
			return -ERANGE;
		}
		return 0;
	}
}

/* memory.min@G, memory.low@G, memory.max@G: sizes in bytes, or "max". */
/*
 * Seed 000 off is the kernel before it (5.2): the refault rule only where
 * active lists are shrunk (vm.balance.mode=legacy419), and refaults
 * measured against the active file list alone (size_rule=file_active47).
 * Both must go back: since 5.8 file refaults also compete with anon
 * through the workingset size, which scans anon on file refaults by
 * itself. On restores the modern forms of whichever were off; a chosen
 * seed000 mode (4.19 with the patch) is kept.
 */
static void set_refault_scan_anon(struct tunables *t, int64_t on)
{
	if (!on) {
		t->balance_mode = BAL_LEGACY419;
		t->ws_size_rule = WS_FILE_ACTIVE47;
		return;
	}
	if (t->balance_mode == BAL_LEGACY419)
		t->balance_mode = BAL_ROOT55;
	if (t->ws_size_rule == WS_FILE_ACTIVE47)
		t->ws_size_rule = WS_FULL59;
}

static int set_group_limit(struct pol *pol, const char *key, const char *value,
			   const char **why)
{
	const char *at = strchr(key, '@');
	uint64_t bytes, pages;
	struct group *g;
	int id;

	if (!at || !at[1]) {
		*why = "expected memory.min@GROUP, memory.low@GROUP or memory.max@GROUP";
		return -ENOENT;
	}
	id = pol_group_find(pol, at + 1);
	if (id < 0) {
		*why = "no such group";
		return -ENOENT;
	}
	if (parse_size(value, &bytes)) {
		*why = "expected a size in bytes (K, M, G suffixes) or max";
		return -EINVAL;
	}
	pages = bytes == UINT64_MAX ? UINT64_MAX : bytes / 4096;
	g = pol__grp(pol, id);
	if (!strncmp(key, "memory.min@", 11))
		g->min = pages;
	else if (!strncmp(key, "memory.low@", 11))
		g->low = pages;
	else if (!strncmp(key, "memory.max@", 11))
		g->max = pages;
	else {
		*why = "expected memory.min, memory.low or memory.max";
		return -ENOENT;
	}
	return 0;
}

static int set_budget(struct pol *pol, const char *value, const char **why)
{
	uint64_t bytes, pages;

	if (parse_size(value, &bytes) || bytes == UINT64_MAX) {
		*why = "expected a size in bytes (K, M, G suffixes)";
		return -EINVAL;
	}
	pages = bytes / 4096;
	if (pages < 64 || pages > pol->nr_pages) {
		*why = "budget must be between 256K and the size the pager "
		       "was started with";
		return -ERANGE;
	}
	pol->budget = pages;
	pol__setup_watermarks(pol);
	return 0;
}

int pol_set(struct pol *pol, const char *key, const char *value,
	    const char **why)
{
	const char *dummy;
	const struct tunable *d;
	int64_t v;
	int err;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (!strncmp(key, "memory.", 7) && strchr(key, '@'))
		return set_group_limit(pol, key, value, why);
	if (!strcmp(key, "mem"))
		return set_budget(pol, value, why);
	d = lookup(key);
	if (!d) {
		*why = "unknown tunable (pager get lists them)";
		return -ENOENT;
	}
	if (d->kind == K_LRU_GEN)
		return pol__lru_gen_set_enabled(pol, value, why);
	err = parse_value(d, value, &v, why);
	if (err)
		return err;
	if (!strcmp(d->name, "refault_scan_anon")) {
		set_refault_scan_anon(&pol->t, v);
		return 0;
	}
	field_set(&pol->t, d, v);
	if (d->off == F(min_free_kbytes) || d->off == F(watermark_scale_factor))
		pol__setup_watermarks(pol);
	return 0;
}

void pol__fmt_u64(char *buf, size_t len, uint64_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (len == 0)
		return;
	if (n >= len)
		n = len - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = 0;
}

static void fmt_i64(char *buf, size_t len, int64_t v)
{
	if (v < 0 && len > 1) {
		buf[0] = '-';
		pol__fmt_u64(buf + 1, len - 1, (uint64_t)-v);
		return;
	}
	pol__fmt_u64(buf, len, (uint64_t)v);
}

static void fmt_str(char *buf, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
}

static int get_group_limit(const struct pol *pol, const char *key, char *buf,
			   size_t len)
{
	const char *at = strchr(key, '@');
	const struct group *g;
	uint64_t pages;
	int id;

	if (!at)
		return -ENOENT;
	id = pol_group_find(pol, at + 1);
	if (id < 0)
		return -ENOENT;
	g = pol__grp(pol, id);
	if (!strncmp(key, "memory.min@", 11))
		pages = g->min;
	else if (!strncmp(key, "memory.low@", 11))
		pages = g->low;
	else if (!strncmp(key, "memory.max@", 11))
		pages = g->max;
	else
		return -ENOENT;
	if (pages == UINT64_MAX)
		fmt_str(buf, len, "max");
	else
		pol__fmt_u64(buf, len, pages * 4096);
	return 0;
}

int pol_get(const struct pol *pol, const char *key, char *buf, size_t len)
{
	const struct tunable *d;
	int64_t v;

	if (!strncmp(key, "memory.", 7) && strchr(key, '@'))
		return get_group_limit(pol, key, buf, len);
	if (!strcmp(key, "mem")) {
		pol__fmt_u64(buf, len, pol->budget * 4096);
		return 0;
	}
	d = lookup(key);
	if (!d)
		return -ENOENT;
	if (!strcmp(d->name, "refault_scan_anon")) {
		fmt_str(buf, len, pol->t.balance_mode == BAL_LEGACY419 ?
			"off" : "on");
		return 0;
	}
	v = field_get(&pol->t, d);
	if (d->kind == K_LRU_GEN) {
		static const char hex[] = "0123456789abcdef";
		char t[7] = { '0', 'x', '0', '0', '0', hex[v & 15], 0 };

		fmt_str(buf, len, t);
		return 0;
	}
	if (d->kind == K_BOOL)
		fmt_str(buf, len, v ? "on" : "off");
	else if (d->kind == K_ENUM)
		fmt_str(buf, len, d->choices[v]);
	else if (d->off == F(min_free_kbytes) && v < 0)
		pol__fmt_u64(buf, len, pol->wmark_min * 4);	/* the derived value */
	else
		fmt_i64(buf, len, v);
	return 0;
}

const char *pol_tunable_name(unsigned int i, const char **help)
{
	if (i == NR_TUNABLES) {
		if (help)
			*help = "the budget: the RAM the policy manages (bytes)";
		return "mem";
	}
	if (i > NR_TUNABLES)
		return NULL;
	if (help)
		*help = table[i].help;
	return table[i].name;
}
