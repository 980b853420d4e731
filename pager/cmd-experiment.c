/* SPDX-License-Identifier: MIT */
/*
 * cmd-experiment.c - `pager experiment FILE`: run a workload under the
 * pager once per configuration (and repeat), read the workload's figures
 * and the daemon's counters, and compare them with the first (base)
 * configuration as mmtests does: a table, a CSV file, a gnuplot plot.
 *
 * Each run has a daemon of its own (`pager daemon` with the budget, swap
 * and the configuration's settings), the workload under `pager run` in
 * the experiment's working directory, then `stat` and `shutdown`. Runs go
 * repeat by repeat, configurations in turn, so that the machine's drift
 * hits all of them alike. A run that fails (non-zero status, timeout) is
 * marked failed; the others go on.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client-conn.h"
#include "cmd.h"
#include "experiment.h"
#include "util.h"
#include "wire.h"

static const char usage[] =
	"usage: pager experiment [-o DIR] [--repeat N] [--check] FILE\n"
	"Runs FILE's workload under the pager once per configuration and\n"
	"prints a comparison with the first; DIR (default results/NAME)\n"
	"gets table.txt, results.csv, each run's output and logs, and\n"
	"plot.png/plot.svg. docs/experiments.md describes FILE.\n"
	"--check: check FILE, each configuration's settings and its disk\n"
	"line, print the plan, run nothing.\n";

#define DEFAULT_COUNTERS "pgmajfault pgpgin pswpin pswpout " \
	"workingset_refault_anon workingset_refault_file " \
	"workingset_activate_file pgactivate pgdeactivate pgscan_anon " \
	"pgscan_file pgsteal_anon pgsteal_file oom_kill"

struct ctx {
	const struct experiment *e;
	char self[PATH_MAX];
	char out[1024];		/* results directory */
	char work[1024];	/* the workload's working directory */
	bool work_temp;
	struct exp_disk_group disk;	/* dir "": no `disk` line */
};

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

/* `pager daemon` with the budget, swap and settings of @c (NULL: the
 * common ones only) in @argv; returns the count. Room for 12 more. */
static int daemon_argv(const struct ctx *x, const struct exp_config *c,
		       const char **argv)
{
	const struct experiment *e = x->e;
	int n = 0;

	argv[n++] = x->self;
	argv[n++] = "daemon";
	argv[n++] = "--mem";
	argv[n++] = e->mem;
	if (!strcmp(e->swap, "none")) {
		argv[n++] = "--no-swap";
	} else if (e->swap[0]) {
		argv[n++] = "--swap-size";
		argv[n++] = e->swap;
	}
	for (int k = 0; k < e->nr_common; k++) {
		argv[n++] = "--set";
		argv[n++] = e->common[k];
	}
	for (int k = 0; c && k < c->nr_sets; k++) {
		argv[n++] = "--set";
		argv[n++] = c->sets[k];
	}
	argv[n] = NULL;
	return n;
}

static pid_t spawn_daemon(const struct ctx *x, const struct exp_config *c,
			  const char *sock, const char *log)
{
	const char *argv[24 + 4 * EXP_MAX_SETS];
	int n = daemon_argv(x, c, argv);
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
		if (x->disk.dir[0] && exp_disk_enter(x->disk.dir))
			_exit(125);
		execv(x->self, (char **)argv);
		_exit(127);
	}
	return pid;
}

/* `pager daemon --check` with @c's settings: 0, or -1 with what it said
 * in @why. */
static int check_daemon(const struct ctx *x, const struct exp_config *c,
			char *why, size_t len)
{
	const char *argv[24 + 4 * EXP_MAX_SETS];
	int n = daemon_argv(x, c, argv), pipefd[2], status = 0;
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
static int check_settings(const struct ctx *x, const char *file)
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

struct stat_arg {
	struct exp_run *run;
};

static void stat_line(const char *line, void *arg)
{
	struct exp_run *run = arg;
	char name[64];
	double v;

	if (sscanf(line, "%63s %lf", name, &v) == 2)
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

/* Run the workload under the daemon at @sock; its output goes to @outp
 * and through the figure matcher. */
static void run_workload(const struct ctx *x, const char *sock,
			 const char *config, const char *outp,
			 const char *errp, struct exp_run *run)
{
	const struct experiment *e = x->e;
	int pipefd[2], status = 0;
	FILE *in, *out = fopen(outp, "we");
	char line[4096];
	double deadline = now() + e->timeout_s;
	bool timed_out = false;
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
		setenv("PAGER_CONFIG", config, 1);
		execl(x->self, x->self, "run", "--socket", sock, "--", "/bin/sh",
		      "-c", e->workload, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	in = fdopen(pipefd[0], "r");
	for (;;) {
		struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
		int left = (int)((deadline - now()) * 1000);

		if (left <= 0 || poll(&pfd, 1, left) == 0) {
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
	waitpid(pid, &status, 0);
	if (timed_out) {
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

static void run_one(const struct ctx *x, int c, int r, struct exp_run *run)
{
	const struct exp_config *cfg = &x->e->configs[c];
	char sock[PATH_MAX], log[PATH_MAX], outp[PATH_MAX], errp[PATH_MAX];
	double t0 = now();
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
	run_workload(x, sock, cfg->name, outp, errp, run);
	exp_run_add(run, "elapsed_s", now() - t0);
	if (ask(sock, "stat", stat_line, run) && !run->failed) {
		run->failed = true;
		snprintf(run->why, sizeof(run->why), "no counters from the "
			 "daemon (it died? see its .daemon.log)");
	}
	stop_daemon(sock, d);
	unlink(sock);
}

/* ---- results --------------------------------------------------------------- */

struct stats {
	double mean, sd;
	int n;
};

static bool value_of(const struct exp_run *run, const char *name, double *v)
{
	for (size_t k = 0; k < run->nr; k++) {
		if (!strcmp(run->vals[k].name, name)) {
			*v = run->vals[k].v;
			return true;
		}
	}
	return false;
}

static struct stats stats_of(struct exp_run *runs, int repeat, const char *name)
{
	struct stats s = { 0, 0, 0 };
	double sum = 0, sq = 0, v;

	for (int r = 0; r < repeat; r++) {
		if (runs[r].failed || !value_of(&runs[r], name, &v))
			continue;
		sum += v;
		sq += v * v;
		s.n++;
	}
	if (s.n) {
		s.mean = sum / s.n;
		s.sd = s.n > 1 ? sqrt(fmax(0, (sq - sum * sum / s.n) /
					   (s.n - 1))) : 0;
	}
	return s;
}

/* The figures seen, in order of appearance: indexed ones (round0, ...)
 * sorted by index within their figure. */
static size_t figure_names(const struct experiment *e, struct exp_run *all,
			   int nr_runs, char (*names)[64], size_t max)
{
	size_t n = 0;

	for (int f = 0; f < e->nr_figures; f++) {
		const char *base = e->figures[f].name;
		size_t len = strlen(base);

		bool seen = false;

		/* The plain name, then NAME0, NAME1, ... (an index may start
		 * at 0 or 1) up to the first gap. */
		for (long idx = -1; idx < 10000 && n < max; idx++) {
			char want[64];
			bool found = false;

			if (idx < 0)
				snprintf(want, sizeof(want), "%s", base);
			else
				snprintf(want, sizeof(want), "%s%ld", base, idx);
			for (int r = 0; r < nr_runs && !found; r++)
				for (size_t k = 0; k < all[r].nr && !found; k++)
					found = !strcmp(all[r].vals[k].name, want);
			if (found) {
				snprintf(names[n++], 64, "%s", want);
				seen = seen || idx >= 0;
			} else if (idx >= 0 && (seen || idx >= 1)) {
				break;
			}
		}
		(void)len;
	}
	return n;
}

static bool higher_better(const struct experiment *e, const char *name)
{
	for (int f = 0; f < e->nr_figures; f++)
		if (!strncmp(name, e->figures[f].name,
			     strlen(e->figures[f].name)))
			return e->figures[f].higher_better;
	return false;
}

static bool all_failed(const struct exp_run *runs, int repeat)
{
	for (int r = 0; r < repeat; r++)
		if (!runs[r].failed)
			return false;
	return true;
}

/* mmtests' convention: the percentage is the gain over the base, positive
 * when better; '*' marks a difference beyond twice the noise. */
static void cell(FILE *f, struct stats b, struct stats s, bool base,
		 bool higher, bool all_failed)
{
	double gain;
	bool sig;

	if (!s.n) {
		fprintf(f, " %13s %10s ", all_failed ? "failed" : "-", "");
		return;
	}
	if (base || !b.n || b.mean == 0) {
		fprintf(f, " %13.6g (%7.2f%%)%s", s.mean, 0.0, " ");
		return;
	}
	gain = (higher ? s.mean - b.mean : b.mean - s.mean) / fabs(b.mean) *
	       100.0;
	sig = b.n > 1 && s.n > 1 && fabs(s.mean - b.mean) > 2 * fmax(b.sd, s.sd);
	fprintf(f, " %13.6g (%7.2f%%)%s", s.mean, gain, sig ? "*" : " ");
}

static void table(const struct ctx *x, FILE *f, struct exp_run **runs,
		  char (*figs)[64], size_t nr_figs, int repeat)
{
	const struct experiment *e = x->e;
	char counters[1024], *save = NULL;

	fprintf(f, "%s\n", e->title[0] ? e->title : "experiment");
	fprintf(f, "workload: %s\nbudget %s, swap %s, %d run%s each\n",
		e->workload, e->mem, e->swap[0] ? e->swap : "default", repeat,
		repeat > 1 ? "s" : "");
	if (e->disk.text[0])
		fprintf(f, "disk: %s (%s)\n", e->disk.text, x->disk.what);
	if (e->nr_common) {
		fprintf(f, "all with:");
		for (int k = 0; k < e->nr_common; k++)
			fprintf(f, " %s", e->common[k]);
		fprintf(f, "\n");
	}
	for (int c = 0; c < e->nr_configs; c++) {
		fprintf(f, "  %-12s", e->configs[c].name);
		for (int k = 0; k < e->configs[c].nr_sets; k++)
			fprintf(f, " %s", e->configs[c].sets[k]);
		fprintf(f, "%s\n", c ? "" : "  (base)");
		for (int r = 0; r < repeat; r++)
			if (runs[c][r].failed)
				fprintf(f, "    run %d failed: %s\n", r,
					runs[c][r].why);
	}
	fprintf(f, "\n%-22s", "");
	for (int c = 0; c < e->nr_configs; c++)
		fprintf(f, " %24s", e->configs[c].name);
	fprintf(f, "\n");
	for (size_t k = 0; k < nr_figs; k++) {
		struct stats b = stats_of(runs[0], repeat, figs[k]);
		bool hb = higher_better(e, figs[k]);

		fprintf(f, "Amean %-16s", figs[k]);
		for (int c = 0; c < e->nr_configs; c++)
			cell(f, b, stats_of(runs[c], repeat, figs[k]), !c, hb,
			     all_failed(runs[c], repeat));
		fprintf(f, "\n");
	}
	{
		struct stats b = stats_of(runs[0], repeat, "elapsed_s");

		fprintf(f, "Amean %-16s", "elapsed_s");
		for (int c = 0; c < e->nr_configs; c++)
			cell(f, b, stats_of(runs[c], repeat, "elapsed_s"), !c,
			     false, all_failed(runs[c], repeat));
		fprintf(f, "\n");
	}
	fprintf(f, "\n%-22s", "pager counters");
	for (int c = 0; c < e->nr_configs; c++)
		fprintf(f, " %24s", e->configs[c].name);
	fprintf(f, "\n");
	snprintf(counters, sizeof(counters), "%s",
		 e->counters[0] ? e->counters : DEFAULT_COUNTERS);
	for (char *name = strtok_r(counters, " \t", &save); name;
	     name = strtok_r(NULL, " \t", &save)) {
		fprintf(f, "%-22s", name);
		for (int c = 0; c < e->nr_configs; c++) {
			struct stats s = stats_of(runs[c], repeat, name);

			if (s.n)
				fprintf(f, " %24.0f", s.mean);
			else
				fprintf(f, " %24s", "-");
		}
		fprintf(f, "\n");
	}
}

static int write_csv(const struct ctx *x, struct exp_run **runs, int repeat)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/results.csv", x->out);
	f = fopen(path, "we");
	if (!f)
		return -1;
	fprintf(f, "config,run,name,value\n");
	for (int c = 0; c < x->e->nr_configs; c++) {
		for (int r = 0; r < repeat; r++) {
			const struct exp_run *run = &runs[c][r];

			if (run->failed)
				fprintf(f, "%s,%d,failed,\"%s\"\n",
					x->e->configs[c].name, r, run->why);
			for (size_t k = 0; k < run->nr; k++)
				fprintf(f, "%s,%d,%s,%.9g\n",
					x->e->configs[c].name, r,
					run->vals[k].name, run->vals[k].v);
		}
	}
	return fclose(f);
}

/* The plotted figure per index, a line per configuration: plot.dat and
 * plot.gp, drawn with gnuplot into plot.png and plot.svg. */
static void plot(const struct ctx *x, struct exp_run **runs, int repeat)
{
	const struct experiment *e = x->e;
	char path[PATH_MAX], cmd[PATH_MAX + 64];
	double lo = INFINITY, hi = 0;
	long last = -1;
	FILE *f;

	if (!e->plot[0])
		return;
	snprintf(path, sizeof(path), "%s/plot.dat", x->out);
	f = fopen(path, "we");
	if (!f)
		return;
	fprintf(f, "# index");
	for (int c = 0; c < e->nr_configs; c++)
		fprintf(f, " %s", e->configs[c].name);
	fprintf(f, "\n");
	for (long idx = 0; idx < 10000; idx++) {
		char name[64];
		bool any = false;

		snprintf(name, sizeof(name), "%s%ld", e->plot, idx);
		for (int c = 0; c < e->nr_configs; c++)
			any = any || stats_of(runs[c], repeat, name).n;
		if (!any && idx == 0)
			continue;	/* indexes from 1 */
		if (!any)
			break;
		last = idx;
		fprintf(f, "%ld", idx);
		for (int c = 0; c < e->nr_configs; c++) {
			struct stats s = stats_of(runs[c], repeat, name);

			if (s.n) {
				fprintf(f, " %.9g", s.mean);
				lo = s.mean > 0 && s.mean < lo ? s.mean : lo;
				hi = s.mean > hi ? s.mean : hi;
			} else {
				fprintf(f, " NaN");
			}
		}
		fprintf(f, "\n");
	}
	fclose(f);
	if (last < 0)
		return;
	snprintf(path, sizeof(path), "%s/plot.gp", x->out);
	f = fopen(path, "we");
	if (!f)
		return;
	fprintf(f, "set title \"%s\" noenhanced\n", e->title[0] ? e->title :
		"experiment");
	fprintf(f, "set xlabel \"%s (index)\" noenhanced\nset ylabel \"%s\" "
		"noenhanced\nset key outside right\nset grid\n", e->plot,
		e->plot);
	if (lo > 0 && hi / lo > 100)
		fprintf(f, "set logscale y\n");
	fprintf(f, "set xrange [-0.5:%ld.5]\n", last);
	fprintf(f, "set datafile missing \"NaN\"\n");
	for (int t = 0; t < 2; t++) {
		fprintf(f, "set terminal %s size 900,500\nset output \"%s\"\n",
			t ? "svg" : "png", t ? "plot.svg" : "plot.png");
		fprintf(f, "plot ");
		for (int c = 0; c < e->nr_configs; c++)
			fprintf(f, "%s\"plot.dat\" using 1:%d with linespoints "
				"title \"%s\" noenhanced", c ? ", " : "", c + 2,
				e->configs[c].name);
		fprintf(f, "\n");
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot plot.gp 2>/dev/null",
		 x->out);
	if (system(cmd))
		pgr_warn("gnuplot did not draw %s/plot.gp (is gnuplot "
			 "installed?); plot.dat has the numbers", x->out);
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

static int setup_dirs(struct ctx *x, const char *file, const char *out)
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
		const char *t = getenv("TMPDIR");

		snprintf(x->work, sizeof(x->work), "%.900s/pager-exp.XXXXXX",
			 t && *t ? t : "/var/tmp");
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
 * the daemon's swap file (made in $TMPDIR, or /var/tmp, as `pager daemon`
 * does). */
static int open_disk(struct ctx *x)
{
	const char *t = getenv("TMPDIR");
	const char *paths[2] = { x->work, t && *t ? t : "/var/tmp" };
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
static void examples_on_path(const struct ctx *x, const char *file)
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
static int run_all(const struct ctx *x, const char *file)
{
	const struct experiment *e = x->e;
	struct exp_run *runs[EXP_MAX_CONFIGS], *all;
	char path[PATH_MAX], (*figs)[64];
	int failed = 0;
	size_t nr_figs;
	FILE *f;

	examples_on_path(x, file);
	for (int c = 0; c < e->nr_configs; c++)
		runs[c] = pgr_xcalloc((size_t)e->repeat, sizeof(**runs));
	for (int r = 0; r < e->repeat; r++) {
		for (int c = 0; c < e->nr_configs; c++) {
			struct exp_run *run = &runs[c][r];

			fprintf(stderr, "pager: experiment: %s, run %d of %d ...",
				e->configs[c].name, r + 1, e->repeat);
			run_one(x, c, r, run);
			if (run->failed)
				fprintf(stderr, " failed: %s\n", run->why);
			else
				fprintf(stderr, " done\n");
			failed += run->failed;
		}
	}
	figs = pgr_xcalloc(1024, sizeof(*figs));
	all = pgr_xcalloc((size_t)(e->nr_configs * e->repeat), sizeof(*all));
	for (int c = 0; c < e->nr_configs; c++)
		for (int r = 0; r < e->repeat; r++)
			all[c * e->repeat + r] = runs[c][r];
	nr_figs = figure_names(e, all, e->nr_configs * e->repeat, figs, 1024);
	free(all);
	table(x, stdout, runs, figs, nr_figs, e->repeat);
	snprintf(path, sizeof(path), "%s/table.txt", x->out);
	f = fopen(path, "we");
	if (f) {
		table(x, f, runs, figs, nr_figs, e->repeat);
		fclose(f);
	}
	if (write_csv(x, runs, e->repeat))
		pgr_warn("cannot write %s/results.csv", x->out);
	plot(x, runs, e->repeat);
	printf("\n(results in %s: table.txt, results.csv%s, each run's "
	       ".out, .err and .daemon.log)\n", x->out,
	       e->plot[0] ? ", plot.png, plot.svg" : "");
	for (int c = 0; c < e->nr_configs; c++) {
		for (int r = 0; r < e->repeat; r++)
			free(runs[c][r].vals);
		free(runs[c]);
	}
	free(figs);
	return failed;
}

/* --check: what would run; 0. */
static int print_plan(const struct ctx *x, const char *file)
{
	const struct experiment *e = x->e;

	printf("%s: ok\n%s\nworkload: %s\nin %s\nbudget %s, swap %s; "
	       "%d configuration%s, %d run%s each\n", file,
	       e->title[0] ? e->title : "experiment", e->workload, x->work,
	       e->mem, e->swap[0] ? e->swap : "default", e->nr_configs,
	       e->nr_configs > 1 ? "s" : "", e->repeat,
	       e->repeat > 1 ? "s" : "");
	if (e->disk.text[0])
		printf("disk: %s (%s)\n", e->disk.text, x->disk.what);
	if (e->nr_common) {
		printf("all with:");
		for (int k = 0; k < e->nr_common; k++)
			printf(" %s", e->common[k]);
		printf("\n");
	}
	for (int c = 0; c < e->nr_configs; c++) {
		printf("  %-12s", e->configs[c].name);
		for (int k = 0; k < e->configs[c].nr_sets; k++)
			printf(" %s", e->configs[c].sets[k]);
		printf("%s\n", c ? "" : "  (base)");
	}
	return 0;
}

int cmd_experiment(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct experiment e;
	struct ctx x = { .e = &e };
	char err[512], path[PATH_MAX];
	const char *out = NULL;
	int repeat = 0, c, rc;
	bool check_only = false;
	ssize_t n;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		uint64_t v;

		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'r':
			if (pgr_parse_u64(optarg, &v) || !v ||
			    v > EXP_MAX_REPEAT)
				return pgr_usage_error(usage, "--repeat: 1 to %d",
						       EXP_MAX_REPEAT);
			repeat = (int)v;
			break;
		case 'c':
			check_only = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return pgr_usage_error(usage, NULL);
		}
	}
	if (optind != argc - 1)
		return pgr_usage_error(usage, "expected one experiment file");
	if (exp_parse(argv[optind], &e, err, sizeof(err))) {
		fprintf(stderr, "pager: %s\n", err);
		return 2;
	}
	if (repeat)
		e.repeat = repeat;
	n = readlink("/proc/self/exe", x.self, sizeof(x.self) - 1);
	if (n < 0 || setup_dirs(&x, argv[optind], out)) {
		exp_release(&e);
		return 1;
	}
	x.self[n] = 0;
	if (check_settings(&x, argv[optind]))
		rc = 2;
	else if (e.disk.text[0] && open_disk(&x))
		rc = 1;
	else if (check_only)
		rc = print_plan(&x, argv[optind]);
	else
		rc = run_all(&x, argv[optind]) ? 1 : 0;
	if (x.disk.dir[0])
		exp_disk_close(x.disk.dir);
	if (x.work_temp) {
		snprintf(path, sizeof(path), "rm -rf '%s'", x.work);
		if (system(path))
			pgr_warn("cannot remove %s", x.work);
	}
	exp_release(&e);
	return rc;
}
