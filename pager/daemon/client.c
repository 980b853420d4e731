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
 * freed. A client whose mm is replaced by exec loses its agent's
 * connection (close-on-exec) and is freed too; the new program says hello
 * again. A process may also close that connection itself and run on (a
 * launcher closes every descriptor between fork and exec): its client is
 * cut off, served but no longer evicted, until its mm is gone.
 *
 * The table is fixed-size: libuv keeps pointers to the poll handles
 * inside each entry, and an entry is reused only once both handles are
 * closed.
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

#include "../lib/compat.h"
#include "../lib/log.h"
#include "pgr.h"
#include "../lib/util.h"

uint32_t pgr_client_id(const struct pgr *p, const struct client *c)
{
	return (uint32_t)(c - p->clients);
}

struct client *pgr_client_new(struct pgr *p, pid_t pid, int uffd)
{
	for (uint32_t k = 0; k < PGR_MAX_CLIENTS; k++) {
		struct client *c = &p->clients[k];

		if (c->used || c->handles)
			continue;
		memset(c, 0, sizeof(*c));
		c->used = true;
		c->joined = pgr_now();
		c->pid = pid;
		c->uffd = uffd;
		c->pidfd = -1;
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

/*
 * @c's process closed its agent's connection and runs on. Its faults are
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
		pgr_agent_done(p, c, c->pending[0].id);
	pgr_info("process %d closed its connection to the pager and runs on "
		 "(a launcher before exec?): its %llu pages stay resident "
		 "until it execs or exits", c->pid,
		 (unsigned long long)c->resident);
	pgr_retry_deferred(p, NULL);
}

void pgr_client_gone(struct pgr *p, struct client *c, const char *why)
{
	pgr_info("process %d %s: freeing %llu pages and %llu swap entries",
		 c->pid, why, (unsigned long long)c->resident,
		 (unsigned long long)c->swapped);
	if (c->pid > 0)
		pgr_rec(p, "exit %d", c->pid);
	c->used = false;
	if (uv_is_active((uv_handle_t *)&c->uffd_poll) || c->handles) {
		if (!uv_is_closing((uv_handle_t *)&c->uffd_poll))
			uv_close((uv_handle_t *)&c->uffd_poll, closed);
		if (c->pidfd >= 0 &&
		    !uv_is_closing((uv_handle_t *)&c->pid_poll))
			uv_close((uv_handle_t *)&c->pid_poll, closed);
	}
	if (c->conn)
		pgr_conn_detach_client(c->conn);
	c->conn = NULL;
	pgr_file_unhand(p, c);
	pgr_region_drop_all(p, c);
	close(c->uffd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	free(c->regions);
	free(c->asked);
	free(c->fasked);
	free(c->pending);
	free(c->excluded);
	c->regions = NULL;
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
}

unsigned int pgr_nr_clients(const struct pgr *p)
{
	unsigned int n = 0;

	for (uint32_t k = 0; k < p->nr_clients; k++)
		n += p->clients[k].used;
	return n;
}

static bool in_group(const struct pgr *p, int g, int root)
{
	for (; g >= 0; g = pol_group_parent(p->pol, g))
		if (g == root)
			return true;
	return false;
}

/*
 * Say @msg on @pid's stderr as well, unless that is ours (a private
 * daemon's errors already go there): whoever runs a program against a
 * standing daemon learns why it died. O_APPEND, for a log file.
 */
static void tell(pid_t pid, const char *fmt, ...)
{
	char path[64], msg[512];
	struct stat theirs, ours;
	va_list ap;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/fd/2", (int)pid);
	fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK |
		  O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &theirs) == 0 && fstat(2, &ours) == 0 &&
	    theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino) {
		close(fd);
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n > 0 && write(fd, msg, (size_t)n < sizeof(msg) ? (size_t)n :
			   sizeof(msg) - 1) < 0)
		pgr_dbg("cannot tell process %d: %s", pid, strerror(errno));
	close(fd);
}

void pgr_kill(struct pgr *p, struct client *c, const char *why)
{
	if (c->pid > 0) {
		tell(c->pid, "pager: killed process %d: %s\n", c->pid, why);
		if (kill(c->pid, SIGKILL) == 0) {
			pgr_err("killed process %d: %s", c->pid, why);
			return;
		}
	}
	pgr_client_gone(p, c, why);
}

/* /proc/PID/oom_score_adj, -1000..1000; 0 if it cannot be read. */
static int oom_score_adj(pid_t pid)
{
	char path[64];
	int adj = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", pid);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%d", &adj) != 1)
			adj = 0;
		fclose(f);
	}
	return adj;
}

void pgr_oom(struct pgr *p, int group, struct client *for_client)
{
	struct client *victim = NULL;
	int64_t best = 0;

	if (p->oom_victim && kill(p->oom_victim, 0) == 0)
		return;		/* one kill at a time: wait for it to go */
	for (uint32_t k = 0; k < p->nr_clients; k++) {
		struct client *c = &p->clients[k];
		int64_t b = (int64_t)(c->resident + c->swapped);
		int adj;

		if (!c->used || c->pid <= 0 || !in_group(p, c->group, group))
			continue;
		/* oom_badness(): oom_score_adj in thousandths of the
		 * memory; -1000 is never chosen. */
		adj = oom_score_adj(c->pid);
		if (adj <= -1000)
			continue;
		b += (int64_t)adj * (int64_t)p->o.budget / 1000;
		if (b < 1)
			b = 1;
		if (b > best) {
			best = b;
			victim = c;
		}
	}
	if (!victim) {
		pgr_err("out of memory in group %s, and no process to kill",
			pol_group_name(p->pol, group));
		return;
	}
	p->oom_victim = victim->pid;
	pol_count(p->pol, victim->group, POL_OOM_KILL, 1);
	pgr_err("out of memory%s%s (a fault of process %d): killed process "
		"%d with %llu resident pages and %llu swap entries",
		group == POL_ROOT ? "" : " in group ",
		group == POL_ROOT ? "" : pol_group_name(p->pol, group),
		for_client ? for_client->pid : 0, victim->pid,
		(unsigned long long)victim->resident,
		(unsigned long long)victim->swapped);
	tell(victim->pid, "pager: out of memory: killed process %d (%llu "
	     "pages resident, %llu swapped)\n", victim->pid,
	     (unsigned long long)victim->resident,
	     (unsigned long long)victim->swapped);
	kill(victim->pid, SIGKILL);
}
