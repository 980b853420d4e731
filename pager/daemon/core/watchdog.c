/* SPDX-License-Identifier: MIT */
/*
 * watchdog.c - a thread of a client that waits too long on the pager.
 *
 * The pager must never hang where the kernel returns. Once a second each
 * client's threads are looked at (/proc/PID/task/TID/stat, then wchan):
 * a thread asleep in handle_userfault whose fault and CPU counts have not
 * moved since the last look has waited since then on one fault (or on
 * one system call's copy of a page the pager holds). Past WATCHDOG_S
 * seconds it is reported once, in the log (the process, the thread, the
 * address when the daemon parked a fault of that thread, whether it is a
 * page fault or which system call) and in `pager stat`
 * (pager_stuck_threads now, pager_stuck_reports ever). It reports; it
 * does not act: what holds the fault (an agent stopped, a swap device
 * gone) is for the reader.
 *
 * Owns: each client's record of its threads' last look (c->wd) and of
 * the faults it parked lately (c->held).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../pgr.h"
#include "core.h"

#define WATCHDOG_S	5		/* seconds one fault may take */
#define TICKS		10		/* looks: every second (100 ms ticks) */

/* The text of /proc/PID/task/TID/NAME into @buf (NUL-ended), or -1. */
static int read_task(pid_t pid, pid_t tid, const char *name, char *buf,
		     size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
		 (int)tid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* State, faults and CPU ticks of a thread, from its stat line. */
static int task_stat(pid_t pid, pid_t tid, char *state, uint64_t *faults,
		     uint64_t *cpu)
{
	char buf[1024], *s;
	unsigned long long minflt, majflt, utime, stime;

	if (read_task(pid, tid, "stat", buf, sizeof(buf)))
		return -1;
	s = strrchr(buf, ')');	/* the name may hold anything */
	if (!s || sscanf(s + 2, "%c %*d %*d %*d %*d %*d %*u %llu %*u %llu "
			 "%*u %llu %llu", state, &minflt, &majflt, &utime,
			 &stime) != 5)
		return -1;
	*faults = minflt + majflt;
	*cpu = utime + stime;
	return 0;
}

void pgr_watchdog_held(struct client *c, pid_t tid, uint64_t addr, bool wp)
{
	struct held_fault *h = &c->held[c->nr_held++ % PGR_HELD];

	*h = (struct held_fault){ .tid = tid, .addr = addr, .wp = wp };
}

static const struct held_fault *held_of(const struct client *c, pid_t tid)
{
	unsigned int n = c->nr_held < PGR_HELD ? c->nr_held : PGR_HELD;

	for (unsigned int k = 0; k < n; k++) {
		const struct held_fault *h =
			&c->held[(c->nr_held - 1 - k) % PGR_HELD];

		if (h->tid == tid)
			return h;
	}
	return NULL;
}

static void report(struct pgr *p, struct client *c, pid_t tid,
		   double waited)
{
	const struct held_fault *h = held_of(c, tid);
	char sys[128] = "", where[96] = "";
	long nr = -1;

	if (!read_task(c->pid, tid, "syscall", sys, sizeof(sys)))
		nr = strtol(sys, NULL, 10);
	if (h)
		snprintf(where, sizeof(where), " at 0x%llx (%s fault)",
			 (unsigned long long)h->addr, h->wp ? "a write-protect" :
			 "a missing");
	pgr_warn_("watchdog: thread %d of process %d has waited %.0f s on the "
		  "pager%s, %s%s", (int)tid, (int)c->pid, waited, where,
		  nr >= 0 ? "in a system call: /proc/PID/syscall " :
			    "in a page fault",
		  nr >= 0 ? strtok(sys, "\n") : "");
	p->stuck_reports++;
}

/* Look at @c's threads: the number waiting too long now. */
static unsigned int look(struct pgr *p, struct client *c, double now)
{
	struct wd_thread *old = c->wd, *cur = NULL;
	size_t nr_old = c->nr_wd, nr = 0, cap = 0;
	unsigned int stuck = 0;
	struct dirent *e;
	char path[48];
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)c->pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		struct wd_thread t = { .tid = tid, .since = now };
		char wchan[64];

		if (tid <= 0 || task_stat(c->pid, tid, &t.state, &t.faults,
					  &t.cpu))
			continue;
		if ((t.state == 'S' || t.state == 'D') &&
		    !read_task(c->pid, tid, "wchan", wchan, sizeof(wchan)) &&
		    !strcmp(wchan, "handle_userfault")) {
			t.waiting = true;
			for (size_t k = 0; k < nr_old; k++) {
				const struct wd_thread *o = &old[k];

				if (o->tid != tid || !o->waiting ||
				    o->faults != t.faults || o->cpu != t.cpu)
					continue;
				t.since = o->since;	/* the same wait */
				t.reported = o->reported;
			}
			if (now - t.since >= WATCHDOG_S) {
				stuck++;
				if (!t.reported)
					report(p, c, tid, now - t.since);
				t.reported = true;
			}
		}
		pgr_grow(&cur, &cap, nr + 1, sizeof(*cur));
		cur[nr++] = t;
	}
	closedir(d);
	free(old);
	c->wd = cur;
	c->nr_wd = nr;
	return stuck;
}

void pgr_watchdog_tick(struct pgr *p)
{
	unsigned int stuck = 0;
	double now = pgr_now();

	if (p->ticks % TICKS)
		return;
	for (uint32_t k = 0; k < p->nr_clients; k++) {
		struct client *c = &p->clients[k];

		if (c->used && c->pid > 0)
			stuck += look(p, c, now);
	}
	p->stuck_threads = stuck;
}
