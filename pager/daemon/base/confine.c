/* SPDX-License-Identifier: MIT */
/*
 * confine.c - what the daemon gives up once it is set up.
 *
 * The daemon reads and changes other processes' memory, so after setup
 * (budget, swap file, ring, socket, log) it keeps only what serving
 * needs:
 *
 *   capabilities  if it runs as root: the bounding, permitted, effective
 *                 and inheritable sets are cut to CAP_SYS_PTRACE (reading
 *                 a client's pages: /proc/PID/mem, /proc/PID/maps),
 *                 CAP_KILL (ending clients), CAP_DAC_OVERRIDE and
 *                 CAP_DAC_READ_SEARCH (opening a mapped file the client
 *                 could open) and CAP_SYS_RESOURCE (its descriptor limit)
 *   no_new_privs  set: nothing it could exec would gain privileges
 *   seccomp       an allowlist of the system calls the loop makes; any
 *                 other fails with EPERM (a refusal the daemon logs and
 *                 survives, not a kill: a call missing from the list must
 *                 show up as an error, not as a dead daemon and stopped
 *                 clients). No exec, no new sockets, no ptrace, no mount;
 *                 with a swap store on the network (redis.c), TCP sockets
 *                 (AF_INET, AF_INET6) and connect(2), to reconnect.
 *
 * PAGER_NO_CONFINE=1 in the environment skips all of it (debugging). A
 * sanitizer build keeps the capabilities and no_new_privs but turns the
 * allowlist into a denylist (below).
 *
 * Owns: nothing after it returns: what it gives up is gone for good.
 */
#include <errno.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../pgr.h"
#include "base.h"

/* What the event loop, the fault path, I/O, control and the file cache
 * call, found by tracing the test suite's daemons (strace -f -c) and
 * reading the code. */
static const char *const allowed[] __attribute__((unused)) = {
	/* the loop (libuv), signals, time */
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "epoll_ctl", "poll",
	"ppoll", "read", "readv", "write", "writev", "close", "eventfd2",
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
	"clock_gettime", "clock_getres", "gettimeofday", "nanosleep",
	"clock_nanosleep", "futex", "sched_yield", "getpid", "getppid", "gettid",
	"getuid", "geteuid", "getgid", "getegid", "getrandom", "restart_syscall",
	"exit", "exit_group", "tgkill", "tkill", "uname", "sysinfo",
	/* the seccomp listener's receive, bounded (watch/notify.c) */
	"timer_create", "timer_settime", "timer_delete",
	/* memory: page buffers, memfd mappings, malloc */
	"mmap", "munmap", "mremap", "mprotect", "madvise", "brk",
	"memfd_create", "ftruncate", "fallocate",
	/* clients: userfaultfd, seccomp listeners, their memory, their end */
	"ioctl", "pidfd_open", "pidfd_send_signal", "kill",
	"kcmp",
	"fcntl", "dup", "dup3",
	/* the control socket */
	"accept4", "accept", "recvmsg", "sendmsg", "recvfrom", "sendto",
	"getsockopt", "setsockopt", "shutdown", "getpeername", "getsockname",
	/* files: swap, the page cache's files, /proc, the log, the record */
	"openat", "open", "newfstatat", "fstat", "stat", "lstat", "statx",
	"lseek", "fstatfs", "pread64", "pwrite64", "preadv", "pwritev", "fsync",
	"fdatasync", "readlink", "readlinkat", "getdents64", "access",
	"faccessat", "faccessat2", "unlink", "unlinkat", "umask",
	"getrlimit", "setrlimit", "prlimit64", "fadvise64",
	/* io_uring */
	"io_uring_enter", "io_uring_register",
	/* coherence of cached files: fanotify marks, come and go */
	"fanotify_mark",
};

/* A sanitizer build (ASan's LeakSanitizer stops the world at exit with a
 * tracer thread, and its runtime makes calls the daemon never does) gets
 * a denylist of what the allowlist refuses that matters instead. */
static const char *const denied[] __attribute__((unused)) = {
	"execve", "execveat", "socket", "socketpair", "mount", "umount2",
	"unshare", "setns", "pivot_root", "chroot", "kexec_load", "reboot",
	"init_module", "finit_module", "delete_module", "bpf", "setuid",
	"setgid", "setreuid", "setregid", "setresuid", "setresgid",
};

static const int kept_caps[] = {
	CAP_SYS_PTRACE, CAP_KILL, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
	CAP_SYS_RESOURCE, CAP_LEASE,
};

static bool kept(int cap)
{
	for (size_t k = 0; k < sizeof(kept_caps) / sizeof(kept_caps[0]); k++)
		if (kept_caps[k] == cap)
			return true;
	return false;
}

/* Cut the capability sets to kept_caps (only those already held). */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	for (int cap = 0; cap <= 63; cap++) {
		if (kept(cap))
			continue;
		/* EINVAL: beyond what this kernel knows. */
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL &&
		    errno != EPERM)
			return -errno;
		d[cap / 32].effective &= ~(1u << (cap % 32));
		d[cap / 32].permitted &= ~(1u << (cap % 32));
		d[cap / 32].inheritable &= ~(1u << (cap % 32));
	}
	if (syscall(SYS_capset, &h, d))
		return -errno;
	return 0;
}

/* socket(AF_INET or AF_INET6, ...) and connect(2): the swap store's
 * reconnections. */
static int __attribute__((unused)) allow_net(scmp_filter_ctx f, uint32_t act)
{
	int err = seccomp_rule_add(f, act, SCMP_SYS(socket), 1,
				   SCMP_A0(SCMP_CMP_EQ, AF_INET));

	if (!err)
		err = seccomp_rule_add(f, act, SCMP_SYS(socket), 1,
				       SCMP_A0(SCMP_CMP_EQ, AF_INET6));
	if (!err)
		err = seccomp_rule_add(f, act, SCMP_SYS(connect), 0);
	return err;
}

int pgr_confine(bool net)
{
	const char *no = getenv("PAGER_NO_CONFINE");
	scmp_filter_ctx f;
	int err;

	if (no && *no && strcmp(no, "0")) {
		pgr_info("not confined (PAGER_NO_CONFINE)");
		return 0;
	}
	err = drop_caps();
	if (err) {
		pgr_err("cannot drop capabilities: %s", strerror(-err));
		return err;
	}
#ifdef PGR_SANITIZERS
	const char *const *list = denied;
	size_t n = sizeof(denied) / sizeof(denied[0]);
	uint32_t dflt = SCMP_ACT_ALLOW, act = SCMP_ACT_ERRNO(EPERM);
#else
	const char *const *list = allowed;
	size_t n = sizeof(allowed) / sizeof(allowed[0]);
	uint32_t dflt = SCMP_ACT_ERRNO(EPERM), act = SCMP_ACT_ALLOW;
#endif
	f = seccomp_init(dflt);
	if (!f) {
		pgr_err("cannot set up the seccomp filter");
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		int nr = seccomp_syscall_resolve_name(list[k]);

		if (nr == __NR_SCMP_ERROR)
			continue;	/* not on this architecture */
		if (net && !strcmp(list[k], "socket"))
			continue;	/* denied: let it be */
		err = seccomp_rule_add(f, act, nr, 0);
		if (err) {
			pgr_err("seccomp: cannot add %s: %s", list[k],
				strerror(-err));
			break;
		}
	}
#ifndef PGR_SANITIZERS
	if (!err && net)
		err = allow_net(f, act);
#endif
	/* Every thread: the fanotify thread (seal.c) too. */
	if (!err)
		err = seccomp_attr_set(f, SCMP_FLTATR_CTL_TSYNC, 1);
	if (!err)
		err = seccomp_load(f);	/* sets no_new_privs first */
	seccomp_release(f);
	if (err)
		pgr_err("cannot load the seccomp filter: %s", strerror(-err));
	return err;
}
