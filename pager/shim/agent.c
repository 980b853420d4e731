/* SPDX-License-Identifier: MIT */
/*
 * agent.c - the agent: a thread in each client that performs the
 * MADV_DONTNEED the daemon asks for (the daemon cannot unmap another
 * process's pages), and the process's guard against the daemon's death.
 *
 *   agent -> daemon:  ready        (once, when it runs)
 *   daemon -> agent:  dontneed ID START LEN [START LEN]...   (hex)
 *   agent -> daemon:  done ID      (after every madvise returned)
 *   daemon -> agent:  demcow ID START LEN...; demote ID START LEN PROT
 *                     SHARED PGOFF, with a descriptor: a file mapping
 *                     handed back to the kernel (below)
 *   agent -> daemon:  demoted ID START ERRNO
 *
 * When the connection breaks, the daemon is gone: pages it evicted exist
 * only in its swap, and the process's own copy of the userfaultfd keeps
 * faults on them waiting instead of reading zeros. The agent then ends the
 * process with a message: wrong data is never an option.
 *
 * The agent runs on a stack the pager never adopts and uses only static
 * buffers in the shim's data (excluded too) and raw system calls, so no
 * page it touches can ever be waiting for the daemon. But its madvise
 * waits until the daemon has read the REMOVE event it raised: if the
 * daemon dies then, the agent waits for ever. So a second thread, the
 * watchdog, only polls the connection for the daemon's end (POLLRDHUP,
 * which consumes nothing) and stops the process too.
 *
 * A program may close the shim's descriptors itself: a launcher closes
 * every descriptor between fork and exec. That is no death of the daemon:
 * the agent and the watchdog check that the descriptor is still their
 * socket before each use, and when it is not, they end quietly without
 * touching it again (the number may be another file by now). The daemon
 * sees the connection close, finds the process still running and keeps
 * serving its faults without evicting anything of it (client.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/compat.h"
#include "shim.h"

static struct wire agent_wire;

static void say(const char *fmt, va_list ap)
{
	static char buf[512];
	int n = snprintf(buf, sizeof(buf), "pager: ");

	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (syscall(SYS_write, 2, buf, (size_t)n, 0, 0, PGR_SYSCALL_MARKER) < 0)
		return;
}

void shim_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void shim_stop(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	syscall(SYS_kill, getpid(), SIGKILL);
	for (;;)
		pause();
}

unsigned long shim_fd_id(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return 0;
	return ((unsigned long)st.st_ino * 31 + (unsigned long)st.st_dev) *
	       31 + (st.st_mode & S_IFMT) + 1;
}

bool shim_fd_is(int fd, unsigned long id)
{
	return id && shim_fd_id(fd) == id;
}

int shim_fd_high(int fd)
{
	struct rlimit rl;
	int high;

	if (fd < 0 || getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur < 1024)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, 900);
	if (high < 0)
		return fd;
	close(fd);
	return high;
}

void *shim_mmap(size_t len)
{
	return (void *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | PGR_MAP_MARKER,
			       -1, 0);
}

static int hex(const char **s, unsigned long long *v)
{
	char *end;

	while (**s == ' ')
		(*s)++;
	*v = strtoull(*s, &end, 16);
	if (end == *s)
		return -1;
	*s = end;
	return 0;
}

/*
 * The program closed our connection. The daemon may not see it close (a
 * thread blocked on it holds it open): say so on a new connection, so
 * that it stops asking us to drop pages, and end the thread.
 */
static __attribute__((noreturn)) void cut_off(void)
{
	int fd = shim_connect();

	if (fd >= 0) {
		if (syscall(SYS_write, fd, "cut\n", 4, 0, 0,
			    PGR_SYSCALL_MARKER) != 4)
			shim_say("cannot tell the daemon process %d was cut "
				 "off", (int)getpid());
		close(fd);
	}
	pthread_exit(NULL);
}

static void dontneed(const char *args)
{
	static char reply[64];
	unsigned long long id, start, len;

	if (hex(&args, &id))
		return;
	while (!hex(&args, &start) && !hex(&args, &len))
		syscall(SYS_madvise, (void *)(uintptr_t)start, (size_t)len,
			MADV_DONTNEED);
	if (!shim_fd_is(shim.agent_fd, shim.agent_id))
		cut_off();	/* closed by the program: see above */
	snprintf(reply, sizeof(reply), "done %llx\n", id);
	wire_send(shim.agent_fd, reply, strlen(reply), NULL, 0);
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
	long q = syscall(SYS_mmap, NULL, (size_t)len, mprot,
			 shared ? MAP_SHARED : MAP_PRIVATE, fd,
			 (off_t)(pgoff * 4096));

	if (q < 0 && q > -4096)
		return (int)-q;
	if (q == -1)
		return errno;
	for (unsigned int k = 0; copy && k < nr_cows; k++) {
		unsigned long long s = cows[k].start, n = cows[k].len;

		if (s < start || s + n > start + len)
			continue;
		if (!(prot & PROT_READ))
			syscall(SYS_mprotect, (void *)(uintptr_t)s, (size_t)n,
				PROT_READ);
		memcpy((char *)(uintptr_t)q + (s - start),
		       (const void *)(uintptr_t)s, (size_t)n);
	}
	if (copy && mprot != prot &&
	    syscall(SYS_mprotect, (void *)(uintptr_t)q, (size_t)len, prot)) {
		int err = errno;

		syscall(SYS_munmap, (void *)(uintptr_t)q, (size_t)len);
		return err;
	}
	if (syscall(SYS_mremap, (void *)(uintptr_t)q, (size_t)len,
		    (size_t)len, MREMAP_MAYMOVE | MREMAP_FIXED,
		    (void *)(uintptr_t)start) == -1) {
		int err = errno;

		syscall(SYS_munmap, (void *)(uintptr_t)q, (size_t)len);
		return err;
	}
	return 0;
}

static void demote(const char *args, int fd)
{
	static char reply[96];
	unsigned long long id = 0, start = 0, len, prot, shared, pgoff;
	int err = EINVAL;

	if (!hex(&args, &id) && !hex(&args, &start) && !hex(&args, &len) &&
	    !hex(&args, &prot) && !hex(&args, &shared) && !hex(&args, &pgoff)
	    && fd >= 0)
		err = cows_lost ? E2BIG :
		      replace(start, len, (int)prot, shared, pgoff, fd,
			      !shared && cows_id == id && nr_cows);
	if (fd >= 0)
		close(fd);
	nr_cows = 0;
	if (!shim_fd_is(shim.agent_fd, shim.agent_id))
		cut_off();
	snprintf(reply, sizeof(reply), "demoted %llx %llx %d\n", id, start,
		 err);
	wire_send(shim.agent_fd, reply, strlen(reply), NULL, 0);
}

static void fail_stop(void)
{
	shim_stop("the pager daemon is gone; stopping process %d so that it "
		  "never reads memory the pager held (its pages may be in the "
		  "daemon's swap)", (int)getpid());
}

static void *agent(void *arg)
{
	sigset_t all;

	/* Signals are the program's business, not ours. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	wire_init(&agent_wire, shim.agent_fd);
	/* Only now may the daemon arm our pages: until the agent runs, no
	 * one would drop them, and a thread touching one would wait for
	 * ever (the thread starting the agent, say). */
	if (wire_send(shim.agent_fd, "ready\n", 6, NULL, 0)) {
		if (!shim_fd_is(shim.agent_fd, shim.agent_id))
			cut_off();	/* closed by the program already */
		fail_stop();
	}
	for (;;) {
		char *line;
		int n;

		if (!shim_fd_is(shim.agent_fd, shim.agent_id))
			cut_off();	/* closed by the program: see above */
		n = wire_fill(&agent_wire);
		if (!shim_fd_is(shim.agent_fd, shim.agent_id))
			cut_off();
		if (n == -EINTR)
			continue;
		if (n <= 0)
			fail_stop();
		while ((line = wire_line(&agent_wire))) {
			if (!strncmp(line, "dontneed ", 9))
				dontneed(line + 9);
			else if (!strncmp(line, "demcow ", 7))
				demcow(line + 7);
			else if (!strncmp(line, "demote ", 7))
				demote(line + 7, wire_take_fd(&agent_wire));
		}
	}
	return NULL;
}

static void *watchdog(void *arg)
{
	struct pollfd pfd = { .fd = shim.agent_fd, .events = POLLRDHUP };
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		pfd.revents = 0;
		if (poll(&pfd, 1, -1) <= 0)
			continue;
		if (!shim_fd_is(pfd.fd, shim.agent_id))
			return NULL;	/* closed by the program: see above */
		if (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR))
			fail_stop();
	}
	return NULL;
}

/* A thread on [stack, stack + len) of the shim's own stack memory. */
static int start(void *(*fn)(void *), char *stack, size_t len)
{
	pthread_attr_t attr;
	pthread_t t;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, stack, len);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&t, &attr, fn, NULL);
	pthread_attr_destroy(&attr);
	return -err;
}

int shim_agent_start(void)
{
	/* The agent gets three quarters of the stack memory, the
	 * watchdog the last. */
	int err = start(agent, shim.stack, SHIM_STACK / 4 * 3);

	if (!err)
		err = start(watchdog, shim.stack + SHIM_STACK / 4 * 3,
			    SHIM_STACK / 4);
	return err;
}
