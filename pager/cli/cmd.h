/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the subcommands of `pager`, each in its own cmd-*.c, and the
 * usage-error helper they share. Each returns the process exit status:
 * 0 success, 1 failure, 2 usage error.
 */
#ifndef PGR_CMD_H
#define PGR_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

int cmd_sim(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_vmstat(int argc, char **argv);
int cmd_reclaim(int argc, char **argv);
int cmd_lru_gen(int argc, char **argv);
int cmd_idle(int argc, char **argv);
int cmd_experiment(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_phase(int argc, char **argv);

/* Options shared by `pager daemon` and `pager run` (cmd-daemon.c). */
struct daemon_args {
	uint64_t mem;			/* bytes */
	const char *swap;		/* --swap: a file, zram[:ALG],
					 * redis://...; NULL: a temporary file */
	uint64_t swap_size;		/* bytes, 0: twice the budget */
	bool no_swap;
	const char *socket;
	const char **sets;
	size_t nr_sets;
	const char *log;
	const char *record;		/* --record FILE */
	int verbose;
	uid_t allow_uids[16];		/* --allow-uid (pager daemon) */
	int nr_allow_uids;
};

struct pgr_opts;
void daemon_args_init(struct daemon_args *a);
/* One getopt result (m s S n k e l r v); 0, or the usage error's status. */
int daemon_parse_opt(struct daemon_args *a, int c, const char *arg,
		     const char *usage);
int daemon_opts(struct daemon_args *a, struct pgr_opts *o, char *swap_buf,
		size_t len);
void daemon_logging(const struct daemon_args *a);

/* Print "pager: MESSAGE" (if any) and @usage to stderr; return 2. */
int pgr_usage_error(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* PGR_CMD_H */
