/* SPDX-License-Identifier: MIT */
/*
 * watch.h - what watch/ offers the other parts: what happens behind the
 * shim's back: the seccomp listener, cached files kept coherent, demotion
 * to the kernel.
 *
 * One section per file of the part. What a file keeps to the part is
 * not here: it is in a header only the part includes, or in the file.
 */
#ifndef PGR_DAEMON_WATCH_H
#define PGR_DAEMON_WATCH_H

#include "../pgr.h"

/*
 * ---- call.c ----
 * A client's mmap and brk, made by its agent so that the pager owns the
 * memory before the call returns.
 */

struct seccomp_notif;
/* Take the notified call @req of client @c (NULL: none) on listener
 * @lfd: true if its agent makes it (answered later; held until the agent
 * runs if it is starting), false if the caller is to continue it. */
bool pgr_call_take(struct pgr *p, struct client *c, int lfd,
		   const struct seccomp_notif *req);
/* @c's agent runs ("ready"): the calls held for it are made. */
void pgr_call_agent_ready(struct pgr *p, struct client *c);
/* "called ID RET OLD" from @c's agent. */
void pgr_call_made(struct pgr *p, struct client *c, uint64_t id, int64_t ret,
		   uint64_t old);
/* @c's agent ended: its calls not made are continued. */
void pgr_call_agent_gone(struct pgr *p, struct client *c);
/* Listener @lfd is closed: its calls' answers go nowhere. */
void pgr_call_listener_gone(struct pgr *p, int lfd);
/* Continue the calls of clients gone (every tick). */
void pgr_call_sweep(struct pgr *p);
/* Continue every call not made (the daemon stops). */
void pgr_call_release(struct pgr *p);

/*
 * ---- demote.c ----
 * A cached file handed back to the kernel, its mappings replaced by the
 * file's own.
 */

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

/*
 * ---- notify.c ----
 * The seccomp user- notification listeners.
 */

int pgr_notify_start(struct pgr *p, int fd);
void pgr_notify_stop(struct pgr *p);
/* A call of listener @lfd was answered: look for the program's next a
 * while, as after a notification, unless its userfaultfd @uffd (-1:
 * none) has a fault first. */
void pgr_notify_answered(struct pgr *p, int lfd, int uffd);
/* Adopt new mappings of clients flagged for a rescan. */
void pgr_rescan(struct pgr *p);

/*
 * ---- seal.c ----
 * A cached file kept coherent with every writer, or handed back.
 */

/* The lease signal and the fanotify group (before confinement). */
int pgr_seal_init(struct pgr *p);
void pgr_seal_release(struct pgr *p);
/*
 * Make inode @ino (just found or made by pgr_file_get() for @c, who will
 * map it, shared and writable if @rw) safe to serve: sealed by a lease if
 * no one can write it, else watched if every writer is a write-through
 * client. 0; -EAGAIN (*why): busy being handed back, ask again soon;
 * another -errno (*why): it stays the kernel's.
 */
int pgr_seal_take(struct pgr *p, struct client *c, uint32_t ino, bool rw,
		  const char **why);
/* @ino is mapped (@exec: executable): code's opens go unwatched while
 * it is sealed (seal.c, "the mark"). */
void pgr_seal_mapped(struct pgr *p, uint32_t ino, bool exec);
/* @c is about to open @ino for writing (or to truncate it): 0 once it
 * may (the inode watched, or handed back), -EAGAIN: ask again soon. */
int pgr_seal_wopen(struct pgr *p, struct client *c, uint32_t ino);
/* Is the process @pid a client whose writes to files all come to us
 * (its shim runs, its agent answers, no io_uring)? */
bool pgr_seal_is_writer_client(struct pgr *p, pid_t pid);
/* A process outside that may write @ino (any that has it open or mapped,
 * if @readers too), 0 if none. */
pid_t pgr_seal_outsider(struct pgr *p, uint32_t ino, bool readers);

#endif /* PGR_DAEMON_WATCH_H */
