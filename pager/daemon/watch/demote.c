/* SPDX-License-Identifier: MIT */
/*
 * demote.c - a cached file handed back to the kernel: every client's
 * mapping of its memfd replaced by a mapping of the file itself, after
 * which the kernel's one page cache serves everyone (seal.c says when).
 *
 *   1. Stores to the inode's mappings wait (a hold over the whole file,
 *      checked by the fault paths; private regions are write-protected
 *      whole), and dirty pages are written back; once those writes have
 *      landed, the file is exactly what the mappings show.
 *   2. Each mapping, VMA by VMA as /proc/PID/maps has them, goes to its
 *      client's agent: "demcow" lines name a private mapping's pages the
 *      program wrote (its copy-on-write pages, which must stay its own),
 *      then "demote ID START LEN PROT FLAGS PGOFF" with the file's
 *      descriptor. The agent maps the file at a spare address, copies the
 *      written pages over from the old mapping (reading them faults them
 *      in from us as usual), and moves it onto the old range with one
 *      mremap, atomic for the program's threads; the old range's UNMAP
 *      event ends the region here, and the threads waiting on it retry
 *      on the new mapping.
 *   3. With no region left, what waited is answered: the opens fanotify
 *      held (allowed), the system calls the seccomp listener held
 *      (continued); the inode is dropped, its lease let go.
 *
 * A client that cannot do its part (no agent, an error) is ended with a
 * message rather than left reading a copy no one keeps coherent; so are
 * those still mapping the inode DEMOTE_TIMEOUT after it began.
 *
 * Owns: what waits for each inode being handed back (finode's fan_waits
 * and notif_waits), and the timer for stragglers.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../../lib/compat.h"
#include "../../lib/ftable.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../cache/cache.h"
#include "../core/core.h"
#include "../pgr.h"
#include "../uffd.h"
#include "watch.h"

#define DEMOTE_TIMEOUT_MS	5000
#define COW_PER_LINE		64

/* A seccomp notification held until the inodes it waits on are back. */
struct pgr_notif_wait {
	int lfd;
	uint64_t id;
	unsigned int refs;
};

struct pgr_notif_wait *pgr_demote_notif(int lfd, uint64_t id)
{
	struct pgr_notif_wait *w = pgr_xcalloc(1, sizeof(*w));

	*w = (struct pgr_notif_wait){ lfd, id, 1 };
	return w;
}

void pgr_demote_notif_put(struct pgr_notif_wait *w)
{
	struct seccomp_notif_resp resp;

	if (--w->refs)
		return;
	resp = (struct seccomp_notif_resp){
		.id = w->id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE,
	};
	/* The process may be gone (ENOENT), or the listener with it. */
	ioctl(w->lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	free(w);
}

void pgr_demote_wait_notif(struct pgr *p, uint32_t ino,
			   struct pgr_notif_wait *w)
{
	struct finode *fi = F(p, ino);

	pgr_grow(&fi->notif_waits, &fi->cap_notif_waits,
		 fi->nr_notif_waits + 1, sizeof(*fi->notif_waits));
	fi->notif_waits[fi->nr_notif_waits++] = w;
	w->refs++;
}

void pgr_demote_wait_fan(struct pgr *p, uint32_t ino, int event_fd)
{
	struct finode *fi = F(p, ino);

	pgr_grow(&fi->fan_waits, &fi->cap_fan_waits, fi->nr_fan_waits + 1,
		 sizeof(*fi->fan_waits));
	fi->fan_waits[fi->nr_fan_waits++] = event_fd;
}

/* ---- asking the agents ------------------------------------------------ */

/* Is slot @v of a private file region the program's own copy? */
static bool own_copy(const struct pgr *p, uint64_t v)
{
	unsigned int tag = sl_tag(v);

	return tag == SL_SWAP || tag == SL_FOREIGN ||
	       (tag == SL_PAGE && !(p->pages[sl_page(v)].flags & DP_FILE));
}

/* "demcow" lines: the runs of @r's own pages in [start, end). */
static int send_cows(struct pgr *p, struct client *c, struct region *r,
		     uint64_t id, uint64_t start, uint64_t end)
{
	char line[COW_PER_LINE * 36 + 64];
	size_t n = 0, runs = 0;

	for (uint64_t a = start; a < end;) {
		uint64_t b;

		if (!own_copy(p, r->slot[(a - r->start) / PGR_PAGE])) {
			a += PGR_PAGE;
			continue;
		}
		for (b = a + PGR_PAGE; b < end &&
		     own_copy(p, r->slot[(b - r->start) / PGR_PAGE]);)
			b += PGR_PAGE;
		if (!runs)
			n = (size_t)snprintf(line, sizeof(line), "demcow %llx",
					     (unsigned long long)id);
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %llx %llx",
				      (unsigned long long)a,
				      (unsigned long long)(b - a));
		if (++runs == COW_PER_LINE) {
			if (pgr_agent_send(c, line, -1))
				return -EPIPE;
			runs = 0;
		}
		a = b;
	}
	if (runs && pgr_agent_send(c, line, -1))
		return -EPIPE;
	return 0;
}

/* Ask @c's agent to replace each VMA of region @rid; 0 or -errno. */
static int ask_agent(struct pgr *p, struct client *c, uint32_t rid)
{
	struct region *r = &p->regions[rid];
	struct finode *fi = F(p, r->inode);
	char path[64], line[256];
	unsigned long long s, e;
	char perms[8];
	int err = 0;
	FILE *f;

	if (!c->conn || !c->agent_ready || c->cut_off)
		return -ENOTCONN;
	snprintf(path, sizeof(path), "/proc/%d/maps", c->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		uint64_t lo, hi, id;
		bool shared;
		int prot;

		if (sscanf(line, "%llx-%llx %7s", &s, &e, perms) != 3 ||
		    e <= r->start || s >= r->end)
			continue;
		lo = s > r->start ? s : r->start;
		hi = e < r->end ? e : r->end;
		shared = perms[3] == 's';
		prot = (perms[0] == 'r' ? 1 : 0) | (perms[1] == 'w' ? 2 : 0) |
		       (perms[2] == 'x' ? 4 : 0);
		id = ++c->next_request;
		if (!shared && (err = send_cows(p, c, r, id, lo, hi)))
			break;
		snprintf(line, sizeof(line), "demote %llx %llx %llx %x %x %llx",
			 (unsigned long long)id, (unsigned long long)lo,
			 (unsigned long long)(hi - lo), prot, shared ? 1 : 0,
			 (unsigned long long)(r->pgoff +
					      (lo - r->start) / PGR_PAGE));
		err = pgr_agent_send(c, line, shared ? fi->wfd : fi->fd);
	}
	fclose(f);
	return err;
}

/* Stores wait from now on: private regions write-protected whole (their
 * copy-on-write pages are writable), and the hold makes every write
 * fault wait (pgr_file_held()). */
static void freeze(struct pgr *p, uint32_t ino)
{
	struct finode *fi = F(p, ino);

	pgr_grow(&fi->holds, &fi->cap_holds, fi->nr_holds + 1,
		 sizeof(*fi->holds));
	fi->holds[fi->nr_holds++] = (struct wrange){ 0, UINT64_MAX,
						     PGR_NONE };
	for (size_t k = 0; k < fi->nr_mappers; k++) {
		struct region *r = &p->regions[fi->mappers[k]];
		struct uffdio_writeprotect wp = {
			.range = { r->start, r->end - r->start },
			.mode = UFFDIO_WRITEPROTECT_MODE_WP,
		};

		if (!(r->rflags & R_SHARED))
			ioctl(p->clients[r->client].uffd, UFFDIO_WRITEPROTECT,
			      &wp);
	}
	pgr_file_flush(p, ino, 0, fi->map_pages, PGR_NONE);
}

static void on_timeout(uv_timer_t *t);

/* Ask every client mapping @ino to replace its mappings (the file has
 * what they show: the write-backs landed). */
static void ask_all(struct pgr *p, uint32_t ino)
{
	struct finode *fi = F(p, ino);
	uint32_t *rids;
	size_t n;

	fi->demote_asked = true;
	/* Asking may end clients, and so change the list. */
	n = fi->nr_mappers;
	rids = pgr_xcalloc(n + 1, sizeof(*rids));
	memcpy(rids, fi->mappers, n * sizeof(*rids));
	for (size_t k = 0; k < n; k++) {
		struct region *r = &p->regions[rids[k]];
		struct client *c = &p->clients[r->client];
		int err;

		if (!r->live || r->inode != ino || !c->used)
			continue;
		err = ask_agent(p, c, rids[k]);
		if (err) {
			char msg[160];

			snprintf(msg, sizeof(msg), "its mapping of inode %lu "
				 "cannot be handed back to the kernel (%s), "
				 "and a copy no one keeps coherent is no "
				 "option", (unsigned long)fi->ino,
				 strerror(-err));
			pgr_kill(p, c, msg);
		}
	}
	free(rids);
}

void pgr_demote(struct pgr *p, uint32_t ino, const char *why)
{
	struct finode *fi = F(p, ino);

	if (fi->coh & FT_HANDED_BACK)
		return;
	pgr_info("inode %lu (device %lu) is handed back to the kernel: %s",
		 (unsigned long)fi->ino, (unsigned long)fi->dev, why);
	/* Write-through goes on while the mappings are switched. */
	fi->coh |= FT_HANDED_BACK;
	pgr_ftable_set(p, ino, fi->coh);
	fi->demote_start = pgr_now();
	fi->demote_asked = false;
	p->nr_demoting++;
	freeze(p, ino);
	if (!fi->wb_inflight)
		ask_all(p, ino);	/* else once they land: step */
	if (!uv_is_active((uv_handle_t *)&p->demote_timer))
		uv_timer_start(&p->demote_timer, on_timeout, 500, 500);
}

void pgr_demote_done(struct pgr *p, struct client *c, uint64_t start,
		     int err)
{
	char msg[160];

	if (!err)
		return;		/* its UNMAP event ends the region */
	snprintf(msg, sizeof(msg), "its mapping at 0x%llx could not be handed "
		 "back to the kernel (%s)", (unsigned long long)start,
		 strerror(err));
	pgr_kill(p, c, msg);
}

/* ---- the end --------------------------------------------------------- */

static void finish(struct pgr *p, uint32_t ino)
{
	struct finode *fi = F(p, ino);

	/* The opens let go must find no lease (one with O_NONBLOCK would
	 * fail on it). */
	if (fi->coh & FT_SEALED)
		fcntl(fi->fd, F_SETLEASE, F_UNLCK);
	for (size_t k = 0; k < fi->nr_fan_waits; k++) {
		struct fanotify_response r = { fi->fan_waits[k], FAN_ALLOW };

		if (write(p->fan_fd, &r, sizeof(r)) != sizeof(r))
			pgr_warn("cannot answer a fanotify event: %s",
				 strerror(errno));
		close(fi->fan_waits[k]);
	}
	fi->nr_fan_waits = 0;
	for (size_t k = 0; k < fi->nr_notif_waits; k++)
		pgr_demote_notif_put(fi->notif_waits[k]);
	fi->nr_notif_waits = 0;
	fi->nr_holds = 0;
	p->nr_demoting--;
	pgr_info("inode %lu is the kernel's again", (unsigned long)fi->ino);
	/* Its lease goes with its descriptor, its mark before it. */
	pgr_file_drop(p, ino);
}

void pgr_demote_step(struct pgr *p)
{
	if (!p->nr_demoting)
		return;
	for (uint32_t ino = 0; ino < p->nr_files_seen; ino++) {
		struct finode *fi = &p->files[ino];

		if (!fi->used || fi->gone || !(fi->coh & FT_HANDED_BACK) ||
		    fi->wb_inflight)
			continue;
		if (!fi->demote_asked)
			ask_all(p, ino);
		else if (!fi->nr_mappers)
			finish(p, ino);
	}
	if (!p->nr_demoting)
		uv_timer_stop(&p->demote_timer);
}

/* Clients still mapping an inode long after it began: ended. */
static void on_timeout(uv_timer_t *t)
{
	struct pgr *p = t->data;
	double now = pgr_now();

	for (uint32_t ino = 0; ino < p->nr_files_seen; ino++) {
		struct finode *fi = &p->files[ino];

		if (!fi->used || !(fi->coh & FT_HANDED_BACK) ||
		    now - fi->demote_start < DEMOTE_TIMEOUT_MS * 1e-3)
			continue;
		while (fi->nr_mappers) {
			struct region *r = &p->regions[fi->mappers[0]];
			struct client *c = &p->clients[r->client];
			size_t before = fi->nr_mappers;

			pgr_kill(p, c, "its agent did not hand a file mapping "
				 "back to the kernel in time");
			if (fi->nr_mappers == before)
				pgr_file_unmap_region(p, fi->mappers[0]);
		}
	}
	pgr_demote_step(p);
}
