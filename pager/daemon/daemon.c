/* SPDX-License-Identifier: MIT */
/*
 * daemon.c - the pager daemon: wiring, the loop, and stopping.
 *
 *   setup:  policy over budget descriptors, page buffers, swap file,
 *           io_uring, control socket, signals, a 100 ms tick; then it
 *           confines itself (confine.c)
 *   loop:   uffd readable   -> fault.c
 *           socket readable -> conn.c / ctl.c
 *           ring eventfd    -> ring.c (completions, to their owners)
 *           pidfd readable  -> client.c (exit)
 *           seccomp notify  -> notify.c
 *           before it waits: kswapd if woken, agent requests sent,
 *                           I/O submitted (before_wait())
 *   tick:   rescans, probes of fork children that never told their pid,
 *           retries of faults waiting for memory
 *
 * Owns: struct pgr's setup and teardown, the loop, its tick, its signals,
 * and the work done before the loop waits (before_wait()). It wires the
 * ring's completions to their owners.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/log.h"
#include "../lib/util.h"
#include "base/base.h"
#include "cache/cache.h"
#include "control/control.h"
#include "core/core.h"
#include "daemon.h"
#include "pgr.h"
#include "swap/swap.h"
#include "watch/watch.h"

/*
 * Reclaim's background work: kswapd if the policy woke it, the agents'
 * batches, memory.reclaim's next pass. kswapd runs between batches: a
 * pass frees what the previous one started (armed, written), so while
 * that is in flight it waits.
 */
static void background(struct pgr *p)
{
	if (p->stopping)
		return;
	if (pol_kswapd_wanted(p->pol) && !pgr_in_flight(p)) {
		pol_kswapd(p->pol);
		pol_kswapd_sleep(p->pol, false);
		if (pol_kswapd_oom(p->pol))	/* lru_gen.min_ttl_ms */
			pgr_oom(p, POL_ROOT, NULL);
	}
	pgr_flush_asks(p);
	if (p->reclaims)
		pgr_reclaim_step(p);
	pgr_swap_background(p);
}

/*
 * Before the loop waits, after whatever woke it: the background work, a
 * private daemon's end once its last client has gone, then the I/O all
 * that queued, and the trace lines.
 */
static void before_wait(uv_prepare_t *h)
{
	struct pgr *p = h->data;

	background(p);
	if (!p->stopping && p->o.private_mode && p->detached &&
	    !pgr_nr_clients(p))
		pgr_stop(p);
	pgr_demote_step(p);
	pgr_ring_submit(p);
	pgr_trace_flush(p);
}

/* What the ring's completions go to (ring.h). */
static void swapin_done(struct pgr *p, uint64_t page, int res)
{
	pgr_swapin_done(p, (uint32_t)page, res);
}

static void writeout_done(struct pgr *p, uint64_t page, int res)
{
	if (page & PGR_SWAP_OWN_IO)
		pgr_swap_own_done(p, page, res);
	else
		pgr_writeout_done(p, (uint32_t)page, res);
}

static void file_read_done(struct pgr *p, uint64_t rec, int res)
{
	pgr_file_read_done(p, (void *)(uintptr_t)rec, res);
}

/* Pages may have been freed, or can be now: waiting faults retry, and
 * reclaim goes on at once, not when the loop next waits: a reap inside
 * a fault's spin (events.c) may keep the loop away for a while. */
static void after_reap(struct pgr *p)
{
	pgr_retry_deferred(p, NULL);
	background(p);
}

static const struct pgr_ring_ops ring_ops = {
	.done = {
		[PGR_IO_SWAP_READ] = swapin_done,
		[PGR_IO_SWAP_WRITE] = writeout_done,
		[PGR_IO_FILE_READ] = file_read_done,
		[PGR_IO_FILE_WRITE] = pgr_file_write_done,
	},
	.after = after_reap,
	.submit = pgr_swap_flush,
	.poll = pgr_swap_reap,
};

void pgr_stop(struct pgr *p)
{
	if (p->stopping)
		return;
	p->stopping = true;
	uv_stop(p->loop);
}

/* Clients no pidfd or hello will end: fork children that never faulted
 * nor said hello, processes cut off from their agent. Is their mm gone? */
static void probe_mm(struct pgr *p)
{
	for (uint32_t k = 0; k < p->nr_clients; k++) {
		struct client *c = &p->clients[k];

		if (!c->used || (c->pid && !c->cut_off) ||
		    !pgr_client_mm_gone(c))
			continue;
		pgr_client_gone(p, c, c->pid ? "exec'd or exited" :
				"(a fork child) exited");
	}
}

static void on_tick(uv_timer_t *t)
{
	struct pgr *p = t->data;

	pgr_rescan(p);
	pgr_call_sweep(p);
	pgr_munlock_tick(p);
	probe_mm(p);
	if (++p->ticks % 10 == 0)
		pgr_bufs_trim(p);	/* what was idle for a second */
	pgr_watchdog_tick(p);
	pgr_psi_tick(p);
	pgr_cpu_latency_tick(p);
	pgr_kill_store_lost(p);
	if (p->nr_deferred)
		pgr_retry_deferred(p, NULL);
}

/* Private mode: the launcher is gone (killed?): nobody will detach us. */
static void on_launcher(uv_poll_t *h, int status, int events)
{
	struct pgr *p = h->data;

	uv_poll_stop(h);
	p->detached = true;
	if (!pgr_nr_clients(p))
		pgr_stop(p);
}

static void watch_launcher(struct pgr *p)
{
	p->launcher_pidfd = (int)syscall(SYS_pidfd_open, getppid(), 0);
	if (p->launcher_pidfd < 0)
		return;
	uv_poll_init(p->loop, &p->launcher_poll, p->launcher_pidfd);
	p->launcher_poll.data = p;
	uv_poll_start(&p->launcher_poll, UV_READABLE, on_launcher);
}

static void on_signal(uv_signal_t *h, int sig)
{
	pgr_info("signal %d: stopping", sig);
	pgr_stop(h->data);
}

static int setup_memory(struct pgr *p)
{
	struct pol_setup s;
	size_t arena = (size_t)p->o.budget * PGR_PAGE;

	p->nr_pages = (uint32_t)p->o.budget;
	p->pages = pgr_xcalloc(p->nr_pages, sizeof(*p->pages));
	pgr_files_init(p);
	s = (struct pol_setup){
		.budget = p->o.budget, .pages = p->pages,
		.page_stride = sizeof(struct dpage), .nr_pages = p->nr_pages,
		.inodes = p->pol_inodes, .nr_inodes = p->nr_files_max,
		.backend = &pgr_backend, .ctx = p,
	};
	p->pol = pol_create(&s);
	if (!p->pol) {
		pgr_err("cannot set up the policy for %llu pages",
			(unsigned long long)p->o.budget);
		return -ENOMEM;
	}
	/* Page buffers: as many as pages, reserved, touched when used. */
	p->arena = mmap(NULL, arena, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	p->zeros = mmap(NULL, PGR_MAX_AROUND * PGR_PAGE, PROT_READ,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->arena == MAP_FAILED || p->zeros == MAP_FAILED) {
		pgr_err("cannot reserve %zu bytes of page buffers", arena);
		return -ENOMEM;
	}
	p->free_bufs = pgr_xcalloc(p->nr_pages, sizeof(*p->free_bufs));
	p->buf_released = pgr_xcalloc(p->nr_pages, sizeof(*p->buf_released));
	for (uint32_t b = p->nr_pages; b-- > 0;) {
		p->free_bufs[p->nr_free_bufs++] = b;
		p->buf_released[b] = true;	/* never touched */
	}
	p->bufs_idle = p->nr_free_bufs;
	p->clients = pgr_xcalloc(PGR_MAX_CLIENTS, sizeof(*p->clients));
	p->cpu_latency.fd = -1;
	pgr_knobs_init(p);
	return 0;
}

/* --set KEY=VALUE, once the swap device is open (zswap needs its file). */
static int apply_sets(struct pgr *p)
{
	for (size_t k = 0; k < p->o.nr_sets; k++) {
		char key[128];
		const char *eq = strchr(p->o.sets[k], '='), *why;

		if (!eq || (size_t)(eq - p->o.sets[k]) >= sizeof(key)) {
			pgr_err("--set %s: expected KEY=VALUE", p->o.sets[k]);
			return -EINVAL;
		}
		memcpy(key, p->o.sets[k], (size_t)(eq - p->o.sets[k]));
		key[eq - p->o.sets[k]] = 0;
		if (pgr_tunable_set(p, key, eq + 1, &why)) {
			pgr_err("--set %s: %s", p->o.sets[k], why);
			return -EINVAL;
		}
	}
	return 0;
}

static void teardown(struct pgr *p)
{
	for (uint32_t k = 0; k < p->nr_clients; k++)
		if (p->clients[k].used)
			pgr_client_gone(p, &p->clients[k], "left at shutdown");
	pgr_call_release(p);
	pgr_notify_stop(p);
	pgr_conns_close(p);
	if (uv_is_active((uv_handle_t *)&p->tick))
		uv_timer_stop(&p->tick);
	uv_close((uv_handle_t *)&p->tick, NULL);
	uv_close((uv_handle_t *)&p->soon, NULL);
	uv_close((uv_handle_t *)&p->retry, NULL);
	pgr_adopt_release_held(p);
	uv_close((uv_handle_t *)&p->hold, NULL);
	uv_close((uv_handle_t *)&p->reap, NULL);
	uv_close((uv_handle_t *)&p->before_wait, NULL);
	uv_close((uv_handle_t *)&p->sigterm, NULL);
	uv_close((uv_handle_t *)&p->sigint, NULL);
	if (p->launcher_pidfd > 0) {
		uv_close((uv_handle_t *)&p->launcher_poll, NULL);
		close(p->launcher_pidfd);
	}
	pgr_files_release(p);
	pgr_seal_release(p);
	pgr_ftable_release(p);
	uv_close((uv_handle_t *)&p->demote_timer, NULL);
	pgr_record_close(p);
	pgr_ring_close(p);
	pgr_cpu_latency_close(p);
	/* Let the close callbacks run. */
	uv_run(p->loop, UV_RUN_NOWAIT);
	pgr_swap_close(p);
	pol_destroy(p->pol);
	free(p->pages);
	free(p->clients);
	free(p->phases);
	free(p->free_bufs);
	free(p->buf_released);
	free(p->deferred);
	free(p->psi.reads);
	free(p->tracers);
	for (uint32_t r = 0; r < p->nr_regions; r++)
		free(p->regions[r].slot);
	free(p->regions);
	free(p->free_regions);
	if (p->arena && p->arena != MAP_FAILED)
		munmap(p->arena, (size_t)p->o.budget * PGR_PAGE);
}

struct pgr *pgr_daemon_new(const struct pgr_opts *o, uv_loop_t *loop)
{
	struct pgr *p;
	int err;

	/*
	 * A region's slots are 8 bytes a page, most of them never written
	 * (a reservation, a heap's untouched tail): they must stay zero
	 * pages of their own mmap. glibc's threshold would otherwise grow
	 * past the size of the last large block freed, and then serve the
	 * next from the heap, zeroed by memset: a program that maps 16 TB
	 * in 1 GB pieces made the daemon write 32 GB of zeros (4 GB in 8 s)
	 * and the machine stall. A fixed threshold keeps it off the heap.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	p = pgr_xcalloc(1, sizeof(*p));

	p->o = *o;
	p->listen_fd = -1;
	loop->data = p;
	p->loop = loop;
	uv_timer_init(p->loop, &p->tick);
	uv_timer_init(p->loop, &p->soon);
	uv_timer_init(p->loop, &p->retry);
	uv_timer_init(p->loop, &p->reap);
	uv_timer_init(p->loop, &p->hold);
	p->tick.data = p->soon.data = p->retry.data = p->reap.data = p;
	p->hold.data = p;
	uv_prepare_init(p->loop, &p->before_wait);
	p->before_wait.data = p;
	uv_prepare_start(&p->before_wait, before_wait);
	uv_signal_init(p->loop, &p->sigterm);
	uv_signal_init(p->loop, &p->sigint);
	p->sigterm.data = p->sigint.data = p;
	uv_timer_init(p->loop, &p->demote_timer);
	p->demote_timer.data = p;
	p->lease_sfd = p->fan_fd = p->ftable_fd = -1;
	/* Before the swap store opens: a Redis store is pushed and polled
	 * through these from its first command to its last. */
	p->ring_ops = &ring_ops;
	err = setup_memory(p);
	if (!err)
		err = pgr_ftable_init(p);
	if (!err)
		err = pgr_seal_init(p);
	if (!err)
		err = pgr_swap_open(p);
	if (!err)
		err = apply_sets(p);
	if (!err)
		err = pgr_ring_open(p, &ring_ops);
	if (!err && o->socket_path)
		err = pgr_listen(p);
	if (!err && o->record) {
		err = pgr_record_open(p, o->record);
		/* As comments: a replay chooses its own settings. */
		for (size_t k = 0; !err && k < o->nr_sets; k++)
			pgr_rec(p, "# started with --set %s", o->sets[k]);
	}
	if (err) {
		pgr_daemon_free(p);
		return NULL;
	}
	return p;
}

void pgr_daemon_free(struct pgr *p)
{
	teardown(p);
	free(p);
}

int pgr_daemon_check(const struct pgr_opts *o)
{
	struct pgr_opts dry = *o;
	struct pgr *p;
	uv_loop_t loop;
	bool taken;

	dry.socket_path = NULL;
	dry.swap_pages = 0;
	dry.record = NULL;
	uv_loop_init(&loop);
	p = pgr_daemon_new(&dry, &loop);
	taken = p != NULL;
	if (p)
		pgr_daemon_free(p);
	uv_loop_close(&loop);
	return taken ? 0 : 1;
}

int pgr_daemon_run(const struct pgr_opts *o)
{
	struct pgr *p;
	uv_loop_t loop;

	signal(SIGPIPE, SIG_IGN);
	uv_loop_init(&loop);
	p = pgr_daemon_new(o, &loop);
	if (p && pgr_confine(pgr_swap_network(o->swap))) {
		pgr_daemon_free(p);
		p = NULL;
	}
	if (!p) {
		uv_loop_close(&loop);
		return 1;
	}
	uv_signal_start(&p->sigterm, on_signal, SIGTERM);
	uv_signal_start(&p->sigint, on_signal, SIGINT);
	uv_timer_start(&p->tick, on_tick, 100, 100);
	if (o->private_mode)
		watch_launcher(p);
	pgr_info("listening on %s: %llu pages of budget, %llu of swap%s",
		 o->socket_path, (unsigned long long)o->budget,
		 (unsigned long long)(pgr_has_swap(p) ? o->swap_pages : 0),
		 pgr_has_swap(p) ? "" : " (none)");
	if (o->ready_fd >= 0) {
		if (write(o->ready_fd, "ready\n", 6) != 6)
			pgr_warn_("cannot tell the launcher we are ready");
		close(o->ready_fd);
	}
	uv_run(p->loop, UV_RUN_DEFAULT);
	pgr_daemon_free(p);
	uv_loop_close(&loop);
	return 0;
}

int pgr_daemon_swap_check(const char *spec, char *why, size_t len)
{
	return pgr_swap_check(spec, why, len);
}
