/* SPDX-License-Identifier: MIT */
/*
 * file-map.c - a file mapped into a client: the shim asks for the inode
 * ("file", answered with its memfd, held meanwhile: pgr_file_hand()),
 * maps the memfd over the kernel's mapping and says so ("mapf"); the
 * range becomes a file region, registered for MISSING, MINOR and WP
 * faults (file-fault.c serves them). msync writes its dirty pages back.
 *
 * Owns: the inode handed to a client between its "file" and its "mapf"
 * (struct client's handed).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "../../lib/compat.h"
#include "../../lib/log.h"
#include "../base/base.h"
#include "../cache/cache.h"
#include "../pgr.h"
#include "core.h"

void pgr_file_hand(struct pgr *p, struct client *c, uint32_t ino)
{
	pgr_file_unhand(p, c);
	pol_inode_get(p->pol, ino);
	c->handed = ino + 1;
	c->handed_gen = F(p, ino)->gen;
}

void pgr_file_unhand(struct pgr *p, struct client *c)
{
	if (!c->handed)
		return;
	if (F(p, c->handed - 1)->used && F(p, c->handed - 1)->gen ==
	    c->handed_gen)
		pol_inode_put(p->pol, c->handed - 1);
	c->handed = 0;
}

int pgr_file_map(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t len, uint32_t ino, uint32_t gen, uint64_t pgoff,
		 uint8_t rflags, const char **why)
{
	struct uffdio_register reg = {
		.range = { start, len },
		.mode = UFFDIO_REGISTER_MODE_MISSING |
			UFFDIO_REGISTER_MODE_MINOR | UFFDIO_REGISTER_MODE_WP,
	};
	uint32_t rid;
	struct region *r;

	if (ino >= p->nr_files_max || !F(p, ino)->used ||
	    F(p, ino)->gen != gen) {
		*why = "no such cached inode (dropped meanwhile?)";
		return -ENOENT;
	}
	if (pgr_region_find(p, c, start, &rid) ||
	    pgr_region_find(p, c, start + len - 1, &rid)) {
		*why = "the range is owned already";
		return -EEXIST;
	}
	if (!pgr_region_room(p, c, len / PGR_PAGE)) {
		*why = "too many mappings, or too large a one";
		return -ENOSPC;
	}
	if (ioctl(c->uffd, UFFDIO_REGISTER, &reg)) {
		static char msg[96];

		snprintf(msg, sizeof(msg), "cannot register the mapping with "
			 "userfaultfd: %s", strerror(errno));
		*why = msg;
		return -errno;
	}
	rid = pgr_region_new(p, c, start, start + len);
	r = &p->regions[rid];
	r->inode = ino;
	r->pgoff = pgoff;
	r->rflags = rflags;
	pgr_file_add_mapper(p, rid);
	pgr_rec_mmap(p, c, r);
	pgr_dbg("mapped inode %u at 0x%llx-0x%llx of %d", ino,
		(unsigned long long)start, (unsigned long long)(start + len),
		c->pid);
	return 0;
}

void pgr_file_msync(struct pgr *p, struct client *c, uint64_t start,
		    uint64_t end, struct pgr_drain *d)
{
	for (size_t k = 0; k < c->nr_regions; k++) {
		uint32_t rid = c->regions[k];
		struct region *r = &p->regions[rid];
		uint64_t s = start > r->start ? start : r->start;
		uint64_t e = end < r->end ? end : r->end;

		if (s >= e || !region_is_file(r) || !(r->rflags & R_SHARED))
			continue;
		pgr_file_flush(p, r->inode, r->pgoff + (s - r->start) / PGR_PAGE,
			       r->pgoff + (e - r->start + PGR_PAGE - 1) /
			       PGR_PAGE, PGR_NONE);
		pgr_file_drain(p, r->inode, d);
	}
}
