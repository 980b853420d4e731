/* SPDX-License-Identifier: MIT */
/*
 * notify.c - the seccomp user-notification listeners: how the pager hears
 * of mappings made inside libc (malloc's mmap, brk), which the shim's
 * interposed mmap never sees.
 *
 * `pager run` installs, in the child it then execs, a filter that notifies
 * anonymous private mmap calls without the shim's marker flag, and brk.
 * The listener comes here. A client's call is held and made by its agent
 * (call.c), so that the new range is registered before the call returns.
 * Other processes' calls (a freshly exec'd program's loader, a program
 * without the shim, a client without an agent) are answered CONTINUE at
 * once (the call runs as if nobody looked), and a client among them is
 * flagged for a rescan of /proc/PID/maps shortly after, when the call has
 * completed. madvise's recency advice (MADV_NORMAL, _RANDOM, _SEQUENTIAL)
 * is notified too, and taken by the regions it covers.
 *
 * The same filter notifies the write-family system calls that lack the
 * shim's marker (PGR_SYSCALL_MARKER), and io_uring_setup: a write the
 * shim did not see, into a file the page cache watches, hands that file
 * back to the kernel before it goes on (written(), below).
 *
 * Owns: the seccomp listeners and the rescans they ask for.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../lib/compat.h"
#include "../../lib/ftable.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../cache/cache.h"
#include "../core/core.h"
#include "../pgr.h"
#include "watch.h"

struct listener {
	int fd;
	bool took;		/* the last call served is held (call.c) */
	struct pgr_spin answered;	/* the poll window after an answer */
	uv_poll_t poll;
	struct listener *next;
};

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
	pgr_call_listener_gone(p, l->fd);
	uv_poll_stop(&l->poll);
	uv_close((uv_handle_t *)&l->poll, closed);
}

/*
 * The file a notified system call writes: 1 and (dev, ino) in *@st, 0 if
 * it is no regular file, -1 if its path cannot be read. The path of
 * truncate(2) is read through /proc/PID/mem, which never waits for a
 * page (maps.c, pgr_mem_read()): it may be in an evicted page, and the
 * daemon would be waiting for itself to serve it.
 */
static int target(const struct seccomp_notif *req, struct stat *st)
{
	char path[PATH_MAX + 64], name[PATH_MAX];

	if (req->data.nr == SYS_truncate) {
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)req->pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		n = pread(fd, name, sizeof(name) - 1,
			  (off_t)req->data.args[0]);
		close(fd);
		if (n <= 0)
			return -1;
		name[n] = 0;
		if (name[0] == '/')
			snprintf(path, sizeof(path), "%s", name);
		else
			snprintf(path, sizeof(path), "/proc/%d/cwd/%s",
				 (int)req->pid, name);
	} else {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)req->pid,
			 (int)req->data.args[0]);
	}
	return !stat(path, st) && S_ISREG(st->st_mode);
}

/* A truncate(2) whose path cannot be read may be of any watched inode:
 * every one is handed back. */
static void written_unknown(struct pgr *p, const struct seccomp_notif *req,
			    struct pgr_notif_wait *w)
{
	char why[96];

	snprintf(why, sizeof(why), "maybe truncated by process %d past the "
		 "shim (its path could not be read)", (int)req->pid);
	for (uint32_t ino = 0; ino < p->nr_files_seen; ino++) {
		if (p->files[ino].used && (p->files[ino].coh & FT_WATCHED)) {
			pgr_demote(p, ino, why);
			pgr_demote_wait_notif(p, ino, w);
		}
	}
}

/* A watched inode process @pid has open: handed back, @w waits for it. */
static void hand_back_open(struct pgr *p, pid_t pid, struct pgr_notif_wait *w)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		struct stat st;
		int ino;

		if (fstatat(dirfd(d), de->d_name, &st, 0) ||
		    !S_ISREG(st.st_mode) ||
		    (ino = pgr_file_find(p, st.st_dev, st.st_ino)) < 0 ||
		    !(p->files[ino].coh & FT_WATCHED))
			continue;
		pgr_demote(p, (uint32_t)ino, "open in a process that set up "
			   "an io_uring, whose writes the pager cannot see");
		pgr_demote_wait_notif(p, (uint32_t)ino, w);
	}
	if (d)
		closedir(d);
}

/*
 * A write-family system call without the shim's marker (libc's internal
 * stdio writes, raw syscall(2), a program without the shim), or an
 * io_uring being set up: a watched inode it writes (or that the ring's
 * process has open) is handed back to the kernel before the call goes
 * on; anything else goes on at once.
 */
static void written(struct pgr *p, int lfd, const struct seccomp_notif *req)
{
	struct pgr_notif_wait *w = pgr_demote_notif(lfd, req->id);
	struct stat st;
	int ino, found;

	/* Nothing watched, nothing to hand back: the common case (stdio's
	 * writes of a program that maps no file it writes) costs no stat. */
	bool watched = p->ftable && p->ftable->nr_watched;

	if (req->data.nr == SYS_io_uring_setup) {
		struct client *c = pgr_client_find(p, pgr_tgid_of((pid_t)req->pid));

		if (c) {
			c->io_uring = true;
			if (watched)
				hand_back_open(p, c->pid, w);
		}
	} else if (watched && (found = target(req, &st)) < 0) {
		written_unknown(p, req, w);
	} else if (watched && found &&
		   (ino = pgr_file_find(p, st.st_dev, st.st_ino)) >= 0 &&
		   (p->files[ino].coh & FT_WATCHED)) {
		char why[96];

		snprintf(why, sizeof(why), "written by process %d past the "
			 "shim (system call %d)", (int)req->pid, req->data.nr);
		pgr_demote(p, (uint32_t)ino, why);
		pgr_demote_wait_notif(p, (uint32_t)ino, w);
	}
	pgr_demote_notif_put(w);
}

/*
 * madvise(addr, len, MADV_NORMAL | _RANDOM | _SEQUENTIAL) of client @c
 * (NULL: not one), answered CONTINUE already: its regions take the
 * advice now, before the call has run. A call the kernel will refuse
 * (EINVAL: addr not aligned) changes nothing here; a hole in the range
 * (ENOMEM) does not stop the advice of the mappings around it, in the
 * kernel as here.
 */
static void advise(struct pgr *p, struct client *c,
		   const struct seccomp_notif *req)
{
	uint64_t start = req->data.args[0], len = req->data.args[1];
	uint64_t end = (start + len + PGR_PAGE - 1) & ~(uint64_t)(PGR_PAGE - 1);

	if (!c || !c->conn || (start & (PGR_PAGE - 1)) || end <= start)
		return;
	if ((int)req->data.args[2] == PGR_MADV_GUARD_INSTALL)
		pgr_guard_install(p, c, start, end);
	else
		pgr_advise(p, c, start, end, (int)req->data.args[2]);
}

/*
 * munlock(START, LEN) or munlockall(): the call goes on at once; the
 * client's mlocked pages in the range are rescued (pgr_munlock()), as
 * munlock_folio() puts them back on their LRUs.
 */
static void unlock(struct pgr *p, int fd, const struct seccomp_notif *req)
{
	struct seccomp_notif_resp resp = {
		.id = req->id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE,
	};
	struct client *c = pgr_client_find(p, pgr_tgid_of((pid_t)req->pid));
	uint64_t start = 0, end = UINT64_MAX;

	ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	if (!c)
		return;
	if (req->data.nr == SYS_munlock) {
		start = req->data.args[0] & ~(uint64_t)(PGR_PAGE - 1);
		end = (req->data.args[0] + req->data.args[1] + PGR_PAGE - 1) &
		      ~(uint64_t)(PGR_PAGE - 1);
		if (end < start)
			return;		/* the kernel's EINVAL */
	}
	pgr_munlock(p, c, start, end);
}

/*
 * SECCOMP_IOCTL_NOTIF_RECV waits until a notification comes, whatever
 * O_NONBLOCK says, and the one poll(2) announced can be withdrawn before
 * it is received (its thread was signalled, or ended). The daemon would
 * then wait for the program's next notified call, and every client with
 * it (a clean-clone CI run of 8041c9d hung so). So a receive runs under a
 * timer: RECV_GUARD_SIG to this thread after RECV_GUARD_NS ends it with
 * EINTR, and the loop goes on. Two timer_settime calls a notification.
 */
#define RECV_GUARD_SIG	(SIGRTMIN + 5)
#define RECV_GUARD_NS	2000000		/* 2 ms */

static void on_guard(int sig)
{
	(void)sig;	/* only to interrupt the receive: no SA_RESTART */
}

static int guard_init(struct pgr *p)
{
	struct sigaction sa = { .sa_handler = on_guard };
	struct sigevent ev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = RECV_GUARD_SIG,
	};

	if (p->recv_guard_ok)
		return 0;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	sigemptyset(&sa.sa_mask);
	if (sigaction(RECV_GUARD_SIG, &sa, NULL) ||
	    timer_create(CLOCK_MONOTONIC, &ev, &p->recv_guard))
		return -errno;
	p->recv_guard_ok = true;
	return 0;
}

static int recv_guarded(struct pgr *p, int fd, struct seccomp_notif *req)
{
	struct itimerspec on = { .it_value = { 0, RECV_GUARD_NS } }, off = { 0 };
	int r, err;

	if (!p->recv_guard_ok)
		return ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, req);
	timer_settime(p->recv_guard, 0, &on, NULL);
	r = ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, req);
	err = errno;
	timer_settime(p->recv_guard, 0, &off, NULL);
	errno = err;
	return r;
}

/* Take and answer one notification of @l: false if there was none (or
 * the listener is gone: then it is dropped). */
static bool serve(struct pgr *p, struct listener *l)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct client *c;

	memset(&req, 0, sizeof(req));
	if (recv_guarded(p, l->fd, &req)) {
		if (errno != EINTR && errno != ENOENT && errno != EAGAIN) {
			pgr_warn_("a seccomp listener ended (%s): its "
				  "processes' notified calls fail with ENOSYS "
				  "from now on", strerror(errno));
			drop(p, l);
		}
		return false;
	}
	if (req.data.nr == SYS_munlock || req.data.nr == SYS_munlockall) {
		unlock(p, l->fd, &req);
		return true;
	}
	if (req.data.nr != SYS_mmap && req.data.nr != SYS_brk &&
	    req.data.nr != SYS_madvise) {
		written(p, l->fd, &req);
		return true;
	}
	c = pgr_client_find(p, pgr_tgid_of((pid_t)req.pid));
	l->took = pgr_call_take(p, c, l->fd, &req);
	if (l->took) {
		pgr_cpu_latency_event(p);
		return true;	/* answered when made (call.c) */
	}
	resp = (struct seccomp_notif_resp){
		.id = req.id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE,
	};
	ioctl(l->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	pgr_cpu_latency_event(p);
	if (req.data.nr == SYS_madvise) {
		advise(p, c, &req);
		return true;
	}
	pgr_dbg("seccomp: syscall %d of %d (%s)", req.data.nr, (int)req.pid,
		c ? "a client" : "not a client");
	if (c && c->conn) {
		c->rescan = true;
		uv_timer_start(&p->soon, on_soon, 2, 0);
	}
	return true;
}

/*
 * Notified calls come in runs (a program's stdio flushing a file, malloc
 * growing): after one, look for the next a while before the loop
 * sleeps, so that it is answered without the daemon's wakeup, as for the
 * userfaultfd. The while adapts to the waits between them (spin.c), up
 * to half of fault_spin_us. It matters more than for speed: until the
 * daemon has received a notification, a signal interrupts the program's
 * call, which then fails with EINTR where the kernel's never does
 * (docs/daemon.md, "Mappings made later").
 */
static void spin_on(struct pgr *p, struct listener *l, struct pgr_spin *s,
		    double most, int uffd)
{
	double until = pgr_spin_idle(s, pgr_now(), most);

	while (p->spin_us && pgr_now() < until) {
		struct pollfd pfd[2] = { { .fd = l->fd, .events = POLLIN },
					 { .fd = uffd, .events = POLLIN } };

		if (poll(pfd, uffd >= 0 ? 2 : 1, 0) < 1)
			continue;
		if (pfd[1].revents)
			return;	/* a fault first: the loop serves it */
		if (pfd[0].revents & (POLLHUP | POLLERR))
			return;
		pgr_spin_came(s, pgr_now(), most);
		/* A call held: its thread waits for the agent, not here. */
		if (!serve(p, l) || l->took)
			return;
		until = pgr_spin_idle(s, pgr_now(), most);
	}
}

/* A held call answered: the program's next one (malloc calls brk, then
 * touches what it got, then calls again) is looked for the whole window,
 * but for a fault of the program's (@uffd), which the loop serves first. */
void pgr_notify_answered(struct pgr *p, int lfd, int uffd)
{
	for (struct listener *l = p->listeners; l; l = l->next) {
		if (l->fd == lfd) {
			l->answered = (struct pgr_spin){ p->spin_us * 0.5e-6, 0 };
			spin_on(p, l, &l->answered, p->spin_us * 0.5e-6, uffd);
		}
	}
}

static void on_notify(uv_poll_t *h, int status, int events)
{
	struct listener *l = h->data;
	struct pgr *p = h->loop->data;
	double most = p->spin_us * 0.5e-6;

	if (status < 0 && fcntl(l->fd, F_GETFD) >= 0) {
		/* EPOLLERR, told as UV_EBADF, from a listener that lives:
		 * seccomp_notify_poll() answers it when it cannot take the
		 * filter's notify_lock with a signal pending here, and
		 * io_uring's task work is one (TIF_NOTIFY_SIGNAL) while a
		 * program's thread holds the lock to post a notification.
		 * libuv stopped the handle; dropping the listener would fail
		 * the program's notified calls with ENOSYS. Poll it again. */
		p->notify_epollerr++;
		uv_poll_start(&l->poll, UV_READABLE | UV_DISCONNECT,
			      on_notify);
		return;
	}
	if (status < 0 || (events & UV_DISCONNECT)) {
		drop(p, l);
		return;
	}
	pgr_spin_came(&p->notify_spin, pgr_now(), most);
	if (serve(p, l) && !l->took)
		spin_on(p, l, &p->notify_spin, most, -1);
}

int pgr_notify_start(struct pgr *p, int fd)
{
	struct listener *l = pgr_xcalloc(1, sizeof(*l));
	int err = guard_init(p);

	if (err)
		pgr_warn_("no timer to bound the seccomp listener's receive "
			  "(%s): a call withdrawn before it is received would "
			  "stop the daemon until the next one", strerror(-err));
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
	if (p->recv_guard_ok)
		timer_delete(p->recv_guard);
	p->recv_guard_ok = false;
}

void pgr_rescan(struct pgr *p)
{
	for (uint32_t k = 0; k < p->nr_clients; k++) {
		struct client *c = &p->clients[k];

		if (c->used && c->rescan && c->pid > 0)
			pgr_adopt_maps(p, c);
	}
}
