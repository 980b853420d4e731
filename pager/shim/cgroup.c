/* SPDX-License-Identifier: MIT */
/*
 * cgroup.c - the agent follows its program from one cgroup to another.
 *
 * The agent is a process of its own that shares the program's memory.
 * A program that moves itself out of a cgroup (writes its pid to another
 * group's cgroup.procs or tasks) would leave its agent behind, and the
 * group it left could not be removed: rmdir says EBUSY while a process
 * is in it (a program started in a group by `echo $$ > cgroup.procs;
 * exec prog`, which moves itself out at the end and removes the group).
 * So when the program's write of its own pid (or 0: "the writer") to
 * such a file succeeds, the agent's pid is written there too, with the
 * program's own rights. Only files opened by path are seen
 * (shim_cgroup_note()), and a descriptor is checked to be on a cgroup file
 * system before anything is written.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "../lib/compat.h"
#include "shim.h"
#include "sys.h"

#define CGROUP_SUPER_MAGIC	0x27e0eb
#define CGROUP2_SUPER_MAGIC	0x63677270

static bool opened;	/* a cgroup.procs or tasks file was opened */

static bool ends_with(const char *s, size_t n, const char *tail)
{
	size_t t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

void shim_cgroup_note(const char *path)
{
	size_t n = strlen(path);

	if (ends_with(path, n, "/cgroup.procs") || ends_with(path, n, "/tasks"))
		opened = true;
}

void shim_cgroup_wrote(int fd, const void *buf, size_t n, ssize_t r)
{
	char num[24], line[24];
	struct statfs fs;
	long pid;
	int len;

	if (!opened || r <= 0 || !shim.agent_pid || n >= sizeof(num))
		return;
	memcpy(num, buf, n);
	num[n] = 0;
	pid = strtol(num, NULL, 10);
	if ((pid != getpid() && pid != 0) || fstatfs(fd, &fs) ||
	    (fs.f_type != CGROUP_SUPER_MAGIC && fs.f_type != CGROUP2_SUPER_MAGIC))
		return;
	len = snprintf(line, sizeof(line), "%d\n", shim.agent_pid);
	int saved = errno;

	/* Marked: not a write pager run's filter needs to see. */
	if (sys6(SYS_write, fd, (long)line, len, 0, 0,
		 (long)PGR_SYSCALL_MARKER) < 0)
		shim_say("the agent of process %d did not follow it to its new "
			 "cgroup: that group's rmdir may say EBUSY",
			 (int)getpid());
	errno = saved;
}
