/* SPDX-License-Identifier: MIT */
/*
 * native.c - a configuration run by the kernel itself (`config NAME
 * native`): the workload without the pager, in a memory cgroup limited to
 * the experiment's budget, beside the pager's configurations in the same
 * table.
 *
 * For each run: the page cache is dropped; a memory cgroup is made (v2's
 * memory.max where cgroup v2 has the memory controller, else v1's
 * memory.limit_in_bytes); the swaps that are on are turned off, and with
 * `swap SIZE` (or the pager's default size) a swap file of that size is
 * made and turned on for the run alone (with the configuration's
 * swap=zram[:ALG], the kernel's zram0 of that size instead, reset before
 * and after: the kernel's own beside the pager's `--swap zram`); the
 * configuration's settings, and
 * the experiment's `set` lines the kernel has too (read_ahead_kb of the
 * working directory's disk, fault_around_bytes), are written where the
 * kernel keeps them (put back after). The workload runs
 * in the cgroup; its counters are the deltas of /proc/vmstat, with the
 * cgroup's own where it keeps one (v2's memory.stat; v1's pgfault and
 * pgmajfault), under the pager's names, which are the kernel's; a counter
 * the kernel has not (the pager's own, its phases) is left out and shows
 * as "-". oom_kill is the cgroup's. Root only.
 *
 * Owns: the run's cgroup, swap file (or zram0) and the settings it
 * changed, until exp_native_close() puts everything back.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "experiment.h"
#include "../lib/util.h"

#define CG1	"/sys/fs/cgroup/memory"
#define CG2	"/sys/fs/cgroup"

#define VM	"/proc/sys/vm/"
#define ZSWAP	"/sys/module/zswap/parameters/"

/* The settings a native configuration may have: the kernel's own. (The
 * kernel's zswap.max_pool_percent is of the machine's RAM, the pager's of
 * its budget.) */
static const struct {
	const char *key;
	const char *path;
} kernel_keys[] = {
	{ "vm.swappiness", VM "swappiness" },
	{ "vm.watermark_scale_factor", VM "watermark_scale_factor" },
	{ "vm.page-cluster", VM "page-cluster" },
	{ "vm.min_free_kbytes", VM "min_free_kbytes" },
	{ "vm.vfs_cache_pressure", VM "vfs_cache_pressure" },
	{ "vm.min_filelist_kbytes", VM "min_filelist_kbytes" },	/* ChromeOS */
	{ "zswap.enabled", ZSWAP "enabled" },
	{ "zswap.compressor", ZSWAP "compressor" },
	{ "zswap.max_pool_percent", ZSWAP "max_pool_percent" },
	{ "zswap.accept_threshold_percent", ZSWAP "accept_threshold_percent" },
};

static bool v2_memory(void)
{
	char buf[512];
	FILE *f = fopen(CG2 "/cgroup.controllers", "re");
	bool yes = f && fgets(buf, sizeof(buf), f) && strstr(buf, "memory");

	if (f)
		fclose(f);
	return yes;
}

static int write_file(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, v, strlen(v)) != (ssize_t)strlen(v))
		err = -errno;
	close(fd);
	return err;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static const char *sysctl_of(const char *key)
{
	for (size_t k = 0; k < sizeof(kernel_keys) / sizeof(kernel_keys[0]);
	     k++)
		if (!strcmp(key, kernel_keys[k].key))
			return kernel_keys[k].path;
	return NULL;
}

/* ---- the kernel's zram as the run's swap (swap=zram[:ALG]) -------------- */

#define ZRAM	"/sys/block/zram0"

/* Is there a zram0 here that offers the compressor? */
static int zram_check(const char *dev, char *why, size_t len)
{
	const char *alg = pgr_zram_spec(dev);
	char algs[256] = "", words[256];
	FILE *f;

	if (!alg) {
		snprintf(why, len, "swap=%s: a native configuration swaps to "
			 "the experiment's file, or to zram[:ALG]", dev);
		return -1;
	}
	f = fopen(ZRAM "/comp_algorithm", "re");
	if (!f || !fgets(algs, sizeof(algs), f)) {
		snprintf(why, len, "swap=%s: this kernel has no zram0 "
			 "(modprobe zram)", dev);
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	algs[strcspn(algs, "\n")] = 0;
	snprintf(words, sizeof(words), "%s", algs);
	for (char *t = strtok(words, " []"); t; t = strtok(NULL, " []"))
		if (!strcmp(t, alg))
			return 0;
	snprintf(why, len, "swap=%s: this kernel's zram has no %s (it has: "
		 "%s)", dev, alg, algs);
	return -1;
}

int exp_native_check(const struct exp_config *c, char *why, size_t len)
{
	if (geteuid()) {
		snprintf(why, len, "a native configuration needs root (a "
			 "memory cgroup, swap)");
		return -1;
	}
	if (!v2_memory() && access(CG1 "/memory.limit_in_bytes", W_OK)) {
		snprintf(why, len, "no memory cgroup controller here (cgroup "
			 "v2's, or v1's at " CG1 ")");
		return -1;
	}
	for (int k = 0; k < c->nr_sets; k++) {
		char key[96];
		const char *p;

		if (!strncmp(c->sets[k], "swap=", 5)) {
			if (zram_check(c->sets[k] + 5, why, len))
				return -1;
			continue;
		}
		snprintf(key, sizeof(key), "%.*s",
			 (int)strcspn(c->sets[k], "="), c->sets[k]);
		p = sysctl_of(key);
		if (!p || access(p, W_OK)) {
			snprintf(why, len, "%s is not a setting this kernel "
				 "has (a native configuration takes the "
				 "kernel's own: vm.swappiness, "
				 "vm.watermark_scale_factor, vm.page-cluster, "
				 "zswap.enabled, ...)", key);
			return -1;
		}
	}
	return 0;
}

/* ---- the run's machine ------------------------------------------------------ */


/* Turn off every swap that is on (kept to turn on again). */
static void swaps_off(struct exp_native *n)
{
	char line[512], path[400];
	FILE *f = fopen("/proc/swaps", "re");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%399s", path) != 1 || path[0] != '/' ||
		    n->nr_swaps_off == EXP_NATIVE_SWAPS)
			continue;
		if (!swapoff(path))
			snprintf(n->swaps_off[n->nr_swaps_off++],
				 sizeof(n->swaps_off[0]), "%s", path);
	}
	if (f)
		fclose(f);
}

/* mkswap @path: 0, or -1. */
static int mkswap(const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execlp("mkswap", "mkswap", path, (char *)NULL);
		execl("/sbin/mkswap", "mkswap", path, (char *)NULL);
		_exit(127);
	}
	return pid < 0 || waitpid(pid, &status, 0) != pid ||
	       !WIFEXITED(status) || WEXITSTATUS(status) ? -1 : 0;
}

static int make_swap(struct exp_native *n, uint64_t bytes, char *why,
		     size_t len)
{
	int fd;

	snprintf(n->swapfile, sizeof(n->swapfile), "%s/pager-native-swap.%d",
		 pgr_tmp_dir(), (int)getpid());
	fd = open(n->swapfile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || fallocate(fd, 0, 0, (off_t)bytes)) {
		snprintf(why, len, "cannot make the swap file %s: %s",
			 n->swapfile, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(n->swapfile);
		n->swapfile[0] = 0;
		return -1;
	}
	close(fd);
	if (mkswap(n->swapfile) || swapon(n->swapfile, 0)) {
		snprintf(why, len, "cannot turn the swap file %s on (mkswap, "
			 "swapon): %s", n->swapfile, strerror(errno));
		unlink(n->swapfile);
		n->swapfile[0] = 0;
		return -1;
	}
	return 0;
}

/* zram0 reset, then @bytes of swap compressed with @alg, turned on. */
static int zram_on(struct exp_native *n, const char *dev, uint64_t bytes,
		   char *why, size_t len)
{
	const char *alg = pgr_zram_spec(dev);
	char v[32];

	snprintf(v, sizeof(v), "%llu", (unsigned long long)bytes);
	if (write_file(ZRAM "/reset", "1") ||
	    write_file(ZRAM "/comp_algorithm", alg) ||
	    write_file(ZRAM "/disksize", v) || mkswap("/dev/zram0") ||
	    swapon("/dev/zram0", 0)) {
		snprintf(why, len, "cannot set up zram0 with %s as swap: %s",
			 alg, strerror(errno));
		write_file(ZRAM "/reset", "1");
		return -1;
	}
	n->zram = true;
	return 0;
}

static void zram_off(struct exp_native *n)
{
	if (!n->zram)
		return;
	if (swapoff("/dev/zram0"))
		pgr_warn("cannot turn zram0 off: %s", strerror(errno));
	else
		write_file(ZRAM "/reset", "1");
	n->zram = false;
}

static void read_vmstat(struct exp_run *into)
{
	char name[64];
	double v;
	FILE *f = fopen("/proc/vmstat", "re");

	while (f && fscanf(f, "%63s %lf", name, &v) == 2)
		exp_run_add(into, name, v);
	if (f)
		fclose(f);
}

/* Write @value to @path, keeping what was there to put back. */
static void set_file(struct exp_native *n, const char *path,
		     const char *value)
{
	if (n->nr_sysctls == EXP_NATIVE_SYSCTLS)
		return;
	snprintf(n->sysctls[n->nr_sysctls].path, sizeof(n->sysctls[0].path),
		 "%s", path);
	if (read_file(path, n->sysctls[n->nr_sysctls].old,
		      sizeof(n->sysctls[0].old)))
		return;
	if (!write_file(path, value))
		n->nr_sysctls++;
}

/*
 * The experiment's `set` lines that the kernel has too, where it keeps
 * them: read_ahead_kb on the disk of the working directory (the pager's
 * default is that disk's too), fault_around_bytes in debugfs. The rest
 * tune the pager alone.
 */
static void common_sets(const struct experiment *e, const char *work,
			struct exp_native *n)
{
	for (int k = 0; k < e->nr_common; k++) {
		const char *kv = e->common[k], *v = strchr(kv, '=');
		char path[128];
		struct stat st;

		if (!v)
			continue;
		v++;
		if (!strncmp(kv, "read_ahead_kb=", 14) && !stat(work, &st)) {
			/* A partition's queue is its disk's. */
			snprintf(path, sizeof(path),
				 "/sys/dev/block/%u:%u/queue/read_ahead_kb",
				 major(st.st_dev), minor(st.st_dev));
			if (access(path, W_OK))
				snprintf(path, sizeof(path), "/sys/dev/block/"
					 "%u:%u/../queue/read_ahead_kb",
					 major(st.st_dev), minor(st.st_dev));
			set_file(n, path, v);
		} else if (!strncmp(kv, "fault_around_bytes=", 19)) {
			set_file(n, "/sys/kernel/debug/fault_around_bytes", v);
		}
	}
}

int exp_native_open(const struct experiment *e, const struct exp_config *c,
		    const char *work, int run, struct exp_native *n,
		    char *why, size_t len)
{
	char path[PATH_MAX + 64], v[64];
	const char *dev = NULL;		/* swap=zram[:ALG] */
	uint64_t mem, swap;

	memset(n, 0, sizeof(*n));
	if (pgr_parse_size(e->mem, &mem)) {
		snprintf(why, len, "the budget '%s' is no size", e->mem);
		return -1;
	}
	if (!strcmp(e->swap, "none"))
		swap = 0;
	else if (!e->swap[0])	/* the pager's default (cmd-daemon.c) */
		swap = mem * 4 > (1ULL << 30) ? mem * 4 : 1ULL << 30;
	else if (pgr_parse_size(e->swap, &swap)) {
		snprintf(why, len, "the swap '%s' is no size", e->swap);
		return -1;
	}
	/* The machine as the run should find it: no page cache of an
	 * earlier run, no swap but the run's. */
	sync();
	write_file("/proc/sys/vm/drop_caches", "3");
	swaps_off(n);
	for (int k = 0; k < c->nr_sets; k++)
		if (!strncmp(c->sets[k], "swap=", 5))
			dev = c->sets[k] + 5;
	for (int k = 0; dev && k < n->nr_swaps_off; k++) {
		if (!strcmp(n->swaps_off[k], "/dev/zram0")) {
			snprintf(why, len, "zram0 is this machine's swap: it "
				 "is not taken for a run");
			exp_native_close(n);
			return -1;
		}
	}
	if (swap && (dev ? zram_on(n, dev, swap, why, len) :
		     make_swap(n, swap, why, len))) {
		exp_native_close(n);
		return -1;
	}
	n->v2 = v2_memory();
	snprintf(n->cg, sizeof(n->cg), "%s/pager-exp-%d-%s-%d",
		 n->v2 ? CG2 : CG1, (int)getpid(), c->name, run);
	if (mkdir(n->cg, 0755)) {
		snprintf(why, len, "cannot make the memory cgroup %s: %s",
			 n->cg, strerror(errno));
		n->cg[0] = 0;
		exp_native_close(n);
		return -1;
	}
	snprintf(v, sizeof(v), "%llu", (unsigned long long)mem);
	snprintf(path, sizeof(path), "%s/%s", n->cg,
		 n->v2 ? "memory.max" : "memory.limit_in_bytes");
	if (write_file(path, v)) {
		snprintf(why, len, "cannot limit %s to %s", n->cg, e->mem);
		exp_native_close(n);
		return -1;
	}
	for (int k = 0; k < c->nr_sets; k++) {
		char key[96];
		const char *val = strchr(c->sets[k], '=') + 1;

		if (!strncmp(c->sets[k], "swap=", 5))
			continue;
		snprintf(key, sizeof(key), "%.*s",
			 (int)strcspn(c->sets[k], "="), c->sets[k]);
		if (!n->v2 && !strcmp(key, "vm.swappiness")) {
			/* v1 keeps its own per cgroup. */
			snprintf(path, sizeof(path), "%s/memory.swappiness",
				 n->cg);
			write_file(path, val);
		}
		set_file(n, sysctl_of(key), val);
	}
	common_sets(e, work, n);
	read_vmstat(&n->before);
	return 0;
}

int exp_native_enter(const struct exp_native *n)
{
	char path[PATH_MAX + 32], pid[24];

	snprintf(path, sizeof(path), "%s/cgroup.procs", n->cg);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return write_file(path, pid);
}

/* "name value" lines of @file in the cgroup, each @prefix-less name with
 * a value into @run (replacing what /proc/vmstat said). */
static void cg_values(const struct exp_native *n, const char *file,
		      const char *const *names, struct exp_run *run)
{
	char path[PATH_MAX + 64], name[64];
	double v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", n->cg, file);
	f = fopen(path, "re");
	while (f && fscanf(f, "%63s %lf", name, &v) == 2)
		for (int k = 0; names[k]; k++)
			if (!strcmp(name, names[k]))
				exp_run_set(run, name, v);
	if (f)
		fclose(f);
}

/* The cgroup's peak usage, as memory_peak_kb: v2's memory.peak, v1's
 * memory.max_usage_in_bytes (page cache included, as the limit counts it). */
static void peak(const struct exp_native *n, struct exp_run *run)
{
	char path[PATH_MAX + 64], buf[64];

	snprintf(path, sizeof(path), "%s/%s", n->cg,
		 n->v2 ? "memory.peak" : "memory.max_usage_in_bytes");
	if (!read_file(path, buf, sizeof(buf)))
		exp_run_set(run, "memory_peak_kb", strtod(buf, NULL) / 1024);
}

void exp_native_stats(const struct exp_native *n, struct exp_run *run)
{
	static const char *const v1_stat[] = { "pgfault", "pgmajfault", NULL };
	static const char *const v2_stat[] = {
		"pgfault", "pgmajfault", "workingset_refault_anon",
		"workingset_refault_file", "workingset_activate_anon",
		"workingset_activate_file", "workingset_restore_anon",
		"workingset_restore_file", "workingset_nodereclaim", "pgscan",
		"pgsteal", "pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd",
		"pgsteal_direct", "pgrefill", "pgactivate", "pgdeactivate",
		NULL };
	static const char *const oom[] = { "oom_kill", NULL };
	struct exp_run after = { 0 };
	double v0;

	read_vmstat(&after);
	for (size_t k = 0; k < after.nr; k++)
		if (exp_run_value(&n->before, after.vals[k].name, &v0))
			exp_run_add(run, after.vals[k].name,
				    after.vals[k].v - v0);
	free(after.vals);
	cg_values(n, "memory.stat", n->v2 ? v2_stat : v1_stat, run);
	cg_values(n, n->v2 ? "memory.events" : "memory.oom_control", oom, run);
	peak(n, run);
}

bool exp_native_oom_killed(const struct exp_native *n)
{
	struct exp_run r = { 0 };
	double v = 0;

	cg_values(n, n->v2 ? "memory.events" : "memory.oom_control",
		  (const char *const[]){ "oom_kill", NULL }, &r);
	exp_run_value(&r, "oom_kill", &v);
	free(r.vals);
	return v > 0;
}

/* Kill what is left in the cgroup, and remove it. */
static void cg_remove(const char *cg)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	for (int tries = 0; tries < 200; tries++) {
		FILE *f = fopen(path, "re");
		int pid, left = 0;

		while (f && fscanf(f, "%d", &pid) == 1) {
			kill(pid, SIGKILL);
			left++;
		}
		if (f)
			fclose(f);
		if (!left && !rmdir(cg))
			return;
		usleep(25000);
	}
	pgr_warn("cannot remove the memory cgroup %s", cg);
}

void exp_native_close(struct exp_native *n)
{
	if (n->cg[0])
		cg_remove(n->cg);
	n->cg[0] = 0;
	while (n->nr_sysctls) {
		n->nr_sysctls--;
		write_file(n->sysctls[n->nr_sysctls].path,
			   n->sysctls[n->nr_sysctls].old);
	}
	zram_off(n);
	if (n->swapfile[0]) {
		if (swapoff(n->swapfile))
			pgr_warn("cannot turn the swap file %s off: %s",
				 n->swapfile, strerror(errno));
		else
			unlink(n->swapfile);
		n->swapfile[0] = 0;
	}
	while (n->nr_swaps_off) {
		n->nr_swaps_off--;
		if (swapon(n->swaps_off[n->nr_swaps_off], 0))
			pgr_warn("cannot turn %s on again: %s",
				 n->swaps_off[n->nr_swaps_off], strerror(errno));
	}
	free(n->before.vals);
	n->before.vals = NULL;
	n->before.nr = n->before.cap = 0;
}
