/* SPDX-License-Identifier: MIT */
/*
 * backend.c - what the policy's decisions become in the daemon.
 *
 * young: the pager cannot read PTE young bits, so it emulates them the way
 *        ARM does: a page still mapped since it was last tested is young;
 *        testing it arms it again. Arming an anon page write-protects it
 *        (UFFDIO_WRITEPROTECT), copies it into one of the pager's page
 *        buffers (process_vm_readv) and asks the client's agent to
 *        MADV_DONTNEED it. The agent answers "done" once madvise returned,
 *        which is after the kernel handed us the REMOVE event it caused;
 *        the REMOVE events counted in between tell ours from a program's
 *        own MADV_DONTNEED of the same page (pgr_agent_done()). Faults on
 *        a page being armed (a write on the write-protection, or a read
 *        once it is gone) wait until then; the next access after that
 *        faults on our copy, and that fault is the young bit.
 * unmap: the page is already unmapped (armed) when reclaim gets this far.
 * writeout: the buffer goes to a swap slot (O_DIRECT, io_uring); the
 *        completion calls pol_writeback_done().
 * evict: the region slot points at the swap slot, which keeps the shadow;
 *        the buffer is freed.
 *
 * Nothing here may process userfaultfd events: the policy is in the middle
 * of a scan. An operation the kernel refuses for now (EAGAIN: events
 * pending) makes the page "contended", which keeps it for the next scan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "../lib/compat.h"
#include "../lib/log.h"
#include "pgr.h"
#include "../lib/util.h"

#define COPY_BATCH	256		/* pages a process_vm_readv */

static struct pgr *P(void *ctx)
{
	return ctx;
}

/* ---- page buffers ---------------------------------------------------------- */

/*
 * Free buffers are a stack, so the same few stay in use; memory of those
 * left idle for a second goes back to the system (pgr_bufs_trim()), not at
 * each put: a madvise per page costs more than the copy it saves.
 */
uint32_t pgr_buf_get(struct pgr *p)
{
	uint32_t b;

	if (!p->nr_free_bufs)
		return PGR_NONE;
	b = p->free_bufs[--p->nr_free_bufs];
	if (p->nr_free_bufs < p->bufs_idle)
		p->bufs_idle = p->nr_free_bufs;
	p->buf_released[b] = false;
	return b;
}

void pgr_buf_put(struct pgr *p, uint32_t buf)
{
	p->free_bufs[p->nr_free_bufs++] = buf;
}

void pgr_bufs_trim(struct pgr *p)
{
	/* The bottom of the stack was not touched since the last trim. */
	for (uint32_t k = 0; k < p->bufs_idle; k++) {
		uint32_t b = p->free_bufs[k];

		if (!p->buf_released[b]) {
			madvise(pgr_buf(p, b), PGR_PAGE, MADV_DONTNEED);
			p->buf_released[b] = true;
		}
	}
	p->bufs_idle = p->nr_free_bufs;
}

/* ---- where a page is --------------------------------------------------------- */

static uint64_t *page_slot(struct pgr *p, uint32_t i)
{
	struct dpage *d = &p->pages[i];

	return &p->regions[d->region].slot[d->off];
}

static uint64_t page_addr(struct pgr *p, uint32_t i)
{
	struct dpage *d = &p->pages[i];

	return p->regions[d->region].start + (uint64_t)d->off * PGR_PAGE;
}

static struct client *page_client(struct pgr *p, uint32_t i)
{
	return &p->clients[p->regions[p->pages[i].region].client];
}

/* Queue [addr, addr + page) for the agent's DONTNEED, merging runs. */
static void ask(struct client *c, uint64_t addr)
{
	if (c->nr_asked && c->asked[c->nr_asked - 1].end == addr) {
		c->asked[c->nr_asked - 1].end += PGR_PAGE;
		return;
	}
	pgr_grow(&c->asked, &c->cap_asked, c->nr_asked + 1, sizeof(*c->asked));
	c->asked[c->nr_asked++] = (struct range){ addr, addr + PGR_PAGE, 0 };
}

void pgr_ask_file(struct client *c, uint64_t addr)
{
	if (c->nr_fasked && c->fasked[c->nr_fasked - 1].end == addr) {
		c->fasked[c->nr_fasked - 1].end += PGR_PAGE;
		return;
	}
	pgr_grow(&c->fasked, &c->cap_fasked, c->nr_fasked + 1,
		 sizeof(*c->fasked));
	c->fasked[c->nr_fasked++] = (struct range){ addr, addr + PGR_PAGE, 0 };
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
	struct client *c = page_client(p, i);
	struct dpage *d = &p->pages[i];
	uint32_t buf;

	if (!c->conn || !c->agent_ready)
		return -EAGAIN;		/* no agent to drop it */
	/* Once per page: a second request for it would count the agent's
	 * own second REMOVE as the program's and free the page. */
	if (*page_slot(p, i) & (SL_ARMING | SL_ARMED | SL_READING))
		return -EAGAIN;
	/* Still holding the buffer of a write-out in flight (it was mapped
	 * again meanwhile): the copy goes there again. */
	buf = d->buf != PGR_NONE ? d->buf : pgr_buf_get(p);
	if (buf == PGR_NONE)
		return -EAGAIN;
	d->buf = buf;
	d->flags |= DP_COPYING;
	*page_slot(p, i) |= SL_ARMING;
	ask(c, page_addr(p, i));
	c->st.armed++;
	return 0;
}

/*
 * An orphan: its owner dropped it (munmap, exit) while I/O on its buffer
 * was in flight; it stays on the LRU until the completion frees it, and
 * reclaim finds nothing mapped and nothing to do.
 */
static bool orphan(const struct pgr *p, uint32_t i)
{
	return p->pages[i].region == PGR_NONE;
}

static bool is_file(const struct pgr *p, uint32_t i)
{
	return p->pages[i].flags & DP_FILE;
}

static void be_young(void *ctx, uint32_t i, struct pol_refs *refs)
{
	struct pgr *p = P(ctx);
	uint64_t s;

	if (orphan(p, i)) {
		refs->contended = true;		/* leave it be */
		return;
	}
	if (is_file(p, i)) {
		pgr_file_young(p, i, refs);
		return;
	}
	s = *page_slot(p, i);
	if (s & SL_READING) {
		refs->contended = true;
		return;
	}
	if (s & (SL_ARMING | SL_ARMED)) {
		/* Armed since: not young, unless idle marking armed it
		 * while it was (page_idle's PG_young). */
		if (p->pages[i].flags & DP_YOUNG) {
			p->pages[i].flags &= (uint8_t)~DP_YOUNG;
			refs->young = 1;
		}
		return;
	}
	/* Mapped since the last test: young. Arming (the clearing) costs
	 * the program a fault at its next access, so it is left to the
	 * library to ask for when it matters (be_young_clear()). */
	refs->mapped = true;
	refs->young = 1;
	refs->kept = true;
}

static void be_young_clear(void *ctx, uint32_t i)
{
	if (orphan(P(ctx), i))
		return;
	if (is_file(P(ctx), i))
		pgr_file_arm(P(ctx), i);
	else
		pgr_arm(P(ctx), i);	/* if it cannot be armed: young again */
}

static int be_unmap(void *ctx, uint32_t i)
{
	struct pgr *p = P(ctx);

	if (orphan(p, i))
		return -EAGAIN;
	if (is_file(p, i))
		return pgr_file_unmap(p, i);
	/* Not while a swap read fills its buffer. */
	if (*page_slot(p, i) & SL_READING)
		return -EAGAIN;
	return (*page_slot(p, i) & (SL_ARMING | SL_ARMED)) ? 0 : -EAGAIN;
}

/* (A page still being armed may be written out: its copy is final. It
 * is not evicted before the agent's answer settles what it is.) */

static enum pol_writeout be_writeout(void *ctx, uint32_t i)
{
	struct pgr *p = P(ctx);
	struct dpage *d = &p->pages[i];
	uint32_t slot = d->swap;

	if (orphan(p, i))
		return POL_WRITEOUT_KEEP;
	if (is_file(p, i))
		return pgr_file_writeout(p, i);
	if (d->buf == PGR_NONE || p->swap_fd < 0)
		return POL_WRITEOUT_FAILED;
	if (d->flags & DP_COPYING)
		return POL_WRITEOUT_KEEP;	/* its copy is not taken yet */
	if (slot != PGR_NONE && p->swap[slot].map > 1) {
		/* Shared with a fork child's page table: write elsewhere. */
		p->swap[slot].cache = PGR_NONE;
		pgr_swap_put(p, slot);
		slot = PGR_NONE;
	}
	if (slot == PGR_NONE) {
		slot = pgr_swap_alloc(p);
		if (slot == PGR_NONE)
			return POL_WRITEOUT_FAILED;
		p->swap[slot].map = 1;
		p->swap[slot].cache = i;
		d->swap = slot;
	}
	if (pgr_swap_io(p, i, slot, true))
		return POL_WRITEOUT_KEEP;
	page_client(p, i)->st.swapouts++;
	return POL_WRITEOUT_STARTED;
}

void pgr_writeout_done(struct pgr *p, uint32_t i, int res)
{
	struct dpage *d = &p->pages[i];

	if (res != PGR_PAGE)
		pgr_err("swap write of slot %u failed: %s", d->swap,
			res < 0 ? strerror(-res) : "short write");
	pol_writeback_done(p->pol, i, res == PGR_PAGE);
	if (d->region == PGR_NONE) {
		pgr_page_free(p, i);	/* its owner went during the I/O */
		return;
	}
	/* Mapped again while it was written: the buffer kept for the
	 * write goes back now. */
	if (d->buf != PGR_NONE &&
	    !(*page_slot(p, i) & (SL_ARMING | SL_ARMED))) {
		pgr_buf_put(p, d->buf);
		d->buf = PGR_NONE;
	}
}

static int be_evict(void *ctx, uint32_t i, uint64_t shadow)
{
	struct pgr *p = P(ctx);
	struct dpage *d = &p->pages[i];
	struct client *c;
	uint64_t *slot;

	if (orphan(p, i))
		return -EBUSY;		/* freed when its I/O completes */
	if (is_file(p, i))
		return pgr_file_evict(p, i, shadow);
	c = page_client(p, i);
	slot = page_slot(p, i);

	if (!(*slot & SL_ARMED) || (*slot & SL_READING) ||
	    (d->flags & DP_READING) || d->swap == PGR_NONE)
		return -EBUSY;
	/* The swap cache's reference becomes the region slot's. */
	p->swap[d->swap].cache = PGR_NONE;
	p->swap[d->swap].shadow = shadow;
	*slot = sl_of_swap(d->swap);
	c->resident--;
	c->swapped++;
	d->swap = PGR_NONE;
	pgr_buf_put(p, d->buf);
	d->buf = PGR_NONE;
	return 0;
}

static void be_unmap_flush(void *ctx)
{
	pgr_file_punch_flush(P(ctx));
}

static void be_swap_space(void *ctx, uint64_t *total, uint64_t *free)
{
	struct pgr *p = P(ctx);

	*total = p->swap_fd >= 0 ? p->o.swap_pages : 0;
	*free = p->swap_fd >= 0 ? p->nr_swap_free : 0;
}

static bool be_swap_drop(void *ctx, uint32_t i)
{
	struct pgr *p = P(ctx);
	struct dpage *d = &p->pages[i];

	/* Not while it is being read from that slot. */
	if (is_file(p, i) || d->swap == PGR_NONE || (d->flags & DP_READING) ||
	    p->swap[d->swap].map > 1)
		return false;
	p->swap[d->swap].cache = PGR_NONE;
	pgr_swap_put(p, d->swap);
	d->swap = PGR_NONE;
	return true;
}

static void be_prefetch(void *ctx, uint32_t i)
{
	if (!orphan(P(ctx), i) && !is_file(P(ctx), i))
		__builtin_prefetch(page_slot(P(ctx), i));
}

static void be_event(void *ctx, const struct pol_event *ev)
{
	pgr_trace_event(P(ctx), ev);
}

static uint32_t be_invalidate_inode(void *ctx, uint32_t ino)
{
	return pgr_file_invalidate(P(ctx), ino);
}

static void be_free_inode(void *ctx, uint32_t ino)
{
	pgr_file_free_inode(P(ctx), ino);
}

const struct pol_backend pgr_backend = {
	.young = be_young,
	.young_clear = be_young_clear,
	.unmap = be_unmap,
	.writeout = be_writeout,
	.evict = be_evict,
	.unmap_flush = be_unmap_flush,
	.swap_space = be_swap_space,
	.swap_drop = be_swap_drop,
	.prefetch = be_prefetch,
	.invalidate_inode = be_invalidate_inode,
	.free_inode = be_free_inode,
	.event = be_event,
};

/* ---- after a reclaim: tell the agents ---------------------------------- */

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
	*page_slot(p, i) &= ~(uint64_t)SL_ARMING;
	p->pages[i].flags &= (uint8_t)~DP_COPYING;
	pgr_page_buf_release(p, i);
}

/* Keep @a for the agent's request, merging runs. */
static void keep(struct range *out, size_t *n, uint64_t start, uint64_t end)
{
	if (*n && out[*n - 1].end == start) {
		out[*n - 1].end = end;
		return;
	}
	out[(*n)++] = (struct range){ start, end, 0 };
}

/*
 * Copy a run of pages, [start, end), write-protected already: one
 * process_vm_readv into their buffers. Return the bytes copied.
 */
static uint64_t copy_run(struct pgr *p, struct client *c, uint64_t start,
			 uint64_t end)
{
	struct iovec local[COPY_BATCH], remote;
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
		remote = (struct iovec){ (void *)(uintptr_t)(start + done),
					 n * PGR_PAGE };
		got = process_vm_readv(c->pid, local, n, &remote, 1, 0);
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
		uint64_t copied = protected ? copy_run(p, c, a.start, a.end) : 0;

		for (uint64_t addr = a.start; addr < a.end; addr += PGR_PAGE) {
			uint32_t i;

			if (addr >= a.start + copied) {
				unarm(p, c, addr, protected);
				continue;
			}
			i = armed_at(p, c, addr);
			if (i != PGR_NONE)
				p->pages[i].flags &= (uint8_t)~DP_COPYING;
		}
		if (copied)
			keep(out, &n, a.start, a.start + copied);
	}
	return n;
}

/* One request: "dontneed ID START LEN [START LEN]..." (hex). */
static void send_request(struct pgr *p, struct client *c,
			 const struct range *rs, size_t nr)
{
	char line[4096];
	uint64_t id = ++c->next_request;
	size_t n;

	n = (size_t)snprintf(line, sizeof(line), "dontneed %llx",
			     (unsigned long long)id);
	for (size_t r = 0; r < nr; r++) {
		struct range a = rs[r];

		n += (size_t)snprintf(line + n, sizeof(line) - n, " %llx %llx",
				      (unsigned long long)a.start,
				      (unsigned long long)(a.end - a.start));
		a.id = id;
		pgr_grow(&c->pending, &c->cap_pending, c->nr_pending + 1,
			 sizeof(*c->pending));
		c->pending[c->nr_pending++] = a;
	}
	if (!c->conn || pgr_conn_send(c->conn, line))
		pgr_agent_done(p, c, id);	/* no agent: nothing happens */
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
		/* File pages: the memfd keeps them, nothing to copy. */
		if (c->nr_fasked)
			memcpy(out + n, c->fasked,
			       c->nr_fasked * sizeof(*out));
		n += c->nr_fasked;
		c->nr_fasked = 0;
		/* Up to 100 ranges a request, so a line stays short. A
		 * broken connection ends the client. */
		for (size_t from = 0; from < n && c->used; from += 100)
			send_request(p, c, out + from,
				     n - from < 100 ? n - from : 100);
		free(out);
	}
}

/* Settle one page of a finished request by the REMOVEs seen. */
static void settle(struct pgr *p, struct client *c, struct region *r,
		   uint32_t off)
{
	uint64_t *slot = &r->slot[off], s = *slot;
	uint32_t i = sl_page(s);

	if (sl_tag(s) == SL_EMPTY && (s & SL_ARMING)) {
		/* A file page: unmapped here if madvise happened. */
		*slot = (s & (SL_RM1 | SL_RM2)) ? SL_EMPTY : SL_FMAPPED;
		return;
	}
	if (sl_tag(s) != SL_PAGE || !(s & SL_ARMING))
		return;
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
			.range = { r->start + (uint64_t)off * PGR_PAGE,
				   PGR_PAGE },
		};

		if (!pgr_page_clean_cached(p, i))
			ioctl(c->uffd, UFFDIO_WRITEPROTECT, &wp);
		*slot = s & ~(uint64_t)SL_ARMING;
		pgr_page_buf_release(p, i);
	}
}

void pgr_agent_done(struct pgr *p, struct client *c, uint64_t id)
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
							   PGR_PAGE));
		}
		pgr_wake(p, c, a.start, a.end);
	}
}

bool pgr_page_clean_cached(const struct pgr *p, uint32_t i)
{
	const struct dpage *d = &p->pages[i];

	return d->swap != PGR_NONE && !(d->pol.flags & POL_PG_DIRTY);
}

/* ---- freeing ------------------------------------------------------------------ */

void pgr_page_buf_release(struct pgr *p, uint32_t i)
{
	struct dpage *d = &p->pages[i];

	if (d->buf == PGR_NONE || (d->pol.flags & POL_PG_WRITEBACK))
		return;
	pgr_buf_put(p, d->buf);
	d->buf = PGR_NONE;
}

void pgr_page_free(struct pgr *p, uint32_t i)
{
	struct dpage *d = &p->pages[i];

	if ((d->pol.flags & POL_PG_WRITEBACK) || (d->flags & DP_READING)) {
		/* I/O on its buffer completes later; free it then. */
		d->region = PGR_NONE;
		return;
	}
	if (d->buf != PGR_NONE)
		pgr_buf_put(p, d->buf);
	if (d->swap != PGR_NONE) {
		p->swap[d->swap].cache = PGR_NONE;
		pgr_swap_put(p, d->swap);
	}
	d->buf = PGR_NONE;
	d->swap = PGR_NONE;
	d->region = PGR_NONE;
	pol_page_free(p->pol, i);
}

