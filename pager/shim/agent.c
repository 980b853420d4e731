/* SPDX-License-Identifier: MIT */
/*
 * agent.c - the agent: a process that performs the MADV_DONTNEED the
 * daemon asks for in the program's memory (the daemon cannot unmap
 * another process's pages), and the program's guard against the daemon's
 * death.
 *
 *   agent -> daemon:  ready [moves]  (once, when it runs; "moves": it
 *                     moves pages out with UFFDIO_MOVE)
 *   daemon -> agent:  dontneed ID START LEN [START LEN]...   (hex, anon)
 *                     dropf ID START LEN... (file pages: a range a call)
 *   agent -> daemon:  moved ID     (dontneed: every page moved out,
 *                     but those of the "fell" lines before it)
 *                     fell ID START LEN  (pages it could not move,
 *                     dropped by madvise a page a call)
 *                     done ID      (dropf, or dontneed without a move
 *                     userfaultfd: after every madvise returned)
 *   daemon -> agent:  demcow ID START LEN...; demote ID START LEN PROT
 *                     SHARED PGOFF, with a descriptor: a file mapping
 *                     handed back to the kernel (below)
 *   agent -> daemon:  demoted ID START ERRNO
 *   daemon -> agent:  call ID NR A0 A1 A2 A3 A4 A5  (hex: an mmap, brk or
 *                     munmap the program asked for, made here: below)
 *   agent -> daemon:  called ID RET OLD  (RET: the call's result, -errno
 *                     as two's complement; OLD: the break before a brk)
 *   daemon -> agent:  bye          (the program exited or exec'd)
 *
 * The program must not see it (Chromium's zygotes check that they have
 * one thread before they fork, and a fork from a process with threads
 * copies their locks held). So the agent is no thread of the program's: it
 * is a process that shares the program's memory (CLONE_VM), and nothing
 * else. It is cloned twice, as a daemon forks twice: the first clone is
 * reaped by the shim at once, so the agent is no child of the program's
 * either (no wait(2) of the program's ever sees it) but an orphan of the
 * reaper's. It has its own descriptor table, holding only its connection
 * and a pidfd of the program, so the program can neither see nor close
 * them; it blocks every signal, leaves the program's session and process
 * group, and calls itself pager-agent.
 *
 * Its code runs without libc's thread state: it was made by clone(2), not
 * pthread_create(), and the thread whose TLS it would inherit may be long
 * gone. So it makes raw system calls (sys.h), formats and parses its
 * lines itself, and runs on a TLS block of its own (CLONE_SETTLS) that
 * nothing it calls needs but the stack guard. It touches only the shim's
 * static data and its stack, which the daemon never adopts: no page it
 * touches can be waiting for the daemon (but those of a mapping it copies
 * in a hand-back, which the daemon serves).
 *
 * When the connection breaks without a "bye", the daemon is gone: pages
 * it evicted exist only in its swap, and the program's own copy of the
 * userfaultfd keeps faults on them waiting instead of reading zeros. The
 * agent then ends the program with a message: wrong data is never an
 * option. Its madvise waits until the daemon has read the REMOVE event it
 * raised, so if the daemon dies then, the agent waits for ever: a second
 * thread of the agent's (not the program's), the watchdog, only polls the
 * connection for its end (POLLRDHUP, which consumes nothing) and stops
 * the program too.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/compat.h"
#include "shim.h"
#include "sys.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal	424
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd		438
#endif
#ifndef SYS_close_range
#define SYS_close_range		436
#endif

#define AGENT_BUF	65536	/* the longest request line, and then some */
#define TCB_SIZE	65536	/* a TLS block: the TCB at its end, and
				 * below it room for the program's static
				 * TLS, where a libc call that failed would
				 * set errno (untouched pages cost nothing) */
#define FIRST_STACK	(16 * 1024)	/* the first clone's, at the top */
#define WATCH_STACK	(32 * 1024)	/* the watchdog's, below it */

/* The agent's state: static, in the shim's data (never adopted). */
static struct {
	int fd;			/* its connection: only in its table */
	int pidfd;		/* the program, to stop it */
	int program;		/* its pid, for the message */
	int pid;		/* the agent's own (the first clone says) */
	int mvfd;		/* its own userfaultfd, for moves, or -1 */
	size_t used;		/* bytes of the scratch holding pages */
	volatile int bye;	/* the daemon said bye: its end is no death */
	size_t len;		/* bytes in buf */
	int nfds;
	int fds[WIRE_MAX_FDS];	/* received with the lines, not yet taken */
	char buf[AGENT_BUF + 1];
	char out[128];
	char reply[8192];	/* "fell" lines and "moved" */
} ag;

static char tcbs[3][TCB_SIZE] __attribute__((aligned(64)));

/* ---- what the agent's code may call -------------------------------------- */

static bool prefix(const char *s, const char *p)
{
	while (*p)
		if (*s++ != *p++)
			return false;
	return true;
}

/* Append @v to @o at *n: in hex, or decimal. */
static void put_num(char *o, size_t *n, size_t cap, unsigned long long v,
		    unsigned int base)
{
	char t[24];
	int k = 0;

	do {
		t[k++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (k && *n < cap)
		o[(*n)++] = t[--k];
}

static void put_str(char *o, size_t *n, size_t cap, const char *s)
{
	while (*s && *n < cap)
		o[(*n)++] = *s++;
}

static int hex(const char **s, unsigned long long *v)
{
	const char *p = *s;
	unsigned long long x = 0;

	while (*p == ' ')
		p++;
	if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
		return -1;
	for (;; p++) {
		if (*p >= '0' && *p <= '9')
			x = x * 16 + (unsigned long long)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			x = x * 16 + (unsigned long long)(*p - 'a' + 10);
		else
			break;
	}
	*v = x;
	*s = p;
	return 0;
}

/* All of @n bytes to the daemon; sendto is no write(2) the seccomp
 * filter of `pager run` would hand over. */
static void send_all(const char *b, size_t n)
{
	while (n) {
		long r = sys6(SYS_sendto, ag.fd, (long)b, (long)n,
			      MSG_NOSIGNAL, 0, 0);

		if (r == -EINTR)
			continue;
		if (r <= 0)
			return;	/* broken: the watchdog sees it */
		b += r;
		n -= (size_t)r;
	}
}

/* "pager: the pager daemon is gone ..." on the program's stderr (taken
 * now: holding it would keep a reader of its pipe from its end), then
 * the program ends with SIGKILL, and the agent with it. pidfd_getfd()
 * shares the program's open file description, so the message lands where
 * the program's next write would; where ptrace rules refuse that, a
 * description of its own, appending. */
static __attribute__((noreturn)) void fail_stop(void)
{
	char path[48], msg[256];
	size_t n = 0, m = 0;
	long fd;

	put_str(path, &m, sizeof(path) - 1, "/proc/");
	put_num(path, &m, sizeof(path) - 1, (unsigned)ag.program, 10);
	put_str(path, &m, sizeof(path) - 1, "/fd/2");
	path[m] = 0;
	put_str(msg, &n, sizeof(msg), "pager: the pager daemon is gone; "
		"stopping process ");
	put_num(msg, &n, sizeof(msg), (unsigned)ag.program, 10);
	put_str(msg, &n, sizeof(msg), " so that it never reads memory the "
		"pager held (its pages may be in the daemon's swap)\n");
	fd = sys3(SYS_pidfd_getfd, ag.pidfd, 2, 0);
	if (fd < 0)
		fd = sys4(SYS_openat, AT_FDCWD, path,
			  O_WRONLY | O_APPEND | O_CLOEXEC, 0);
	if (fd >= 0) {
		sys6(SYS_write, fd, (long)msg, (long)n, 0, 0,
		     PGR_SYSCALL_MARKER);
		sys1(SYS_close, fd);
	}
	sys4(SYS_pidfd_send_signal, ag.pidfd, SIGKILL, 0, 0);
	sys1(SYS_exit_group, 0);
	for (;;)
		;
}

/* ---- the requests ------------------------------------------------------ */

/*
 * Anon pages ("dontneed") are moved into the agent's scratch
 * (UFFDIO_MOVE on its own userfaultfd, move_uffd()): the page
 * leaves the program's page table, its next access is a missing fault
 * for the daemon, and no REMOVE event is posted, so the agent waits for
 * no one. A page the kernel will not move (shared with a fork child,
 * not present, a huge page it cannot split) and the rest of its range
 * are dropped by MADV_DONTNEED instead, a page a call, and named in a
 * "fell" line: a VMA the program splits (mprotect, madvise) while one
 * call waits for its REMOVE event to be read has the kernel post a
 * second REMOVE for the part past the split (madvise_dontneed_free()),
 * which the daemon would take for the program's own drop; one page
 * cannot be split. File pages ("dropf": the memfd keeps them whatever
 * REMOVEs come) are dropped a range a call.
 */
static unsigned long long move_out(unsigned long long src,
				   unsigned long long len)
{
	char *scratch = shim.stack + SHIM_STACK;
	unsigned long long done = 0;
	bool emptied = false;

	while (done < len) {
		struct uffdio_move m = { 0 };
		unsigned long long n = len - done;
		long r;

		if (ag.used == SHIM_SCRATCH) {
			sys3(SYS_madvise, scratch, SHIM_SCRATCH,
			     MADV_DONTNEED);
			ag.used = 0;
		}
		if (n > SHIM_SCRATCH - ag.used)
			n = SHIM_SCRATCH - ag.used;
		m.dst = (uintptr_t)scratch + ag.used;
		m.src = src + done;
		m.len = n;
		r = sys3(SYS_ioctl, ag.mvfd, UFFDIO_MOVE, &m);
		if (m.move > 0) {
			done += (unsigned long long)m.move;
			ag.used += (size_t)m.move;
		}
		if (r == -EEXIST && m.move <= 0 && !emptied) {
			/* The program filled the scratch (an mlock or a
			 * MADV_POPULATE of all its mappings): empty it. */
			sys3(SYS_madvise, scratch, SHIM_SCRATCH,
			     MADV_DONTNEED);
			ag.used = 0;
			emptied = true;
			continue;
		}
		if (r < 0 && m.move <= 0)
			break;	/* this page will not move */
	}
	return done;
}

static void reply_range(size_t *n, const char *verb, unsigned long long id,
			unsigned long long start, unsigned long long len)
{
	if (*n > sizeof(ag.reply) - 128) {
		send_all(ag.reply, *n);
		*n = 0;
	}
	put_str(ag.reply, n, sizeof(ag.reply), verb);
	put_num(ag.reply, n, sizeof(ag.reply), id, 16);
	if (len) {
		put_str(ag.reply, n, sizeof(ag.reply), " ");
		put_num(ag.reply, n, sizeof(ag.reply), start, 16);
		put_str(ag.reply, n, sizeof(ag.reply), " ");
		put_num(ag.reply, n, sizeof(ag.reply), len, 16);
	}
	put_str(ag.reply, n, sizeof(ag.reply), "\n");
}

static void dontneed(const char *args, bool anon)
{
	unsigned long long id, start, len;
	bool move = anon && ag.mvfd >= 0;
	size_t n = 0;

	if (hex(&args, &id))
		return;
	while (!hex(&args, &start) && !hex(&args, &len)) {
		unsigned long long a = start;

		if (!anon) {
			if (sys3(SYS_madvise, start, len, MADV_DONTNEED) ==
			    -EINVAL)
				reply_range(&n, "locked ", id, start, len);
			continue;
		}
		if (move) {
			a += move_out(start, len);
			if (a < start + len)
				reply_range(&n, "fell ", id, a,
					    start + len - a);
		}
		/* EINVAL: the mapping is mlocked (VM_LOCKED), the page
		 * stays; named in "locked" lines, merged. */
		for (unsigned long long lk = 0; a < start + len; a += 4096) {
			bool refused = sys3(SYS_madvise, a, 4096,
					    MADV_DONTNEED) == -EINVAL;

			if (refused && !lk)
				lk = a;
			if (lk && (!refused || a + 4096 == start + len)) {
				reply_range(&n, "locked ", id, lk,
					    (refused ? a + 4096 : a) - lk);
				lk = 0;
			}
		}
	}
	if (ag.used) {	/* the moved pages, freed */
		sys3(SYS_madvise, shim.stack + SHIM_STACK, ag.used,
		     MADV_DONTNEED);
		ag.used = 0;
	}
	reply_range(&n, move ? "moved " : "done ", id, 0, 0);
	send_all(ag.reply, n);
}

/*
 * A file mapping handed back to the kernel (the daemon's demote.c):
 * "demcow ID START LEN..." name the pages of a private mapping the
 * program wrote, then "demote ID START LEN PROT SHARED PGOFF" comes with
 * the file's descriptor. Map the file at a spare address, copy the
 * written pages over from the old mapping (the daemon serves the faults
 * reading them), and move it onto the old range with one mremap: the
 * program's threads see the old mapping or the new one, never a hole.
 */
#define DEMOTE_COWS 4096
static struct { unsigned long long start, len; } cows[DEMOTE_COWS];
static unsigned int nr_cows;
static unsigned long long cows_id;
static bool cows_lost;

static void demcow(const char *args)
{
	unsigned long long id, start, len;

	if (hex(&args, &id))
		return;
	if (id != cows_id) {
		cows_id = id;
		nr_cows = 0;
		cows_lost = false;
	}
	while (!hex(&args, &start) && !hex(&args, &len)) {
		if (nr_cows == DEMOTE_COWS) {
			cows_lost = true;
			break;
		}
		cows[nr_cows].start = start;
		cows[nr_cows++].len = len;
	}
}

static int replace(unsigned long long start, unsigned long long len,
		   int prot, bool shared, unsigned long long pgoff, int fd,
		   bool copy)
{
	int mprot = copy ? PROT_READ | PROT_WRITE : prot;
	long q = sys6(SYS_mmap, 0, (long)len, mprot,
		      shared ? MAP_SHARED : MAP_PRIVATE, fd,
		      (long)(pgoff * 4096));
	long r;

	if (sys_err(q))
		return sys_err(q);
	for (unsigned int k = 0; copy && k < nr_cows; k++) {
		unsigned long long s = cows[k].start, n = cows[k].len;

		if (s < start || s + n > start + len)
			continue;
		if (!(prot & PROT_READ))
			sys3(SYS_mprotect, s, n, PROT_READ);
		memcpy((char *)q + (s - start), (const void *)(uintptr_t)s,
		       (size_t)n);
	}
	if (copy && mprot != prot) {
		r = sys3(SYS_mprotect, q, len, prot);
		if (sys_err(r)) {
			sys2(SYS_munmap, q, len);
			return sys_err(r);
		}
	}
	r = sys5(SYS_mremap, q, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
		 start);
	if (sys_err(r)) {
		sys2(SYS_munmap, q, len);
		return sys_err(r);
	}
	return 0;
}

static void demote(const char *args, int fd)
{
	unsigned long long id = 0, start = 0, len, prot, shared, pgoff;
	int err = EINVAL;
	size_t n = 0;

	if (!hex(&args, &id) && !hex(&args, &start) && !hex(&args, &len) &&
	    !hex(&args, &prot) && !hex(&args, &shared) && !hex(&args, &pgoff)
	    && fd >= 0)
		err = cows_lost ? E2BIG :
		      replace(start, len, (int)prot, shared, pgoff, fd,
			      !shared && cows_id == id && nr_cows);
	if (fd >= 0)
		sys1(SYS_close, fd);
	nr_cows = 0;
	put_str(ag.out, &n, sizeof(ag.out), "demoted ");
	put_num(ag.out, &n, sizeof(ag.out), id, 16);
	put_str(ag.out, &n, sizeof(ag.out), " ");
	put_num(ag.out, &n, sizeof(ag.out), start, 16);
	put_str(ag.out, &n, sizeof(ag.out), " ");
	put_num(ag.out, &n, sizeof(ag.out), (unsigned)err, 10);
	put_str(ag.out, &n, sizeof(ag.out), "\n");
	send_all(ag.out, n);
}

/* ---- the connection ------------------------------------------------------ */

/* Read more into ag.buf, and the descriptors riding along: bytes read, 0
 * at the end, or -errno. */
static long fill(void)
{
	char ctl[CMSG_SPACE(sizeof(int) * WIRE_MAX_FDS)];
	struct iovec iov = { ag.buf + ag.len, AGENT_BUF - ag.len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm;
	long r;

	if (ag.len == AGENT_BUF)
		ag.len = 0;	/* a line longer than any request: dropped */
	r = sys3(SYS_recvmsg, ag.fd, &mh, MSG_CMSG_CLOEXEC);
	if (r <= 0)
		return r;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int fds[WIRE_MAX_FDS];

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		memcpy(fds, CMSG_DATA(cm), k * sizeof(int));
		for (size_t j = 0; j < k; j++) {
			if (ag.nfds < WIRE_MAX_FDS)
				ag.fds[ag.nfds++] = fds[j];
			else
				sys1(SYS_close, fds[j]);
		}
	}
	ag.len += (size_t)r;
	return r;
}

static int take_fd(void)
{
	int fd;

	if (!ag.nfds)
		return -1;
	fd = ag.fds[0];
	for (int k = 1; k < ag.nfds; k++)
		ag.fds[k - 1] = ag.fds[k];
	ag.nfds--;
	return fd;
}

/*
 * A system call the program made, stopped by the seccomp filter before
 * it ran (the daemon's watch/call.c): the agent makes it in the memory it
 * shares, the daemon registers the new mapping with the userfaultfd, and
 * only then does the program's call return, with this result. So no page
 * of it is touched before the pager owns it. An mmap carries the shim's
 * marker, which the filter lets by; a brk is notified, and continued
 * (the agent is no client). Other numbers are refused: the daemon asks
 * for these three only.
 */
static void call(const char *args)
{
	unsigned long long id, nr, a[6];
	long ret, old = 0;
	size_t n = 0;

	if (hex(&args, &id) || hex(&args, &nr))
		return;
	for (int k = 0; k < 6; k++)
		if (hex(&args, &a[k]))
			return;
	if (nr == SYS_mmap)
		ret = sys6(SYS_mmap, (long)a[0], (long)a[1], (long)a[2],
			   (long)(a[3] | PGR_MAP_MARKER), (long)a[4],
			   (long)a[5]);
	else if (nr == SYS_brk) {
		old = sys1(SYS_brk, 0);
		ret = sys1(SYS_brk, a[0]);
	} else if (nr == SYS_munmap)
		ret = sys2(SYS_munmap, a[0], a[1]);
	else
		ret = -ENOSYS;
	put_str(ag.out, &n, sizeof(ag.out), "called ");
	put_num(ag.out, &n, sizeof(ag.out), id, 16);
	put_str(ag.out, &n, sizeof(ag.out), " ");
	put_num(ag.out, &n, sizeof(ag.out), (unsigned long long)ret, 16);
	put_str(ag.out, &n, sizeof(ag.out), " ");
	put_num(ag.out, &n, sizeof(ag.out), (unsigned long long)old, 16);
	put_str(ag.out, &n, sizeof(ag.out), "\n");
	send_all(ag.out, n);
}

static void serve(const char *line)
{
	if (prefix(line, "call ")) {
		call(line + 5);
		return;
	}
	if (prefix(line, "dontneed "))
		dontneed(line + 9, true);	/* anon */
	else if (prefix(line, "dropf "))
		dontneed(line + 6, false);
	else if (prefix(line, "demcow "))
		demcow(line + 7);
	else if (prefix(line, "demote "))
		demote(line + 7, take_fd());
	else if (prefix(line, "bye")) {
		ag.bye = 1;
		sys1(SYS_exit_group, 0);
	}
}

/* ---- the watchdog, a thread of the agent's ------------------------------- */

static int watchdog(void *arg)
{
	struct pollfd pfd = { .fd = ag.fd, .events = POLLRDHUP };

	(void)arg;
	for (;;) {
		long r;

		pfd.revents = 0;
		r = sys3(SYS_poll, &pfd, 1, -1);
		if (r <= 0 || !(pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)))
			continue;
		if (ag.bye)
			sys1(SYS_exit, 0);	/* the agent is ending */
		fail_stop();
	}
	return 0;
}

/* ---- the agent ------------------------------------------------------------- */

/* A TLS block for a clone of ours: its TCB points to itself, and keeps
 * the stack guard, which code built with -fstack-protector reads there
 * (x86_64; elsewhere the guard is a global). */
static void *tls_of(int k)
{
	char *tcb = tcbs[k] + TCB_SIZE - 256;

#if defined(__x86_64__)
	unsigned long guard;

	__asm__("mov %%fs:0x28, %0" : "=r"(guard));
	((void **)tcb)[0] = tcb;	/* tcbhead_t.tcb */
	((void **)tcb)[2] = tcb;	/* .self */
	((unsigned long *)tcb)[5] = guard;	/* .stack_guard */
	return tcb;
#else
	return tcbs[k] + TCB_SIZE / 2;
#endif
}

static int agent(void *arg)
{
	static const unsigned long long all = ~0ULL;
	char *watch_stack = shim.stack + SHIM_STACK - FIRST_STACK;

	(void)arg;
	/* Every signal blocked, libc's own too (its pthread_sigmask leaves
	 * those alone). */
	sys4(SYS_rt_sigprocmask, SIG_SETMASK, &all, 0, sizeof(all));
	/* Out of the program's session and process group (its terminal's
	 * signals, its kill(0, ...)). */
	sys0(SYS_setsid);
	if (clone(watchdog, watch_stack, CLONE_VM | CLONE_FS | CLONE_FILES |
		  CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS,
		  NULL, NULL, tls_of(2), NULL) < 0)
		fail_stop();
	/* Only now may the daemon arm our pages: until the agent runs, no
	 * one would drop them, and a thread touching one would wait for
	 * ever (the thread starting the agent, say). */
	if (ag.mvfd >= 0)
		send_all("ready moves\n", 12);
	else
		send_all("ready\n", 6);
	for (;;) {
		long r = fill();
		char *nl;

		if (r == -EINTR)
			continue;
		if (r <= 0)
			fail_stop();
		while ((nl = memchr(ag.buf, '\n', ag.len))) {
			size_t n = (size_t)(nl - ag.buf) + 1;

			*nl = 0;
			serve(ag.buf);
			memmove(ag.buf, ag.buf + n, ag.len - n);
			ag.len -= n;
		}
	}
}

/* The first clone: it lets go of the program's descriptors (its table
 * is a copy: a file the agent held open would count as another process's
 * in the daemon's eyes, a pipe would keep its reader waiting), makes the
 * agent with what is left, says its pid, and ends; the shim waits for
 * that. */
static int first(void *arg)
{
	char *stack = shim.stack + SHIM_STACK - FIRST_STACK - WATCH_STACK;
	int keep[3] = { ag.fd, ag.pidfd, ag.mvfd }, lo = 0;
	int pid;

	(void)arg;
	/* Named at once: for the moment it lives, `ps` and pgrep must not
	 * take it for the program. */
	sys5(SYS_prctl, PR_SET_NAME, "pager-agent", 0, 0, 0);
	for (int i = 1; i < 3; i++)	/* sorted, -1 first */
		for (int k = i; k > 0 && keep[k] < keep[k - 1]; k--) {
			int t = keep[k];

			keep[k] = keep[k - 1];
			keep[k - 1] = t;
		}
	for (int k = 0; k < 3; k++) {
		if (keep[k] < 0)
			continue;
		if (keep[k] > lo)
			sys3(SYS_close_range, lo, keep[k] - 1, 0);
		lo = keep[k] + 1;
	}
	sys3(SYS_close_range, lo, ~0U, 0);
	pid = clone(agent, stack, CLONE_VM | CLONE_SETTLS | SIGCHLD, NULL,
		    NULL, tls_of(1), NULL);
	ag.pid = pid;
	return 0;
}

/*
 * The agent's own userfaultfd: it moves the pages the daemon arms into
 * its scratch (UFFDIO_MOVE), which posts no REMOVE event, where
 * MADV_DONTNEED of each page waited for the daemon to read one. The
 * scratch is emptied first (a fork child inherits its parent's
 * leftovers, and a move needs an empty destination) and registered for
 * write-protection only, which nothing asks: a move needs its
 * destination registered, in any mode. Not for missing faults: those
 * the program makes too, by mlock or MADV_POPULATE over all its
 * mappings, and no one would answer them (an mlock loop over
 * /proc/self/maps hung so). Without UFFD_FEATURE_EVENT_REMOVE, so
 * emptying it posts nothing either.
 */
static int move_uffd(void)
{
	char *scratch = shim.stack + SHIM_STACK;
	struct uffdio_register reg = {
		.range = { (uintptr_t)scratch, SHIM_SCRATCH },
		.mode = UFFDIO_REGISTER_MODE_WP,
	};
	int fd;

	syscall(SYS_madvise, scratch, SHIM_SCRATCH, MADV_DONTNEED);
	fd = shim_open_uffd(UFFD_FEATURE_MOVE);
	if (fd < 0)
		return fd;
	if (ioctl(fd, UFFDIO_REGISTER, &reg)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return shim_fd_high(fd);
}

int shim_agent_start(void)
{
	char *stack = shim.stack + SHIM_STACK;
	sigset_t all, old;
	int saved = errno, a1, status, fd;

	fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (fd < 0)
		return -errno;
	ag.pidfd = shim_fd_high(fd);
	ag.fd = shim.agent_fd;
	ag.program = getpid();
	ag.pid = -1;
	ag.mvfd = move_uffd();	/* -errno: madvise it is */
	ag.used = 0;
	ag.bye = 0;
	ag.len = 0;
	ag.nfds = 0;
	/* Born with every signal blocked: no handler of the program's may
	 * ever run in it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	a1 = clone(first, stack, CLONE_VM | CLONE_SETTLS, NULL, NULL,
		   tls_of(0), NULL);
	if (a1 > 0)
		while (waitpid(a1, &status, __WALL) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Ours no more: the agent has its own copies. */
	close(ag.pidfd);
	if (ag.mvfd >= 0)
		close(ag.mvfd);
	close(shim.agent_fd);
	shim.agent_fd = -1;
	errno = saved;
	return ag.pid > 0 ? ag.pid : -EAGAIN;
}
