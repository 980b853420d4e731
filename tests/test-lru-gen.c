/* SPDX-License-Identifier: MIT */
/*
 * test-lru-gen.c - MGLRU's user-visible interface (mglru.md §7, §10 #1
 * and #19): lru_gen.enabled's values and read-back, the debugfs files'
 * exact text, and the commands with the kernel's errors.
 */
#include <errno.h>
#include <string.h>

#include "../policy/pol.h"
#include "t-sim.h"
#include "tap.h"

static char text[4096];

static const char *show(struct pol *pol, bool full)
{
	pol_lru_gen_show(pol, full, text, sizeof(text));
	return text;
}

int main(void)
{
	struct t_be be = { .swap_total = 1024, .swap_free = 1024 };
	struct pol *pol = t_pol(&be, 256, 256);
	char buf[64];
	const char *why;

	/* enabled: y, n, masks; the walk bits are not shown (§2.7) */
	t_eq(pol_lru_gen_cmd(pol, "+ 1 0 3", &why), -EINVAL,
	     "commands need lru_gen.enabled (%s)", why ? why : "");
	t_eq(pol_set(pol, "lru_gen.enabled", "y", &why), 0, "enabled=y");
	pol_get(pol, "lru_gen.enabled", buf, sizeof(buf));
	t_ok(!strcmp(buf, "0x0001"), "y reads back 0x0001 (%s)", buf);
	t_eq(pol_set(pol, "/sys/kernel/mm/lru_gen/enabled", "0x0007", &why), 0,
	     "the sysfs path and a hex mask are taken");
	pol_get(pol, "lru_gen.enabled", buf, sizeof(buf));
	t_ok(!strcmp(buf, "0x0001"), "0x0007 reads back 0x0001 (%s)", buf);
	t_eq(pol_set(pol, "lru_gen.enabled", "0", &why), 0, "0 turns it off");
	pol_get(pol, "lru_gen.enabled", buf, sizeof(buf));
	t_ok(!strcmp(buf, "0x0000"), "and reads back 0x0000 (%s)", buf);
	t_ok(pol_set(pol, "lru_gen.enabled", "maybe", &why) < 0 && why,
	     "a word is refused with a reason (%s)", why ? why : "");
	t_ok(pol_set(pol, "lru_gen.enabled", "0x", &why) < 0,
	     "a bare 0x is refused");
	t_eq(pol_set(pol, "lru_gen.enabled", "5", &why), 0, "5 is a mask");

	/* §10 #1: the initial state, the exact format of §7.2 */
	t_ok(!strcmp(show(pol, false),
		     "memcg     1 /\n"
		     " node     0\n"
		     "          0          0          0           0 \n"
		     "          1          0          0           0 \n"
		     "          2          0          0           0 \n"
		     "          3          0          0           0 \n"),
	     "lru_gen: seqs 0..3, ages 0 (no clock), no pages:\n%s", text);
	show(pol, true);
	t_ok(strstr(text, "          3          0          0           0 \n"
			  "                     0          0R          0T"
			  "          0x          0R          0T          0x\n") &&
	     strstr(text, "          0          0          0           0 \n"
			  "                     0          0r          0e"
			  "          0p          0r          0e          0p\n"),
	     "lru_gen_full: R T x on max_seq, r e p on min_seq:\n%s", text);
	t_eq(pol_lru_gen_show(pol, false, NULL, 0), strlen(show(pol, false)),
	     "the length needed is given with no buffer");

	/* §10 #19: commands and the kernel's errors */
	t_eq(pol_lru_gen_cmd(pol, "+ 1 0 4", &why), -EINVAL,
	     "+ past max_seq: EINVAL (%s)", why);
	t_eq(pol_lru_gen_cmd(pol, "+ 2 0 3", &why), -EINVAL,
	     "an unknown memcg id: EINVAL (%s)", why);
	t_eq(pol_lru_gen_cmd(pol, "+ 1 1 3", &why), -EINVAL,
	     "node 1: EINVAL (%s)", why);
	t_eq(pol_lru_gen_cmd(pol, "- 1 0 2", &why), -EINVAL,
	     "- of a generation closer than two to max_seq: EINVAL (%s)", why);
	t_eq(pol_lru_gen_cmd(pol, "+ 1 0 3 202", &why), -EINVAL,
	     "swappiness 202: EINVAL (%s)", why);
	t_eq(pol_lru_gen_cmd(pol, "+ 1 0 3 junk", &why), -EINVAL,
	     "trailing text: EINVAL (%s)", why);
	t_eq(pol_lru_gen_cmd(pol, "* 1 0 3", &why), -EINVAL,
	     "an unknown command: EINVAL (%s)", why);
	t_eq(pol_lru_gen_cmd(pol, "+ 1 0", &why), -EINVAL,
	     "two numbers: EINVAL (%s)", why);
	t_eq(pol_lru_gen_cmd(pol, " + 1 0 3 ; ,\n+ 1 0 4 201 1", &why), 0,
	     "two agings, spaces and empty parts skipped");
	show(pol, false);
	t_ok(strstr(text, "          5          0") && !strstr(text, "\n          6"),
	     "max_seq is 5:\n%s", text);
	t_eq(pol_lru_gen_cmd(pol, "+ 1 0 5; + 1 0 9; + 1 0 5", &why), -EINVAL,
	     "the first error stops the rest (%s)", why);
	show(pol, false);
	t_ok(strstr(text, "          6          0") && !strstr(text, "\n          7"),
	     "only the first aging ran:\n%s", text);
	t_eq(pol_lru_gen_cmd(pol, "- 1 0 4 0 100", &why), 0,
	     "- 1 0 4, file only, at most 100 pages: nothing to evict, ok");
	t_pol_free(pol);
	return t_done();
}
