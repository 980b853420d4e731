/* SPDX-License-Identifier: MIT */
/*
 * client.c - the processes under the pager: a client per process (per
 * mm), from its first message (or its fork event) to its exit.
 *
 * A client is known by its userfaultfd first: a process that says hello
 * hands it over; a fork child's comes in the parent's FORK event, before
 * anyone knows the child's pid. The pid arrives with the child's first
 * fault (the fault's thread id, UFFD_FEATURE_THREAD_ID) or its hello.
 * Then a pidfd tells when the process exits, and everything it held is
 * freed. The agent is a process of its own that shares the mm, and holds
 * it: a client whose program exec'd is told by the close of the program's
 * own connection (close-on-exec; kcmp then says the agent's mm is not the
 * program's any more), is freed, and its agent is told "bye". A program
 * may also close that connection itself and run on (a launcher closes
 * every descriptor between fork and exec): it keeps its agent. A client
 * whose agent ended while its process runs on is cut off: served, but no
 * longer evicted, until its mm is gone.
 *
 * The table is fixed-size: libuv keeps pointers to the poll handles
 * inside each entry, and an entry is reused only once both handles are
 * closed.
 *
 * Owns: the client table (one entry per process under the pager), each
 * client's polls of its userfaultfd and pidfd, and its end: everything it
 * held freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "../../lib/compat.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../cache/cache.h"
#include "../control/control.h"
#include "../pgr.h"
#include "core.h"
#include "maps.h"

struct client *pgr_client_new(struct pgr *p, pid_t pid, int uffd)
{
	for (uint32_t k = 0; k < PGR_MAX_CLIENTS; k++) {
		struct client *c = &p->clients[k];

		if (c->used || c->handles)
			continue;
		memset(c, 0, sizeof(*c));
		c->used = true;
		pgr_psi_join(p);
		c->joined = pgr_now();
		c->pid = pid;
		c->uffd = uffd;
		c->pidfd = -1;
		c->maps_fd = c->mem_fd = c->pagemap_fd = -1;
		c->group = POL_ROOT;
		if (k >= p->nr_clients)
			p->nr_clients = k + 1;
		return c;
	}
	return NULL;
}

struct client *pgr_client_find(struct pgr *p, pid_t pid)
{
	for (uint32_t k = 0; k < p->nr_clients; k++)
		if (p->clients[k].used && p->clients[k].pid == pid)
			return &p->clients[k];
	return NULL;
}

struct client *pgr_client_of_agent(struct pgr *p, pid_t agent)
{
	for (uint32_t k = 0; k < p->nr_clients; k++)
		if (p->clients[k].used && p->clients[k].agent == agent)
			return &p->clients[k];
	return NULL;
}

static void on_uffd(uv_poll_t *h, int status, int events)
{
	struct client *c = h->data;
	struct pgr *p = h->loop->data;

	if (!c->used)
		return;
	pgr_uffd_ready(p, c);
}

static void on_pidfd(uv_poll_t *h, int status, int events)
{
	struct client *c = h->data;
	struct pgr *p = h->loop->data;

	if (c->used)
		pgr_client_gone(p, c, "exited");
}

static void closed(uv_handle_t *h)
{
	struct client *c = h->data;

	c->handles--;
}

int pgr_client_watch(struct pgr *p, struct client *c)
{
	uv_poll_init(p->loop, &c->uffd_poll, c->uffd);
	c->uffd_poll.data = c;
	uv_poll_start(&c->uffd_poll, UV_READABLE, on_uffd);
	c->handles++;
	return 0;
}

int pgr_client_set_pid(struct pgr *p, struct client *c, pid_t pid)
{
	struct client *old = pgr_client_find(p, pid);
	int fd;

	if (old && old != c)
		pgr_client_gone(p, old, "replaced by exec");
	c->pid = pid;
	pgr_proc_close(c);	/* opened again for this pid */
	if (c->parent)
		pgr_rec(p, "fork %d %d", c->parent, pid);
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0) {
		pgr_warn_("cannot watch process %d: %s", pid, strerror(errno));
		return -errno;
	}
	c->pidfd = fd;
	uv_poll_init(p->loop, &c->pid_poll, fd);
	c->pid_poll.data = c;
	uv_poll_start(&c->pid_poll, UV_READABLE, on_pidfd);
	c->handles++;
	return 0;
}

/*
 * Is @c's mm gone (exit or exec)? The userfaultfd outlives it, and its
 * calls that need the mm fail with ESRCH then (UFFDIO_WAKE does not look
 * at the mm). Lifting write protection where nothing is registered does
 * nothing otherwise: the shim's own stack, never adopted, or the lowest
 * address a program may map.
 */
bool pgr_client_mm_gone(const struct client *c)
{
	struct uffdio_writeprotect wp = { .range = {
		c->nr_excluded ? c->excluded[0].start : 0x10000, PGR_PAGE } };

	return ioctl(c->uffd, UFFDIO_WRITEPROTECT, &wp) && errno == ESRCH;
}

void pgr_client_set_life(struct client *c, struct conn *life, pid_t agent)
{
	c->life = life;
	if (agent > 0)
		c->agent = agent;
}

/* Does the program still have the mm its agent shares? kcmp(KCMP_VM);
 * without an agent, or where kcmp cannot tell, the mm's own end says. */
static bool same_mm(const struct client *c)
{
	long r;

	if (c->agent <= 0 || !c->conn)
		return !pgr_client_mm_gone(c);
	r = syscall(SYS_kcmp, c->pid, c->agent, KCMP_VM, 0, 0);
	if (r == 0)
		return true;
	if (r > 0 || errno == ESRCH)
		return false;
	return !pgr_client_mm_gone(c);
}

void pgr_client_life_closed(struct pgr *p, struct client *c)
{
	c->life = NULL;
	if (!same_mm(c))
		pgr_client_gone(p, c, "closed its connection (exit or exec)");
}

/*
 * @c's agent ended (killed?) and its process runs on. Its faults are
 * still served through the daemon's copy of its userfaultfd, but nothing
 * of it can be evicted any more (no agent to drop a page): requests the
 * agent will never answer are settled by the REMOVEs seen, which unarms
 * the pages it did not drop. Freed when the mm is gone (on_tick), the
 * process exits (pidfd) or its next program says hello.
 */
void pgr_client_cut_off(struct pgr *p, struct client *c)
{
	c->conn = NULL;
	c->agent_ready = false;
	c->cut_off = true;
	while (c->nr_pending)
		pgr_agent_done(p, c, c->pending[0].id,
			       c->agent_moves ? DROP_UNKNOWN : DROP_MADVISED);
	pgr_info("the agent of process %d ended and the process runs on: "
		 "its %llu pages stay resident until it execs or exits",
		 c->pid, (unsigned long long)c->resident);
	pgr_retry_deferred(p, NULL);
}

void pgr_client_gone(struct pgr *p, struct client *c, const char *why)
{
	pgr_info("process %d %s: freeing %llu pages and %llu swap entries",
		 c->pid, why, (unsigned long long)c->resident,
		 (unsigned long long)c->swapped);
	if (c->pid > 0)
		pgr_rec(p, "exit %d", c->pid);
	pgr_psi_forget(p, c);
	c->used = false;
	if (uv_is_active((uv_handle_t *)&c->uffd_poll) || c->handles) {
		if (!uv_is_closing((uv_handle_t *)&c->uffd_poll))
			uv_close((uv_handle_t *)&c->uffd_poll, closed);
		if (c->pidfd >= 0 &&
		    !uv_is_closing((uv_handle_t *)&c->pid_poll))
			uv_close((uv_handle_t *)&c->pid_poll, closed);
	}
	if (c->conn) {
		/* The agent holds the mm until it ends. Not when the daemon
		 * stops with the process alive: its agent must see the
		 * connection break without a bye and stop it (its evicted
		 * pages go with the daemon). */
		if (!p->stopping)
			pgr_conn_send(c->conn, "bye");
		pgr_conn_detach_client(c->conn);
	}
	if (c->life)
		pgr_conn_detach_client(c->life);
	c->conn = c->life = NULL;
	c->agent = 0;
	pgr_file_unhand(p, c);
	pgr_fwrite_forget(p, c);
	pgr_region_drop_all(p, c);
	close(c->uffd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	pgr_proc_close(c);
	free(c->regions);
	free(c->asked);
	free(c->fasked);
	free(c->pending);
	free(c->excluded);
	free(c->parked);
	free(c->wb_seen);
	c->wb_seen = NULL;
	free(c->wd);
	c->wd = NULL;
	c->nr_wd = 0;
	c->nr_held = 0;
	c->nr_wb_seen = c->cap_wb_seen = 0;
	c->regions = NULL;
	c->parked = NULL;
	c->nr_parked = c->cap_parked = 0;
	c->asked = c->fasked = c->pending = c->excluded = NULL;
	c->nr_fasked = c->cap_fasked = 0;
	c->nr_regions = c->cap_regions = 0;
	c->nr_asked = c->cap_asked = 0;
	c->nr_pending = c->cap_pending = 0;
	c->nr_excluded = c->cap_excluded = 0;
	if (p->oom_victim == c->pid)
		p->oom_victim = 0;
	/* Memory was freed: faults that waited for it may go on. */
	pgr_retry_deferred(p, NULL);
	if (!pgr_nr_clients(p))
		pgr_cpu_latency_close(p);	/* nobody left to wait */
}

unsigned int pgr_nr_clients(const struct pgr *p)
{
	unsigned int n = 0;

	for (uint32_t k = 0; k < p->nr_clients; k++)
		n += p->clients[k].used;
	return n;
}
