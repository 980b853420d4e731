/* SPDX-License-Identifier: MIT */
/*
 * swap.c - the swap device: a file read and written with O_DIRECT (so the
 * kernel's page cache does not hide the I/O) through io_uring, and its
 * slots.
 *
 * Each slot has a record: how many references it has (region slots that
 * point at it, plus the swap cache: a resident page still holding a copy),
 * which resident page holds it, the shadow entry of the page evicted
 * to it, and the checksum of what was written, verified when it is read
 * back: a swap file changed under the pager (or a write the device lost)
 * ends the client instead of handing it someone else's data. A slot is
 * free when its references reach zero.
 *
 * I/O completions arrive on the ring; an eventfd registered with the ring
 * wakes the libuv loop, which reaps them and hands each to its owner:
 * swap-ins to the fault path, write-outs to the backend.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "../lib/log.h"
#include "pgr.h"
#include "../lib/util.h"

#define RING_ENTRIES	256
#define CQ_ENTRIES	8192

int pgr_swap_open(struct pgr *p)
{
	int fd;

	p->swap_fd = -1;
	if (!p->o.swap_path || !p->o.swap_pages)
		return 0;
	fd = open(p->o.swap_path, O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		int err = errno;

		pgr_err("cannot open swap file '%s': %s%s", p->o.swap_path,
			strerror(err), err == EINVAL ?
			" (the file system does not support O_DIRECT; give "
			"--swap a file on a disk, not tmpfs)" : "");
		return -err;
	}
	if (p->o.swap_temp)
		unlink(p->o.swap_path);	/* gone with the last descriptor */
	if (ftruncate(fd, (off_t)(p->o.swap_pages * PGR_PAGE))) {
		int err = errno;

		pgr_err("cannot size swap file '%s': %s", p->o.swap_path,
			strerror(err));
		close(fd);
		return -err;
	}
	p->swap = pgr_xcalloc(p->o.swap_pages, sizeof(*p->swap));
	p->swap_free = pgr_xcalloc(p->o.swap_pages, sizeof(*p->swap_free));
	for (uint64_t s = p->o.swap_pages; s-- > 0;) {
		p->swap[s].cache = PGR_NONE;
		p->swap_free[p->nr_swap_free++] = (uint32_t)s;
	}
	p->swap_fd = fd;
	return 0;
}

void pgr_swap_close(struct pgr *p)
{
	if (p->swap_fd >= 0)
		close(p->swap_fd);
	p->swap_fd = -1;
	free(p->swap);
	free(p->swap_free);
	p->swap = NULL;
	p->swap_free = NULL;
}

uint32_t pgr_swap_alloc(struct pgr *p)
{
	uint32_t s;

	if (!p->nr_swap_free)
		return PGR_NONE;
	s = p->swap_free[--p->nr_swap_free];
	p->swap[s] = (struct swap_rec){ 0, PGR_NONE, 0, 0 };
	p->swap_used++;
	return s;
}

bool pgr_swap_half_full(const struct pgr *p)
{
	return p->swap_fd >= 0 && (uint64_t)p->nr_swap_free * 2 <
				  p->o.swap_pages;
}

void pgr_swap_put(struct pgr *p, uint32_t s)
{
	struct swap_rec *r = &p->swap[s];

	if (--r->map)
		return;
	if (r->shadow)
		pol_shadow_forget(p->pol, r->shadow);
	r->shadow = 0;
	p->swap_free[p->nr_swap_free++] = s;
	p->swap_used--;
}

/* A 64-bit checksum of a page: four multiply-xorshift lanes, so the
 * loop runs at memory speed (~0.2 us a page), next to a ~40 us read. */
static uint64_t page_sum(const char *page)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h[4] = { 1, 2, 3, 4 }, w[4];

	for (size_t o = 0; o < PGR_PAGE; o += sizeof(w)) {
		memcpy(w, page + o, sizeof(w));
		for (int l = 0; l < 4; l++) {
			h[l] = (h[l] ^ w[l]) * k;
			h[l] ^= h[l] >> 29;
		}
	}
	return (h[0] ^ (h[1] * 3) ^ (h[2] * 5) ^ (h[3] * 7)) * k;
}

bool pgr_swap_verify(const struct pgr *p, uint32_t slot, const char *buf)
{
	return page_sum(buf) == p->swap[slot].sum;
}

/* ---- io_uring --------------------------------------------------------- */

/* What a completion is for: the low two bits of its user data; the rest
 * is the page (swap) or the record (file read, 8-byte aligned). */
enum { IO_SWAP_READ = 0, IO_SWAP_WRITE = 1, IO_FILE_READ = 2 };

static struct io_uring *ring(struct pgr *p)
{
	return p->ring;
}

/* Hand every completion to its owner. Completions beyond the ring's
 * size wait in the kernel's overflow list until io_uring_get_events()
 * moves them in. */
void pgr_ring_reap(struct pgr *p)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n;
	eventfd_t v;

	eventfd_read(p->ring_efd, &v);
	do {
		n = 0;
		io_uring_for_each_cqe(ring(p), head, cqe) {
			uint64_t tag = (uint64_t)(uintptr_t)
				       io_uring_cqe_get_data(cqe);
			uint32_t page = (uint32_t)(tag >> 2);

			n++;
			p->inflight--;
			switch (tag & 3) {
			case IO_SWAP_WRITE:
				p->writes--;
				pgr_writeout_done(p, page, cqe->res);
				break;
			case IO_SWAP_READ:
				pgr_swapin_done(p, page, cqe->res);
				break;
			default:
				pgr_file_read_done(p, (void *)(uintptr_t)
						   (tag & ~(uint64_t)3),
						   cqe->res);
			}
		}
		io_uring_cq_advance(ring(p), n);
		if (io_uring_cq_has_overflow(ring(p)))
			io_uring_get_events(ring(p));
	} while (n);
	/* Pages may have been freed, or can be now: waiting faults retry. */
	pgr_retry_deferred(p, NULL);
	pgr_background(p);
}

static void reap(uv_poll_t *h, int status, int events)
{
	pgr_ring_reap(h->data);
}

/* Before the loop waits: submit what this round queued, in one system
 * call (and, on a VM, one doorbell), so the block layer can merge it. */
void pgr_ring_submit(struct pgr *p)
{
	if (p->ring && io_uring_sq_ready(ring(p)))
		io_uring_submit(ring(p));
}

bool pgr_ring_completed(struct pgr *p)
{
	return p->ring && io_uring_cq_ready(ring(p));
}

static void submit(uv_prepare_t *h)
{
	pgr_ring_submit(h->data);
	pgr_trace_flush(h->data);
}

int pgr_ring_open(struct pgr *p)
{
	struct io_uring *r = pgr_xcalloc(1, sizeof(*r));
	int err;

	struct io_uring_params params = {
		.flags = IORING_SETUP_CQSIZE, .cq_entries = CQ_ENTRIES,
	};

	err = io_uring_queue_init_params(RING_ENTRIES, r, &params);
	if (err) {
		pgr_err("cannot set up io_uring: %s", strerror(-err));
		free(r);
		return err;
	}
	p->ring_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->ring_efd < 0 || io_uring_register_eventfd(r, p->ring_efd)) {
		err = -errno;
		pgr_err("cannot register the ring's eventfd: %s",
			strerror(errno));
		io_uring_queue_exit(r);
		free(r);
		return err;
	}
	p->ring = r;
	uv_poll_init(p->loop, &p->ring_poll, p->ring_efd);
	p->ring_poll.data = p;
	uv_poll_start(&p->ring_poll, UV_READABLE, reap);
	uv_prepare_init(p->loop, &p->ring_submit);
	p->ring_submit.data = p;
	uv_prepare_start(&p->ring_submit, submit);
	return 0;
}

void pgr_ring_close(struct pgr *p)
{
	if (!p->ring)
		return;
	uv_poll_stop(&p->ring_poll);
	uv_close((uv_handle_t *)&p->ring_poll, NULL);
	uv_close((uv_handle_t *)&p->ring_submit, NULL);
	io_uring_queue_exit(ring(p));
	close(p->ring_efd);
	free(p->ring);
	p->ring = NULL;
}

int pgr_swap_io(struct pgr *p, uint32_t page, uint32_t slot, bool write)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring(p));
	char *buf = pgr_buf(p, p->pages[page].buf);
	off_t off = (off_t)slot * PGR_PAGE;

	if (!sqe) {
		/* Full: submit what is queued and try once more. */
		io_uring_submit(ring(p));
		sqe = io_uring_get_sqe(ring(p));
		if (!sqe)
			return -EBUSY;
	}
	if (write) {
		p->swap[slot].sum = page_sum(buf);
		io_uring_prep_write(sqe, p->swap_fd, buf, PGR_PAGE, off);
	} else {
		io_uring_prep_read(sqe, p->swap_fd, buf, PGR_PAGE, off);
	}
	io_uring_sqe_set_data(sqe, (void *)(uintptr_t)((uint64_t)page << 2 |
		(write ? IO_SWAP_WRITE : IO_SWAP_READ)));
	p->inflight++;
	p->writes += write;
	return 0;
}

int pgr_file_io(struct pgr *p, int fd, void *buf, size_t len, off_t off,
		void *rec)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring(p));

	if (!sqe) {
		io_uring_submit(ring(p));
		sqe = io_uring_get_sqe(ring(p));
		if (!sqe)
			return -EBUSY;
	}
	io_uring_prep_read(sqe, fd, buf, (unsigned int)len, (uint64_t)off);
	io_uring_sqe_set_data(sqe, (void *)((uintptr_t)rec | IO_FILE_READ));
	p->inflight++;
	return 0;
}
