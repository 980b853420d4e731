/* SPDX-License-Identifier: MIT */
/*
 * oom.h - what oom.c offers the rest of the daemon: ending clients, and the
 * OOM killer.
 */
#ifndef PGR_DAEMON_OOM_H
#define PGR_DAEMON_OOM_H

#include "pgr.h"

/* Out of memory in @group: SIGKILL the client with the highest badness
 * (resident pages + swap entries) in it, and say so. @for_client is the
 * one whose fault needed the page (for the message). */
void pgr_oom(struct pgr *p, int group, struct client *for_client);
/* End @c (SIGKILL) with a reason, e.g. a failed swap read. */
void pgr_kill(struct pgr *p, struct client *c, const char *why);

#endif /* PGR_DAEMON_OOM_H */
