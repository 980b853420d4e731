/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the subcommands of `pager`, each in its own cmd-*.c, and the
 * usage-error helper they share. Each returns the process exit status:
 * 0 success, 1 failure, 2 usage error.
 */
#ifndef PGR_CMD_H
#define PGR_CMD_H

int cmd_sim(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_convert(int argc, char **argv);

/* Print "pager: MESSAGE" (if any) and @usage to stderr; return 2. */
int pgr_usage_error(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* PGR_CMD_H */
