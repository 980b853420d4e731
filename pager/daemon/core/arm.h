/* SPDX-License-Identifier: MIT */
/*
 * arm.h - what arm.c offers the rest of the daemon: arming pages (the
 * emulated young bit) through the agents.
 */
#ifndef PGR_DAEMON_ARM_H
#define PGR_DAEMON_ARM_H

#include "../pgr.h"

/* Arm present page @i (it joins its client's batch); 0 or -EAGAIN. */
int pgr_arm(struct pgr *p, uint32_t page);
/* Queue [addr, addr + page) of @c for a DONTNEED that keeps no copy. */
void pgr_ask_file(struct client *c, uint64_t addr);
/* Send the DONTNEED batches the scans asked for. */
void pgr_flush_asks(struct pgr *p);
/* A line (with @fd, if not -1) for @c's agent: 0 or -errno. */
int pgr_agent_send(struct client *c, const char *line, int fd);
/* [from, from + len) of @c moved to @to (mremap): the pages being armed
 * there are found at their new addresses when the agent answers (its
 * madvise of the old range met nothing: they stay mapped). */
void pgr_arm_moved(struct client *c, uint64_t from, uint64_t to, uint64_t len);
/* How the agent's answer says it dropped a request's pages. */
enum agent_drop {
	DROP_MADVISED,	/* "done": MADV_DONTNEED (or nothing, no agent) */
	DROP_MOVED,	/* "moved": UFFDIO_MOVE, but the "fell" pages */
	DROP_UNKNOWN,	/* the agent is gone: the page tables tell */
};
/* The agent finished request @id: settle the pages it covered. */
void pgr_agent_done(struct pgr *p, struct client *c, uint64_t id,
		    enum agent_drop how);
/* "fell ID START LEN": pages of request @id the agent dropped by
 * madvise, not moved, at the addresses the request named. */
void pgr_agent_fell(struct pgr *p, struct client *c, uint64_t id,
		    uint64_t start, uint64_t len);

#endif /* PGR_DAEMON_ARM_H */
