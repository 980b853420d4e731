/* SPDX-License-Identifier: MIT */
/*
 * run.c - running an experiment: its workload under the pager once per
 * configuration (and repeat), its figures read from the workload's output
 * and its counters from the daemon, then the report (report.c).
 *
 * Each run has a daemon of its own (`pager daemon` with the budget, swap
 * and the configuration's settings), the workload under `pager run` in
 * the experiment's working directory, then `stat` and `shutdown`; a
 * native configuration's run is the kernel's, in a memory cgroup
 * (native.c). Runs go
 * repeat by repeat, configurations in turn, so that the machine's drift
 * hits all of them alike. A run that fails (non-zero status, timeout) is
 * marked failed; the others go on.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "experiment.h"
#include "../lib/client-conn.h"
#include "../lib/cpu-latency-request.h"
#include "../lib/util.h"
#include "../lib/wire.h"


/*
 * ^C or SIGTERM: each run's daemon and workload are process groups of
 * their own, which the terminal's ^C does not reach, so the signal is
 * taken here: the run under way is stopped, the others are not started,
 * and what ran is reported. The signals stay blocked but in ppoll(), so
 * one cannot slip in between a test of the flag and the wait.
 */
static volatile sig_atomic_t interrupted;
static sigset_t unblocked;	/* the mask before ours: children get it */

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void catch_interrupts(void)
{
	struct sigaction sa = { .sa_handler = on_interrupt };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* In a child before exec: the signals as they were. */
static void child_signals(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

/* ---- one run ------------------------------------------------------------- */

/* A `memcg` configuration's workload runs in this group of its daemon. */
#define MEMCG_GROUP	"experiment"

/* One setting as `pager daemon`'s options: swap=DEVICE is --swap DEVICE
 * (zram, zram:zstd: a configuration's swap device), any other --set. */
static int set_argv(const char *kv, const char **argv)
{
	if (!strncmp(kv, "swap=", 5)) {
		argv[0] = "--swap";
		argv[1] = kv + 5;
	} else {
		argv[0] = "--set";
		argv[1] = kv;
	}
	return 2;
}

/*
 * The daemon's budget for @c: the experiment's, or for a `memcg`
 * configuration twice that (at least 256 MiB more), so that the group's
 * memory.max and not the watermarks drives reclaim, as the kernel's
 * memory cgroup does on a machine with memory to spare.
 */
static const char *daemon_mem(const struct experiment *e,
			      const struct exp_config *c, char buf[32])
{
	uint64_t b;

	if (!c || !c->memcg || pgr_parse_size(e->mem, &b))
		return e->mem;
	b = b * 2 > b + (256ull << 20) ? b * 2 : b + (256ull << 20);
	snprintf(buf, 32, "%lluK", (unsigned long long)(b >> 10));
	return buf;
}

/* `pager daemon` with the budget, swap and settings of @c (NULL: the
 * common ones only) in @argv; returns the count. Room for 12 more.
 * @mem holds the budget's text while @argv is used. */
static int daemon_argv(const struct exp_runner *x, const struct exp_config *c,
		       const char **argv, char mem[32])
{
	const struct experiment *e = x->e;
	int n = 0;

	argv[n++] = x->self;
	argv[n++] = "daemon";
	argv[n++] = "--mem";
	argv[n++] = daemon_mem(e, c, mem);
	if (!strcmp(e->swap, "none")) {
		argv[n++] = "--no-swap";
	} else if (e->swap[0]) {
		argv[n++] = "--swap-size";
		argv[n++] = e->swap;
	}
	for (int k = 0; k < e->nr_common; k++)
		n += set_argv(e->common[k], argv + n);
	for (int k = 0; c && k < c->nr_sets; k++)
		n += set_argv(c->sets[k], argv + n);
	argv[n] = NULL;
	return n;
}

static pid_t spawn_daemon(const struct exp_runner *x, const struct exp_config *c,
			  const char *sock, const char *log)
{
	const char *argv[24 + 4 * EXP_MAX_SETS];
	char mem[32];
	int n = daemon_argv(x, c, argv, mem);
	pid_t pid;

	argv[n++] = "--socket";
	argv[n++] = sock;
	argv[n++] = "--log";
	argv[n++] = log;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);

		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		setpgid(0, 0);
		child_signals();
		if (x->disk.dir[0] && exp_disk_enter(x->disk.dir))
			_exit(125);
		execv(x->self, (char **)argv);
		_exit(127);
	}
	return pid;
}

/* `pager daemon --check` with @c's settings: 0, or -1 with what it said
 * in @why. */
static int check_daemon(const struct exp_runner *x, const struct exp_config *c,
			char *why, size_t len)
{
	const char *argv[24 + 4 * EXP_MAX_SETS];
	char mem[32];
	int n = daemon_argv(x, c, argv, mem), pipefd[2], status = 0;
	ssize_t got = 0, r;
	pid_t pid;

	argv[n++] = "--check";
	argv[n] = NULL;
	if (pipe(pipefd)) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);

		dup2(fd, 0);
		dup2(fd, 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		child_signals();
		execv(x->self, (char **)argv);
		_exit(127);
	}
	close(pipefd[1]);
	while (got < (ssize_t)len - 1 &&
	       (r = read(pipefd[0], why + got, len - 1 - (size_t)got)) > 0)
		got += r;
	close(pipefd[0]);
	why[got] = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		snprintf(why, len, "cannot run `pager daemon --check`: %s",
			 strerror(errno));
		return -1;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	/* Its first line, without the "pager: " its messages start with. */
	why[strcspn(why, "\n")] = 0;
	if (!strncmp(why, "pager: ", 7))
		memmove(why, why + 7, strlen(why + 7) + 1);
	if (!why[0])
		snprintf(why, len, "the daemon refused (status %d)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return -1;
}

/* Every configuration's settings as its daemon will take them, before
 * anything runs: a bad one is an error of the file, at its line. */
static int check_settings_of(const struct exp_runner *x, const char *file)
{
	const struct experiment *e = x->e;
	char why[512];

	if (check_daemon(x, NULL, why, sizeof(why))) {
		/* Which `set` line: the first the daemon's message names. */
		int line = e->nr_common ? e->common_line[0] : 0;

		for (int k = 0; k < e->nr_common; k++) {
			if (strstr(why, e->common[k])) {
				line = e->common_line[k];
				break;
			}
		}
		fprintf(stderr, "pager: %s:%d: %s\n", file, line, why);
		return -1;
	}
	for (int c = 0; c < e->nr_configs; c++) {
		if (e->configs[c].native) {
			if (exp_native_check(&e->configs[c], why, sizeof(why))) {
				fprintf(stderr, "pager: %s:%d: config %s: %s\n",
					file, e->configs[c].line,
					e->configs[c].name, why);
				return -1;
			}
			continue;
		}
		if (check_daemon(x, &e->configs[c], why, sizeof(why))) {
			fprintf(stderr, "pager: %s:%d: config %s: %s\n", file,
				e->configs[c].line, e->configs[c].name, why);
			return -1;
		}
	}
	return 0;
}

static int wait_socket(const char *sock, pid_t daemon)
{
	for (int k = 0; k < 200; k++) {
		int fd = pgr_connect(sock);

		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (waitpid(daemon, NULL, WNOHANG) == daemon)
			return -1;
		usleep(25000);
	}
	return -1;
}

static void stat_line(const char *line, void *arg)
{
	struct exp_run *run = arg;
	char name[64];
	double v;

	if (sscanf(line, "%63s %lf", name, &v) != 2)
		return;
	/* The budget's peak, in the native runs' unit (native.c, peak()). */
	if (!strcmp(name, "memory.peak"))
		exp_run_set(run, "memory_peak_kb", v / 1024);
	else if (strcmp(name, "memory.current"))
		exp_run_add(run, name, v);
}

/* Ask the daemon at @sock for @line; data lines to @each. */
static int ask(const char *sock, const char *line,
	       void (*each)(const char *s, void *arg), void *arg)
{
	struct wire *w = pgr_xcalloc(1, sizeof(*w));
	char err[256];
	int fd = pgr_connect(sock), rc = -1;

	if (fd >= 0) {
		wire_init(w, fd);
		if (!wire_printf(fd, "%s", line))
			rc = wire_call(w, each, arg, err, sizeof(err));
		close(fd);
	}
	free(w);
	return rc;
}

static void stop_daemon(const char *sock, pid_t pid)
{
	ask(sock, "shutdown", NULL, NULL);
	for (int k = 0; k < 400; k++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(25000);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A `memcg` configuration's group: memory.max is the budget. 0, or -1
 * with the run failed. */
static int limit_group(const struct experiment *e, const char *sock,
		       struct exp_run *run)
{
	char line[128];
	uint64_t b = 0;

	if (!pgr_parse_size(e->mem, &b))
		snprintf(line, sizeof(line), "set memory.max@%s=%llu",
			 MEMCG_GROUP, (unsigned long long)b);
	if (!b || ask(sock, "group " MEMCG_GROUP, NULL, NULL) ||
	    ask(sock, line, NULL, NULL)) {
		run->failed = true;
		snprintf(run->why, sizeof(run->why), "the daemon refused the "
			 "group's memory.max (%s)", e->mem);
		return -1;
	}
	return 0;
}

/* Run the workload under the daemon at @sock; its output goes to @outp
 * and through the figure matcher. */
static void run_workload(const struct exp_runner *x, const char *sock,
			 const struct exp_native *native,
			 const struct exp_config *cfg,
			 const char *outp, const char *errp,
			 struct exp_run *run)
{
	const struct experiment *e = x->e;
	int pipefd[2], status = 0;
	FILE *in, *out = fopen(outp, "we");
	char line[4096];
	double deadline = now() + e->timeout_s;
	bool timed_out = false, stopped = false;
	struct rusage ru;
	pid_t pid;

	if (!out || pipe(pipefd)) {
		snprintf(run->why, sizeof(run->why), "cannot write the output");
		run->failed = true;
		if (out)
			fclose(out);
		return;
	}
	pid = fork();
	if (pid == 0) {
		int err = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		setpgid(0, 0);
		child_signals();
		dup2(pipefd[1], 1);
		if (err >= 0)
			dup2(err, 2);
		close(pipefd[0]);
		if (chdir(x->work))
			_exit(126);
		if (x->disk.dir[0] && exp_disk_enter(x->disk.dir)) {
			fprintf(stderr, "pager: cannot enter %s: %s\n",
				x->disk.dir, strerror(errno));
			_exit(125);
		}
		setenv("PAGER_CONFIG", cfg->name, 1);
		if (native) {
			/* The kernel's: no daemon, no shim. */
			if (exp_native_enter(native)) {
				fprintf(stderr, "pager: cannot enter %s\n",
					native->cg);
				_exit(125);
			}
			execl("/bin/sh", "sh", "-c", e->workload, (char *)NULL);
			_exit(127);
		}
		/* The workload's scripts talk to the run's daemon (`pager
		 * phase`, `set`, `stat`), with or without the shim. */
		setenv("PAGER_SOCKET", sock, 1);
		{
			const char *argv[12];
			int n = 0;

			argv[n++] = x->self;
			argv[n++] = "run";
			argv[n++] = "--socket";
			argv[n++] = sock;
			if (cfg->memcg) {
				argv[n++] = "--group";
				argv[n++] = MEMCG_GROUP;
			}
			argv[n++] = "--";
			argv[n++] = "/bin/sh";
			argv[n++] = "-c";
			argv[n++] = e->workload;
			argv[n] = NULL;
			execv(x->self, (char **)argv);
		}
		_exit(127);
	}
	close(pipefd[1]);
	in = fdopen(pipefd[0], "r");
	for (;;) {
		struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
		double left = deadline - now();
		struct timespec ts = { .tv_sec = left > 0 ? (time_t)left : 0,
			.tv_nsec = left > 0 ? (long)((left - (time_t)left) *
						    1e9) : 0 };
		int ready = left > 0 ? ppoll(&pfd, 1, &ts, &unblocked) : 0;

		if (interrupted) {
			stopped = true;
			kill(-pid, SIGKILL);
			break;
		}
		if (ready < 0)
			continue;
		if (ready == 0) {
			timed_out = true;
			kill(-pid, SIGKILL);
			break;
		}
		if (!fgets(line, sizeof(line), in))
			break;
		fputs(line, out);
		line[strcspn(line, "\n")] = 0;
		exp_match_line(e, line, run);
	}
	fclose(in);
	fclose(out);
	/* Its largest process's peak RSS (VmHWM): a child's rusage holds
	 * the most of its own and of every descendant it waited for. */
	if (wait4(pid, &status, 0, &ru) == pid)
		exp_run_set(run, "maxrss_kb", (double)ru.ru_maxrss);
	if (stopped) {
		run->failed = true;
		snprintf(run->why, sizeof(run->why), "interrupted");
	} else if (timed_out) {
		run->failed = true;
		snprintf(run->why, sizeof(run->why), "timed out after %d s",
			 e->timeout_s);
	} else if (WIFSIGNALED(status)) {
		run->failed = true;
		snprintf(run->why, sizeof(run->why), "killed by signal %d",
			 WTERMSIG(status));
	} else if (WEXITSTATUS(status)) {
		run->failed = true;
		snprintf(run->why, sizeof(run->why), "exit status %d",
			 WEXITSTATUS(status));
	}
}

/* A native configuration's run: the kernel, in a memory cgroup. */
static void run_native(const struct exp_runner *x, int c, int r,
		       struct exp_run *run)
{
	const struct exp_config *cfg = &x->e->configs[c];
	char outp[PATH_MAX], errp[PATH_MAX];
	struct exp_native n;
	double t0;

	snprintf(outp, sizeof(outp), "%s/%s-%d.out", x->out, cfg->name, r);
	snprintf(errp, sizeof(errp), "%s/%s-%d.err", x->out, cfg->name, r);
	if (exp_native_open(x->e, cfg, x->work, r, &n, run->why,
			    sizeof(run->why))) {
		run->failed = true;
		return;
	}
	t0 = now();
	run_workload(x, NULL, &n, cfg, outp, errp, run);
	exp_run_add(run, "elapsed_s", now() - t0);
	exp_native_stats(&n, run);
	if (run->failed && exp_native_oom_killed(&n)) {
		char why[sizeof(run->why)];

		snprintf(why, sizeof(why), "%s", run->why);
		snprintf(run->why, sizeof(run->why), "OOM-killed by the "
			 "kernel (the memory cgroup's limit; %.60s)", why);
	}
	exp_add_ratios(x->e, run);
	exp_native_close(&n);
}

/*
 * Every run, the pager's and the kernel's alike, holds the CPU latency
 * request the daemon holds while programs fault (PM QoS, as a process
 * keeping /dev/cpu_dma_latency open: cpu_latency_us, the configuration's
 * or the experiment's `set`, 0 unless set; none at 2000000000), so that
 * both sides find the idle CPUs in the same states. On a VM whose idle
 * vCPUs halt, every wakeup is an exit to the host: the kernel's python3
 * swapping in 96M took 10.2-11.4 s with them halting, 7.0-9.6 s polling;
 * redis's client and server 11.1 s and 3.0 s (docs/experiments.md).
 * Returns the descriptor to close after the run, or -1.
 */
static int hold_cpu_latency(const struct experiment *e,
			    const struct exp_config *cfg)
{
	long long us = 0;

	for (int k = 0; k < e->nr_common; k++)
		if (!strncmp(e->common[k], "cpu_latency_us=", 15))
			us = strtoll(e->common[k] + 15, NULL, 10);
	for (int k = 0; k < cfg->nr_sets; k++)
		if (!strncmp(cfg->sets[k], "cpu_latency_us=", 15))
			us = strtoll(cfg->sets[k] + 15, NULL, 10);
	if (us < 0 || us >= PGR_CPU_LATENCY_NONE)
		return -1;
	return pgr_cpu_latency_request(-1, (uint32_t)us);
}

static void run_one(const struct exp_runner *x, int c, int r, struct exp_run *run)
{
	const struct exp_config *cfg = &x->e->configs[c];
	char sock[PATH_MAX], log[PATH_MAX], outp[PATH_MAX], errp[PATH_MAX];
	double t0, kills;
	pid_t d;

	snprintf(sock, sizeof(sock), "%s/.pager-%d.sock", x->work, (int)getpid());
	snprintf(log, sizeof(log), "%s/%s-%d.daemon.log", x->out, cfg->name, r);
	snprintf(outp, sizeof(outp), "%s/%s-%d.out", x->out, cfg->name, r);
	snprintf(errp, sizeof(errp), "%s/%s-%d.err", x->out, cfg->name, r);
	unlink(sock);
	unlink(log);
	d = spawn_daemon(x, cfg, sock, log);
	if (d < 0 || wait_socket(sock, d)) {
		run->failed = true;
		snprintf(run->why, sizeof(run->why), "the daemon did not start "
			 "(see its .daemon.log)");
		if (d > 0) {
			kill(-d, SIGKILL);
			waitpid(d, NULL, 0);
		}
		return;
	}
	if (cfg->memcg && limit_group(x->e, sock, run)) {
		stop_daemon(sock, d);
		unlink(sock);
		return;
	}
	t0 = now();	/* the workload's time, as a native run's */
	run_workload(x, sock, NULL, cfg, outp, errp, run);
	exp_run_add(run, "elapsed_s", now() - t0);
	if (ask(sock, "stat", stat_line, run) && !run->failed) {
		run->failed = true;
		snprintf(run->why, sizeof(run->why), "no counters from the "
			 "daemon (it died? see its .daemon.log)");
	}
	/* phase.NAME.ITEM, if the workload marked phases. */
	if (!run->failed)
		ask(sock, "stat phases", stat_line, run);
	else if (exp_run_value(run, "oom_kill", &kills) && kills > 0) {
		char why[sizeof(run->why)];

		snprintf(why, sizeof(why), "%s", run->why);
		snprintf(run->why, sizeof(run->why), "OOM-killed by the pager "
			 "(%.60s)", why);
	}
	exp_add_ratios(x->e, run);
	stop_daemon(sock, d);
	unlink(sock);
}

/* ---- the command --------------------------------------------------------- */

/* Make the directory @path and put its absolute path in @dst (1024
 * bytes): the workload runs in it and finds its daemon's socket by a
 * path in it, and the daemon writes its log by a path in the other. */
static int make_absolute(char dst[1024], const char *path)
{
	char buf[PATH_MAX];

	if (mkdirs(path) || !realpath(path, buf)) {
		pgr_warn("cannot make %s: %s", path, strerror(errno));
		return -1;
	}
	if (strlen(buf) > 900) {
		pgr_warn("%s: the path is too long (at most 900 bytes)", buf);
		return -1;
	}
	memcpy(dst, buf, strlen(buf) + 1);
	return 0;
}

static int setup_dirs(struct exp_runner *x, const char *file, const char *out)
{
	char buf[PATH_MAX], path[PATH_MAX], *base, *dot;

	if (out) {
		snprintf(path, sizeof(path), "%s", out);
	} else {
		snprintf(buf, sizeof(buf), "%s", file);
		base = basename(buf);
		dot = strrchr(base, '.');
		if (dot && dot != base)
			*dot = 0;
		snprintf(path, sizeof(path), "results/%.900s", base);
	}
	if (make_absolute(x->out, path))
		return -1;
	if (x->e->dir[0]) {
		snprintf(buf, sizeof(buf), "%s", file);
		if (x->e->dir[0] == '/')
			snprintf(path, sizeof(path), "%s", x->e->dir);
		else
			snprintf(path, sizeof(path), "%.2000s/%.500s",
				 dirname(buf), x->e->dir);
		return make_absolute(x->work, path);
	} else {
		snprintf(x->work, sizeof(x->work), "%.900s/pager-exp.XXXXXX",
			 pgr_tmp_dir());
		if (!mkdtemp(x->work)) {
			pgr_warn("cannot make %s: %s", x->work,
				 strerror(errno));
			return -1;
		}
		x->work_temp = true;
	}
	return 0;
}

/* The `disk` line's limits on the disks of the working directory and of
 * the daemon's swap file (which `pager daemon` makes in pgr_tmp_dir()). */
static int open_disk_of(struct exp_runner *x)
{
	const char *paths[2] = { x->work, pgr_tmp_dir() };
	char err[512];

	if (exp_disk_open(&x->e->disk, paths, 2, &x->disk, err,
			  sizeof(err))) {
		fprintf(stderr, "pager: %s\n", err);
		x->disk.dir[0] = 0;
		return 1;
	}
	return 0;
}

/* For workloads: the examples beside this executable's build and the
 * experiment file's own directory (its scripts) on PATH; this pager in
 * $PAGER_BIN. */
static void examples_on_path(const struct exp_runner *x, const char *file)
{
	char buf[PATH_MAX], dir[PATH_MAX], here[PATH_MAX];
	char path[PATH_MAX * 3];
	const char *old = getenv("PATH");

	setenv("PAGER_BIN", x->self, 1);
	snprintf(buf, sizeof(buf), "%s", file);
	if (!realpath(dirname(buf), here))
		here[0] = 0;
	snprintf(buf, sizeof(buf), "%s", x->self);
	snprintf(dir, sizeof(dir), "%s/../examples", dirname(buf));
	if (!realpath(dir, buf))
		buf[0] = 0;
	else
		setenv("PAGER_EXAMPLES", buf, 1);
	snprintf(path, sizeof(path), "%s%s%s%s%s", buf, buf[0] ? ":" : "",
		 here, here[0] ? ":" : "", old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
}

/* Run every configuration, repeat by repeat, and report; the number of
 * failed runs. */
int exp_run_all(const struct exp_runner *x, const char *file)
{
	const struct experiment *e = x->e;
	struct exp_run *runs[EXP_MAX_CONFIGS];
	int failed = 0;

	examples_on_path(x, file);
	for (int c = 0; c < e->nr_configs; c++)
		runs[c] = pgr_xcalloc((size_t)e->repeat, sizeof(**runs));
	for (int r = 0; r < e->repeat; r++) {
		for (int c = 0; c < e->nr_configs; c++) {
			struct exp_run *run = &runs[c][r];
			int qos;

			if (interrupted) {
				run->failed = true;
				snprintf(run->why, sizeof(run->why),
					 "not run (interrupted)");
				failed++;
				continue;
			}
			fprintf(stderr, "pager: experiment: %s, run %d of %d ...",
				e->configs[c].name, r + 1, e->repeat);
			qos = hold_cpu_latency(e, &e->configs[c]);
			if (e->configs[c].native)
				run_native(x, c, r, run);
			else
				run_one(x, c, r, run);
			if (qos >= 0)
				close(qos);	/* the kernel drops it */
			if (run->failed)
				fprintf(stderr, " failed: %s\n", run->why);
			else
				fprintf(stderr, " done\n");
			failed += run->failed;
		}
	}
	exp_report(e, x->out, x->disk.what, runs, e->repeat, true);
	exp_release_runs(e, runs, e->repeat);
	return failed;
}

/* --report DIR: the runs of DIR/results.csv reported again; 0, or 1. */
int exp_report_again(const struct experiment *e, const char *dir)
{
	struct exp_run *runs[EXP_MAX_CONFIGS] = { NULL };
	char abs[PATH_MAX], path[PATH_MAX + 16], err[600];
	int repeat;

	if (!realpath(dir, abs)) {
		fprintf(stderr, "pager: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/results.csv", abs);
	if (exp_read_results(e, path, runs, &repeat, err, sizeof(err))) {
		fprintf(stderr, "pager: %s\n", err);
		return 1;
	}
	exp_report(e, abs, "", runs, repeat, false);
	exp_release_runs(e, runs, EXP_MAX_REPEAT);
	return 0;
}

/* --check: what would run; 0. */
int exp_print_plan(const struct exp_runner *x, const char *file)
{
	const struct experiment *e = x->e;

	printf("%s: ok\n%s\nworkload: %s\nin %s\nbudget %s, swap %s; "
	       "%d configuration%s, %d run%s each\n", file,
	       e->title[0] ? e->title : "experiment", e->workload, x->work,
	       e->mem, e->swap[0] ? e->swap : "default", e->nr_configs,
	       e->nr_configs > 1 ? "s" : "", e->repeat,
	       e->repeat > 1 ? "s" : "");
	exp_print_settings(stdout, e, x->disk.what, NULL, 0);
	return 0;
}

int exp_runner_init(struct exp_runner *x, const struct experiment *e,
		    const char *file, const char *out)
{
	ssize_t n;

	memset(x, 0, sizeof(*x));
	x->e = e;
	n = readlink("/proc/self/exe", x->self, sizeof(x->self) - 1);
	if (n < 0 || setup_dirs(x, file, out))
		return -1;
	x->self[n] = 0;
	catch_interrupts();
	return 0;
}

int exp_runner_check(struct exp_runner *x, const char *file)
{
	if (check_settings_of(x, file))
		return 2;
	if (x->e->disk.text[0] && open_disk_of(x))
		return 1;
	return 0;
}

bool exp_interrupted(void)
{
	return interrupted;
}

void exp_runner_release(struct exp_runner *x)
{
	char cmd[PATH_MAX];

	if (x->disk.dir[0])
		exp_disk_close(x->disk.dir);
	if (x->work_temp) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", x->work);
		if (system(cmd))
			pgr_warn("cannot remove %s", x->work);
	}
}
