/* SPDX-License-Identifier: MIT */
/*
 * conn.c - the control socket: a unix socket (mode 0600) whose peers must
 * be the daemon's own user (SO_PEERCRED; root may always connect). Each
 * connection speaks lines (docs/protocol.md), with file descriptors
 * riding along; a shim's connection is also its agent's channel.
 *
 * A line that does not parse, or is too long, gets an error line, and the
 * connection goes on; nothing one peer sends disturbs anyone else.
 * Limits keep one peer from exhausting the daemon: a line is 64 KiB at
 * most, a connection whose peer leaves OUT_MAX bytes of answers unread is
 * closed, and a process holds PEER_CONNS connections at most.
 *
 * Owns: the listening socket, the connections and their buffered output;
 * which client a connection speaks for. Lines go to ctl.c; a connection's
 * end goes to its client (gone, or cut off), its reclaim request and its
 * trace subscription.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../../lib/wire.h"
#include "../base/base.h"
#include "../core/core.h"
#include "../pgr.h"
#include "../watch/watch.h"
#include "control.h"

/* A message not yet sent whole: the peer reads slower than we write. */
struct outmsg {
	struct outmsg *next;
	int fd;			/* rides on the first byte, or -1 */
	size_t len, off;
	char data[];
};

#define OUT_MAX	(16u << 20)	/* unsent bytes before we give up */
#define PEER_CONNS 64		/* connections of one process */

struct conn {
	struct pgr *p;
	uv_poll_t poll;
	struct outmsg *out, **out_tail;	/* in order */
	size_t out_bytes;
	struct client *client;	/* whose connection this is, or NULL */
	struct conn *next;
	bool agent;		/* the shim's first: its agent's channel */
	bool closing;
	bool broken;		/* a write failed: closed from the loop */
	pid_t peer;		/* SO_PEERCRED */
	unsigned int refs;	/* answers held for later (pgr_conn_get()) */
	bool gone;		/* closed: freed when refs reaches 0 */
	struct wire w;		/* last: 64K of buffer */
};

static void conn_free(struct conn *c)
{
	while (c->out) {
		struct outmsg *m = c->out;

		c->out = m->next;
		if (m->fd >= 0)
			close(m->fd);
		free(m);
	}
	wire_release(&c->w);
	close(c->w.fd);
	free(c);
}

/* Its handle closed: freed, unless an answer still waits to be sent on
 * it (a held reference: then pgr_conn_put() frees it). */
static void conn_closed(uv_handle_t *h)
{
	struct conn *c = h->data;

	c->gone = true;
	if (!c->refs)
		conn_free(c);
}

void pgr_conn_get(struct conn *c)
{
	c->refs++;
}

void pgr_conn_put(struct conn *c)
{
	if (!--c->refs && c->gone)
		conn_free(c);
}

static void conn_close(struct conn *c)
{
	struct pgr *p = c->p;
	struct conn **pp;

	if (c->closing)
		return;
	c->closing = true;
	pgr_reclaim_cancel(p, c);
	pgr_trace_drop(p, c);
	for (pp = &p->conns; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	if (c->agent && c->client && c->client->used) {
		struct client *cl = c->client;

		/* The agent ended: with its program, or alone (killed). */
		pgr_call_agent_gone(p, cl);
		cl->conn = NULL;
		if (pgr_client_mm_gone(cl))
			pgr_client_gone(p, cl, "ended, and its agent with it");
		else
			pgr_client_cut_off(p, cl);
	} else if (c->client && c->client->used && c->client->life == c) {
		pgr_client_life_closed(p, c->client);
	}
	uv_poll_stop(&c->poll);
	uv_close((uv_handle_t *)&c->poll, conn_closed);
}

void pgr_conn_detach_client(struct conn *c)
{
	c->client = NULL;
}

static void on_reap(uv_timer_t *t)
{
	struct pgr *p = t->data;

	for (struct conn **pp = &p->conns; *pp;) {
		if ((*pp)->broken)
			conn_close(*pp);	/* unlinks it */
		else
			pp = &(*pp)->next;
	}
}

/*
 * A connection we cannot write to is closed, but not here: a send comes
 * from deep inside the daemon (pgr_alloc() flushes agent requests in the
 * middle of a fault; a reclaim request is answered in the middle of its
 * step), and closing an agent's connection ends its client, whose
 * regions, slots and pages the caller may be holding. So it is only
 * marked: sends on it fail, its client's pages are no longer armed (no
 * agent would drop them), and the loop closes it from the top.
 */
static void conn_break(struct conn *c)
{
	struct pgr *p = c->p;

	c->broken = true;
	if (c->agent && c->client)
		c->client->agent_ready = false;
	if (!uv_is_active((uv_handle_t *)&p->reap))
		uv_timer_start(&p->reap, on_reap, 0, 0);
}

/* Send what is queued, as far as the socket takes it. Return 0, or
 * -errno when the connection is broken. */
static int flush(struct conn *c)
{
	while (c->out) {
		struct outmsg *m = c->out;
		struct iovec iov = { m->data + m->off, m->len - m->off };
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} control;
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		if (m->fd >= 0 && !m->off) {
			struct cmsghdr *cm;

			memset(&control, 0, sizeof(control));
			msg.msg_control = control.buf;
			msg.msg_controllen = sizeof(control.buf);
			cm = CMSG_FIRSTHDR(&msg);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &m->fd, sizeof(int));
		}
		n = sendmsg(c->w.fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		if (m->fd >= 0) {
			close(m->fd);	/* the peer has its copy */
			m->fd = -1;
		}
		m->off += (size_t)n;
		c->out_bytes -= (size_t)n;
		if (m->off < m->len)
			return 0;
		c->out = m->next;
		if (!c->out)
			c->out_tail = &c->out;
		free(m);
	}
	return 0;
}

/* A program thread's connection, whose requests spin() polls for. */
static bool polled(const struct conn *c)
{
	return c->client && !c->agent;
}

static void on_conn(uv_poll_t *h, int status, int events);

/* Poll for writability while something waits to be sent. */
static void watch(struct conn *c)
{
	uv_poll_start(&c->poll, UV_READABLE | UV_DISCONNECT |
		      (c->out ? UV_WRITABLE : 0), on_conn);
}

/*
 * Queue @len bytes (and @fd, a descriptor of ours to pass, or -1) and
 * send what the socket takes now. Never blocks: an agent may be inside a
 * madvise that waits for us to read its REMOVE event.
 */
static int enqueue(struct conn *c, const char *buf, size_t len, int fd)
{
	struct outmsg *m;
	bool was_empty = !c->out;
	int err;

	if (c->closing || c->broken)
		return -EPIPE;
	if (c->out_bytes + len > OUT_MAX) {
		pgr_warn_("connection of %d does not read what we send: "
			  "closing it", c->peer);
		conn_break(c);
		return -ENOBUFS;
	}
	m = pgr_xcalloc(1, sizeof(*m) + len);
	memcpy(m->data, buf, len);
	m->len = len;
	m->fd = fd >= 0 ? dup(fd) : -1;
	*c->out_tail = m;
	c->out_tail = &m->next;
	c->out_bytes += len;
	err = flush(c);
	if (err) {
		/* EPIPE: the peer closed (it exited; its end is read soon). */
		if (err != -EPIPE && err != -ECONNRESET)
			pgr_warn_("cannot write to connection of %d: %s",
				  c->peer, strerror(-err));
		conn_break(c);
		return err;
	}
	if (was_empty != !c->out)
		watch(c);
	return 0;
}

int pgr_conn_send(struct conn *c, const char *line)
{
	size_t n = strlen(line);
	char buf[8192];

	if (n + 1 > sizeof(buf))
		return -EMSGSIZE;
	memcpy(buf, line, n);
	buf[n++] = '\n';
	return enqueue(c, buf, n, -1);
}

int pgr_conn_send_bytes(struct conn *c, const char *buf, size_t len)
{
	return enqueue(c, buf, len, -1);
}

int pgr_conn_send_fd(struct conn *c, const char *line, int fd)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "%s\n", line);

	return enqueue(c, buf, (size_t)n, fd);
}

void pgr_conn_set_client(struct conn *c, struct client *cl, bool agent)
{
	c->client = cl;
	c->agent = agent;
	if (agent)
		cl->conn = c;
}

pid_t pgr_conn_peer(const struct conn *c)
{
	return c->peer;
}

struct client *pgr_conn_client(struct conn *c)
{
	return c->client;
}

int pgr_conn_take_fd(struct conn *c)
{
	return wire_take_fd(&c->w);
}

/*
 * A program thread's requests (a write to a watched file is one, and
 * the thread waits for the answer) often come back to back: read the
 * connection again a while before the loop sleeps, as for the
 * userfaultfd, so the next one is served without the daemon's wakeup.
 * The while adapts to the waits between them (spin.c), up to half of
 * fault_spin_us. Return wire_fill()'s last answer, EAGAIN as 1.
 */
static int spin(struct conn *c)
{
	struct pgr *p = c->p;
	double most = p->spin_us * 0.5e-6;
	double until = pgr_spin_idle(&p->conn_spin, pgr_now(), most);
	char *line;
	int n = 1;

	while (p->spin_us && !c->closing && pgr_now() < until) {
		n = wire_fill(&c->w);
		if (n == -EAGAIN || n == -EINTR)
			continue;
		if (n == -EMSGSIZE) {
			pgr_conn_send(c, "error line too long (the limit is "
				      "64 KiB)");
			return 1;
		}
		if (n <= 0)
			return n;
		pgr_spin_came(&p->conn_spin, pgr_now(), most);
		while (!c->closing && (line = wire_line(&c->w)))
			pgr_ctl_command(p, c, line);
		until = pgr_spin_idle(&p->conn_spin, pgr_now(), most);
	}
	return 1;
}

static void on_conn(uv_poll_t *h, int status, int events)
{
	struct conn *c = h->data;
	struct pgr *p = c->p;
	char *line;
	int n;

	if (status < 0) {
		conn_close(c);
		return;
	}
	if (events & UV_WRITABLE) {
		int err = flush(c);

		if (err) {
			conn_close(c);
			return;
		}
		if (!c->out)
			watch(c);
		if (!(events & (UV_READABLE | UV_DISCONNECT)))
			return;
	}
	n = wire_fill(&c->w);
	if (n == -EAGAIN)
		return;
	if (n == -EMSGSIZE) {
		pgr_conn_send(c, "error line too long (the limit is 64 KiB)");
		return;		/* the rest of it is dropped as it comes */
	}
	/* The window learns from the connections spin() polls, program
	 * threads': an agent's answers and `pager stat` come at their own
	 * pace, and would grow or shrink it for nothing. */
	if (n > 0 && polled(c))
		pgr_spin_came(&p->conn_spin, pgr_now(), p->spin_us * 0.5e-6);
	while (!c->closing && (line = wire_line(&c->w)))
		pgr_ctl_command(p, c, line);
	if (n > 0 && !c->closing && polled(c))
		n = spin(c);
	if (n <= 0 && !c->closing)
		conn_close(c);
}

struct conn *pgr_conn_open(struct pgr *p, int fd, pid_t peer)
{
	struct conn *c = pgr_xcalloc(1, sizeof(*c));

	c->p = p;
	c->out_tail = &c->out;
	c->peer = peer;
	wire_init(&c->w, fd);
	c->next = p->conns;
	p->conns = c;
	uv_poll_init(p->loop, &c->poll, fd);
	c->poll.data = c;
	uv_poll_start(&c->poll, UV_READABLE | UV_DISCONNECT, on_conn);
	return c;
}

bool pgr_conn_in_run(const struct pgr *p, pid_t pid)
{
	pid_t run = getppid();

	if (!p->o.private_mode || run <= 1)
		return false;
	for (int depth = 0; pid > 1 && depth < 256; depth++) {
		if (pid == run)
			return true;
		pid = pgr_status_pid(pid, "PPid");
	}
	return false;
}

/* The daemon's user, root, the users of --allow-uid, and for `pager run`'s
 * daemon any process of the run (a program that changed its user). */
static bool allowed(const struct pgr *p, uid_t uid, pid_t pid)
{
	if (uid == geteuid() || uid == 0)
		return true;
	for (int k = 0; k < p->o.nr_allow_uids; k++)
		if (p->o.allow_uids[k] == uid)
			return true;
	return pgr_conn_in_run(p, pid);
}

static int peer_conns(const struct pgr *p, pid_t pid)
{
	int n = 0;

	for (const struct conn *c = p->conns; c; c = c->next)
		n += c->peer == pid && !c->closing;
	return n;
}

/* Open @fd, a connected socket, as a connection if its peer may have one
 * (on_listen(), pgr_conn_passed()); close it if not. */
static void admit(struct pgr *p, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    !allowed(p, cred.uid, cred.pid)) {
		pgr_warn_("refused a connection from uid %d", (int)cred.uid);
		close(fd);
		return;
	}
	if (peer_conns(p, cred.pid) >= PEER_CONNS) {
		static const char msg[] = "error too many connections "
					  "from this process\n";

		pgr_warn_("refused a connection from %d: it has %d",
			  (int)cred.pid, PEER_CONNS);
		/* Best effort: it is closed either way. */
		(void)!write(fd, msg, sizeof(msg) - 1);
		close(fd);
		return;
	}
	pgr_conn_open(p, fd, cred.pid);
}

static void on_listen(uv_poll_t *h, int status, int events)
{
	struct pgr *p = h->data;

	for (;;) {
		int fd = accept4(p->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;
		admit(p, fd);
	}
}

void pgr_conn_passed(struct conn *from)
{
	int fd = pgr_conn_take_fd(from), type = 0;
	socklen_t len = sizeof(type);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) ||
	    (type != SOCK_STREAM && type != SOCK_SEQPACKET)) {
		pgr_warn_("socket from %d: no connected socket attached",
			  (int)from->peer);
		if (fd >= 0)
			close(fd);
		return;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	admit(from->p, fd);
}

int pgr_listen(struct pgr *p)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, err;

	if (strlen(p->o.socket_path) >= sizeof(sa.sun_path)) {
		pgr_err("socket path '%s' is too long", p->o.socket_path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, p->o.socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A socket file nobody listens on is a leftover: replace it. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		pgr_err("a pager daemon already listens on '%s'",
			p->o.socket_path);
		close(fd);
		return -EADDRINUSE;
	}
	unlink(p->o.socket_path);
	old = umask(0077);
	err = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old);
	if (!err)
		chmod(p->o.socket_path, p->o.nr_allow_uids ||
		      p->o.private_mode ? 0666 : 0600);
	if (!err && listen(fd, 128))
		err = -errno;
	if (err) {
		pgr_err("cannot listen on '%s': %s", p->o.socket_path,
			strerror(-err));
		close(fd);
		return err;
	}
	p->listen_fd = fd;
	uv_poll_init(p->loop, &p->listen_poll, fd);
	p->listen_poll.data = p;
	uv_poll_start(&p->listen_poll, UV_READABLE, on_listen);
	return 0;
}

void pgr_conns_close(struct pgr *p)
{
	while (p->conns)
		conn_close(p->conns);
	if (p->listen_fd >= 0) {
		uv_poll_stop(&p->listen_poll);
		uv_close((uv_handle_t *)&p->listen_poll, NULL);
		close(p->listen_fd);
		unlink(p->o.socket_path);
		p->listen_fd = -1;
	}
}
