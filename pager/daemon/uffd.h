/* SPDX-License-Identifier: MIT */
/*
 * uffd.h - the userfaultfd calls every layer makes (header only).
 */
#ifndef PGR_DAEMON_UFFD_H
#define PGR_DAEMON_UFFD_H

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

#endif /* PGR_DAEMON_UFFD_H */
