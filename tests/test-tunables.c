/* SPDX-License-Identifier: MIT */
/*
 * test-tunables.c - every tunable reads back what was written, bad keys
 * and values are refused with a reason, the compound switch of seed 000
 * sets the 5.2 forms, and the watermarks follow the budget as in the
 * kernel (reclaim-policy.md §6.1: 512 MB gives min 2.8 MB, low 3.5 MB,
 * high 4.2 MB).
 */
#include <errno.h>
#include <string.h>

#include "t-sim.h"
#include "tap.h"

static void test_round_trip(struct pol *pol)
{
	unsigned int bad = 0, n = 0;
	const char *name, *help;

	for (unsigned int i = 0; (name = pol_tunable_name(i, &help)); i++) {
		char v1[64], v2[64];
		const char *why;

		n++;
		if (pol_get(pol, name, v1, sizeof(v1)) ||
		    pol_set(pol, name, v1, &why) ||
		    pol_get(pol, name, v2, sizeof(v2)) || strcmp(v1, v2) ||
		    !help || !*help) {
			t_diag("%s: '%s' -> '%s'", name, v1, v2);
			bad++;
		}
	}
	t_ok(n > 30, "%u tunables listed", n);
	t_eq(bad, 0, "each reads back the value written, and has help");
}

static void test_values(struct pol *pol)
{
	const char *why = NULL;
	char v[64];

	t_eq(pol_set(pol, "vm.nope", "1", &why), -ENOENT, "unknown key");
	t_ok(why && strstr(why, "unknown tunable"), "with a reason");
	t_eq(pol_set(pol, "vm.swappiness", "201", &why), -ERANGE,
	     "swappiness 201 out of range");
	t_eq(pol_set(pol, "vm.swappiness", "sixty", &why), -EINVAL,
	     "not a number");
	t_eq(pol_set(pol, "vm.swappiness", "", &why), -EINVAL, "empty");
	t_eq(pol_set(pol, "vm.min_filelist_kbytes", "-5", &why), -ERANGE,
	     "negative min_filelist_kbytes refused (the RFC accepted it)");
	t_eq(pol_set(pol, "use_once_mapped", "maybe", &why), -EINVAL,
	     "a switch takes on or off");
	t_eq(pol_set(pol, "vm.balance.mode", "root56", &why), -EINVAL,
	     "an unknown mode");
	t_eq(pol_set(pol, "vm.swappiness", "99999999999999999999", &why),
	     -ERANGE, "overflow");
	t_eq(pol_set(pol, "use_once_mapped", "0", NULL), 0, "0 means off");
	pol_get(pol, "use_once_mapped", v, sizeof(v));
	t_ok(!strcmp(v, "off"), "and reads back as off");
	t_eq(pol_set(pol, "vm.cache_trim_retry", "on", NULL), 0,
	     "reclaim-policy.md names work as aliases");
	pol_get(pol, "cache_trim_retry", v, sizeof(v));
	t_ok(!strcmp(v, "on"), "the alias sets the switch");
}

static void test_groups(struct pol *pol)
{
	const char *why;
	char v[64];

	t_eq(pol_set(pol, "memory.low@nobody", "1M", &why), -ENOENT,
	     "memory.low of an unknown group");
	t_ok(pol_group_create(pol, "web", POL_ROOT) > 0, "group created");
	t_eq(pol_group_create(pol, "web", POL_ROOT), -EEXIST, "but not twice");
	t_eq(pol_group_create(pol, "a/b", POL_ROOT), -EINVAL, "bad name");
	t_eq(pol_set(pol, "memory.low@web", "64M", NULL), 0, "memory.low");
	pol_get(pol, "memory.low@web", v, sizeof(v));
	t_ok(!strcmp(v, "67108864"), "reads back in bytes (%s)", v);
	pol_get(pol, "memory.max@web", v, sizeof(v));
	t_ok(!strcmp(v, "max"), "memory.max defaults to max");
	t_eq(pol_set(pol, "memory.max@web", "lots", &why), -EINVAL,
	     "bad size");
	t_eq(pol_set(pol, "memory.high@web", "1M", &why), -ENOENT,
	     "memory.high is not a knob here");
}

static void test_seed000_compound(struct pol *pol)
{
	char mode[32], rule[32];

	pol_set(pol, "refault_scan_anon", "off", NULL);
	pol_get(pol, "vm.balance.mode", mode, sizeof(mode));
	pol_get(pol, "vm.workingset.size_rule", rule, sizeof(rule));
	t_ok(!strcmp(mode, "legacy419") && !strcmp(rule, "file_active47"),
	     "refault_scan_anon=off: the 5.2 balance and refault sizing");
	pol_set(pol, "refault_scan_anon", "on", NULL);
	pol_get(pol, "vm.balance.mode", mode, sizeof(mode));
	pol_get(pol, "vm.workingset.size_rule", rule, sizeof(rule));
	t_ok(!strcmp(mode, "root55") && !strcmp(rule, "full59"),
	     "on: the modern forms again");
	pol_set(pol, "vm.balance.mode", "seed000", NULL);
	pol_set(pol, "refault_scan_anon", "on", NULL);
	pol_get(pol, "vm.balance.mode", mode, sizeof(mode));
	t_ok(!strcmp(mode, "seed000"), "on keeps a chosen seed000 mode");
	pol_get(pol, "refault_scan_anon", mode, sizeof(mode));
	t_ok(!strcmp(mode, "on"), "which reads as on");
}

static void test_watermarks(void)
{
	struct t_be be = { 0 };
	struct pol *pol = t_pol(&be, 131072, 131072);
	uint64_t min, low, high;
	char v[32];

	pol_watermarks(pol, &min, &low, &high);
	t_eq(min, 724, "512M: min 724 pages (2.8 MB)");
	t_eq(low, 905, "low 905 pages (3.5 MB)");
	t_eq(high, 1086, "high 1086 pages (4.2 MB)");
	pol_get(pol, "vm.min_free_kbytes", v, sizeof(v));
	t_ok(!strcmp(v, "2896"), "vm.min_free_kbytes reads the derived 2896");
	pol_set(pol, "vm.watermark_scale_factor", "100", NULL);
	pol_watermarks(pol, &min, &low, &high);
	t_eq(low - min, 1310, "scale factor 100: gaps of 1%% of memory");
	pol_set(pol, "mem", "256M", NULL);
	pol_watermarks(pol, &min, &low, &high);
	t_eq(pol_free_pages(pol), 65536, "mem=256M halves the budget");
	t_eq(min, 512, "and the watermarks follow (min 2048 KB)");
	t_eq(pol_set(pol, "mem", "1G", NULL), -ERANGE,
	     "the budget cannot outgrow the descriptors");
	t_eq(pol_set(pol, "vm.min_free_kbytes", "8192", NULL), 0,
	     "min_free_kbytes set by hand");
	pol_watermarks(pol, &min, &low, &high);
	t_eq(min, 2048, "is used as given");
	t_pol_free(pol);
}

int main(void)
{
	struct t_be be = { 0 };
	struct pol *pol = t_pol(&be, 1024, 1024);

	test_round_trip(pol);
	test_values(pol);
	test_groups(pol);
	test_seed000_compound(pol);
	t_check(pol, "tunables");
	t_pol_free(pol);
	test_watermarks();
	return t_done();
}
