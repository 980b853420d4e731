/* SPDX-License-Identifier: MIT */
/*
 * arm.c - arming: how the pager clears an emulated young bit, and the
 * client's agent that carries it out.
 *
 * Owns: each client's queue of pages to drop (asked, fasked), the requests
 * sent to its agent and not yet answered (pending), and the settling of
 * their pages by the REMOVE events seen meanwhile.
 *
 * The scan arms a present anon page by giving it a buffer and queueing it
 * (pgr_arm()); after the scan, pgr_flush_asks() write-protects each run,
 * copies it into the buffers (pgr_mem_read()) and sends the agent one
 * "dontneed" request. The agent moves the pages out (UFFDIO_MOVE into a
 * scratch range of its own, which posts no REMOVE event) and answers
 * "moved": a REMOVE seen meanwhile is the program's own MADV_DONTNEED.
 * A page it could not move (shared with a fork child) it drops by
 * madvise and names in a "fell" line first; so does an agent without
 * moves ("done" for every page): its madvise returned after the kernel
 * handed us the REMOVE event it caused, and the REMOVE events counted
 * in between tell ours from the program's (settle()). A file page
 * needs no copy: the memfd keeps it (pgr_ask_file()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#include "../../lib/compat.h"
#include "../../lib/util.h"
#include "../control/control.h"
#include "../pgr.h"
#include "../uffd.h"
#include "core.h"
#include "maps.h"
#define COPY_BATCH	256		/* pages a read */

/* Queue [addr, addr + page) for the agent's DONTNEED, merging runs. */
static void ask(struct client *c, uint64_t addr)
{
	if (c->nr_asked && c->asked[c->nr_asked - 1].end == addr) {
		c->asked[c->nr_asked - 1].end += PGR_PAGE;
		return;
	}
	pgr_grow(&c->asked, &c->cap_asked, c->nr_asked + 1, sizeof(*c->asked));
	c->asked[c->nr_asked++] = (struct range){
		.start = addr, .end = addr + PGR_PAGE };
}

void pgr_ask_file(struct client *c, uint64_t addr)
{
	if (c->nr_fasked && c->fasked[c->nr_fasked - 1].end == addr) {
		c->fasked[c->nr_fasked - 1].end += PGR_PAGE;
		return;
	}
	pgr_grow(&c->fasked, &c->cap_fasked, c->nr_fasked + 1,
		 sizeof(*c->fasked));
	c->fasked[c->nr_fasked++] = (struct range){
		.start = addr, .end = addr + PGR_PAGE };
}

/*
 * Arm a present page: it gets a buffer and joins the client's batch; the
 * batch is write-protected, copied and handed to the agent after the scan
 * (pgr_flush_asks()). Until then nothing else runs in the daemon, so no
 * fault or event sees the page half armed; the program may still write
 * it, and the copy, taken after the write-protection, has those writes.
 * Return 0, or -EAGAIN if it cannot be done now.
 */
int pgr_arm(struct pgr *p, uint32_t i)
{
	struct client *c = pgr_page_client(p, i);
	struct dpage *d = &p->pages[i];
	uint32_t buf;

	if (!c->conn || !c->agent_ready)
		return -EAGAIN;		/* no agent to drop it */
	/* Once per page: a second request for it would count the agent's
	 * own second REMOVE as the program's and free the page. */
	if (*pgr_page_slot(p, i) & (SL_ARMING | SL_ARMED | SL_READING))
		return -EAGAIN;
	/* Still holding the buffer of a write-out in flight (it was mapped
	 * again meanwhile): the copy goes there again. */
	buf = d->buf != PGR_NONE ? d->buf : pgr_buf_get(p);
	if (buf == PGR_NONE)
		return -EAGAIN;
	d->buf = buf;
	d->flags |= DP_COPYING;
	*pgr_page_slot(p, i) |= SL_ARMING;
	ask(c, pgr_page_addr(p, i));
	c->st.armed++;
	return 0;
}

/* The page armed at @addr of @c, or PGR_NONE. */
static uint32_t armed_at(struct pgr *p, struct client *c, uint64_t addr)
{
	uint32_t rid;
	struct region *r = pgr_region_find(p, c, addr, &rid);
	uint64_t v;

	if (!r)
		return PGR_NONE;
	v = r->slot[(addr - r->start) / PGR_PAGE];
	return sl_tag(v) == SL_PAGE && (v & SL_ARMING) ? sl_page(v) : PGR_NONE;
}

/* Arming @addr failed: the page stays mapped as it was. */
static void unarm(struct pgr *p, struct client *c, uint64_t addr, bool wp)
{
	uint32_t i = armed_at(p, c, addr);
	struct uffdio_writeprotect u = { .range = { addr, PGR_PAGE } };

	if (i == PGR_NONE)
		return;
	if (wp && !pgr_page_clean_cached(p, i))
		ioctl(c->uffd, UFFDIO_WRITEPROTECT, &u);
	*pgr_page_slot(p, i) &= ~(uint64_t)SL_ARMING;
	p->pages[i].flags &= (uint16_t)~DP_COPYING;
	pgr_page_buf_release(p, i);
}

/* Keep @a for the agent's request, merging runs. */
static void keep(struct range *out, size_t *n, uint64_t start, uint64_t end)
{
	if (*n && out[*n - 1].end == start) {
		out[*n - 1].end = end;
		return;
	}
	out[(*n)++] = (struct range){ .start = start, .end = end };
}

/*
 * Copy a run of pages, [start, end), write-protected already: one
 * read into their buffers. Return the bytes copied.
 */
static uint64_t copy_run(struct pgr *p, struct client *c, uint64_t start,
			 uint64_t end)
{
	struct iovec local[COPY_BATCH];
	uint64_t done = 0;

	while (start + done < end) {
		uint64_t a = start + done;
		size_t n = 0;
		ssize_t got;

		for (; n < COPY_BATCH && a < end; a += PGR_PAGE, n++) {
			uint32_t i = armed_at(p, c, a);

			if (i == PGR_NONE)
				break;
			local[n] = (struct iovec){ pgr_buf(p, p->pages[i].buf),
						   PGR_PAGE };
		}
		if (!n)
			break;
		got = pgr_mem_read(c, start + done, local, (int)n);
		if (got <= 0)
			break;
		done += (uint64_t)got & ~(uint64_t)(PGR_PAGE - 1);
		if ((size_t)got < n * PGR_PAGE)
			break;
	}
	return done;
}

/*
 * Arm @c's batch: write-protect each run, copy it, and keep what worked
 * for the agent; a run the kernel refuses now (events pending) or cannot
 * be read stays mapped and unarmed.
 */
static size_t arm_batch(struct pgr *p, struct client *c, struct range *out)
{
	size_t n = 0;

	for (size_t k = 0; k < c->nr_asked; k++) {
		struct range a = c->asked[k];
		struct uffdio_writeprotect wp = {
			.range = { a.start, a.end - a.start },
			.mode = UFFDIO_WRITEPROTECT_MODE_WP,
		};
		bool protected = !ioctl(c->uffd, UFFDIO_WRITEPROTECT, &wp);
		uint64_t copied;

		if (!protected && errno == EAGAIN)
			p->arm_refused = true;
		copied = protected ? copy_run(p, c, a.start, a.end) : 0;

		for (uint64_t addr = a.start; addr < a.end; addr += PGR_PAGE) {
			uint32_t i;

			if (addr >= a.start + copied) {
				unarm(p, c, addr, protected);
				continue;
			}
			i = armed_at(p, c, addr);
			if (i != PGR_NONE)
				p->pages[i].flags &= (uint16_t)~DP_COPYING;
		}
		if (copied)
			keep(out, &n, a.start, a.start + copied);
	}
	return n;
}

/* One request: "VERB ID START LEN [START LEN]..." (hex). */
static void send_request(struct pgr *p, struct client *c, const char *verb,
			 const struct range *rs, size_t nr)
{
	char line[4096];
	uint64_t id = ++c->next_request;
	size_t n;

	n = (size_t)snprintf(line, sizeof(line), "%s %llx", verb,
			     (unsigned long long)id);
	for (size_t r = 0; r < nr; r++) {
		struct range a = rs[r];

		n += (size_t)snprintf(line + n, sizeof(line) - n, " %llx %llx",
				      (unsigned long long)a.start,
				      (unsigned long long)(a.end - a.start));
		a.id = id;
		a.orig = a.start;
		pgr_grow(&c->pending, &c->cap_pending, c->nr_pending + 1,
			 sizeof(*c->pending));
		c->pending[c->nr_pending++] = a;
	}
	if (!c->conn || pgr_conn_send(c->conn, line))
		/* no agent: nothing happens */
		pgr_agent_done(p, c, id, DROP_MADVISED);
}

/* Up to 100 ranges a request, so a line stays short. A broken connection
 * ends the client. */
static void send_requests(struct pgr *p, struct client *c, const char *verb,
			  const struct range *rs, size_t n)
{
	for (size_t from = 0; from < n && c->used; from += 100)
		send_request(p, c, verb, rs + from,
			     n - from < 100 ? n - from : 100);
}

void pgr_flush_asks(struct pgr *p)
{
	for (uint32_t k = 0; k < p->nr_clients; k++) {
		struct client *c = &p->clients[k];
		struct range *out;
		size_t n;

		if (!c->used || (!c->nr_asked && !c->nr_fasked))
			continue;
		out = pgr_xcalloc(c->nr_asked + c->nr_fasked, sizeof(*out));
		n = arm_batch(p, c, out);
		c->nr_asked = 0;
		/* Anon pages are dropped a page a call ("dontneed"): a
		 * second REMOVE would lose them (docs/daemon.md). */
		send_requests(p, c, "dontneed", out, n);
		/* File pages: the memfd keeps them, nothing to copy, and a
		 * repeated REMOVE changes nothing (settle()): a range a
		 * call ("dropf"). Sent from a copy: a request settled at
		 * once (no agent) may queue more. */
		n = c->nr_fasked;
		if (n)
			memcpy(out, c->fasked, n * sizeof(*out));
		c->nr_fasked = 0;
		send_requests(p, c, "dropf", out, n);
		free(out);
	}
}

/* Settle one page of a finished request by how it was dropped and the
 * REMOVEs seen. */
static void settle(struct pgr *p, struct client *c, struct region *r,
		   uint32_t off, enum agent_drop how)
{
	uint64_t *slot = &r->slot[off], s = *slot;
	uint64_t addr = r->start + (uint64_t)off * PGR_PAGE;
	uint32_t i = sl_page(s);
	bool moved;

	if (sl_tag(s) == SL_EMPTY && (s & SL_ARMING)) {
		/* A file page: unmapped here if madvise happened. */
		*slot = (s & (SL_RM1 | SL_RM2)) ? SL_EMPTY : SL_FMAPPED;
		if (*slot == SL_FMAPPED && (s & SL_LOCKED) &&
		    (i = pgr_region_file_page(p, r, off)) != PGR_NONE)
			pol_page_mlock(p->pol, i, true);
		return;
	}
	if (sl_tag(s) != SL_PAGE || !(s & SL_ARMING))
		return;
	s &= ~(uint64_t)(SL_FELL | SL_LOCKED);
	/* Moved out: no REMOVE of the agent's, so one seen is the
	 * program's own drop. After an mremap of the range the agent met
	 * the old addresses: whether the page left, the page table says. */
	moved = how != DROP_MADVISED && !(*slot & SL_FELL);
	if (moved && !(s & (SL_RM1 | SL_RM2)) &&
	    (how == DROP_UNKNOWN || c->pending_remapped) &&
	    pgr_page_present(c, addr, false))
		/* Still mapped, as a madvise undone. An armed page's missing
		 * fault waits for the daemon (PGR_PARKED), so one that left
		 * is still gone. */
		moved = false;
	if (moved)
		p->arm_moved++;
	else if (how != DROP_MADVISED)
		p->arm_fell++;
	if (moved && (s & (SL_RM1 | SL_RM2)))
		s |= SL_RM2;	/* dropped by the program */
	else if (moved)
		s |= SL_RM1;	/* left by the agent's move */
	if (s & SL_RM2) {
		/* The program dropped it as well: it reads zeros now. */
		*slot = SL_EMPTY;
		c->resident--;
		pgr_page_free(p, i);
	} else if (s & SL_RM1) {
		*slot = (s & ~(uint64_t)(SL_ARMING | SL_RM1)) | SL_ARMED;
	} else {
		/* madvise did not happen: the page is still mapped; a clean
		 * one stays write-protected (its dirty bit). */
		struct uffdio_writeprotect wp = {
			.range = { addr, PGR_PAGE },
		};

		if (!pgr_page_clean_cached(p, i))
			ioctl(c->uffd, UFFDIO_WRITEPROTECT, &wp);
		/* Refused as mlocked: the kernel's reclaim, meeting
		 * VM_LOCKED in its rmap walk, culls the page to the
		 * unevictable list; munlock rescues it (watch/notify.c). */
		if (*slot & SL_LOCKED)
			pol_page_mlock(p->pol, i, true);
		*slot = s & ~(uint64_t)SL_ARMING;
		pgr_page_buf_release(p, i);
	}
}

/*
 * The agent could not move [start, start + len) of request @id and
 * dropped it by madvise: the REMOVEs seen there are its own. It names
 * the addresses the request named; an mremap read since has moved the
 * pages, and the pending ranges with them (pgr_arm_moved()), so the
 * pages are found where their ranges are now. Looked up at the old
 * addresses, they were missed: settle() then took the agent's REMOVEs
 * for the program's own drop, and the pages for zeros (daemon.sh,
 * verify remaps, a run in ten).
 */
void pgr_agent_fell(struct pgr *p, struct client *c, uint64_t id,
		    uint64_t start, uint64_t len, uint64_t flag)
{
	for (size_t k = 0; k < c->nr_pending; k++) {
		const struct range *a = &c->pending[k];
		uint64_t lo = start > a->orig ? start : a->orig;
		uint64_t hi = a->orig + (a->end - a->start);

		if (a->id != id)
			continue;
		if (start + len < hi)
			hi = start + len;
		for (uint64_t o = lo; o < hi; o += PGR_PAGE) {
			uint64_t addr = a->start + (o - a->orig);
			uint32_t rid;
			struct region *r = pgr_region_find(p, c, addr, &rid);
			uint64_t *slot;

			if (!r)
				continue;
			slot = &r->slot[(addr - r->start) / PGR_PAGE];
			if (sl_tag(*slot) != SL_FOREIGN &&
			    sl_tag(*slot) != SL_SWAP && (*slot & SL_ARMING))
				*slot |= flag;	/* anon or file */
		}
	}
}

void pgr_agent_done(struct pgr *p, struct client *c, uint64_t id,
		    enum agent_drop how)
{
	size_t k = 0;

	while (k < c->nr_pending) {
		struct range a = c->pending[k];

		if (a.id != id) {
			k++;
			continue;
		}
		c->pending[k] = c->pending[--c->nr_pending];
		for (uint64_t addr = a.start; addr < a.end; addr += PGR_PAGE) {
			uint32_t rid;
			struct region *r = pgr_region_find(p, c, addr, &rid);

			if (r)
				settle(p, c, r, (uint32_t)((addr - r->start) /
							   PGR_PAGE), how);
		}
		pgr_wake(p, c, a.start, a.end);
	}
	if (!c->nr_pending)
		c->pending_remapped = false;
}

int pgr_agent_send(struct client *c, const char *line, int fd)
{
	if (!c->conn)
		return -ENOTCONN;
	return fd >= 0 ? pgr_conn_send_fd(c->conn, line, fd) :
			 pgr_conn_send(c->conn, line);
}

/* The ranges of @list that meet [from, from + len) follow it to @to
 * (split where they cross its ends). */
static void move_ranges(struct range **list, size_t *n, size_t *cap,
			uint64_t from, uint64_t to, uint64_t len)
{
	size_t nr = *n;

	for (size_t k = 0; k < nr; k++) {
		struct range a = (*list)[k];
		uint64_t lo = a.start > from ? a.start : from;
		uint64_t hi = a.end < from + len ? a.end : from + len;

		if (lo >= hi)
			continue;
		/* Each part keeps where the request named it (orig). */
		(*list)[k] = (struct range){ lo - from + to, hi - from + to,
					     a.id, a.orig + (lo - a.start) };
		if (a.start < lo || hi < a.end)
			pgr_grow(list, cap, *n + 2, sizeof(**list));
		if (a.start < lo)
			(*list)[(*n)++] = (struct range){ a.start, lo, a.id,
							  a.orig };
		if (hi < a.end)
			(*list)[(*n)++] = (struct range){ hi, a.end, a.id,
					a.orig + (hi - a.start) };
	}
}

void pgr_arm_moved(struct client *c, uint64_t from, uint64_t to, uint64_t len)
{
	move_ranges(&c->asked, &c->nr_asked, &c->cap_asked, from, to, len);
	move_ranges(&c->fasked, &c->nr_fasked, &c->cap_fasked, from, to, len);
	size_t n = c->nr_pending;

	move_ranges(&c->pending, &c->nr_pending, &c->cap_pending, from, to,
		    len);
	for (size_t k = 0; k < n && !c->pending_remapped; k++)
		if (c->pending[k].start >= to &&
		    c->pending[k].start < to + len)
			c->pending_remapped = true;
}
