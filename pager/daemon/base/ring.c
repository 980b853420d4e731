/* SPDX-License-Identifier: MIT */
/*
 * ring.c - io_uring, the daemon's one ring for swap and file I/O.
 *
 * Owns: the ring, its eventfd and their libuv handle; the count of I/O in
 * flight. Reads and writes are queued by their owners (swap.c, the file
 * faults) and submitted before the loop next waits, in one system call
 * (and, on a VM, one doorbell), so that the block layer can merge them.
 *
 * Completions arrive on the ring; the eventfd registered with it wakes the
 * loop, which reaps them and hands each to the handler its kind was given
 * at pgr_ring_open() (as a bio's end_io), then calls the ops' after():
 * this file calls nothing above it.
 *
 * A store without a device (zram.c: pages compressed in the daemon's
 * memory) does its I/O at once; its completion still goes through here
 * (pgr_ring_done()), on the loop's next turn like any other, so that the
 * fault path and reclaim see one kind of I/O. A store over the network
 * (redis.c) hands its answers on the same way (pgr_ring_finish()).
 */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../pgr.h"
#include "base.h"

#define RING_ENTRIES	256
#define CQ_ENTRIES	8192

_Static_assert(PGR_IO_KINDS <= 4, "the kind rides in a tag's low 2 bits");

static struct io_uring *ring(struct pgr *p)
{
	return p->ring;
}

static uint64_t tag_of(enum pgr_io_kind kind, uint64_t arg)
{
	return (kind == PGR_IO_FILE_READ ? arg : arg << 2) | kind;
}

/* One completion to its owner. */
static void complete(struct pgr *p, uint64_t tag, int res)
{
	enum pgr_io_kind kind = (enum pgr_io_kind)(tag & 3);

	p->inflight--;
	if (kind == PGR_IO_SWAP_WRITE || kind == PGR_IO_FILE_WRITE) {
		p->writes--;
		p->writes_tick = p->ticks;
	}
	p->ring_ops->done[kind](p, kind == PGR_IO_FILE_READ ?
				tag & ~(uint64_t)3 : tag >> 2, res);
}

/* In flight from now on: counted as the ring's I/O is. */
static void started(struct pgr *p, bool write)
{
	p->inflight++;
	if (write && !p->writes++)
		p->writes_tick = p->ticks;
}

/* Hand every completion to its owner. Completions beyond the ring's
 * size wait in the kernel's overflow list until io_uring_get_events()
 * moves them in. */
void pgr_ring_reap(struct pgr *p)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n, m;
	eventfd_t v;

	eventfd_read(p->ring_efd, &v);
	do {
		struct pgr_done *done = p->done;
		size_t nr_done = p->nr_done;

		/* Taken first: handlers may add more, for the next round. */
		p->done = NULL;
		p->nr_done = p->cap_done = 0;
		for (size_t k = 0; k < nr_done; k++)
			complete(p, done[k].tag, done[k].res);
		free(done);
		n = (unsigned int)nr_done;
		m = 0;
		io_uring_for_each_cqe(ring(p), head, cqe) {
			uint64_t tag = (uint64_t)(uintptr_t)
				       io_uring_cqe_get_data(cqe);

			n++;
			m++;
			if ((tag & 3) == PGR_IO_SWAP_WRITE)
				p->ring_swap_writes--;
			complete(p, tag, cqe->res);
		}
		io_uring_cq_advance(ring(p), m);
		if (io_uring_cq_has_overflow(ring(p)))
			io_uring_get_events(ring(p));
	} while (n);
	p->ring_ops->after(p);
}

static void reap(uv_poll_t *h, int status, int events)
{
	pgr_ring_reap(h->data);
}

void pgr_ring_submit(struct pgr *p)
{
	if (p->ring && io_uring_sq_ready(ring(p)))
		io_uring_submit(ring(p));
	if (p->ring_ops && p->ring_ops->submit)
		p->ring_ops->submit(p);
}

bool pgr_ring_completed(struct pgr *p)
{
	if (p->ring_ops && p->ring_ops->poll)
		p->ring_ops->poll(p);
	return p->nr_done || (p->ring && io_uring_cq_ready(ring(p)));
}

int pgr_ring_open(struct pgr *p, const struct pgr_ring_ops *ops)
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
	p->ring_ops = ops;
	uv_poll_init(p->loop, &p->ring_poll, p->ring_efd);
	p->ring_poll.data = p;
	uv_poll_start(&p->ring_poll, UV_READABLE, reap);
	return 0;
}

void pgr_ring_close(struct pgr *p)
{
	if (!p->ring)
		return;
	uv_poll_stop(&p->ring_poll);
	uv_close((uv_handle_t *)&p->ring_poll, NULL);
	io_uring_queue_exit(ring(p));
	close(p->ring_efd);
	free(p->done);
	p->done = NULL;
	p->nr_done = p->cap_done = 0;
	free(p->ring);
	p->ring = NULL;
}

int pgr_ring_queue(struct pgr *p, int fd, void *buf, size_t len, off_t off,
		   bool write, enum pgr_io_kind kind, uint64_t arg)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring(p));

	if (!sqe) {
		/* Full: submit what is queued and try once more. */
		io_uring_submit(ring(p));
		sqe = io_uring_get_sqe(ring(p));
		if (!sqe)
			return -EBUSY;
	}
	if (write)
		io_uring_prep_write(sqe, fd, buf, (unsigned int)len,
				    (uint64_t)off);
	else
		io_uring_prep_read(sqe, fd, buf, (unsigned int)len,
				   (uint64_t)off);
	io_uring_sqe_set_data(sqe, (void *)(uintptr_t)tag_of(kind, arg));
	started(p, write);
	if (kind == PGR_IO_SWAP_WRITE)
		p->ring_swap_writes++;
	return 0;
}

void pgr_ring_start(struct pgr *p, bool write)
{
	started(p, write);
}

void pgr_ring_finish(struct pgr *p, enum pgr_io_kind kind, uint64_t arg,
		     int res)
{
	pgr_grow(&p->done, &p->cap_done, p->nr_done + 1, sizeof(*p->done));
	p->done[p->nr_done++] = (struct pgr_done){ tag_of(kind, arg), res };
	eventfd_write(p->ring_efd, 1);	/* the loop reaps it next */
}

void pgr_ring_done(struct pgr *p, bool write, enum pgr_io_kind kind,
		   uint64_t arg, int res)
{
	started(p, write);
	pgr_ring_finish(p, kind, arg, res);
}
