/* SPDX-License-Identifier: MIT */
/*
 * ring.h - the daemon's io_uring (ring.c): I/O queued, submitted before
 * the loop waits, completions handed to the handler of their kind.
 */
#ifndef PGR_DAEMON_RING_H
#define PGR_DAEMON_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pgr;

enum pgr_io_kind {
	PGR_IO_SWAP_READ,	/* arg: the page whose buffer is read into */
	PGR_IO_SWAP_WRITE,	/* arg: the page written out */
	PGR_IO_FILE_READ,	/* arg: the reader's record, 8-byte aligned */
	PGR_IO_FILE_WRITE,	/* arg: inode << 40 | file page written back */
	PGR_IO_KINDS
};

/* What the ring calls: a completion's handler by its kind (@res is the
 * CQE's: bytes, or -errno), then after() once a reap has handed on all it
 * found. A store that does its own I/O (Redis) is pushed and polled with
 * the ring: submit() when the ring submits, poll() when it looks for
 * completions (either may be NULL). They are the ring's handlers, so
 * that the ring includes no store. */
struct pgr_ring_ops {
	void (*done[PGR_IO_KINDS])(struct pgr *p, uint64_t arg, int res);
	void (*after)(struct pgr *p);
	void (*submit)(struct pgr *p);
	void (*poll)(struct pgr *p);
};

int pgr_ring_open(struct pgr *p, const struct pgr_ring_ops *ops);
void pgr_ring_close(struct pgr *p);
/* Queue a read (or write) of @len bytes at @off of @fd to (from) @buf;
 * submitted before the loop next waits. 0, or -EBUSY (the ring is full
 * even after a submit). */
int pgr_ring_queue(struct pgr *p, int fd, void *buf, size_t len, off_t off,
		   bool write, enum pgr_io_kind kind, uint64_t arg);
/* I/O done already, with result @res (a store without a device): its
 * completion is handed on when the loop next reaps, as the ring's are. */
void pgr_ring_done(struct pgr *p, bool write, enum pgr_io_kind kind,
		   uint64_t arg, int res);
/* The same in two steps, for a store that answers later (redis.c): I/O
 * in flight from _start() on, its completion handed on as the ring's
 * when the loop next reaps after _finish(). */
void pgr_ring_start(struct pgr *p, bool write);
void pgr_ring_finish(struct pgr *p, enum pgr_io_kind kind, uint64_t arg,
		     int res);
/* Submit the I/O queued so far. */
void pgr_ring_submit(struct pgr *p);
/* Are completions waiting to be reaped? */
bool pgr_ring_completed(struct pgr *p);
/* Hand every completion to its handler, then call after(). */
void pgr_ring_reap(struct pgr *p);

#endif /* PGR_DAEMON_RING_H */
