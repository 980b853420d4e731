/* SPDX-License-Identifier: MIT */
/*
 * events.h - what events.c offers the rest of the daemon: a client's
 * userfaultfd messages, each to its handler.
 */
#ifndef PGR_DAEMON_EVENTS_H
#define PGR_DAEMON_EVENTS_H

#include "../pgr.h"

/* Serve what @c's userfaultfd holds, and spin a while for more. */
void pgr_uffd_ready(struct pgr *p, struct client *c);

/* A move's old range [start, end) stays mapped (MREMAP_DONTUNMAP): no
 * UNMAP of it is to come. */
void pgr_vacated_forget(struct client *c, uint64_t start, uint64_t end);

#endif /* PGR_DAEMON_EVENTS_H */
