/* SPDX-License-Identifier: MIT */
/*
 * events.h - what events.c offers the rest of the daemon: a client's
 * userfaultfd messages, each to its handler.
 */
#ifndef PGR_DAEMON_EVENTS_H
#define PGR_DAEMON_EVENTS_H

#include "pgr.h"

/* Serve what @c's userfaultfd holds, and spin a while for more. */
void pgr_uffd_ready(struct pgr *p, struct client *c);

#endif /* PGR_DAEMON_EVENTS_H */
