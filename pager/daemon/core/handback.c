/* SPDX-License-Identifier: MIT */
/*
 * handback.c - a range of a program's anonymous memory handed back to
 * the kernel, because the program's own userfaultfd wants it.
 *
 * A range has one userfaultfd: the pager's registration makes the
 * program's UFFDIO_REGISTER fail with EBUSY (QEMU's post-copy, CRIU's
 * lazy pages, ART's collector register their own). The shim's ioctl
 * (pager/shim/uffd.c) then asks "handback START LEN". Each page the
 * pager holds there is put back in the program's page table as the
 * kernel's own: a present one is left there, write-protection lifted; an
 * armed one is copied back from its buffer. Its descriptor is freed, its
 * slot FOREIGN, so it is no longer charged. A page in swap, or in
 * flight (armed, being read), cannot be given back at once: the answer
 * names them (up to 256, a line each) and says "error busy
 * N"; the shim reads those pages, faulting them in, and asks again. Once every page is the kernel's, the range is
 * unregistered from the pager's userfaultfd, cut out of its regions and
 * left out of later rescans: the program's registration succeeds.
 * Counted in pager_handback_pages and pager_handback_ranges.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../pgr.h"
#include "../uffd.h"
#include "core.h"

/* Give page @off of @r back to the kernel: 0, or -EAGAIN if not now. */
static int give(struct pgr *p, struct client *c, struct region *r,
		uint32_t off)
{
	uint64_t v = r->slot[off], addr = r->start + (uint64_t)off * PGR_PAGE;
	uint32_t i = sl_page(v);

	if (v & (SL_ARMING | SL_READING))
		return -EAGAIN;
	if (v & SL_ARMED) {
		struct uffdio_copy cp = {
			.dst = addr, .src = (uintptr_t)pgr_buf(p, p->pages[i].buf),
			.len = PGR_PAGE,
		};

		if (ioctl(c->uffd, UFFDIO_COPY, &cp) && errno != EEXIST)
			return -EAGAIN;
	} else {
		struct uffdio_writeprotect wp = {
			.range = { addr, PGR_PAGE },
		};

		if (ioctl(c->uffd, UFFDIO_WRITEPROTECT, &wp) &&
		    errno == EAGAIN)
			return -EAGAIN;
	}
	r->slot[off] = SL_FOREIGN;
	c->resident--;
	c->foreign++;
	pgr_page_free(p, i);
	p->handback_pages++;
	return 0;
}

int pgr_hand_back(struct pgr *p, struct client *c, uint64_t start,
		  uint64_t end, uint64_t *busy, uint64_t *at, size_t cap)
{
	struct uffdio_range u = { start, end - start };

	*busy = 0;
	for (size_t k = 0; k < c->nr_parked; k++) {
		const struct region *r = &p->regions[c->parked[k]];

		if (r->start < end && r->end > start)
			(*busy)++;	/* its event comes first */
	}
	for (size_t k = pgr_region_after(p, c, start); k < c->nr_regions;
	     k++) {
		struct region *r = &p->regions[c->regions[k]];
		uint64_t lo = r->start > start ? r->start : start;
		uint64_t hi = r->end < end ? r->end : end;

		if (r->start >= end)
			break;
		if (region_is_file(r))
			return -EINVAL;	/* the page cache's memfd */
		for (uint64_t a = lo; a < hi && r->filled; a += PGR_PAGE) {
			uint32_t off = (uint32_t)((a - r->start) / PGR_PAGE);
			unsigned int tag = sl_tag(r->slot[off]);

			if (tag == SL_SWAP ||
			    (tag == SL_PAGE && give(p, c, r, off))) {
				if (*busy < cap)
					at[*busy] = a;
				(*busy)++;
			}
		}
	}
	if (*busy)
		return -EAGAIN;
	if (ioctl(c->uffd, UFFDIO_UNREGISTER, &u))
		return -errno;
	pgr_discard(p, c, start, end, true);
	pgr_grow(&c->excluded, &c->cap_excluded, c->nr_excluded + 1,
		 sizeof(*c->excluded));
	c->excluded[c->nr_excluded++] = (struct range){ .start = start,
							  .end = end };
	p->handback_ranges++;
	pgr_info("0x%llx-0x%llx of %d is handed back to the kernel: the "
		 "program registers it with its own userfaultfd",
		 (unsigned long long)start, (unsigned long long)end, c->pid);
	return 0;
}
