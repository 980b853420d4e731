/* SPDX-License-Identifier: MIT */
/*
 * events.c - a client's userfaultfd: its messages read, each to its
 * handler. Page faults go to fault.c (anon) and file-fault.c (file
 * regions), after the fault's thread has told a fork child's pid; FORK
 * makes the child's client (its regions copied, region.c); REMAP, REMOVE
 * and UNMAP change the regions (region.c).
 *
 * Reading goes on while messages come, then polls the empty userfaultfd
 * a while before the loop sleeps: on a VM the daemon's wakeup is the
 * costliest part of a fault. The while adapts to the daemon's waits
 * between faults, up to fault_spin_us (spin.c, as KVM's halt polling).
 *
 * Owns: nothing: a message is read and handed on.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/compat.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../pgr.h"
#include "core.h"
#include "maps.h"
#define SPIN_IO_US 500		/* longest spin for a swap read */
#define SLICE_US 2000		/* longest stay with one userfaultfd */

static void removed(struct pgr *p, struct client *c, uint64_t start,
		    uint64_t end)
{
	pgr_discard(p, c, start, end, false);
}

/*
 * A move (mremap) is two events: REMAP, then, once the mover has seen it
 * read, UNMAP of the old range. Another thread may map that range between
 * the two, and even have its own REMAP or mapping read first (a thread
 * moving a mapping there, as Chromium's allocator does): the late UNMAP
 * would then cut the newcomer's region, and its next fault would find a
 * registered mapping no region knows (a file's: the process killed;
 * anon: its evicted pages lost). pgr_remap() has cut the old range
 * already, so that UNMAP is only consumed. The range is remembered
 * exactly (the kernel's UNMAP of a move names [from, from + old length),
 * as its REMAP does), the oldest forgotten past PGR_VACATED.
 * MREMAP_DONTUNMAP sends no UNMAP: the shim says so ("kept"), or the
 * entry would take the program's own later munmap of that range for it.
 */
static void vacated(struct client *c, uint64_t start, uint64_t end)
{
	if (c->nr_vacated == PGR_VACATED) {
		memmove(&c->vacated[0], &c->vacated[1],
			(PGR_VACATED - 1) * sizeof(c->vacated[0]));
		c->nr_vacated--;
	}
	c->vacated[c->nr_vacated++] = (struct range){ .start = start,
						       .end = end };
}

/* Is [start, end) a move's old range, awaited? Forget it if so. */
static bool was_vacated(struct client *c, uint64_t start, uint64_t end)
{
	for (unsigned int k = 0; k < c->nr_vacated; k++) {
		if (c->vacated[k].start != start || c->vacated[k].end != end)
			continue;
		memmove(&c->vacated[k], &c->vacated[k + 1],
			(c->nr_vacated - k - 1) * sizeof(c->vacated[0]));
		c->nr_vacated--;
		return true;
	}
	return false;
}

void pgr_vacated_forget(struct client *c, uint64_t start, uint64_t end)
{
	was_vacated(c, start, end);
}

static void on_fork(struct pgr *p, struct client *parent, int ufd)
{
	struct client *child;

	fcntl(ufd, F_SETFL, fcntl(ufd, F_GETFL) | O_NONBLOCK);
	child = pgr_client_new(p, 0, ufd);
	if (!child) {
		pgr_err("too many clients: the child of %d is unmanaged",
			parent->pid);
		close(ufd);
		return;
	}
	child->group = parent->group;
	child->parent = parent->pid;
	for (size_t k = 0; k < parent->nr_excluded; k++) {
		pgr_grow(&child->excluded, &child->cap_excluded,
			 child->nr_excluded + 1, sizeof(*child->excluded));
		child->excluded[child->nr_excluded++] = parent->excluded[k];
	}
	if (pgr_fork_regions(p, parent, child)) {
		pgr_err("cannot give the child of %d its copy of the pages "
			"the pager held: it is stopped at its first fault",
			parent->pid);
		child->doomed = true;
	}
	pgr_client_watch(p, child);
	pgr_dbg("fork of %d: a new client waits for its pid", parent->pid);
}

static bool is_client(void *p, pid_t pid)
{
	return pgr_client_find(p, pid) != NULL;
}

/*
 * Is the fault at @addr (@wp: a write-protect fault) resolved in process
 * @pid's page table: the page present or swapped, or its protection
 * lifted? -1 if it cannot be read.
 */
static int resolved(pid_t pid, uint64_t addr, bool wp)
{
	uint64_t e = pgr_pid_pagemap(pid, addr);

	if (e == ~0ULL)
		return -1;
	return wp ? (e >> 63) && !((e >> 57) & 1) : (e >> 62) != 0;
}

/* Those of @kids[@n] where the fault at @addr is (@is) or is not
 * resolved, into @out; their number. */
static int sift(const pid_t *kids, int n, uint64_t addr, bool wp, bool is,
		pid_t *out)
{
	int kept = 0;

	for (int k = 0; k < n; k++)
		if (resolved(kids[k], addr, wp) == (int)is)
			out[kept++] = kids[k];
	return kept;
}

/* What pair() found for a fault of an unpaired client. */
enum pairing {
	PAIR_SERVE,		/* paired, or its own process: serve it */
	PAIR_WAIT,		/* no process of ours: the fault waits */
	PAIR_SERVE_TELL,	/* twins: serve it, then tell() which */
};

/* The twins still candidates for a fault (those where it is
 * unresolved); @n 0 if their page tables could not tell them apart. */
struct twins {
	int n;
	pid_t pid[16];
};

/*
 * A fault at @addr by thread @tid on an unpaired client (a fork child):
 * learn its process from the thread. @tid is the number the thread's own
 * PID namespace gives it (a child cloned into a new one is 1 there):
 * first among the parent's children (base/nspid.c). Children that are
 * each 1 in a namespace of their own (Chromium's zygote clones its
 * renderers so) are told apart by their page tables: the faulting one
 * has the fault unresolved; if more than one has, the fault is served
 * (the userfaultfd's mm is the faulting child's, whoever it is) and
 * tell() looks for the one where it is resolved now, into @t.
 */
static enum pairing pair(struct pgr *p, struct client *c, pid_t tid,
			 uint64_t addr, bool wp, struct twins *t)
{
	pid_t kids[16];
	int n = c->parent ? pgr_ns_children(c->parent, tid, is_client, p,
					   kids, 16) : 0;

	if (n > 16)
		n = 16;
	t->n = n > 1 ? sift(kids, n, addr, wp, false, t->pid) : 0;
	if (t->n == 1)
		kids[0] = t->pid[0], n = 1;
	if (n == 1) {
		pgr_client_set_pid(p, c, kids[0]);
		return PAIR_SERVE;
	}
	if (n > 1)
		return PAIR_SERVE_TELL;	/* or its next fault tells */
	if (c->parent && pgr_ns_nested(c->parent)) {
		/* Not its parent's child, and @tid is no number of ours. */
		pgr_err("a child of %d (%d in its PID namespace) is not found "
			"among its children: its faults wait", (int)c->parent,
			(int)tid);
		return PAIR_WAIT;
	}
	pgr_client_set_pid(p, c, pgr_tgid_of(tid));
	return PAIR_SERVE;
}

/* After the fault at @addr was served for @c: the one of @t where it
 * is resolved now is @c's process, if just one is. */
static void tell(struct pgr *p, struct client *c, const struct twins *t,
		 uint64_t addr, bool wp)
{
	pid_t now[16];

	if (t->n < 2 || sift(t->pid, t->n, addr, wp, true, now) != 1)
		return;
	pgr_client_set_pid(p, c, now[0]);
	pgr_dbg("fork child %d of %d told by its page 0x%llx", (int)now[0],
		(int)c->parent, (unsigned long long)addr);
}

static void handle(struct pgr *p, struct client *c, const struct uffd_msg *m)
{
	switch (m->event) {
	case UFFD_EVENT_PAGEFAULT: {
		uint64_t addr = m->arg.pagefault.address & ~(uint64_t)(PGR_PAGE - 1);
		bool write = m->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE;
		bool wp = m->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP;
		enum pairing how = PAIR_SERVE;
		struct twins t;
		enum pgr_served s;

		if (!c->pid && !c->doomed)
			how = pair(p, c, (pid_t)m->arg.pagefault.feat.ptid,
				   addr, wp, &t);
		if (how == PAIR_WAIT)
			break;
		if (c->doomed) {
			pgr_kill(p, c, "its copy of its parent's memory was "
				 "lost at fork");
			break;
		}
		pgr_rec_access(p, c, addr, 1, write || wp);
		pgr_cpu_latency_event(p);
		s = pgr_fault(p, c, addr, write, wp);
		if (s == PGR_RETRY || s == PGR_NOMEM)
			pgr_defer(p, c, addr, write, wp, s);
		else if (s == PGR_PARKED)
			pgr_watchdog_held(c, (pid_t)m->arg.pagefault.feat.ptid,
					  addr, wp);
		if (how == PAIR_SERVE_TELL && s == PGR_SERVED)
			tell(p, c, &t, addr, wp);
		break;
	}
	case UFFD_EVENT_FORK:
		on_fork(p, c, (int)m->arg.fork.ufd);
		break;
	case UFFD_EVENT_REMAP:
		pgr_rec(p, "mremap %d 0x%llx %llu 0x%llx %llu", c->pid,
			(unsigned long long)m->arg.remap.from,
			(unsigned long long)m->arg.remap.len,
			(unsigned long long)m->arg.remap.to,
			(unsigned long long)m->arg.remap.len);
		pgr_dbg("mremap 0x%llx -> 0x%llx (%llu bytes) of %d",
			(unsigned long long)m->arg.remap.from,
			(unsigned long long)m->arg.remap.to,
			(unsigned long long)m->arg.remap.len, c->pid);
		pgr_remap(p, c, m->arg.remap.from, m->arg.remap.to,
			  m->arg.remap.len);
		vacated(c, m->arg.remap.from,
			m->arg.remap.from + m->arg.remap.len);
		break;
	case UFFD_EVENT_REMOVE:
		removed(p, c, m->arg.remove.start, m->arg.remove.end);
		break;
	case UFFD_EVENT_UNMAP:
		if (was_vacated(c, m->arg.remove.start, m->arg.remove.end) ||
		    pgr_unmap_parked(p, c, m->arg.remove.start,
				     m->arg.remove.end))
			break;
		pgr_rec(p, "munmap %d 0x%llx %llu", c->pid,
			(unsigned long long)m->arg.remove.start,
			(unsigned long long)(m->arg.remove.end -
					     m->arg.remove.start));
		pgr_dbg("munmap 0x%llx-0x%llx of %d",
			(unsigned long long)m->arg.remove.start,
			(unsigned long long)m->arg.remove.end, c->pid);
		pgr_discard(p, c, m->arg.remove.start, m->arg.remove.end, true);
		break;
	}
}

/*
 * Serve what @c's userfaultfd holds, then spin a little for more (see
 * fault_spin_us, spin.c). At most SLICE_US of it at a time: the loop must get
 * back to everyone else (sockets, other clients, timers), or a client
 * that faults without pause would starve the agent messages that let
 * reclaim go on.
 */
void pgr_uffd_ready(struct pgr *p, struct client *c)
{
	uint32_t id = pgr_client_id(p, c);
	double spin_until = 0, slice_end = pgr_now() + SLICE_US * 1e-6;

	for (;;) {
		struct uffd_msg msgs[32];
		ssize_t n;

		if (pgr_now() > slice_end)
			break;		/* more is left: the poll fires again */
		n = read(c->uffd, msgs, sizeof(msgs));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN) {
				pgr_client_gone(p, c, "userfaultfd closed");
				break;
			}
			if (p->spin_us) {
				double t = pgr_now();

				if (!spin_until) {
					/* What the faults queued must not
					 * wait for the spin; a swap read
					 * is waited for, briefly. */
					pgr_ring_submit(p);
					spin_until = pgr_spin_idle(&p->uffd_spin, t,
						p->spin_us * 1e-6);
					if (p->inflight > p->writes &&
					    spin_until < t + SPIN_IO_US * 1e-6)
						spin_until = t + SPIN_IO_US * 1e-6;
				}
				if (pgr_ring_completed(p)) {
					pgr_ring_reap(p);
					if (!p->clients[id].used)
						return;
					continue;
				}
				if (t < spin_until)
					continue;
			}
			break;
		}
		spin_until = 0;
		if (n == 0)
			break;
		if (p->spin_us)
			pgr_spin_came(&p->uffd_spin, pgr_now(), p->spin_us * 1e-6);
		for (size_t k = 0; k < (size_t)n / sizeof(msgs[0]); k++) {
			handle(p, c, &msgs[k]);
			if (!p->clients[id].used)
				return;
		}
	}
	pgr_retry_deferred(p, c);
}
