/* SPDX-License-Identifier: MIT */
/*
 * demote.h - what demote.c offers the rest of the daemon: a cached file
 * handed back to the kernel, its mappings replaced by the file's own.
 */
#ifndef PGR_DAEMON_DEMOTE_H
#define PGR_DAEMON_DEMOTE_H

#include "../pgr.h"

/* Hand inode @ino back (@why says why, for the log); the answers
 * waiting on it go when it is done. */
void pgr_demote(struct pgr *p, uint32_t ino, const char *why);
/* A fanotify permission event's descriptor, to allow once @ino is
 * handed back. */
void pgr_demote_wait_fan(struct pgr *p, uint32_t ino, int event_fd);
/* A seccomp notification (listener @lfd, @id) to continue once every
 * inode it waits on is handed back: *@waits counts them, the caller's. */
struct pgr_notif_wait;
struct pgr_notif_wait *pgr_demote_notif(int lfd, uint64_t id);
void pgr_demote_wait_notif(struct pgr *p, uint32_t ino,
			   struct pgr_notif_wait *w);
/* Drop the caller's own hold on @w: it answers when none is left. */
void pgr_demote_notif_put(struct pgr_notif_wait *w);
/* The agent replaced [start, start + len) of @c (err 0) or could not. */
void pgr_demote_done(struct pgr *p, struct client *c, uint64_t start,
		     int err);
/* Finish what is handed back (before the loop waits). */
void pgr_demote_step(struct pgr *p);

#endif /* PGR_DAEMON_DEMOTE_H */
