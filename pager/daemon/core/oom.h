/* SPDX-License-Identifier: MIT */
/*
 * oom.h - what oom.c offers the rest of the daemon: ending clients, and the
 * OOM killer.
 */
#ifndef PGR_DAEMON_OOM_H
#define PGR_DAEMON_OOM_H

#include "../pgr.h"

/* Out of memory in @group: SIGKILL the client with the highest badness
 * (resident pages + swap entries) in it, and say so. @for_client is the
 * one whose fault needed the page (for the message). */
void pgr_oom(struct pgr *p, int group, struct client *for_client);
/* End @c (SIGKILL) with a reason, e.g. a failed swap read. */
void pgr_kill(struct pgr *p, struct client *c, const char *why);
/* A swap store's server went (redis.c) since the last call: every
 * process with a page on a server that is gone is killed, told why. The
 * last one's pid, or 0. */
pid_t pgr_kill_store_lost(struct pgr *p);

#endif /* PGR_DAEMON_OOM_H */
