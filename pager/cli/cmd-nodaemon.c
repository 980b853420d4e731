/* SPDX-License-Identifier: MIT */
/*
 * cmd-nodaemon.c - the daemon's commands in a build without liburing,
 * libuv or libseccomp: they say so. (`pager sim` needs none of them.)
 */
#include <stdio.h>

#include "cmd.h"

static int missing(void)
{
	fputs("pager: this pager was built without liburing, libuv and "
	      "libseccomp; install their -dev packages and reconfigure\n",
	      stderr);
	return 1;
}

int cmd_daemon(int argc, char **argv) { return missing(); }
int cmd_run(int argc, char **argv) { return missing(); }
int cmd_set(int argc, char **argv) { return missing(); }
int cmd_get(int argc, char **argv) { return missing(); }
int cmd_stat(int argc, char **argv) { return missing(); }
int cmd_vmstat(int argc, char **argv) { return missing(); }
int cmd_reclaim(int argc, char **argv) { return missing(); }
int cmd_idle(int argc, char **argv) { return missing(); }
int cmd_experiment(int argc, char **argv) { return missing(); }
int cmd_trace(int argc, char **argv) { return missing(); }
int cmd_phase(int argc, char **argv) { return missing(); }
