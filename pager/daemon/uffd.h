/* SPDX-License-Identifier: MIT */
/*
 * uffd.h - the userfaultfd calls every layer makes (header only).
 */
#ifndef PGR_DAEMON_UFFD_H
#define PGR_DAEMON_UFFD_H

#include <errno.h>
#include <stdbool.h>
#include <sys/ioctl.h>

#include "../lib/compat.h"
#include "pgr.h"

/* Wake the threads waiting on faults of @c in [start, end). */
static inline void pgr_wake(struct pgr *p, struct client *c, uint64_t start,
			    uint64_t end)
{
	struct uffdio_range r = { start, end - start };

	(void)p;
	ioctl(c->uffd, UFFDIO_WAKE, &r);
}

/*
 * Has @c's mm changed in a way whose event (REMAP, UNMAP, REMOVE, FORK)
 * is not read yet? The kernel counts such changes from the change to the
 * reading (mmap_changing) and meanwhile refuses UFFDIO_WRITEPROTECT with
 * EAGAIN before it looks at the range. The range is the lowest a mapping
 * may have (vm.mmap_min_addr's usual 64 KiB), where a program maps
 * nothing: the call is a no-op otherwise. What the maps show while this
 * holds may be past events still to come: nothing is adopted from them.
 */
static inline bool pgr_mm_changing(const struct client *c)
{
	struct uffdio_writeprotect wp = { .range = { 0x10000, 4096 } };

	return ioctl(c->uffd, UFFDIO_WRITEPROTECT, &wp) && errno == EAGAIN;
}

#endif /* PGR_DAEMON_UFFD_H */
