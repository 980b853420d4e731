/* SPDX-License-Identifier: MIT */
/*
 * trace-flat.c - traces without mappings: `pages` (one page number per
 * line, all in one anonymous region) and valgrind's lackey log (every
 * I, L, S or M line an access to the 4 KiB page of its address).
 *
 * Page numbers are given dense offsets in order of first appearance, so
 * any address space fits a region the size of the pages it touches.
 * Lackey's instruction fetches go to a private executable file mapping,
 * as a program's text is; loads and stores to anon memory, unless the
 * page was first seen as text.
 */
#include <errno.h>
#include <string.h>

#include "../lib/hmap.h"
#include "../lib/linesrc.h"
#include "trace-build.h"
#include "../lib/util.h"

static uint32_t dense(struct hmap *m, uint64_t key)
{
	uint32_t v = hmap_get(m, key);

	if (v == UINT32_MAX) {
		v = (uint32_t)m->nr;
		hmap_put(m, key, v);
	}
	return v;
}

static char *skip_blank(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

int trace_read_pages(struct tb *b, struct linesrc *ls)
{
	uint32_t region = tb_flat_region(b, false);
	unsigned int line = 0;
	struct hmap pages;
	char *s;
	int err = 0;

	hmap_init(&pages);
	while (!err && (s = ls_line(ls))) {
		uint64_t page;
		char *end;

		line++;
		s = skip_blank(s);
		if (!*s || *s == '#')
			continue;
		end = s;
		while (*end >= '0' && *end <= '9')
			end++;
		if (*skip_blank(end) != 0) {
			err = tb_error(b, line, "expected a page number, got "
				       "'%.40s'", s);
			break;
		}
		*end = 0;
		if (pgr_parse_u64(s, &page) || page >= (UINT64_C(1) << 36)) {
			err = tb_error(b, line, "page number out of range");
			break;
		}
		if (pages.nr >= UINT32_MAX / 2) {
			err = tb_error(b, line, "too many distinct pages");
			break;
		}
		tb_flat_access(b, region, dense(&pages, page), false);
	}
	hmap_release(&pages);
	return err;
}

int trace_read_lackey(struct tb *b, struct linesrc *ls)
{
	uint32_t data = tb_flat_region(b, false);
	uint32_t text = tb_flat_region(b, true);
	struct hmap dpages, tpages;
	unsigned int line = 0;
	char *s;
	int err = 0;

	hmap_init(&dpages);
	hmap_init(&tpages);
	while (!err && (s = ls_line(ls))) {
		uint64_t addr, page;
		char kind, *comma, hex[24];
		uint32_t t;

		line++;
		if (!strncmp(s, "==", 2) || !*skip_blank(s))
			continue;	/* valgrind's own messages */
		kind = s[0] == ' ' ? s[1] : s[0];
		comma = strchr(s, ',');
		if (!strchr("ILSM", kind) || !comma ||
		    (s[0] == 'I' && s[1] != ' ') || (s[0] == ' ' && s[2] != ' ')) {
			err = tb_error(b, line, "not a lackey line: '%.40s'", s);
			break;
		}
		*comma = 0;
		/* lackey prints addresses in hex, without 0x. */
		snprintf(hex, sizeof(hex), "0x%.20s", skip_blank(s + 2));
		if (pgr_parse_u64(hex, &addr) || addr >= (UINT64_C(1) << 48)) {
			err = tb_error(b, line, "bad address '%.20s'", s + 2);
			break;
		}
		page = addr >> PAGE_SHIFT;
		if (dpages.nr + tpages.nr >= UINT32_MAX / 2) {
			err = tb_error(b, line, "too many distinct pages");
			break;
		}
		t = hmap_get(&tpages, page);
		if (kind == 'I' || t != UINT32_MAX)
			tb_flat_access(b, text, dense(&tpages, page),
				       kind == 'S' || kind == 'M');
		else
			tb_flat_access(b, data, dense(&dpages, page),
				       kind == 'S' || kind == 'M');
	}
	hmap_release(&dpages);
	hmap_release(&tpages);
	return err;
}
