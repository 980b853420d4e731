/* SPDX-License-Identifier: MIT */
/*
 * ctl-lru-gen.c - the control commands of MGLRU's debugfs files
 * (docs/protocol.md): /sys/kernel/debug/lru_gen and lru_gen_full read,
 * and its aging and eviction commands written.
 *
 *   lru_gen show [full]    the file's lines, then ok
 *   lru_gen cmd TEXT...    "+ memcg_id node_id max_gen_nr ..." or "- ...",
 *                          several separated by ',' or ';': ok, or the
 *                          kernel's error for the first bad one
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"
#include "../pgr.h"
#include "ctl-req.h"

static void show(struct req *r, bool full)
{
	size_t len = pol_lru_gen_show(r->p->pol, full, NULL, 0) + 1;
	char *text = pgr_xcalloc(1, len), *line = text;

	pol_lru_gen_show(r->p->pol, full, text, len);
	while (*line) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = 0;
		reply(r, "%s", line);
		if (!nl)
			break;
		line = nl + 1;
	}
	free(text);
	reply(r, "ok");
}

static void cmd(struct req *r)
{
	char text[512];
	size_t n = 0;
	const char *why = NULL;
	int err;

	for (int i = 2; i < r->argc; i++) {
		size_t k = strlen(r->argv[i]);

		if (n + k + 2 > sizeof(text)) {
			fail(r, "lru_gen: command too long");
			return;
		}
		memcpy(text + n, r->argv[i], k);
		n += k;
		text[n++] = ' ';
	}
	text[n ? n - 1 : 0] = 0;
	err = pol_lru_gen_cmd(r->p->pol, text, &why);
	if (err)
		fail(r, "lru_gen: %s: %s (%s)", text, why ? why : "failed",
		     err == -EEXIST ? "EEXIST" : "EINVAL");
	else
		reply(r, "ok");
}

bool pgr_ctl_lru_gen(struct req *r)
{
	if (strcmp(r->argv[0], "lru_gen"))
		return false;
	if (r->argc == 2 && !strcmp(r->argv[1], "show"))
		show(r, false);
	else if (r->argc == 3 && !strcmp(r->argv[1], "show") &&
		 !strcmp(r->argv[2], "full"))
		show(r, true);
	else if (r->argc > 2 && !strcmp(r->argv[1], "cmd"))
		cmd(r);
	else
		fail(r, "lru_gen: expected show [full] or cmd TEXT");
	return true;
}
