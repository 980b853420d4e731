/* SPDX-License-Identifier: MIT */
/*
 * seal.h - what seal.c offers the rest of the daemon: a cached file kept
 * coherent with every writer, or handed back.
 */
#ifndef PGR_DAEMON_SEAL_H
#define PGR_DAEMON_SEAL_H

#include "../pgr.h"

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
/* @c is about to open @ino for writing (or to truncate it): 0 once it
 * may (the inode watched, or handed back), -EAGAIN: ask again soon. */
int pgr_seal_wopen(struct pgr *p, struct client *c, uint32_t ino);
/* Is the process @pid a client whose writes to files all come to us
 * (its shim runs, its agent answers, no io_uring)? */
bool pgr_seal_is_writer_client(struct pgr *p, pid_t pid);
/* A process outside that may write @ino (any that has it open or mapped,
 * if @readers too), 0 if none. */
pid_t pgr_seal_outsider(struct pgr *p, uint32_t ino, bool readers);

#endif /* PGR_DAEMON_SEAL_H */
