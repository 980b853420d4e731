/* SPDX-License-Identifier: MIT */
/*
 * test-confine.c - the daemon's confinement (pager/daemon/base/confine.c) applied to
 * this process: the calls the daemon makes still work, others are
 * refused with EPERM, capabilities beyond the kept ones are gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../pager/daemon/base/base.h"
#include "tap.h"

/* The line of /proc/self/status that starts with @key. */
static void status(const char *key, char *out, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	*out = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key))) {
			snprintf(out, len, "%s", line + strlen(key));
			out[strcspn(out, "\n")] = 0;
		}
	if (f)
		fclose(f);
}

/* The errno of a call that failed, 0 if it worked. */
static int refused(long rc)
{
	return rc < 0 ? errno : 0;
}

/* With a swap store on the network (pgr_confine(true)), in a child: bit
 * 0 set if a TCP socket is refused, bit 1 if an AF_UNIX one is allowed,
 * bit 2 if execve is allowed; 8 if it cannot confine. */
static int net_child(void)
{
	int bad = 0, fd;

	if (pgr_confine(true))
		return 8;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		bad |= 1;
	close(fd);
#ifndef PGR_SANITIZERS	/* a denylist there: only what it names is refused */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd >= 0)
		bad |= 2;
#endif
	if (refused(execl("/bin/true", "true", (char *)NULL)) != EPERM)
		bad |= 4;
	return bad;
}

int main(void)
{
	char buf[64];
	int e, st = 0;
	void *m;
	int fd;
	pid_t child;

	child = fork();
	if (child == 0)
		_exit(net_child());
	if (child < 0 || waitpid(child, &st, 0) != child || !WIFEXITED(st) ||
	    WEXITSTATUS(st) == 8)
		t_skip_all("cannot confine here (no seccomp?)");
	t_ok(!(WEXITSTATUS(st) & 1), "with a swap store: TCP sockets allowed");
	t_ok(!(WEXITSTATUS(st) & 2), "with a swap store: AF_UNIX sockets still refused");
	t_ok(!(WEXITSTATUS(st) & 4), "with a swap store: execve still refused");
	if (pgr_confine(false))
		t_skip_all("cannot confine here (no seccomp?)");
	status("Seccomp:", buf, sizeof(buf));
	t_ok(strstr(buf, "2"), "a seccomp filter is installed (Seccomp:%s)", buf);
	status("NoNewPrivs:", buf, sizeof(buf));
	t_ok(strstr(buf, "1"), "no_new_privs is set");

	/* What the daemon does keeps working. */
	t_ok(getpid() > 0, "getpid is allowed");
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	t_ok(fd >= 0, "open is allowed");
	t_ok(fd >= 0 && read(fd, buf, sizeof(buf)) > 0, "read is allowed");
	close(fd);
	m = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t_ok(m != MAP_FAILED && !madvise(m, 1 << 16, MADV_DONTNEED),
	     "mmap and madvise are allowed");
	fd = memfd_create("t", MFD_CLOEXEC);
	t_ok(fd >= 0 && !ftruncate(fd, 4096), "memfd_create and ftruncate are allowed");

	/* What it never needs is refused. */
	e = refused(socket(AF_INET, SOCK_STREAM, 0));
	t_ok(e == EPERM, "socket() is refused with EPERM (%s)", strerror(e));
	e = refused(execl("/bin/true", "true", (char *)NULL));
	t_ok(e == EPERM, "execve() is refused with EPERM (%s)", strerror(e));
	e = refused(unshare(CLONE_NEWNS));
	t_ok(e == EPERM, "unshare() is refused with EPERM (%s)", strerror(e));
#ifndef PGR_SANITIZERS	/* LeakSanitizer needs it there */
	e = refused(syscall(SYS_ptrace, 0 /* TRACEME */, 0, 0, 0));
	t_ok(e == EPERM, "ptrace() is refused with EPERM (%s)", strerror(e));
#endif
	e = refused(syscall(SYS_mount, "none", "/mnt", "tmpfs", 0, NULL));
	t_ok(e == EPERM, "mount() is refused with EPERM (%s)", strerror(e));
	if (getuid() == 0) {
		/* CAP_SYS_ADMIN (bit 21) gone, CAP_SYS_PTRACE (19) kept. */
		unsigned long long eff = 0;

		status("CapEff:", buf, sizeof(buf));
		sscanf(buf, "%llx", &eff);
		t_ok(!(eff & 1ull << 21) && (eff & 1ull << 19),
		     "capabilities cut to the kept ones (CapEff %s)", buf);
	}
	return t_done();
}
