/* SPDX-License-Identifier: MIT */
/*
 * disk.c - the disk of an experiment: the kernel's block-I/O
 * throttling (cgroup v2 io.max, or v1 blkio.throttle.*) on the disks that
 * hold the experiment's files and swap, for every process of its runs.
 *
 * Why: a patch's published gain may be its disk's. A laptop disk of 2009
 * paid a seek (milliseconds) for every random swap-in while it streamed
 * a file at tens of MB/s; this machine's virtio disk reads 4 KiB in tens
 * of microseconds. The same bios, rate-limited by the kernel's own
 * throttle, give a run the cost structure of a slower disk without a
 * device of our own (device-mapper's dm-delay is not on every kernel).
 *
 * The group is made once per experiment, beside the machine's other
 * groups at the hierarchy's root (v2 allows controllers there whatever
 * processes it holds); the daemon and the workload enter it before they
 * exec, so the pager's io_uring swap and file reads and the workload's
 * own I/O are all throttled. Limits apply to whole disks: a partition's
 * own limits are refused by the kernel.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "experiment.h"

#define MAX_DISKS 4

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%.4000s/%.64s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		rc = -1;
	if (close(fd))
		rc = -1;
	return rc;
}

/* The mount point of the cgroup hierarchy that has the block-I/O
 * controller: v2 with "io" in its cgroup.controllers, else v1 "blkio". */
static int find_hierarchy(char *mnt, size_t len, bool *v2)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], v1[PATH_MAX] = "";

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char point[PATH_MAX], fstype[64], opts[1024], ctl[PATH_MAX];
		char *sep = strstr(line, " - ");
		FILE *c;

		/* ID PARENT M:m ROOT POINT OPTS... - FSTYPE SOURCE SUPEROPTS */
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
		    sscanf(sep + 3, "%63s %*s %1023s", fstype, opts) != 2)
			continue;
		if (!strcmp(fstype, "cgroup2")) {
			char have[1024] = "";

			snprintf(ctl, sizeof(ctl), "%.4000s/cgroup.controllers",
				 point);
			c = fopen(ctl, "re");
			if (c && fgets(have, sizeof(have), c)) {
				for (char *t = strtok(have, " \n"); t;
				     t = strtok(NULL, " \n")) {
					if (!strcmp(t, "io")) {
						fclose(c);
						fclose(f);
						snprintf(mnt, len, "%s", point);
						*v2 = true;
						return 0;
					}
				}
			}
			if (c)
				fclose(c);
		} else if (!strcmp(fstype, "cgroup")) {
			for (char *t = strtok(opts, ","); t; t = strtok(NULL, ","))
				if (!strcmp(t, "blkio"))
					snprintf(v1, sizeof(v1), "%s", point);
		}
	}
	fclose(f);
	if (!v1[0])
		return -1;
	snprintf(mnt, len, "%s", v1);
	*v2 = false;
	return 0;
}

/* The whole disk under @path, as "MAJ:MIN". */
static int disk_of(const char *path, char *dev, size_t len, char *err,
		   size_t errlen)
{
	char sys[PATH_MAX], real[PATH_MAX], num[32] = "";
	struct stat st;
	FILE *f;

	if (stat(path, &st)) {
		snprintf(err, errlen, "disk: %s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_dev),
		 minor(st.st_dev));
	if (!realpath(sys, real)) {
		snprintf(err, errlen, "disk: %s is on device %u:%u, not a "
			 "block device (tmpfs, overlay?): nothing to throttle",
			 path, major(st.st_dev), minor(st.st_dev));
		return -1;
	}
	snprintf(sys, sizeof(sys), "%.4000s/partition", real);
	if (!access(sys, F_OK))
		snprintf(sys, sizeof(sys), "%.4000s/../dev", real);
	else
		snprintf(sys, sizeof(sys), "%.4000s/dev", real);
	f = fopen(sys, "re");
	if (!f || !fgets(num, sizeof(num), f)) {
		if (f)
			fclose(f);
		snprintf(err, errlen, "disk: cannot read %s", sys);
		return -1;
	}
	fclose(f);
	num[strcspn(num, "\n")] = 0;
	snprintf(dev, len, "%s", num);
	return 0;
}

static int set_v2(const char *group, const char *dev,
		  const struct exp_disk *d)
{
	char line[256], v[4][32];
	const uint64_t lim[4] = { d->rbps, d->wbps, d->riops, d->wiops };

	for (int k = 0; k < 4; k++) {
		if (lim[k])
			snprintf(v[k], sizeof(v[k]), "%" PRIu64, lim[k]);
		else
			snprintf(v[k], sizeof(v[k]), "max");
	}
	snprintf(line, sizeof(line), "%.31s rbps=%s wbps=%s riops=%s wiops=%s",
		 dev, v[0], v[1], v[2], v[3]);
	return write_file(group, "io.max", line);
}

static int set_v1(const char *group, const char *dev,
		  const struct exp_disk *d)
{
	static const char *const file[4] = {
		"blkio.throttle.read_bps_device",
		"blkio.throttle.write_bps_device",
		"blkio.throttle.read_iops_device",
		"blkio.throttle.write_iops_device",
	};
	const uint64_t lim[4] = { d->rbps, d->wbps, d->riops, d->wiops };

	for (int k = 0; k < 4; k++) {
		char line[64];

		if (!lim[k])
			continue;
		snprintf(line, sizeof(line), "%.31s %" PRIu64, dev, lim[k]);
		if (write_file(group, file[k], line))
			return -1;
	}
	return 0;
}

/* The groups of experiments that were killed (SIGKILL gives no chance to
 * remove them): pager-experiment-PID whose PID is gone, and empty (a
 * group with processes in it refuses rmdir). */
static void sweep_stale(const char *mnt)
{
	DIR *dir = opendir(mnt);
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		char path[PATH_MAX], *end;
		long pid;

		if (strncmp(e->d_name, "pager-experiment-", 17))
			continue;
		pid = strtol(e->d_name + 17, &end, 10);
		if (*end || pid <= 0 || pid > INT32_MAX ||
		    !(kill((pid_t)pid, 0) && errno == ESRCH))
			continue;
		snprintf(path, sizeof(path), "%.3800s/%.255s", mnt, e->d_name);
		rmdir(path);
	}
	closedir(dir);
}

int exp_disk_open(const struct exp_disk *d, const char *const *paths,
		  int nr_paths, struct exp_disk_group *g, char *err,
		  size_t errlen)
{
	char mnt[PATH_MAX], devs[MAX_DISKS][32];
	int nr_devs = 0, n;
	bool v2;

	for (int k = 0; k < nr_paths; k++) {
		char dev[32];
		bool seen = false;

		if (disk_of(paths[k], dev, sizeof(dev), err, errlen))
			return -1;
		for (int j = 0; j < nr_devs; j++)
			seen = seen || !strcmp(devs[j], dev);
		if (!seen && nr_devs < MAX_DISKS)
			snprintf(devs[nr_devs++], sizeof(devs[0]), "%s", dev);
	}
	if (find_hierarchy(mnt, sizeof(mnt), &v2)) {
		snprintf(err, errlen, "disk: no cgroup hierarchy with the "
			 "block-I/O controller (v2 \"io\" or v1 \"blkio\") "
			 "is mounted");
		return -1;
	}
	/* v2: controllers reach a child only through its parent's
	 * subtree_control; the root may enable them with processes in it. */
	if (v2)
		write_file(mnt, "cgroup.subtree_control", "+io");
	sweep_stale(mnt);
	snprintf(g->dir, sizeof(g->dir), "%.4000s/pager-experiment-%d", mnt,
		 (int)getpid());
	if (mkdir(g->dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "disk: cannot make %s: %s", g->dir,
			 strerror(errno));
		return -1;
	}
	n = snprintf(g->what, sizeof(g->what), "cgroup %s on", v2 ?
		     "v2 io.max" : "v1 blkio.throttle");
	for (int k = 0; k < nr_devs; k++) {
		if (v2 ? set_v2(g->dir, devs[k], d) : set_v1(g->dir, devs[k], d)) {
			snprintf(err, errlen, "disk: the kernel refused the "
				 "limits of %s in %s: %s", devs[k], g->dir,
				 strerror(errno));
			rmdir(g->dir);
			return -1;
		}
		if (n > 0 && (size_t)n < sizeof(g->what))
			n += snprintf(g->what + n, sizeof(g->what) - (size_t)n,
				      " %s", devs[k]);
	}
	return 0;
}

int exp_disk_enter(const char *group)
{
	char pid[24];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return write_file(group, "cgroup.procs", pid);
}

void exp_disk_close(const char *group)
{
	/* The runs have been waited for; their last threads may take a
	 * moment to leave the group. */
	for (int k = 0; k < 100 && rmdir(group) && errno == EBUSY; k++)
		usleep(20000);
}
