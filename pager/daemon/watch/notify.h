/* SPDX-License-Identifier: MIT */
/*
 * notify.h - what notify.c offers the rest of the daemon: the seccomp user-
 * notification listeners.
 */
#ifndef PGR_DAEMON_NOTIFY_H
#define PGR_DAEMON_NOTIFY_H

#include "../pgr.h"

int pgr_notify_start(struct pgr *p, int fd);
void pgr_notify_stop(struct pgr *p);
/* Adopt new mappings of clients flagged for a rescan. */
void pgr_rescan(struct pgr *p);

#endif /* PGR_DAEMON_NOTIFY_H */
