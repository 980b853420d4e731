/* SPDX-License-Identifier: MIT */
/*
 * seal.c - a cached file coherent with every writer, as the kernel's one
 * page cache is, or handed back to the kernel.
 *
 * The pager's page cache is a memfd; read(2) and write(2) go to the
 * kernel's. They agree when no one can write the file behind the pager's
 * back, and that is what an inode's state says (its `coh`, shown to the
 * shims in the shared table, lib/ftable.h):
 *
 *   SEALED    no one has it open for writing: the daemon holds a read
 *             lease (F_SETLEASE F_RDLCK), which nobody can get while a
 *             writer exists, and which breaks, synchronously, when anyone
 *             opens it for writing or truncates it by path (the opener
 *             waits until the daemon lets go). Libraries, executables,
 *             data files only read.
 *   WATCHED   writers exist, and every one of them is a client whose
 *             write(2)s come to the daemon (write-through: file-write.c);
 *             a fanotify FAN_OPEN_PERM mark makes every later open of the
 *             inode wait for the daemon's answer, so a writer that is not
 *             such a client cannot appear unseen. LMDB, sqlite, Chrome's
 *             databases.
 *   RW        (with WATCHED) a shared writable mapping may hold dirty
 *             pages: reads and syncs have them written back first.
 *
 * An unannounced lease break (an outsider opening for writing), an open
 * of a watched inode by a process that is not a write-through client
 * (an outsider, a program without the shim, a client with an io_uring),
 * or a write the shim did not see (notify.c) hands the inode back to the
 * kernel (demote.c) before the opener or writer goes on. An inode that
 * can be neither sealed nor watched (a writer outside, no fanotify for a
 * daemon that is not root) is not taken over: its mapping stays the
 * kernel's.
 *
 * The daemon's own opens of a watched inode (its write-back descriptor,
 * made after the mark so that no outsider slips in between) would wait
 * for its own answer: a small thread reads the fanotify group, allows the
 * daemon's own opens at once and passes every other event to the loop
 * through a pipe. It touches nothing else of the daemon.
 *
 * Owns: the lease signal's signalfd, the fanotify group and its thread,
 * and the transitions of an inode's `coh`.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/ftable.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../cache/cache.h"
#include "../core/core.h"
#include "../pgr.h"
#include "watch.h"

#define LEASE_SIG	(SIGRTMIN + 4)

static void set_coh(struct pgr *p, uint32_t ino, uint32_t coh)
{
	F(p, ino)->coh = coh;
	pgr_ftable_set(p, ino, coh);
}

/* ---- who writes ------------------------------------------------------ */

/* A fork child not yet paired with its pid, whose parent is @pid's: its
 * shim is its parent's copy. */
static struct client *unpaired_child(struct pgr *p, pid_t pid)
{
	pid_t ppid = pgr_status_pid(pid, "PPid");

	for (uint32_t k = 0; ppid > 0 && k < p->nr_clients; k++) {
		struct client *c = &p->clients[k];

		if (c->used && !c->pid && c->parent == ppid)
			return c;
	}
	return NULL;
}

bool pgr_seal_is_writer_client(struct pgr *p, pid_t pid)
{
	struct client *c = pid > 0 ? pgr_client_find(p, pid) : NULL;

	/* An agent shares its program's mm, and so its mappings. */
	if (pid > 0 && !c)
		c = pgr_client_of_agent(p, pid);
	if (pid > 0 && !c)
		c = unpaired_child(p, pid);
	/* A fork child has its parent's shim before it says hello. */
	return c && (c->conn || c->parent) && !c->cut_off && !c->io_uring &&
	       !pgr_client_mm_gone(c);
}

/* Does process @pid (its /proc directory @dir) have @fi open for writing,
 * or mapped shared and writable (any at all, if @readers)? With @std,
 * only open for writing on a descriptor 0-2, which `pager run`'s write
 * filter leaves alone (a client's writes there are unseen: io.c). */
static bool holds(int dir, const struct finode *fi, bool readers, bool std)
{
	int fds = openat(dir, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char line[512], name[300];
	bool found = false;
	struct dirent *de;
	DIR *d;
	FILE *f;

	if (fds >= 0 && (d = fdopendir(fds))) {
		while (!found && (de = readdir(d))) {
			struct stat st;
			unsigned int flags = 0;
			int info;

			if (de->d_name[0] == '.' ||
			    (std && (de->d_name[0] > '2' || de->d_name[1])) ||
			    fstatat(fds, de->d_name, &st, 0) ||
			    st.st_dev != fi->dev || st.st_ino != fi->ino)
				continue;
			if (readers && !std) {
				found = true;
				break;
			}
			snprintf(name, sizeof(name), "fdinfo/%s", de->d_name);
			info = openat(dir, name, O_RDONLY | O_CLOEXEC);
			f = info >= 0 ? fdopen(info, "re") : NULL;
			while (f && fgets(line, sizeof(line), f))
				if (sscanf(line, "flags: %o", &flags) == 1)
					break;
			if (f)
				fclose(f);
			found = (flags & O_ACCMODE) != O_RDONLY;
		}
		closedir(d);
	} else if (fds >= 0) {
		close(fds);
	}
	if (found || std)
		return found;
	/* A mapping outlives its descriptor. */
	{
		int m = openat(dir, "maps", O_RDONLY | O_CLOEXEC);

		f = m >= 0 ? fdopen(m, "re") : NULL;
	}
	while (f && !found && fgets(line, sizeof(line), f)) {
		char perms[8];
		unsigned int maj, min;
		unsigned long long ino;

		if (sscanf(line, "%*x-%*x %7s %*x %x:%x %llu", perms, &maj,
			   &min, &ino) != 4 || ino != fi->ino ||
		    makedev(maj, min) != fi->dev)
			continue;
		found = readers || (perms[1] == 'w' && perms[3] == 's');
	}
	if (f)
		fclose(f);
	return found;
}

pid_t pgr_seal_outsider(struct pgr *p, uint32_t ino, bool readers)
{
	const struct finode *fi = F(p, ino);
	int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pid_t self = getpid(), found = 0;
	struct dirent *de;
	DIR *d;

	if (proc < 0 || !(d = fdopendir(proc))) {
		if (proc >= 0)
			close(proc);
		return -1;	/* cannot tell: as if there were one */
	}
	while (!found && (de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);
		int dir;

		bool client;

		if (pid <= 0 || pid == self)
			continue;
		client = pgr_seal_is_writer_client(p, pid);
		dir = openat(proc, de->d_name, O_RDONLY | O_DIRECTORY |
			     O_CLOEXEC);
		if (dir < 0)
			continue;
		if (holds(dir, fi, readers && !client, client))
			found = pid;
		close(dir);
	}
	closedir(d);
	return found;
}

/* ---- the two safe states --------------------------------------------- */

/*
 * A read lease on the daemon's descriptor: granted only if no one has the
 * file open for writing, the daemon included. With it a FAN_OPEN_PERM
 * mark (placed first: no open slips between): an open for writing waits
 * for the daemon's answer before it reaches the lease, which an open with
 * O_NONBLOCK would find held and fail with EAGAIN, where natively it
 * succeeds (coreutils' truncate and touch open so). The thread lets every
 * other open of the inode go at once (allows()), but each still costs the
 * opener a round trip to it, a cross-CPU wake-up (4.5 us an open+close
 * becomes 125 on a 2-vCPU VM): code, which every process loading it opens
 * and no one truncates in place, keeps the lease alone (pgr_seal_mapped()).
 */
static bool seal(struct pgr *p, uint32_t ino)
{
	struct finode *fi = F(p, ino);
	bool marked = p->fan_fd >= 0 && p->fan_tid && !fi->code &&
		      !fanotify_mark(p->fan_fd, FAN_MARK_ADD, FAN_OPEN_PERM,
				     fi->fd, NULL);

	if (fcntl(fi->fd, F_SETSIG, LEASE_SIG) ||
	    fcntl(fi->fd, F_SETLEASE, F_RDLCK)) {
		if (marked)
			fanotify_mark(p->fan_fd, FAN_MARK_REMOVE,
				      FAN_OPEN_PERM, fi->fd, NULL);
		return false;
	}
	set_coh(p, ino, FT_SEALED);
	return true;
}

void pgr_seal_mapped(struct pgr *p, uint32_t ino, bool exec)
{
	struct finode *fi = F(p, ino);

	if (!exec || fi->code)
		return;
	fi->code = true;
	if (fi->coh == FT_SEALED && p->fan_fd >= 0)
		fanotify_mark(p->fan_fd, FAN_MARK_REMOVE, FAN_OPEN_PERM, fi->fd,
			      NULL);
}

/* The daemon's descriptors of @fi for write-through and write-back (its
 * own descriptions: a dup of a client's would share its O_APPEND). Made
 * after the mark: the thread allows these opens. */
static int open_fds(struct finode *fi)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fi->fd);
	if (fi->bfd < 0)
		fi->bfd = open(path, O_RDONLY | O_CLOEXEC);
	if (fi->wfd < 0)
		fi->wfd = open(path, O_RDWR | O_CLOEXEC);
	return fi->bfd >= 0 ? 0 : -errno;
}

static void unwatch(struct pgr *p, struct finode *fi)
{
	fanotify_mark(p->fan_fd, FAN_MARK_REMOVE, FAN_OPEN_PERM, fi->fd, NULL);
	if (fi->wfd >= 0)
		close(fi->wfd);
	if (fi->bfd >= 0)
		close(fi->bfd);
	fi->wfd = fi->bfd = -1;
}

/*
 * Watch inode @ino: every later open waits for the daemon (the mark is
 * placed first), and no writer outside exists now (the scan comes after
 * it, so none slips between). 0, or -errno with *why.
 */
static int watch(struct pgr *p, uint32_t ino, bool rw, const char **why)
{
	static char msg[160];
	struct finode *fi = F(p, ino);
	pid_t who;

	if (p->fan_fd < 0) {
		*why = "it is open for writing, and a daemon without fanotify "
		       "permission events (not root) cannot watch its writers";
		return -EPERM;
	}
	if (fanotify_mark(p->fan_fd, FAN_MARK_ADD, FAN_OPEN_PERM, fi->fd,
			  NULL)) {
		snprintf(msg, sizeof(msg), "cannot watch its opens: %s",
			 strerror(errno));
		*why = msg;
		return -EPERM;
	}
	if (open_fds(fi) || (rw && fi->wfd < 0)) {
		*why = "cannot open it for write-back";
		unwatch(p, fi);
		return -EACCES;
	}
	who = pgr_seal_outsider(p, ino, rw);
	if (who) {
		snprintf(msg, sizeof(msg), who > 0 ? "process %d, which the "
			 "pager does not serve, has it open%s" : "cannot tell "
			 "who has it open%.0d%s", (int)who,
			 rw ? "" : " for writing");
		*why = msg;
		unwatch(p, fi);
		return -EBUSY;
	}
	set_coh(p, ino, FT_WATCHED);
	fi->rw_mapped = rw;
	return 0;
}

/* A sealed inode gets writers among the clients: let the lease go, then
 * watch it. If that fails it is handed back. */
static int unseal(struct pgr *p, uint32_t ino, bool rw)
{
	struct finode *fi = F(p, ino);
	const char *why;
	int err;

	/* The mark goes on before the lease comes off: no open is unseen
	 * in between (watch() marks first, and its answers wait for the
	 * loop, which is here). */
	if (p->fan_fd < 0 || fanotify_mark(p->fan_fd, FAN_MARK_ADD,
					   FAN_OPEN_PERM, fi->fd, NULL)) {
		pgr_demote(p, ino, "opened for writing, and the pager cannot "
			   "watch its writers (no fanotify)");
		return -EAGAIN;
	}
	fcntl(fi->fd, F_SETLEASE, F_UNLCK);
	set_coh(p, ino, 0);
	err = watch(p, ino, rw, &why);
	if (err) {
		/* Watched or not, the opens are still seen: hand it back. */
		fanotify_mark(p->fan_fd, FAN_MARK_ADD, FAN_OPEN_PERM, fi->fd,
			      NULL);
		set_coh(p, ino, FT_WATCHED);
		pgr_demote(p, ino, why);
		return -EAGAIN;
	}
	return 0;
}

int pgr_seal_take(struct pgr *p, struct client *c, uint32_t ino, bool rw,
		  const char **why)
{
	struct finode *fi = F(p, ino);
	pid_t who;

	if (fi->coh & FT_HANDED_BACK) {
		*why = "being handed back to the kernel";
		return -EAGAIN;
	}
	if (!fi->coh) {
		if (!rw && seal(p, ino))
			return 0;
		return watch(p, ino, rw, why);
	}
	if (!pgr_seal_is_writer_client(p, c->pid)) {
		*why = "the process cannot write through the pager";
		return -EPERM;
	}
	if ((fi->coh & FT_SEALED) && rw)
		return unseal(p, ino, true) ? (*why = "being handed back to "
					       "the kernel", -EAGAIN) : 0;
	if (rw && !fi->rw_mapped) {
		/* Dirty pages may come: no reader outside may miss them
		 * (later ones open it, which hands it back). */
		who = pgr_seal_outsider(p, ino, true);
		if (who) {
			pgr_demote(p, ino, "read outside the pager, and now "
				   "mapped shared and writable");
			*why = "being handed back to the kernel";
			return -EAGAIN;
		}
		fi->rw_mapped = true;
	}
	return 0;
}

int pgr_seal_wopen(struct pgr *p, struct client *c, uint32_t ino)
{
	struct finode *fi = F(p, ino);

	if (fi->coh & (FT_WATCHED | FT_HANDED_BACK))
		return (fi->coh & FT_HANDED_BACK) ? -EAGAIN : 0;
	if (!(fi->coh & FT_SEALED))
		return 0;
	if (!pgr_seal_is_writer_client(p, c->pid)) {
		pgr_demote(p, ino, "opened for writing by a process whose "
			   "writes the pager cannot see");
		return -EAGAIN;
	}
	return unseal(p, ino, false);
}

/* ---- the events ------------------------------------------------------ */

/* Which cached inode's lease is on descriptor @fd. */
static int by_lease_fd(struct pgr *p, int fd)
{
	for (uint32_t k = 0; k < p->nr_files_seen; k++)
		if (p->files[k].used && p->files[k].fd == fd &&
		    (p->files[k].coh & FT_SEALED))
			return (int)k;
	return -1;
}

/* A lease broke: someone opens a sealed inode for writing, or truncates
 * it, and no client said it would (pgr_seal_wopen() lets go first). */
static void on_lease(uv_poll_t *h, int status, int events)
{
	struct pgr *p = h->data;
	struct signalfd_siginfo si;

	while (read(p->lease_sfd, &si, sizeof(si)) == sizeof(si)) {
		int ino = by_lease_fd(p, (int)si.ssi_fd);

		if (ino >= 0)
			pgr_demote(p, (uint32_t)ino, "opened for writing "
				   "outside the pager");
	}
}

static void answer(struct pgr *p, int fd, bool allow)
{
	struct fanotify_response r = { fd, allow ? FAN_ALLOW : FAN_DENY };

	if (write(p->fan_fd, &r, sizeof(r)) != sizeof(r))
		pgr_warn("cannot answer a fanotify event: %s", strerror(errno));
	close(fd);
}

/*
 * An open the thread passed on: of a watched inode (a write-through client
 * goes on, anyone else once the inode is the kernel's), or one for writing
 * of a sealed inode (a client's, unannounced: libc's own open in fopen,
 * the inode is watched from now on; anyone else's: handed back first, so
 * that the open finds no lease).
 */
static void on_open(struct pgr *p, const struct fanotify_event_metadata *m)
{
	pid_t pid = p->fan_tid ? pgr_status_pid(m->pid, "Tgid") : m->pid;
	struct stat st;
	uint32_t coh;
	char why[112];
	int ino = -1;

	if (m->fd >= 0 && !fstat(m->fd, &st))
		ino = pgr_file_find(p, st.st_dev, st.st_ino);
	coh = ino >= 0 ? F(p, (uint32_t)ino)->coh : 0;
	if ((coh & FT_SEALED) && !(coh & FT_HANDED_BACK)) {
		if (pgr_seal_is_writer_client(p, pid) &&
		    !unseal(p, (uint32_t)ino, false)) {
			answer(p, m->fd, true);
			return;
		}
		snprintf(why, sizeof(why), "opened for writing outside the "
			 "pager (process %d)", (int)pid);
		pgr_demote(p, (uint32_t)ino, why);
		pgr_demote_wait_fan(p, (uint32_t)ino, m->fd);
		return;
	}
	if (!(coh & (FT_WATCHED | FT_HANDED_BACK)) ||
	    ((coh & FT_WATCHED) && pgr_seal_is_writer_client(p, pid))) {
		answer(p, m->fd, true);
		return;
	}
	if (coh & FT_WATCHED) {
		snprintf(why, sizeof(why), "opened by process %d, which does "
			 "not write through the pager", (int)pid);
		pgr_demote(p, (uint32_t)ino, why);
	}
	pgr_demote_wait_fan(p, (uint32_t)ino, m->fd);
}

/*
 * The flags of the open thread @tid waits in (blocked in the permission
 * event), from /proc/TID/syscall; -1 for a call this does not know (an
 * io_uring worker's, a 32-bit program's): that open goes on, and if it
 * writes it breaks the lease (on_lease()), as without the mark.
 */
static long open_flags(pid_t tid)
{
	unsigned long long a[6];
	char path[64], buf[256];
	uint64_t how = 0;
	ssize_t n;
	long nr;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (sscanf(buf, "%ld %llx %llx %llx %llx %llx %llx", &nr, &a[0], &a[1],
		   &a[2], &a[3], &a[4], &a[5]) != 7)
		return -1;
	switch (nr) {
	case SYS_open:
		return (long)a[1];
	case SYS_openat:
	case SYS_open_by_handle_at:
		return (long)a[2];
	case SYS_creat:
		return O_WRONLY | O_CREAT | O_TRUNC;
	case SYS_execve:
	case SYS_execveat:
		return O_RDONLY;
	case SYS_openat2:	/* struct open_how begins with its flags */
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd >= 0 ? pread(fd, &how, sizeof(how), (off_t)a[2]) : -1;
		if (fd >= 0)
			close(fd);
		return n == sizeof(how) ? (long)how : -1;
	}
	return -1;
}

/*
 * May the thread let open event @m go without the loop? The daemon's own
 * opens, and an open of a sealed inode that neither writes nor truncates
 * (a lease breaks for those alone): the many opens of libraries and
 * executables cost a thread's wake-up, not a turn of the loop.
 */
static bool allows(struct pgr *p, const struct fanotify_event_metadata *m,
		   pid_t self)
{
	const struct ftable *t;
	struct ft_entry e;
	struct stat st;
	char path[64];
	long flags;

	if (m->pid == self)
		return true;
	if (!p->fan_tid)
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)m->pid);
	if (!stat(path, &st))
		return true;	/* another thread of the daemon's */
	if (!(t = __atomic_load_n(&p->ftable, __ATOMIC_ACQUIRE)) ||
	    fstat(m->fd, &st) ||
	    !ft_lookup(t, (uint64_t)st.st_dev, (uint64_t)st.st_ino,
		       &e) ||
	    (e.flags & (FT_WATCHED | FT_HANDED_BACK)) ||
	    !(e.flags & FT_SEALED))
		return false;
	flags = open_flags(m->pid);
	return flags < 0 ||
	       ((flags & O_ACCMODE) == O_RDONLY && !(flags & O_TRUNC));
}

/* The thread: the opens it may allow (allows()), the rest to the loop. It
 * ends when pgr_seal_release() writes to fan_stop. */
static void *fan_thread(void *arg)
{
	struct pgr *p = arg;
	char buf[4096] __attribute__((aligned(8)));
	pid_t self = getpid();
	sigset_t all;
	ssize_t n;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	__atomic_store_n(&p->fan_started, true, __ATOMIC_RELEASE);
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = p->fan_fd, .events = POLLIN },
			{ .fd = p->fan_stop[0], .events = POLLIN },
		};
		struct fanotify_event_metadata *m = (void *)buf;

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;		/* pgr_seal_release() */
		n = read(p->fan_fd, buf, sizeof(buf));
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			break;
		for (; n > 0 && FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			struct fanotify_response r = { m->fd, FAN_ALLOW };

			if (m->vers != FANOTIFY_METADATA_VERSION || m->fd < 0)
				continue;
			if (!(m->mask & FAN_OPEN_PERM) || allows(p, m, self)) {
				if (write(p->fan_fd, &r, sizeof(r)) < 0)
					break;
				close(m->fd);
				continue;
			}
			if (write(p->fan_pipe[1], m, sizeof(*m)) != sizeof(*m)) {
				/* The loop is gone: let the opener go. */
				if (write(p->fan_fd, &r, sizeof(r)) < 0)
					break;
				close(m->fd);
			}
		}
	}
	return NULL;
}

static void on_fan(uv_poll_t *h, int status, int events)
{
	struct pgr *p = h->data;
	struct fanotify_event_metadata m;

	while (read(p->fan_pipe[0], &m, sizeof(m)) == sizeof(m))
		on_open(p, &m);
}

int pgr_seal_init(struct pgr *p)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, LEASE_SIG);
	sigprocmask(SIG_BLOCK, &s, NULL);
	p->lease_sfd = signalfd(-1, &s, SFD_NONBLOCK | SFD_CLOEXEC);
	if (p->lease_sfd < 0) {
		pgr_err("cannot watch leases (signalfd): %s", strerror(errno));
		return -errno;
	}
	uv_poll_init(p->loop, &p->lease_poll, p->lease_sfd);
	p->lease_poll.data = p;
	uv_poll_start(&p->lease_poll, UV_READABLE, on_lease);
	/* With each event's thread (FAN_REPORT_TID, 4.20): open_flags(). */
	p->fan_fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC |
				  FAN_REPORT_TID,
				  O_RDONLY | O_CLOEXEC | O_LARGEFILE);
	p->fan_tid = p->fan_fd >= 0;
	if (p->fan_fd < 0)
		p->fan_fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC,
					  O_RDONLY | O_CLOEXEC | O_LARGEFILE);
	if (p->fan_fd < 0) {
		pgr_info("no fanotify permission events (%s): files open for "
			 "writing stay the kernel's", strerror(errno));
		return 0;
	}
	if (pipe2(p->fan_pipe, O_CLOEXEC | O_NONBLOCK) ||
	    pipe2(p->fan_stop, O_CLOEXEC) ||
	    pthread_create(&p->fan_thread, NULL, fan_thread, p)) {
		pgr_err("cannot start the fanotify thread");
		close(p->fan_fd);
		p->fan_fd = -1;
		return 0;
	}
	/* The thread blocks on the pipe's write end only if the loop
	 * stops reading; its reads of events block. */
	fcntl(p->fan_pipe[1], F_SETFL, 0);
	/* Its start (glibc registers rseq and the robust list) must be
	 * over before the daemon confines every thread (confine.c). */
	for (int k = 0; k < 20000 &&
	     !__atomic_load_n(&p->fan_started, __ATOMIC_ACQUIRE); k++) {
		struct timespec t = { 0, 50000 };

		nanosleep(&t, NULL);
	}
	uv_poll_init(p->loop, &p->fan_poll, p->fan_pipe[0]);
	p->fan_poll.data = p;
	uv_poll_start(&p->fan_poll, UV_READABLE, on_fan);
	return 0;
}

void pgr_seal_release(struct pgr *p)
{
	if (p->lease_sfd >= 0) {
		uv_poll_stop(&p->lease_poll);
		uv_close((uv_handle_t *)&p->lease_poll, NULL);
		close(p->lease_sfd);
		p->lease_sfd = -1;
	}
	if (p->fan_fd >= 0) {
		struct fanotify_event_metadata m;

		uv_poll_stop(&p->fan_poll);
		uv_close((uv_handle_t *)&p->fan_poll, NULL);
		/* Events the loop did not take: let them go. */
		while (read(p->fan_pipe[0], &m, sizeof(m)) == sizeof(m))
			answer(p, m.fd, true);
		/* The thread ends; closing the group allows what still
		 * waits. */
		if (write(p->fan_stop[1], "", 1) == 1)
			pthread_join(p->fan_thread, NULL);
		close(p->fan_fd);
		close(p->fan_pipe[0]);
		close(p->fan_pipe[1]);
		close(p->fan_stop[0]);
		close(p->fan_stop[1]);
		p->fan_fd = -1;
	}
}
