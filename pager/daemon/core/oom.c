/* SPDX-License-Identifier: MIT */
/*
 * oom.c - ending a client: a kill with a reason the program's own stderr
 * is told too, and the OOM killer (the client of highest badness in the
 * group out of memory, as oom_badness() scores it); and the processes
 * whose pages a swap store lost with a server (redis.c).
 *
 * Owns: the victim not yet gone (one kill at a time).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../pgr.h"
#include "../swap/swap.h"
#include "core.h"

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
	if (c->killed)
		return;		/* a batch's other pages: said already */
	if (c->pid > 0) {
		tell(c->pid, "pager: killed process %d: %s\n", c->pid, why);
		if (kill(c->pid, SIGKILL) == 0) {
			pgr_err("killed process %d: %s", c->pid, why);
			c->killed = true;
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

/* What @pid runs, for the log: its comm, as the kernel's message names
 * it, and for a browser's helper its --type= (found in the whole command
 * line: a zygote's children rewrite theirs into one string). */
static void name_of(pid_t pid, char *buf, size_t len)
{
	char path[64], args[4096], comm[32] = "?", *type;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, sizeof(comm) - 1);
		comm[n > 0 ? n : 0] = 0;
		comm[strcspn(comm, "\n")] = 0;
		close(fd);
	}
	snprintf(buf, len, "%s", comm);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, args, sizeof(args) - 1);
	close(fd);
	if (n <= 0)
		return;
	for (ssize_t k = 0; k < n; k++)
		if (!args[k])
			args[k] = ' ';
	args[n] = 0;
	type = strstr(args, "--type=");
	if (type) {
		size_t m = strlen(buf);

		type[strcspn(type, " ")] = 0;
		snprintf(buf + m, len - m, " %.40s", type);
	}
}

/*
 * What reclaim met, logged with a kill as the kernel's dump_header()
 * logs show_mem() ("Mem-Info:"): the group's lists, dirty, writeback and
 * free pages as `pager stat` has them (the policy's counters, MGLRU's
 * pages split as the kernel's are), then what only the pages say: taken
 * off a list (isolated) or for a fault not yet served (allocated), and
 * what kept them from reclaim at that moment: a swap read in flight (the
 * kernel's locked folio), a young bit being cleared (arming), a region
 * whose event is unread (parked), an owner gone with its I/O in flight
 * (orphan), and the I/O in flight. A false OOM kill shows here as many
 * pages in a state that was about to end.
 */
static void show_mem(struct pgr *p, int group)
{
	static const enum pol_item items[] = {
		POL_NR_ACTIVE_ANON, POL_NR_INACTIVE_ANON, POL_NR_ACTIVE_FILE,
		POL_NR_INACTIVE_FILE, POL_NR_UNEVICTABLE, POL_NR_DIRTY,
		POL_NR_WRITEBACK, POL_NR_FREE_PAGES,
	};
	static const char *const names[] = {
		"active_anon", "inactive_anon", "active_file", "inactive_file",
		"unevictable", "dirty", "writeback", "free",
	};
	uint64_t isolated = 0, allocated = 0, reading = 0, arming = 0;
	uint64_t armed = 0, parked = 0, orphan = 0;
	char lists[256];
	size_t n = 0;

	for (size_t k = 0; k < sizeof(items) / sizeof(items[0]); k++)
		n += (size_t)snprintf(lists + n, sizeof(lists) - n, "%s:%llu ",
				      names[k], (unsigned long long)
				      pol_read(p->pol, group, items[k]));
	for (uint32_t i = 0; i < p->nr_pages; i++) {
		const struct dpage *d = &p->pages[i];
		uint64_t s;

		if (d->pol.lru == POL_LRU_FREE ||
		    !in_group(p, d->pol.group, group))
			continue;
		isolated += d->pol.lru == POL_LRU_ISOLATED;
		allocated += d->pol.lru == POL_LRU_ALLOCATED;
		reading += !!(d->flags & DP_READING);
		if (d->region == PGR_NONE) {
			orphan++;
			continue;
		}
		if (d->flags & DP_FILE)
			continue;
		if (p->regions[d->region].parked) {
			parked++;
			continue;
		}
		s = *pgr_page_slot(p, i);
		arming += !!(s & SL_ARMING);
		armed += !!(s & SL_ARMED) && !(s & SL_ARMING);
	}
	pgr_err("Mem-Info: %sisolated:%llu allocated:%llu reading:%llu "
		"arming:%llu armed:%llu parked:%llu orphan:%llu io_reads:%u "
		"io_writes:%u", lists, (unsigned long long)isolated,
		(unsigned long long)allocated, (unsigned long long)reading,
		(unsigned long long)arming, (unsigned long long)armed,
		(unsigned long long)parked, (unsigned long long)orphan,
		p->inflight - p->writes, p->writes);
}

void pgr_oom(struct pgr *p, int group, struct client *for_client)
{
	struct client *victim = NULL;
	int64_t best = 0;
	char name[96];

	/* One kill at a time: wait for the victim to go, until the daemon
	 * has seen it go (its client freed, its pages with it). A process
	 * dead and not yet reaped here would be chosen again, its pages
	 * still counted, and the kill counted twice. */
	if (p->oom_victim && (kill(p->oom_victim, 0) == 0 ||
			      pgr_client_find(p, p->oom_victim)))
		return;
	/* A swap store's server just went: reclaim's writes to it failed.
	 * The processes it held pages of are stopped first; their going
	 * frees what the OOM killer would have had to find. */
	p->oom_victim = pgr_kill_store_lost(p);
	if (p->oom_victim)
		return;
	for (uint32_t k = 0; k < p->nr_clients; k++) {
		struct client *c = &p->clients[k];
		/* Its RSS as the kernel counts it: the pages it shares
		 * copy-on-write with a fork parent too (FOREIGN), or a
		 * zygote would look larger than every child it made. */
		int64_t b = (int64_t)(c->resident + c->foreign + c->swapped);
		int adj;

		if (!c->used || c->pid <= 0 || !in_group(p, c->group, group))
			continue;
		if (kill(c->pid, 0) && errno == ESRCH)
			continue;	/* exiting: its memory is on its way */
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
	show_mem(p, group);
	name_of(victim->pid, name, sizeof(name));
	pgr_err("out of memory%s%s (a fault of process %d): killed process "
		"%d (%s) with %llu resident pages and %llu swap entries",
		group == POL_ROOT ? "" : " in group ",
		group == POL_ROOT ? "" : pol_group_name(p->pol, group),
		for_client ? for_client->pid : 0, victim->pid, name,
		(unsigned long long)victim->resident,
		(unsigned long long)victim->swapped);
	tell(victim->pid, "pager: out of memory: killed process %d (%llu "
	     "pages resident, %llu swapped)\n", victim->pid,
	     (unsigned long long)victim->resident,
	     (unsigned long long)victim->swapped);
	kill(victim->pid, SIGKILL);
}

pid_t pgr_kill_store_lost(struct pgr *p)
{
	uint64_t goings = pgr_swap_lost_count(p);
	pid_t killed = 0;

	if (goings == p->store_goings)
		return 0;
	p->store_goings = goings;
	for (uint32_t id = 0; id < p->nr_regions; id++) {
		struct region *r = &p->regions[id];
		struct client *c;
		uint64_t pages;

		if (!r->slot || r->client >= p->nr_clients)
			continue;
		c = &p->clients[r->client];
		if (!c->used || c->killed)
			continue;
		pages = (r->end - r->start) / PGR_PAGE;
		for (uint64_t off = 0; off < pages; off++) {
			uint64_t s = r->slot[off];
			char why[300];

			if (sl_tag(s) != SL_SWAP ||
			    !pgr_swap_slot_lost(p, sl_swap(s)))
				continue;
			pgr_swap_why(p, sl_swap(s), -EHOSTDOWN, why,
				     sizeof(why));
			pgr_kill(p, c, why);
			killed = c->pid;
			break;
		}
	}
	return killed;
}
