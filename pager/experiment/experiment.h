/* SPDX-License-Identifier: MIT */
/*
 * experiment.h - `pager experiment`: an experiment file (docs/experiments.md
 * describes it), its runs, and their results.
 */
#ifndef PGR_EXPERIMENT_H
#define PGR_EXPERIMENT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#define EXP_MAX_CONFIGS	16
#define EXP_MAX_SETS	16
#define EXP_MAX_FIGURES	16
#define EXP_MAX_REPEAT	20

/* A figure the workload prints: "NAME VALUE" lines, or lines that match
 * a pattern with one %f (the value) and optionally a %d before it (an
 * index: NAME0, NAME1, ...). Or a ratio: of[0] / of[1] * scale, two
 * figures or counters of the same run (`ratio` lines). */
struct exp_figure {
	char name[48];
	char pattern[160];	/* empty: "NAME VALUE" */
	bool higher_better;
	char of[2][48];		/* a ratio's operands, "" for a figure */
	double scale;
};

struct exp_config {
	char name[48];
	int line;			/* in the file */
	bool native;			/* the kernel itself, in a memory
					 * cgroup of the budget (native.c) */
	bool memcg;			/* the pager, the workload in a group
					 * whose memory.max is the budget */
	char *sets[EXP_MAX_SETS];	/* KEY=VALUE */
	int nr_sets;
};

/* The experiment's disk: limits on the disks under its working directory
 * and swap file, as cgroup v2's io.max spells them; 0 is no limit. */
struct exp_disk {
	uint64_t rbps, wbps, riops, wiops;
	char text[160];		/* as the file wrote it, "" = unlimited */
};

struct experiment {
	char title[160];
	char workload[1024];	/* a shell command */
	char dir[512];		/* working directory, "" = the file's */
	char mem[32];
	char swap[32];		/* size, or "none" */
	struct exp_disk disk;
	int repeat;
	int timeout_s;
	char plot[48];		/* indexed figure drawn per index, or "" */
	char counters[1024];	/* pager counters in the table */
	struct exp_figure figures[EXP_MAX_FIGURES];
	int nr_figures;
	struct exp_config configs[EXP_MAX_CONFIGS];
	int nr_configs;
	char *common[EXP_MAX_SETS];	/* `set` lines: every configuration */
	int common_line[EXP_MAX_SETS];
	int nr_common;
};

/* Parse @path; on error, "FILE:LINE: reason" in @err and -1. */
int exp_parse(const char *path, struct experiment *e, char *err, size_t len);
/* The same from an open stream, @path naming it in errors. */
int exp_parse_stream(FILE *f, const char *path, struct experiment *e,
		     char *err, size_t len);
void exp_release(struct experiment *e);

/* disk.c: a block-I/O cgroup (v2 io.max, or v1's
 * blkio.throttle.*) holding @d's limits for the whole disks under each of
 * @paths; @g->what says which ("cgroup v1 blkio.throttle on 254:0"). On
 * error, the reason in @err and -1. */
struct exp_disk_group {
	char dir[4096];
	char what[128];
};
int exp_disk_open(const struct exp_disk *d, const char *const *paths,
		  int nr_paths, struct exp_disk_group *g, char *err,
		  size_t errlen);
/* Move the calling process into @group (its children follow). */
int exp_disk_enter(const char *group);
/* Remove @group, once its processes are gone. */
void exp_disk_close(const char *group);

/* One value: a figure or a counter, of one run. */
struct exp_value {
	char name[64];
	double v;
};

struct exp_run {
	bool failed;
	char why[128];
	struct exp_value *vals;
	size_t nr, cap;
};

/* report.c: the comparison table (stdout and OUT/table.txt),
 * OUT/results.csv if @write_results, the plot; @runs[config][repeat]. */
void exp_report(const struct experiment *e, const char *out,
		const char *disk_what, struct exp_run **runs, int repeat,
		bool write_results);
/* The disk line (@disk_what: its group, or ""), the `set` lines and each
 * configuration with its settings, and, if @runs, its failed runs. */
void exp_print_settings(FILE *f, const struct experiment *e,
			const char *disk_what, struct exp_run **runs,
			int repeat);
/* Read a results.csv back into @runs (allocated here, EXP_MAX_REPEAT a
 * configuration; *@repeat the runs found): 0, or -1 with "FILE:LINE:
 * reason" in @err. */
int exp_read_results(const struct experiment *e, const char *path,
		     struct exp_run **runs, int *repeat, char *err, size_t len);
/* Free @runs[config][0..repeat). */
void exp_release_runs(const struct experiment *e, struct exp_run **runs,
		      int repeat);

/* Add @v under @name to @run. */
void exp_run_add(struct exp_run *run, const char *name, double v);
/* The same, replacing a value @run has under @name already. */
void exp_run_set(struct exp_run *run, const char *name, double v);
/* @run's value named @name in *@v (@v may be NULL): false if it has none. */
bool exp_run_value(const struct exp_run *run, const char *name, double *v);
/* Match one line of the workload's output against the figures. */
void exp_match_line(const struct experiment *e, const char *line,
		    struct exp_run *run);
/* Add @run's ratios that it does not have yet and whose operands it has
 * (a divisor of 0 gives none). */
void exp_add_ratios(const struct experiment *e, struct exp_run *run);

/* native.c: a configuration run by the kernel itself, in a memory cgroup
 * of the budget (`config NAME native`). */
#define EXP_NATIVE_SYSCTLS	8
#define EXP_NATIVE_SWAPS	8
struct exp_native {
	char cg[PATH_MAX];		/* the run's memory cgroup, "" none */
	bool v2;			/* cgroup v2's, else v1's */
	char swapfile[PATH_MAX];	/* made for the run, "" none */
	bool zram;			/* zram0 set up as its swap */
	char swaps_off[EXP_NATIVE_SWAPS][400];	/* turned off for it */
	int nr_swaps_off;
	struct { char path[128]; char old[64]; } sysctls[EXP_NATIVE_SYSCTLS];
	int nr_sysctls;			/* changed, to put back */
	struct exp_run before;		/* /proc/vmstat at the start */
};
/* Can @c run here (root, a memory controller, kernel settings only)? 0,
 * or -1 with why. */
int exp_native_check(const struct exp_config *c, char *why, size_t len);
/* Set the machine up for run @run of @c (caches dropped, swap, cgroup,
 * settings): 0, or -1 with why (and nothing left changed). */
int exp_native_open(const struct experiment *e, const struct exp_config *c,
		    const char *work, int run, struct exp_native *n,
		    char *why, size_t len);
/* In the workload's process before exec: into the cgroup. 0 or -errno. */
int exp_native_enter(const struct exp_native *n);
/* The run's counters under the pager's names into @run. */
void exp_native_stats(const struct exp_native *n, struct exp_run *run);
/* Did the kernel's OOM killer act in the cgroup? */
bool exp_native_oom_killed(const struct exp_native *n);
/* Everything back as it was. */
void exp_native_close(struct exp_native *n);

/* run.c: running an experiment, for `pager experiment`. */
struct exp_runner {
	const struct experiment *e;
	char self[PATH_MAX];	/* this pager: runs its daemon and run */
	char out[1024];		/* results directory */
	char work[1024];	/* the workload's working directory */
	bool work_temp;		/* made for the experiment: removed after */
	struct exp_disk_group disk;	/* dir "": no `disk` line */
};
/* Find this pager, make the results directory (@out, or results/NAME of
 * @file) and the working one, and take ^C and SIGTERM from here on (they
 * stop the run under way and skip the rest): 0, or -1 with a warning. */
int exp_runner_init(struct exp_runner *x, const struct experiment *e,
		    const char *file, const char *out);
/* Every configuration's settings, as its daemon takes them (2: one is
 * refused, said at its line of @file), then the disk line (1: refused). */
int exp_runner_check(struct exp_runner *x, const char *file);
/* --check: what would run; 0. */
int exp_print_plan(const struct exp_runner *x, const char *file);
/* Run every configuration, repeat by repeat, and report; the number of
 * failed runs. */
int exp_run_all(const struct exp_runner *x, const char *file);
/* Has ^C or SIGTERM come since exp_runner_init()? */
bool exp_interrupted(void);
/* Remove the disk group and a working directory made for the runs. */
void exp_runner_release(struct exp_runner *x);
/* --report DIR: the runs of DIR/results.csv reported again; 0, or 1. */
int exp_report_again(const struct experiment *e, const char *dir);

#endif /* PGR_EXPERIMENT_H */
