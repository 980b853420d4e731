/* SPDX-License-Identifier: MIT */
/*
 * main.c - `pager COMMAND [ARGS]`: one command with subcommands, in the
 * manner of git or ip. Options are parsed by each subcommand.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "run", cmd_run, "run a program with its memory under the pager" },
	{ "daemon", cmd_daemon, "run a standing pager daemon" },
	{ "set", cmd_set, "change tunables of a running daemon" },
	{ "get", cmd_get, "read tunables of a running daemon" },
	{ "stat", cmd_stat, "counters, in total, per group or per process" },
	{ "vmstat", cmd_vmstat, "counters over time, as vmstat(8)" },
	{ "reclaim", cmd_reclaim, "reclaim memory now, as memory.reclaim" },
	{ "lru-gen", cmd_lru_gen, "age or evict MGLRU generations, as debugfs lru_gen" },
	{ "idle", cmd_idle, "mark pages idle, as page_idle" },
	{ "trace", cmd_trace, "stream reclaim events as mm_vmscan_* lines" },
	{ "phase", cmd_phase, "mark a phase in the record and the trace" },
	{ "experiment", cmd_experiment, "run a seed experiment: configurations compared" },
	{ "sim", cmd_sim, "replay a page-reference trace through a policy" },
	{ "gen", cmd_gen, "generate a synthetic trace" },
	{ "convert", cmd_convert, "convert a trace between formats" },
};

int pgr_usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fputs("pager: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fputs(usage, stderr);
	return 2;
}

static void help(FILE *out)
{
	fputs("usage: pager COMMAND [ARGS]\n\ncommands:\n", out);
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].help);
	fputs("\n'pager COMMAND --help' describes each. docs/ has the rest.\n",
	      out);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		help(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("pager " PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "pager: unknown command '%s'\n", argv[1]);
	help(stderr);
	return 2;
}
