// SPDX-License-Identifier: MIT
/*
 * nspid.c - process ids as the daemon knows them: /proc/PID/status's, and
 * those a client gives in its own PID namespace, as the daemon's.
 *
 * A program in a PID namespace of its own (unshare --pid, bubblewrap,
 * Chromium's zygote and renderers) knows itself by the number its
 * namespace gives it: its hello says "hello 1", its agent's pid is 2, and
 * the thread ids of its userfaultfd's faults are its namespace's too (the
 * kernel reports task_pid_vnr() of the faulting thread). The socket's
 * credentials and the seccomp notifications are the daemon's own (the
 * kernel translates those). The last field of /proc/PID/status's NSpid
 * line is the number the process has in its innermost namespace: that is
 * how a number said is matched to a process the daemon can name.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"

pid_t pgr_status_pid(pid_t pid, const char *key)
{
	char path[64], line[128];
	size_t len = strlen(key);
	pid_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = (pid_t)atoi(line + len + 1);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

pid_t pgr_tgid_of(pid_t tid)
{
	pid_t tgid = pgr_status_pid(tid, "Tgid");

	return tgid ? tgid : tid;
}

/* The innermost of @pid's numbers (its own namespace's), 0 if gone;
 * @depth: how many namespaces number it. */
static pid_t innermost(pid_t pid, int *depth)
{
	char path[64], line[256];
	pid_t last = 0;
	FILE *f;

	*depth = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *s = line + 6, *end;

		if (strncmp(line, "NSpid:", 6))
			continue;
		for (long v; (v = strtol(s, &end, 10)) > 0 && end != s; s = end) {
			last = (pid_t)v;
			++*depth;
		}
		break;
	}
	fclose(f);
	return last;
}

/* Does @a's PID namespace hold @b (the same /proc/PID/ns/pid)? */
static bool same_ns(pid_t a, pid_t b)
{
	char pa[64], pb[64], la[64], lb[64];
	ssize_t na, nb;

	snprintf(pa, sizeof(pa), "/proc/%d/ns/pid", (int)a);
	snprintf(pb, sizeof(pb), "/proc/%d/ns/pid", (int)b);
	na = readlink(pa, la, sizeof(la));
	nb = readlink(pb, lb, sizeof(lb));
	return na > 0 && na == nb && !memcmp(la, lb, (size_t)na);
}

bool pgr_ns_nested(pid_t pid)
{
	int depth;

	innermost(pid, &depth);
	return depth > 1;
}

bool pgr_ns_is(pid_t pid, pid_t said)
{
	int depth;

	return said == pid || (said > 0 && innermost(pid, &depth) == said);
}

pid_t pgr_ns_find(pid_t near, pid_t said)
{
	pid_t found = 0;
	struct dirent *d;
	DIR *proc;
	int depth;

	if (!pgr_ns_nested(near))
		return said;
	proc = opendir("/proc");
	while (proc && !found && (d = readdir(proc))) {
		pid_t pid = (pid_t)atoi(d->d_name);

		if (pid > 0 && innermost(pid, &depth) == said && depth > 1 &&
		    same_ns(pid, near))
			found = pid;
	}
	if (proc)
		closedir(proc);
	return found;
}

int pgr_ns_children(pid_t parent, pid_t said,
		    bool (*taken)(void *arg, pid_t pid), void *arg,
		    pid_t *out, int max)
{
	char path[64];
	struct dirent *d;
	DIR *tasks;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)parent);
	tasks = opendir(path);
	while (tasks && (d = readdir(tasks))) {
		char kids[96];
		FILE *f;
		int kid;

		if (d->d_name[0] == '.' || strlen(d->d_name) > 16)
			continue;
		snprintf(kids, sizeof(kids), "/proc/%d/task/%s/children",
			 (int)parent, d->d_name);
		f = fopen(kids, "re");
		while (f && fscanf(f, "%d", &kid) == 1)
			if (pgr_ns_is(kid, said) && !taken(arg, kid) &&
			    n++ < max)
				out[n - 1] = kid;
		if (f)
			fclose(f);
	}
	if (tasks)
		closedir(tasks);
	return n;
}
