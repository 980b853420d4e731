/* SPDX-License-Identifier: MIT */
/*
 * report.c - what an experiment's runs gave: the comparison
 * table in the manner of mmtests (each figure's mean per configuration,
 * the gain over the base in percent, * beyond the noise; then the pager
 * counters), results.csv with every run's values, and a gnuplot plot --
 * an indexed figure per index, or else every figure against the base's.
 * results.csv can be read back, to report again without running.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "../lib/util.h"

#define DEFAULT_COUNTERS "pgmajfault pgpgin pswpin pswpout " \
	"workingset_refault_anon workingset_refault_file " \
	"workingset_activate_file pgactivate pgdeactivate pgscan_anon " \
	"pgscan_file pgsteal_anon pgsteal_file oom_kill"

struct report {
	const struct experiment *e;
	const char *out;	/* the results directory */
	const char *disk_what;
};

struct stats {
	double mean, sd;
	int n;
};

static struct stats stats_of(struct exp_run *runs, int repeat, const char *name)
{
	struct stats s = { 0, 0, 0 };
	double sum = 0, sq = 0, v;

	for (int r = 0; r < repeat; r++) {
		if (runs[r].failed || !exp_run_value(&runs[r], name, &v))
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
				found = exp_run_value(&all[r], want, NULL);
			if (found) {
				snprintf(names[n++], 64, "%s", want);
				seen = seen || idx >= 0;
			} else if (idx >= 0 && (seen || idx >= 1)) {
				break;
			}
		}
	}
	return n;
}

/* Of the figure @name is, or is an index of (NAME0, NAME1, ...). */
static bool higher_better(const struct experiment *e, const char *name)
{
	for (int f = 0; f < e->nr_figures; f++) {
		size_t n = strlen(e->figures[f].name);

		if (!strncmp(name, e->figures[f].name, n) &&
		    strspn(name + n, "0123456789") == strlen(name + n))
			return e->figures[f].higher_better;
	}
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

/* The counters the table shows: the file's `counters` line, or ours. */
static const char *counter_list(const struct experiment *e)
{
	return e->counters[0] ? e->counters : DEFAULT_COUNTERS;
}

void exp_print_settings(FILE *f, const struct experiment *e,
			const char *disk_what, struct exp_run **runs,
			int repeat)
{
	if (e->disk.text[0])
		fprintf(f, "disk: %s%s%s%s\n", e->disk.text,
			disk_what[0] ? " (" : "", disk_what,
			disk_what[0] ? ")" : "");
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
		for (int r = 0; runs && r < repeat; r++)
			if (runs[c][r].failed)
				fprintf(f, "    run %d failed: %s\n", r,
					runs[c][r].why);
	}
}

static void table(const struct report *x, FILE *f, struct exp_run **runs,
		  char (*figs)[64], size_t nr_figs, int repeat)
{
	static const char *const always[] = {
		"elapsed_s", "maxrss_kb", "memory_peak_kb", "pgforeign",
	};
	const struct experiment *e = x->e;
	char counters[1024], *save = NULL;
	int w = 22;	/* the names' column: the longest name, at least 22 */

	for (size_t k = 0; k < nr_figs; k++)
		w = (int)strlen(figs[k]) + 6 > w ? (int)strlen(figs[k]) + 6 : w;
	snprintf(counters, sizeof(counters), "%s",
		 counter_list(e));
	for (char *name = strtok_r(counters, " \t", &save); name;
	     name = strtok_r(NULL, " \t", &save))
		w = (int)strlen(name) > w ? (int)strlen(name) : w;
	fprintf(f, "%s\n", e->title[0] ? e->title : "experiment");
	fprintf(f, "workload: %s\nbudget %s, swap %s, %d run%s each\n",
		e->workload, e->mem, e->swap[0] ? e->swap : "default", repeat,
		repeat > 1 ? "s" : "");
	exp_print_settings(f, e, x->disk_what, runs, repeat);
	fprintf(f, "\n%-*s", w, "");
	for (int c = 0; c < e->nr_configs; c++)
		fprintf(f, " %24s", e->configs[c].name);
	fprintf(f, "\n");
	for (size_t k = 0; k < nr_figs; k++) {
		struct stats b = stats_of(runs[0], repeat, figs[k]);
		bool hb = higher_better(e, figs[k]);

		fprintf(f, "Amean %-*s", w - 6, figs[k]);
		for (int c = 0; c < e->nr_configs; c++)
			cell(f, b, stats_of(runs[c], repeat, figs[k]), !c, hb,
			     all_failed(runs[c], repeat));
		fprintf(f, "\n");
	}
	/* Then the time, and the memory each side ran in: the largest
	 * process's peak RSS (VmHWM), the budget's peak use (the daemon's
	 * charged pages; the memory cgroup's max_usage_in_bytes), and the
	 * pages the pager left to the kernel, outside the budget. A row is
	 * printed if some run has it (a table of an older CSV has none). */
	for (size_t k = 0; k < sizeof(always) / sizeof(always[0]); k++) {
		struct stats b = stats_of(runs[0], repeat, always[k]);
		bool any = false;

		for (int c = 0; c < e->nr_configs; c++)
			any |= stats_of(runs[c], repeat, always[k]).n > 0;
		if (!any)
			continue;
		fprintf(f, "Amean %-*s", w - 6, always[k]);
		for (int c = 0; c < e->nr_configs; c++)
			cell(f, b, stats_of(runs[c], repeat, always[k]), !c,
			     false, all_failed(runs[c], repeat));
		fprintf(f, "\n");
	}
	fprintf(f, "\n%-*s", w, "pager counters");
	for (int c = 0; c < e->nr_configs; c++)
		fprintf(f, " %24s", e->configs[c].name);
	fprintf(f, "\n");
	snprintf(counters, sizeof(counters), "%s",
		 counter_list(e));
	for (char *name = strtok_r(counters, " \t", &save); name;
	     name = strtok_r(NULL, " \t", &save)) {
		fprintf(f, "%-*s", w, name);
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

static int write_csv(const struct report *x, struct exp_run **runs, int repeat)
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
			/* %.17g: read back, each value is the same double,
			 * so --report prints the same table to the digit
			 * (with 9 digits a mean at a rounding edge moved). */
			for (size_t k = 0; k < run->nr; k++)
				fprintf(f, "%s,%d,%s,%.17g\n",
					x->e->configs[c].name, r,
					run->vals[k].name, run->vals[k].v);
		}
	}
	return fclose(f);
}

/* The plotted figure per index, a line per configuration: plot.dat and
 * plot.gp, drawn with gnuplot into plot.png and plot.svg. */
/* Run gnuplot on OUT/plot.gp. */
static void draw(const struct report *x)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot plot.gp 2>/dev/null",
		 x->out);
	if (system(cmd))
		pgr_warn("gnuplot did not draw %s/plot.gp (is gnuplot "
			 "installed?); plot.dat has the numbers", x->out);
}

/* OUT/plot.gp, its title written; NULL if it cannot be made. */
static FILE *open_script(const struct report *x)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/plot.gp", x->out);
	f = fopen(path, "we");
	if (f)
		fprintf(f, "set title \"%s\" noenhanced\n",
			x->e->title[0] ? x->e->title : "experiment");
	return f;
}

/* The `plot` figure, per index: a line per configuration. */
static void plot_indexed(const struct report *x, struct exp_run **runs,
			 int repeat)
{
	const struct experiment *e = x->e;
	char path[PATH_MAX];
	double lo = INFINITY, hi = 0;
	long last = -1;
	FILE *f;

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
	f = open_script(x);
	if (!f)
		return;
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
	draw(x);
}

/*
 * Without a `plot` figure: each figure's and counter's mean (@names) as a
 * percentage of the base's, a bar per configuration with its standard
 * deviation, so the table's gains can be seen at a glance (log scale
 * when they span more than 100x; a name the base has as 0 is left out).
 */
static void plot_bars(const struct report *x, struct exp_run **runs,
		      char (*names)[64], size_t nr_names, int repeat)
{
	const struct experiment *e = x->e;
	char path[PATH_MAX];
	double lo = INFINITY, hi = 0;
	size_t rows = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/plot.dat", x->out);
	f = fopen(path, "we");
	if (!f)
		return;
	fprintf(f, "# figure, then per configuration: percent of %s, "
		"its sd\n", e->configs[0].name);
	for (size_t k = 0; k < nr_names; k++) {
		struct stats b = stats_of(runs[0], repeat, names[k]);

		if (!b.n || b.mean == 0)
			continue;
		fprintf(f, "%s", names[k]);
		for (int c = 0; c < e->nr_configs; c++) {
			struct stats s = stats_of(runs[c], repeat, names[k]);
			double pct = 100 * s.mean / b.mean;

			if (!s.n) {
				fprintf(f, " NaN NaN");
				continue;
			}
			fprintf(f, " %.6g %.6g", pct, 100 * s.sd / fabs(b.mean));
			if (pct > 0) {
				lo = fmin(lo, pct);
				hi = fmax(hi, pct);
			}
		}
		fprintf(f, "\n");
		rows++;
	}
	fclose(f);
	if (!rows)
		return;
	f = open_script(x);
	if (!f)
		return;
	fprintf(f, "set ylabel \"percent of %s\" noenhanced\n"
		"set key outside right\nset grid y\nset bmargin 9\n"
		"set style data histograms\n"
		"set style histogram errorbars gap 2 lw 1\n"
		"set style fill solid 0.6 border -1\nset xtics rotate by -30 "
		"noenhanced\nset datafile missing \"NaN\"\n",
		e->configs[0].name);
	if (lo > 0 && hi / lo > 100)
		fprintf(f, "set logscale y\n");
	else
		fprintf(f, "set yrange [0:*]\n");
	for (int t = 0; t < 2; t++) {
		fprintf(f, "set terminal %s size %zu,500\nset output \"%s\"\n",
			t ? "svg" : "png", rows > 10 ? 300 + 60 * rows : 900,
			t ? "plot.svg" : "plot.png");
		fprintf(f, "plot ");
		for (int c = 0; c < e->nr_configs; c++)
			fprintf(f, "%s\"plot.dat\" using %d:%d%s title \"%s\" "
				"noenhanced", c ? ", " : "", 2 + 2 * c, 3 + 2 * c,
				c ? "" : ":xtic(1)", e->configs[c].name);
		fprintf(f, "\n");
	}
	fclose(f);
	draw(x);
}

void exp_report(const struct experiment *e, const char *out,
		const char *disk_what, struct exp_run **runs, int repeat,
		bool write_results)
{
	const struct report x = { .e = e, .out = out, .disk_what = disk_what };
	char path[PATH_MAX], (*figs)[64] = pgr_xcalloc(1024, sizeof(*figs));
	struct exp_run *all = pgr_xcalloc((size_t)(e->nr_configs * repeat),
					  sizeof(*all));
	size_t nr_figs;
	FILE *f;

	for (int c = 0; c < e->nr_configs; c++)
		for (int r = 0; r < repeat; r++)
			all[c * repeat + r] = runs[c][r];
	nr_figs = figure_names(e, all, e->nr_configs * repeat, figs, 1024);
	free(all);
	table(&x, stdout, runs, figs, nr_figs, repeat);
	snprintf(path, sizeof(path), "%s/table.txt", out);
	f = fopen(path, "we");
	if (f) {
		table(&x, f, runs, figs, nr_figs, repeat);
		fclose(f);
	}
	if (write_results && write_csv(&x, runs, repeat))
		pgr_warn("cannot write %s/results.csv", out);
	if (e->plot[0]) {
		plot_indexed(&x, runs, repeat);
	} else {
		/* The counters of the table too, after the figures. */
		char counters[1024], *save = NULL;
		size_t n = nr_figs;

		snprintf(counters, sizeof(counters), "%s",
			 counter_list(e));
		for (char *c = strtok_r(counters, " \t", &save); c && n < 1024;
		     c = strtok_r(NULL, " \t", &save))
			snprintf(figs[n++], 64, "%s", c);
		plot_bars(&x, runs, figs, n, repeat);
	}
	printf("\n(results in %s: table.txt, results.csv, plot.png, "
	       "plot.svg%s)\n", out, write_results ? ", each run's .out, "
	       ".err and .daemon.log" : "");
	free(figs);
}

int exp_read_results(const struct experiment *e, const char *path,
		     struct exp_run **runs, int *repeat, char *err, size_t len)
{
	FILE *f = fopen(path, "re");
	char line[512];
	int lineno = 0, n = 0;

	*repeat = 0;
	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (int c = 0; c < e->nr_configs; c++)
		runs[c] = pgr_xcalloc(EXP_MAX_REPEAT, sizeof(**runs));
	while (fgets(line, sizeof(line), f)) {
		char *cfg = line, *run, *name, *val, *end;
		long r;
		int c;

		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		if (lineno == 1 && !strcmp(line, "config,run,name,value"))
			continue;
		run = strchr(cfg, ',');
		name = run ? strchr(run + 1, ',') : NULL;
		val = name ? strchr(name + 1, ',') : NULL;
		if (!val) {
			snprintf(err, len, "%s:%d: expected config,run,name,"
				 "value", path, lineno);
			goto bad;
		}
		*run++ = 0;
		*name++ = 0;
		*val++ = 0;
		for (c = 0; c < e->nr_configs; c++)
			if (!strcmp(e->configs[c].name, cfg))
				break;
		r = strtol(run, &end, 10);
		if (c == e->nr_configs || *end || end == run || r < 0 ||
		    r >= EXP_MAX_REPEAT) {
			snprintf(err, len, "%s:%d: configuration '%.48s' run "
				 "'%.16s' is not in the experiment file", path,
				 lineno, cfg, run);
			goto bad;
		}
		if (!strcmp(name, "failed")) {
			runs[c][r].failed = true;
			snprintf(runs[c][r].why, sizeof(runs[c][r].why), "%.*s",
				 (int)strcspn(val + (*val == '"'), "\""),
				 val + (*val == '"'));
		} else {
			double v = strtod(val, &end);

			if (end == val || *end) {
				snprintf(err, len, "%s:%d: '%.32s' is not a "
					 "number", path, lineno, val);
				goto bad;
			}
			exp_run_add(&runs[c][r], name, v);
		}
		n = (int)r + 1 > n ? (int)r + 1 : n;
	}
	fclose(f);
	if (!n) {
		snprintf(err, len, "%s: no results", path);
		exp_release_runs(e, runs, EXP_MAX_REPEAT);
		return -1;
	}
	/* Ratios the file has gained since the runs. */
	for (int c = 0; c < e->nr_configs; c++)
		for (int r = 0; r < n; r++)
			exp_add_ratios(e, &runs[c][r]);
	*repeat = n;
	return 0;
bad:
	fclose(f);
	exp_release_runs(e, runs, EXP_MAX_REPEAT);
	return -1;
}

void exp_release_runs(const struct experiment *e, struct exp_run **runs,
		      int repeat)
{
	for (int c = 0; c < e->nr_configs; c++) {
		for (int r = 0; runs[c] && r < repeat; r++)
			free(runs[c][r].vals);
		free(runs[c]);
		runs[c] = NULL;
	}
}
