/* SPDX-License-Identifier: MIT */
/*
 * call.c - a client's mmap and brk made for it by its agent, so that the
 * pager owns the new memory before the call returns.
 *
 * libc's own mmap (malloc's arenas and large blocks) and brk (its heap)
 * never pass the shim's symbols; the seccomp filter of `pager run` stops
 * them before they run (notify.c). Let through (CONTINUE), the call would
 * return before the daemon had registered the new range, and the program
 * would fill it in the kernel's memory, uncharged (a rescan finds those
 * pages present when nothing is free: SL_FOREIGN). So a client's call is
 * held instead: its agent, which shares the program's memory, makes the
 * same call ("call ID NR ARGS", shim/agent.c), answers with its result
 * ("called ID RET OLD"), the daemon registers the range (adopt.c), and
 * only then is the notification answered with that result: the program
 * sees the kernel's own return value, errors included, and touches no
 * page of it before the pager can charge it, as the kernel's memcg charge
 * happens in the fault.
 *
 *   mmap, PROT_READ|PROT_WRITE   adopted: a region, faults served here
 *   mmap, PROT_NONE              registered as a reservation (adopt.c)
 *   mmap, other protections      as a rescan: left to the kernel
 *   brk, growing                 [old break, new break) adopted
 *   brk, shrinking or queried    nothing (an UNMAP event tells, if any)
 *
 * A client whose agent is still starting (between the shim's hello and
 * the agent's "ready") has its calls held until then: continued, a call
 * of a thread the program started at once (malloc's first arena) would
 * map before the rescan looked, and the kernel's faults would fill it
 * unseen (budget.sh 2 under load: VmHWM 83 MB under --mem 32M). The
 * agent needs nothing of the program's threads to start, and if it never
 * does its connection ends, and the calls are continued then. A process
 * that is no client yet (its loader, before the shim's hello) or whose
 * agent is cut off is continued and rescanned as before (notify.c).
 *
 * The agent is another process of the same memory: what the kernel checks
 * a call against that is the process's, not the memory's (RLIMIT_AS,
 * RLIMIT_DATA), it takes from the caller first (same_limits()).
 *
 * Interrupted: a signal to the waiting thread withdraws the notification
 * (the kernel restarts the call after the handler, as a new one), so the
 * answer finds no notification (ENOENT). A brk or a MAP_FIXED mmap made
 * twice does what it did once; any other mmap's mapping would be lost to
 * the program, so the agent unmaps it.
 *
 * Owns: the calls held (p->calls).
 */
#include <errno.h>
#include <linux/kcmp.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../lib/compat.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../core/core.h"
#include "../pgr.h"
#include "watch.h"

struct pgr_call {
	struct pgr_call *next;
	uint64_t id;		/* the agent's request */
	int lfd;		/* the listener, and its notification */
	uint64_t notif;
	int nr;
	uint64_t args[6];
	uint32_t client;	/* index in p->clients, and its pid then */
	pid_t pid;
	pid_t tid;		/* the calling thread */
	bool sent;		/* to the agent (not: it is starting) */
	bool made;		/* the agent answered: being adopted */
	int64_t ret;
};

static uint64_t page_up(uint64_t a)
{
	return (a + PGR_PAGE - 1) & ~(uint64_t)(PGR_PAGE - 1);
}

static void unlink_call(struct pgr *p, struct pgr_call *k)
{
	for (struct pgr_call **pp = &p->calls; *pp; pp = &(*pp)->next) {
		if (*pp == k) {
			*pp = k->next;
			return;
		}
	}
}

static void send_resp(struct pgr_call *k, struct seccomp_notif_resp *resp)
{
	resp->id = k->notif;
	if (!ioctl(k->lfd, SECCOMP_IOCTL_NOTIF_SEND, resp) || errno != ENOENT)
		return;
	k->notif = 0;	/* withdrawn: a signal, or the process ended */
}

/* Let the kernel make the call after all (no agent to make it). */
static void continue_call(struct pgr *p, struct pgr_call *k)
{
	struct seccomp_notif_resp resp = {
		.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE,
	};

	unlink_call(p, k);
	send_resp(k, &resp);
	free(k);
}

/* The program's call returns what the agent's did. */
static void answer(struct pgr *p, void *arg)
{
	struct pgr_call *k = arg;
	struct seccomp_notif_resp resp = { 0 };
	struct client *c = &p->clients[k->client];
	bool lost;
	int lfd, uffd;

	if (k->ret < 0 && k->ret > -4096)
		resp.error = (int32_t)k->ret;
	else
		resp.val = k->ret;
	unlink_call(p, k);
	send_resp(k, &resp);
	lost = !k->notif && k->nr == SYS_mmap && !resp.error &&
	       !(k->args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE));
	if (lost && c->used && c->pid == k->pid && c->conn) {
		char line[128];

		snprintf(line, sizeof(line), "call 0 %x %llx %llx 0 0 0 0",
			 SYS_munmap, (unsigned long long)k->ret,
			 (unsigned long long)k->args[1]);
		pgr_agent_send(c, line, -1);
	}
	lfd = k->notif ? k->lfd : -1;
	uffd = c->used && c->pid == k->pid ? c->uffd : -1;
	free(k);
	if (lfd >= 0)	/* the program's next call may come at once */
		pgr_notify_answered(p, lfd, uffd);
}

/*
 * Does the calling thread @tid have the memory @c's agent shares? Not a
 * program that has just exec'd under the same pid: its client is still
 * the old one until its shim's hello, and the old agent, holding the old
 * mm, would map there (an address the new program cannot use).
 */
static bool agent_mm(const struct client *c, pid_t tid)
{
	return c->agent > 0 &&
	       syscall(SYS_kcmp, tid, c->agent, KCMP_VM, 0, 0) == 0;
}

/*
 * @pid's limit @res, as prlimit(2) reads it, or from /proc/PID/limits where
 * prlimit may not (another user's process, and no CAP_SYS_RESOURCE: a
 * program that changed its user, on a host whose root lacks it). 0 or -1.
 */
static int limit_of(pid_t pid, int res, struct rlimit *r)
{
	const char *name = res == RLIMIT_AS ? "Max address space" :
			   "Max data size";
	char path[64], line[160], cur[32], max[32];
	size_t len = strlen(name);
	int found = -1;
	FILE *f;

	if (!prlimit(pid, res, NULL, r))
		return 0;
	if (errno != EPERM)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	f = fopen(path, "re");
	while (f && found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, name, len) ||
		    sscanf(line + len, "%31s %31s", cur, max) != 2)
			continue;
		r->rlim_cur = strcmp(cur, "unlimited") ?
			      strtoull(cur, NULL, 10) : RLIM_INFINITY;
		r->rlim_max = strcmp(max, "unlimited") ?
			      strtoull(max, NULL, 10) : RLIM_INFINITY;
		found = 0;
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * The limits the kernel checks an mmap or brk against are the calling
 * process's (RLIMIT_AS, RLIMIT_DATA), and the agent is another process:
 * it takes the caller's before the call, so that the call fails where
 * the program's own would (ENOMEM), and not where it would not. False
 * if they cannot be read or given (then the program makes its call).
 */
static bool same_limits(const struct client *c, pid_t tid)
{
	static const int res[] = { RLIMIT_AS, RLIMIT_DATA };

	for (size_t k = 0; k < sizeof(res) / sizeof(res[0]); k++) {
		struct rlimit mine, its;

		if (limit_of(tid, res[k], &mine) ||
		    limit_of(c->agent, res[k], &its))
			return false;
		if ((mine.rlim_cur != its.rlim_cur ||
		     mine.rlim_max != its.rlim_max) &&
		    prlimit(c->agent, res[k], &mine, NULL))
			return false;
	}
	return true;
}

/* Ask @c's agent to make call @k; false if it cannot (then the program
 * makes it). */
static bool send_call(struct pgr *p, struct client *c, struct pgr_call *k)
{
	char line[256];

	if (!agent_mm(c, k->tid) || !same_limits(c, k->tid))
		return false;
	snprintf(line, sizeof(line), "call %llx %x %llx %llx %llx %llx %llx "
		 "%llx", (unsigned long long)k->id, k->nr,
		 (unsigned long long)k->args[0], (unsigned long long)k->args[1],
		 (unsigned long long)k->args[2], (unsigned long long)k->args[3],
		 (unsigned long long)k->args[4], (unsigned long long)k->args[5]);
	if (pgr_agent_send(c, line, -1))
		return false;
	k->sent = true;
	p->calls_made++;
	pgr_dbg("call %llu: syscall %d of %d (thread %d), made by its agent",
		(unsigned long long)k->id, k->nr, c->pid, (int)k->tid);
	return true;
}

bool pgr_call_take(struct pgr *p, struct client *c, int lfd,
		   const struct seccomp_notif *req)
{
	struct pgr_call *k;

	if (!c || !c->conn || c->cut_off ||
	    (req->data.nr != SYS_mmap && req->data.nr != SYS_brk))
		return false;
	k = pgr_xcalloc(1, sizeof(*k));
	*k = (struct pgr_call){ .next = p->calls, .id = ++p->next_call,
				.lfd = lfd, .notif = req->id,
				.nr = req->data.nr,
				.client = (uint32_t)(c - p->clients),
				.pid = c->pid, .tid = (pid_t)req->pid };
	memcpy(k->args, req->data.args, sizeof(k->args));
	if (c->agent_ready && !send_call(p, c, k)) {
		free(k);
		return false;
	}
	p->calls = k;
	if (!k->sent)
		pgr_dbg("call %llu: syscall %d of %d (thread %d), held until "
			"its agent runs", (unsigned long long)k->id, k->nr,
			c->pid, (int)k->tid);
	return true;
}

void pgr_call_agent_ready(struct pgr *p, struct client *c)
{
	for (struct pgr_call *k = p->calls, *next; k; k = next) {
		next = k->next;
		if (k->sent || &p->clients[k->client] != c || c->pid != k->pid)
			continue;
		if (ioctl(k->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &k->notif)) {
			unlink_call(p, k);	/* withdrawn while held */
			free(k);
		} else if (!send_call(p, c, k)) {
			continue_call(p, k);
		}
	}
}

void pgr_call_made(struct pgr *p, struct client *c, uint64_t id, int64_t ret,
		   uint64_t old)
{
	struct pgr_call *k;
	uint64_t start = 0, end = 0;

	for (k = p->calls; k; k = k->next)
		if (k->id == id && k->sent && !k->made &&
		    &p->clients[k->client] == c && c->pid == k->pid)
			break;
	if (!k)
		return;	/* a clean-up's answer, or an unknown id */
	k->made = true;
	k->ret = ret;
	pgr_dbg("call %llu made: 0x%llx (break 0x%llx before)",
		(unsigned long long)id, (unsigned long long)ret,
		(unsigned long long)old);
	if (k->nr == SYS_mmap && !(ret < 0 && ret > -4096)) {
		int prot = (int)k->args[2];

		if (prot == PROT_NONE) {
			pgr_reserve(p, c, (uint64_t)ret,
				    (uint64_t)ret + page_up(k->args[1]));
		} else if (prot == (PROT_READ | PROT_WRITE)) {
			start = (uint64_t)ret;
			end = start + page_up(k->args[1]);
		}
	} else if (k->nr == SYS_brk && (uint64_t)ret > old) {
		start = page_up(old);
		end = page_up((uint64_t)ret);
	}
	if (start < end)
		pgr_adopt_then(p, c, start, end, answer, k);
	else
		answer(p, k);
}

void pgr_call_agent_gone(struct pgr *p, struct client *c)
{
	for (struct pgr_call *k = p->calls, *next; k; k = next) {
		next = k->next;
		if (!k->made && &p->clients[k->client] == c)
			continue_call(p, k);
	}
}

void pgr_call_listener_gone(struct pgr *p, int lfd)
{
	for (struct pgr_call *k = p->calls; k; k = k->next)
		if (k->lfd == lfd)
			k->lfd = -1;	/* its answer goes nowhere */
}

void pgr_call_sweep(struct pgr *p)
{
	for (struct pgr_call *k = p->calls, *next; k; k = next) {
		struct client *c = &p->clients[k->client];

		next = k->next;
		if (!k->made && (!c->used || c->pid != k->pid || !c->conn))
			continue_call(p, k);
	}
}

void pgr_call_release(struct pgr *p)
{
	while (p->calls) {
		struct pgr_call *k = p->calls;

		if (k->made) {	/* in adopt.c's hold: answered from there */
			unlink_call(p, k);
			k->next = NULL;
			continue;
		}
		continue_call(p, k);
	}
}
