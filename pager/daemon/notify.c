/* SPDX-License-Identifier: MIT */
/*
 * notify.c - the seccomp user-notification listeners: how the pager hears
 * of mappings made inside libc (malloc's mmap, brk), which the shim's
 * interposed mmap never sees.
 *
 * `pager run` installs, in the child it then execs, a filter that notifies
 * anonymous private mmap calls without the shim's marker flag, and brk.
 * The listener comes here. Each notification is answered CONTINUE at once
 * (the call runs as if nobody looked), and its process, if it is a client,
 * is flagged for a rescan of /proc/PID/maps shortly after, when the call
 * has completed. Calls from processes that are not clients (a freshly
 * exec'd program's loader, a program without the shim) are just continued.
 *
 * Owns: the seccomp listeners and the rescans they ask for.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../lib/log.h"
#include "../lib/util.h"
#include "pgr.h"
#include "client.h"
#include "notify.h"
#include "region.h"

struct listener {
	int fd;
	uv_poll_t poll;
	struct listener *next;
};

static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static void on_soon(uv_timer_t *t)
{
	pgr_rescan(t->data);
}

static void closed(uv_handle_t *h)
{
	struct listener *l = h->data;

	close(l->fd);
	free(l);
}

static void drop(struct pgr *p, struct listener *l)
{
	struct listener **pp;

	for (pp = &p->listeners; *pp; pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			break;
		}
	}
	uv_poll_stop(&l->poll);
	uv_close((uv_handle_t *)&l->poll, closed);
}

static void on_notify(uv_poll_t *h, int status, int events)
{
	struct listener *l = h->data;
	struct pgr *p = h->loop->data;
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct client *c;

	if (status < 0 || (events & UV_DISCONNECT)) {
		drop(p, l);
		return;
	}
	memset(&req, 0, sizeof(req));
	if (ioctl(l->fd, SECCOMP_IOCTL_NOTIF_RECV, &req)) {
		if (errno != EINTR && errno != ENOENT && errno != EAGAIN)
			drop(p, l);
		return;
	}
	resp = (struct seccomp_notif_resp){
		.id = req.id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE,
	};
	ioctl(l->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	c = pgr_client_find(p, tgid_of((pid_t)req.pid));
	pgr_dbg("seccomp: syscall %d of %d (%s)", req.data.nr, (int)req.pid,
		c ? "a client" : "not a client");
	if (c && c->conn) {
		c->rescan = true;
		uv_timer_start(&p->soon, on_soon, 2, 0);
	}
}

int pgr_notify_start(struct pgr *p, int fd)
{
	struct listener *l = pgr_xcalloc(1, sizeof(*l));

	l->fd = fd;
	if (uv_poll_init(p->loop, &l->poll, fd)) {
		free(l);
		return -EINVAL;
	}
	l->poll.data = l;
	uv_poll_start(&l->poll, UV_READABLE | UV_DISCONNECT, on_notify);
	l->next = p->listeners;
	p->listeners = l;
	if (!uv_is_active((uv_handle_t *)&p->soon))
		p->soon.data = p;
	return 0;
}

void pgr_notify_stop(struct pgr *p)
{
	while (p->listeners)
		drop(p, p->listeners);
}

void pgr_rescan(struct pgr *p)
{
	for (uint32_t k = 0; k < p->nr_clients; k++) {
		struct client *c = &p->clients[k];

		if (c->used && c->rescan && c->pid > 0)
			pgr_adopt_maps(p, c);
	}
}
