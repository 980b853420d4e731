/* SPDX-License-Identifier: MIT */
/*
 * cmd-run.c - `pager run -- CMD`: run a program under the pager.
 *
 *   1. join the daemon at --socket or $PAGER_SOCKET, or start a private
 *      one (its own session, socket in a temporary directory) that stops
 *      when the last of its clients has gone;
 *   2. fork; in the child, install the seccomp filter that tells the
 *      daemon of anonymous mappings made inside libc (the listener goes
 *      to the daemon), set LD_PRELOAD to the shim, and exec CMD;
 *   3. wait for CMD and exit with its status (128 + signal if killed).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/client-conn.h"
#include "cmd.h"
#include "../lib/compat.h"
#include "../lib/log.h"
#include "../daemon/daemon.h"
#include "../lib/uffd-open.h"
#include "../lib/util.h"

static const char usage[] =
	"usage: pager run [--mem SIZE] [--swap DEVICE | --no-swap] "
	"[--swap-size SIZE]\n"
	"                 [--group NAME] [--set KEY=VALUE]... [--socket PATH]\n"
	"                 [--log FILE] [--record FILE] [-v] -- CMD [ARGS]...\n"
	"Runs CMD with its memory under the pager; exits with its status.\n"
	"Joins the daemon at --socket or $PAGER_SOCKET, else starts its own.\n"
	"--record FILE (own daemon only) writes the run's page references in\n"
	"`pager sim`'s format, to replay under other policies.\n";

/* The private daemon: fork, setsid, run; return its pid once ready. */
static pid_t start_daemon(struct daemon_args *a, const char *sock)
{
	char swap[256], buf[16];
	struct pgr_opts o;
	int pipefd[2];
	pid_t pid;
	ssize_t n;

	if (daemon_opts(a, &o, swap, sizeof(swap)) || pipe2(pipefd, O_CLOEXEC))
		return -1;
	o.socket_path = sock;
	o.private_mode = true;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(pipefd[0]);
		setsid();		/* terminal signals are for CMD */
		o.ready_fd = pipefd[1];
		_exit(pgr_daemon_run(&o));
	}
	close(pipefd[1]);
	n = read(pipefd[0], buf, sizeof(buf));
	close(pipefd[0]);
	if (n != 6) {
		waitpid(pid, NULL, 0);
		if (o.swap_temp)
			unlink(swap);
		return -1;	/* it said why on stderr */
	}
	return pid;
}

/*
 * Write-family system calls that do not carry the shim's marker (libc's
 * stdio, raw syscall(2), programs without the shim): the daemon sees
 * each, and hands a watched file it writes back to the kernel first
 * (docs/files.md, "Coherence"). Writes to descriptors 0-2 (a terminal, a
 * pipe) are left alone, so that stdio output costs nothing; one that
 * names a cached file (`cmd > FILE`, sort -o's dup2) is told to the
 * daemon by the shim when it comes to (io.c, std_check()), and found by
 * the daemon's scan of writers, and that file is handed back. copy_file_range and splice use all six argument
 * registers and are not caught (the shim sees them through libc).
 */
static int add_write_rules(scmp_filter_ctx ctx)
{
	static const int fd_calls[] = {
		SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(pwrite64),
		SCMP_SYS(pwritev), SCMP_SYS(ftruncate), SCMP_SYS(fallocate),
		SCMP_SYS(sendfile),
	};
	const scmp_datum_t mark = PGR_SYSCALL_MARKER;

	for (size_t k = 0; k < sizeof(fd_calls) / sizeof(fd_calls[0]); k++)
		if (seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, fd_calls[k], 2,
				     SCMP_A0(SCMP_CMP_GT, 2),
				     SCMP_A5(SCMP_CMP_NE, mark)))
			return -1;
	return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(pwritev2), 2,
				SCMP_A0(SCMP_CMP_GT, 2),
				SCMP_A4(SCMP_CMP_NE, mark)) ||
	       seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(truncate), 1,
				SCMP_A5(SCMP_CMP_NE, mark)) ||
	       seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(io_uring_setup),
				0);
}

/* madvise(MADV_NORMAL, _RANDOM, _SEQUENTIAL): the mapping's recency, which
 * the policy must know (vma_has_recency()); MADV_GUARD_INSTALL, which
 * zaps pages with no userfaultfd event; other advice is not asked. */
static int add_advice_rules(scmp_filter_ctx ctx)
{
	static const int advice[] = { MADV_NORMAL, MADV_RANDOM,
				      MADV_SEQUENTIAL,
				      PGR_MADV_GUARD_INSTALL };

	for (size_t k = 0; k < sizeof(advice) / sizeof(advice[0]); k++)
		if (seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(madvise), 1,
				     SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)advice[k])))
			return -1;
	return 0;
}

/* In the child: the filter that notifies anonymous private mmaps without
 * the shim's marker, brk, madvise's recency advice, munlock and
 * munlockall (the daemon's mlocked pages are rescued); its listener goes
 * to the daemon. Never
 * SCMP_ACT_TRAP: the filter survives exec, a SIGSYS handler would not.
 * Everything is allocated before the filter is loaded: from then until
 * the daemon holds the listener, an mmap (a malloc) would wait for ever.
 * Return 0; 1 if no filter was loaded (the program can run unmanaged);
 * -1 if it was loaded but the daemon did not take its listener: then
 * every such mmap fails with ENOSYS, and the program cannot run at all. */
/*
 * Load @ctx's filter and return its listener. With WAIT_KILLABLE_RECV
 * (5.19): once the daemon has received a notification, only a fatal
 * signal interrupts the program's waiting call. Without it a signal
 * would make a notified mmap or brk fail with EINTR (restarted only for
 * a handler with SA_RESTART), which the kernel's own never does, and the
 * daemon holds those calls while the agent makes them (watch/call.c).
 * A signal before the daemon has received the notification still
 * interrupts it: that window is the kernel's, and short. libseccomp
 * 2.5 has no attribute for the flag, so its program is loaded here.
 */
static int load_filter(scmp_filter_ctx ctx)
{
	struct sock_fprog prog;
	struct stat st;
	void *insns;
	int mfd, lfd = -1;

	mfd = memfd_create("pager-filter", MFD_CLOEXEC);
	if (mfd < 0 || seccomp_export_bpf(ctx, mfd) || fstat(mfd, &st) ||
	    !st.st_size || (insns = malloc((size_t)st.st_size)) == NULL)
		goto old;
	if (pread(mfd, insns, (size_t)st.st_size, 0) == st.st_size &&
	    !prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		prog.len = (unsigned short)(st.st_size /
					    (off_t)sizeof(struct sock_filter));
		prog.filter = insns;
		lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				   SECCOMP_FILTER_FLAG_NEW_LISTENER |
				   SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
	}
	free(insns);
old:
	if (mfd >= 0)
		close(mfd);
	if (lfd >= 0)
		return lfd;
	/* An older kernel: libseccomp's own load, without the flag. */
	if (seccomp_load(ctx))
		return -1;
	return seccomp_notify_fd(ctx);
}

static int install_filter(const char *sock)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	struct wire *w = NULL;
	int fd = -1, lfd, err = 1;

	if (!ctx)
		return -1;
	fd = pgr_connect(sock);
	if (fd < 0)
		goto out;
	w = pgr_xcalloc(1, sizeof(*w));
	wire_init(w, fd);
	/* Every system call of the program runs the filter: a binary tree
	 * of the syscall numbers, not a list. */
	seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(mmap), 1,
			     SCMP_A3(SCMP_CMP_MASKED_EQ,
				     PGR_MAP_MARKER | MAP_ANONYMOUS | MAP_TYPE,
				     MAP_ANONYMOUS | MAP_PRIVATE)) ||
	    seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(brk), 0) ||
	    add_advice_rules(ctx) || add_write_rules(ctx) ||
	    seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(munlock), 0) ||
	    seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(munlockall), 0))
		goto out;
	lfd = load_filter(ctx);
	if (lfd < 0)
		goto out;
	err = -1;
	if (wire_send(fd, "notify\n", 7, &lfd, 1) == 0) {
		char e[128];

		err = wire_call(w, NULL, NULL, e, sizeof(e)) ? -1 : 0;
	}
	close(lfd);
out:
	if (fd >= 0)
		close(fd);
	free(w);
	seccomp_release(ctx);
	return err;
}

/*
 * The program's environment gets LD_PRELOAD and nothing else of ours: it
 * names the shim in a directory under @base that holds the run's settings
 * beside it (lib/shim-conf.h), which the shim reads. A variable of ours
 * would show in what the program prints of its environment.
 */
static void exec_child(char **cmd, const char *sock, const char *group,
		       const char *shim, const char *base)
{
	const char *old = getenv("LD_PRELOAD");
	struct shim_conf conf = { .notify = false };
	char *preload, lib[4096];
	int err;

	snprintf(conf.socket, sizeof(conf.socket), "%s", sock);
	snprintf(conf.group, sizeof(conf.group), "%s", group ? group : "");
	switch (install_filter(sock)) {
	case 0:
		conf.notify = true;	/* the shim's to know */
		break;
	case 1:
		pgr_warn("cannot install the seccomp filter: memory malloc "
			 "maps will be found only by periodic rescans");
		break;
	default:
		pgr_err("the pager daemon is gone (it did not take this "
			"process's seccomp listener, without which its "
			"mappings would fail): not running '%s'", cmd[0]);
		_exit(1);
	}
	err = pgr_shim_dir(base, &conf, shim, lib, sizeof(lib));
	if (err) {
		pgr_err("cannot make the shim's directory in %s: %s", base,
			strerror(-err));
		_exit(1);
	}
	if (asprintf(&preload, "%s%s%s", lib, old && *old ? " " : "",
		     old ? old : "") < 0)
		_exit(127);
	setenv("LD_PRELOAD", preload, 1);
	execvp(cmd[0], cmd);
	pgr_warn("cannot run '%s': %s", cmd[0], strerror(errno));
	_exit(127);
}

static int setup(const char *sock, struct daemon_args *a, const char *group,
		 bool private_daemon)
{
	struct wire *w = pgr_xcalloc(1, sizeof(*w));
	int fd = pgr_connect(sock), rc = 0;
	char line[512];

	if (fd < 0) {
		pgr_warn("no pager daemon at '%s' (gone?): %s", sock,
			 strerror(-fd));
		free(w);
		return 1;
	}
	wire_init(w, fd);
	if (group) {
		snprintf(line, sizeof(line), "group %s", group);
		rc = pgr_request(w, line, 0);
	}
	/* A private daemon got them at start; a joined one gets them now. */
	for (size_t k = 0; !rc && !private_daemon && k < a->nr_sets; k++) {
		snprintf(line, sizeof(line), "set %s", a->sets[k]);
		rc = pgr_request(w, line, 0);
	}
	close(fd);
	free(w);
	return rc;
}

/* Is the daemon still there: our private one not exited, a joined one
 * answering a ping within half a second? (A daemon being killed can
 * still accept a connection, and never answer.) */
/* Wait for CMD, reaping on the way the orphans given to us as their
 * subreaper (and the daemon, if it dies first: daemon_alive() then says
 * so). */
static pid_t wait_cmd(pid_t child, int *status)
{
	for (;;) {
		pid_t w = waitpid(-1, status, 0);

		if (w == child || (w < 0 && errno != EINTR))
			return w;
	}
}

static bool daemon_alive(const char *sock, pid_t daemon)
{
	struct timeval half = { .tv_usec = 500000 };
	struct wire *w;
	char err[128];
	bool alive;
	int fd;

	if (daemon > 0)
		return waitpid(daemon, NULL, WNOHANG) == 0;
	fd = pgr_connect(sock);
	if (fd < 0)
		return false;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &half, sizeof(half));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &half, sizeof(half));
	w = pgr_xcalloc(1, sizeof(*w));
	wire_init(w, fd);
	alive = !wire_printf(fd, "ping") &&
		!wire_call(w, NULL, NULL, err, sizeof(err));
	close(fd);
	free(w);
	return alive;
}

/*
 * The daemon is gone and CMD has ended: the run's processes left behind,
 * orphans given to us as their subreaper, shared memory only the daemon
 * served. One whose agent had not started yet (a fork child a moment
 * old) has no one to stop it, and waits for ever in its first madvise
 * for the daemon to read the REMOVE event. Stop them, as each agent stops
 * its own program (fail-stop: never a read of what the pager held), and
 * reap them; their children come to us in turn.
 */
static void stop_orphans(void)
{
	char path[64], list[4096];
	int stopped = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children",
		 (int)getpid());
	for (int round = 0; round < 16; round++) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(list, 1, sizeof(list) - 1, f) : 0;
		int here = 0;

		if (f)
			fclose(f);
		list[n] = 0;
		for (char *t = strtok(list, " \n"); t; t = strtok(NULL, " \n")) {
			pid_t pid = (pid_t)atoi(t);

			if (pid > 0 && !kill(pid, SIGKILL))
				here++;
		}
		if (!here)
			break;
		stopped += here;
		while (waitpid(-1, NULL, 0) > 0)
			;
	}
	if (stopped)
		pgr_err("stopped %d process%s of the run left behind: the "
			"daemon is gone, and the memory it held for them", stopped,
			stopped == 1 ? "" : "es");
}

static void detach(const char *sock)
{
	struct wire *w = pgr_xcalloc(1, sizeof(*w));
	int fd = pgr_connect(sock);

	if (fd >= 0) {
		wire_init(w, fd);
		pgr_request(w, "detach", 0);
		close(fd);
	}
	free(w);
}

/*
 * Can this user's processes be run under the pager? Each needs a
 * userfaultfd with fork events, which Linux grants only with
 * CAP_SYS_PTRACE: without them a fork child's copy of its parent's
 * memory is not registered, and where the pager had evicted a page it
 * would read zeros. NULL, or why not (said before anything starts, rather
 * than each process running unmanaged).
 */
static const char *uffd_refused(void)
{
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_EVENT_FORK };
	int fd = pgr_uffd_open();
	const char *why = NULL;

	if (fd < 0)
		return "this user may not have a userfaultfd (root, a readable "
		       "/dev/userfaultfd or vm.unprivileged_userfaultfd=1 "
		       "gives one)";
	if (ioctl(fd, UFFDIO_API, &api))
		why = errno == EPERM ?
		      "a process of this user cannot have userfaultfd's fork "
		      "events (Linux gives them only with CAP_SYS_PTRACE), "
		      "without which a fork child would read zeros where the "
		      "pager evicted its parent's pages: run it as root" :
		      "this kernel's userfaultfd has no fork events";
	close(fd);
	return why;
}

/* ${TMPDIR:-/tmp}/pager-UID, ours alone (searchable by all, not
 * listable: CMD may change its user and must still read its shim, as in
 * a run's own directory): the shim's directories for the standing
 * daemons we join. 0, or -1 having said why. */
static int user_dir(char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;

	snprintf(buf, len, "%s/pager-%d", tmp && *tmp ? tmp : "/tmp",
		 (int)geteuid());
	if (mkdir(buf, 0711) && errno != EEXIST) {
		pgr_warn("cannot create %s: %s", buf, strerror(errno));
		return -1;
	}
	if (lstat(buf, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 066)) {
		pgr_warn("%s is not a directory of ours alone: not using it",
			 buf);
		return -1;
	}
	if ((st.st_mode & 0777) != 0711)
		chmod(buf, 0711);	/* 0700 by an older version, or umask */
	return 0;
}

/* The private daemon's directory and what the runs put in it: its socket
 * is gone with it; the shim's settings (one level down) go now. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char sub[4096], f[4200];

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		snprintf(f, sizeof(f), "%s/%s", sub, SHIM_LIB_NAME);
		unlink(f);
		snprintf(f, sizeof(f), "%s/%s", sub, SHIM_CONF_NAME);
		unlink(f);
		if (rmdir(sub))
			unlink(sub);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mem", required_argument, NULL, 'm' },
		{ "swap", required_argument, NULL, 's' },
		{ "swap-size", required_argument, NULL, 'S' },
		{ "no-swap", no_argument, NULL, 'n' },
		{ "socket", required_argument, NULL, 'k' },
		{ "set", required_argument, NULL, 'e' },
		{ "log", required_argument, NULL, 'l' },
		{ "record", required_argument, NULL, 'r' },
		{ "group", required_argument, NULL, 'g' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct daemon_args a;
	const char *group = NULL, *env, *why;
	char sock[108], shim[4096], dir[64] = "", inherited[108], base[4096];
	struct sigaction intr, quit, ign = { .sa_handler = SIG_IGN };
	pid_t daemon = 0, child;
	int c, status, rc;

	daemon_args_init(&a);
	optind = 1;
	while ((c = getopt_long(argc, argv, "+v", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		if (c == 'g') {
			group = optarg;
			continue;
		}
		if (daemon_parse_opt(&a, c, optarg, usage))
			return 2;
	}
	if (optind >= argc)
		return pgr_usage_error(usage, "missing CMD");
	if ((why = uffd_refused())) {
		pgr_warn("cannot run '%s' under the pager: %s", argv[optind],
			 why);
		return 1;
	}
	if (!pgr_shim_path(shim, sizeof(shim))) {
		pgr_warn("cannot find libpager-preload.so (set PAGER_PRELOAD)");
		return 1;
	}
	env = pgr_inherited_socket(inherited, sizeof(inherited));
	daemon_logging(&a);
	if ((a.socket || (env && *env)) && a.record)
		return pgr_usage_error(usage, "--record needs a daemon of its "
				       "own (no --socket, no $PAGER_SOCKET)");
	if (a.socket || (env && *env)) {
		snprintf(sock, sizeof(sock), "%s", a.socket ? a.socket : env);
		rc = pgr_connect(sock);
		if (rc < 0) {
			pgr_warn("no pager daemon at '%s': %s", sock,
				 strerror(-rc));
			return 1;
		}
		close(rc);
	} else {
		snprintf(dir, sizeof(dir), "/tmp/pager.XXXXXX");
		if (!mkdtemp(dir)) {
			pgr_warn("cannot create a directory in /tmp: %s",
				 strerror(errno));
			return 1;
		}
		/* Searchable by all (not listable): CMD may change its user,
		 * and its processes must still reach the socket and the shim
		 * (the daemon lets in only the run's processes). */
		chmod(dir, 0711);
		snprintf(sock, sizeof(sock), "%s/socket", dir);
		daemon = start_daemon(&a, sock);
		if (daemon < 0) {
			rmdir(dir);
			return 1;
		}
	}
	if (setup(sock, &a, group, daemon > 0)) {
		rc = 1;
		goto out;
	}
	/* The shim's directory: the private daemon's, which goes with it, or
	 * one of ours for the standing daemon's settings, kept. */
	if (daemon > 0)
		snprintf(base, sizeof(base), "%s", dir);
	else if (user_dir(base, sizeof(base))) {
		rc = 1;
		goto out;
	}
	/* The private daemon lets in the run's processes only, found by
	 * their parents (conn.c, pgr_conn_in_run()): one that a double fork
	 * orphaned (Chromium's crash handler, a daemonizing server) must
	 * still be ours, not init's, while CMD runs. Under either daemon,
	 * orphans come to us so that they can be stopped if the daemon dies
	 * (stop_orphans()). */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	/* CMD decides; we report. CMD gets the dispositions we were given. */
	sigaction(SIGINT, &ign, &intr);
	sigaction(SIGQUIT, &ign, &quit);
	child = fork();
	if (child == 0) {
		sigaction(SIGINT, &intr, NULL);
		sigaction(SIGQUIT, &quit, NULL);
		exec_child(argv + optind, sock, group, shim, base);
	}
	if (child < 0 || wait_cmd(child, &status) < 0) {
		pgr_warn("cannot run '%s': %s", argv[optind], strerror(errno));
		rc = 1;
		goto out;
	}
	rc = WIFEXITED(status) ? WEXITSTATUS(status) :
	     128 + WTERMSIG(status);
	if (rc != 0 && !daemon_alive(sock, daemon)) {
		/* What CMD said, if anything, may not tell: a program whose
		 * loader could not map its memory says so in its own words,
		 * or crashes. */
		pgr_err("the pager daemon died while '%s' ran (status %d)",
			argv[optind], rc);
		stop_orphans();
	}
out:
	if (daemon > 0) {
		detach(sock);
		waitpid(daemon, NULL, 0);
		remove_dir(dir);
	}
	free(a.sets);
	return rc;
}
