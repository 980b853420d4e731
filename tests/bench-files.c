/* SPDX-License-Identifier: MIT */
/*
 * bench-files - what keeping a file's mappings and its system calls
 * coherent costs (docs/files.md, "Coherence"), against the same calls
 * natively, in one run (only ratios are compared).
 *
 *   bench-files PAGER
 *
 * Each figure is the time of one call (or call and load), the median of
 * 7 runs, native and under `PAGER run` interleaved:
 *
 *   plain      pwrite(2) of 4 KiB to a file nobody maps: the shim's whole
 *              price is one load of its table's counters (goal ~1.00)
 *   busy       the same while the process maps another file it writes
 *              (a watched inode exists): an fstat and a table lookup more
 *   mapped     pwrite(2) to a file the process maps read-only, then a
 *              load of the page written, as LMDB does: the write's wpost
 *              round trip to the daemon, which copies the bytes into its
 *              cache before the call returns
 *   dirty      a store through a shared writable mapping, then pread(2)
 *              of that page: the read's rsync, which writes the dirty
 *              page back first
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PG	4096UL
#define PAGES	2048		/* 8 MiB files */
#define CALLS	20000
#define RUNS	7

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int make_file(const char *path)
{
	static char page[PG];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	for (size_t pg = 0; pg < PAGES; pg++)
		if (pwrite(fd, page, PG, (off_t)(pg * PG)) != (ssize_t)PG)
			return -1;
	return fd;
}

/* Seconds a call of @mode takes; in a file made at @path (and @path2). */
static double run(const char *mode, const char *path, const char *path2)
{
	static char page[PG];
	int fd = make_file(path), other = -1;
	volatile char sink = 0;
	char *map = NULL;
	double t0, t;
	uint64_t s = 1;

	if (fd < 0)
		return -1;
	if (!strcmp(mode, "busy")) {
		/* A database next to it: mapped, written, so watched. */
		other = make_file(path2);
		map = mmap(NULL, PAGES * PG, PROT_READ, MAP_SHARED, other, 0);
		if (map == MAP_FAILED)
			return -1;
		sink += map[0];
	} else if (!strcmp(mode, "mapped") || !strcmp(mode, "dirty")) {
		map = mmap(NULL, PAGES * PG, !strcmp(mode, "dirty") ?
			   PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			return -1;
		for (size_t pg = 0; pg < PAGES; pg++)
			sink += map[pg * PG];	/* cached and mapped */
	}
	t0 = now();
	for (int k = 0; k < CALLS; k++) {
		size_t pg;

		s = s * 6364136223846793005ull + 1442695040888963407ull;
		pg = (s >> 33) % PAGES;
		page[0] = (char)k;
		if (!strcmp(mode, "dirty")) {
			map[pg * PG] = (char)k;
			if (pread(fd, page, PG, (off_t)(pg * PG)) != (ssize_t)PG ||
			    page[0] != (char)k)
				return -1;
			continue;
		}
		if (pwrite(fd, page, PG, (off_t)(pg * PG)) != (ssize_t)PG)
			return -1;
		if (!strcmp(mode, "mapped") && map[pg * PG] != (char)k)
			return -1;	/* the load must see the write */
	}
	t = (now() - t0) / CALLS;
	if (map)
		munmap(map, PAGES * PG);
	close(fd);
	if (other >= 0)
		close(other);
	(void)sink;
	return t;
}

static double under_pager(const char *pager, const char *self,
			  const char *mode, const char *path,
			  const char *path2)
{
	char cmd[8192];
	double v = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "'%s' run --mem 1G -- '%s' --child %s "
		 "'%s' '%s'", pager, self, mode, path, path2);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lf", &v) != 1)
		v = -1;
	if (pclose(f))
		v = -1;
	return v;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	for (int k = 0; k < RUNS; k++)
		if (v[k] < 0)
			return -1;
	qsort(v, RUNS, sizeof(*v), cmp);
	return v[RUNS / 2];
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "plain", "busy", "mapped",
					     "dirty" };
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	double nat[4][RUNS], pgr[4][RUNS];
	char self[4096], path[4096], path2[4096];
	ssize_t n;

	if (argc == 5 && !strcmp(argv[1], "--child")) {
		double t = run(argv[2], argv[3], argv[4]);

		printf("%.9f\n", t);
		return t < 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: bench-files PAGER\n");
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return 1;
	self[n] = 0;
	snprintf(path, sizeof(path), "%s/bench-files-%d.a", dir, (int)getpid());
	snprintf(path2, sizeof(path2), "%s/bench-files-%d.b", dir,
		 (int)getpid());
	for (int r = 0; r < RUNS; r++) {
		for (int m = 0; m < 4; m++) {
			nat[m][r] = run(modes[m], path, path2);
			pgr[m][r] = under_pager(argv[1], self, modes[m], path,
						path2);
		}
	}
	unlink(path);
	unlink(path2);
	printf("# bench-files: medians of %d runs of %d calls, interleaved\n",
	       RUNS, CALLS);
	for (int m = 0; m < 4; m++) {
		double a = median(nat[m]), b = median(pgr[m]);

		if (a < 0 || b < 0) {
			printf("bench-files: %s: a run failed\n", modes[m]);
			return 1;
		}
		printf("%-7s native %7.2f us, pager %7.2f us, ratio %6.2f%s\n",
		       modes[m], a * 1e6, b * 1e6, b / a,
		       m == 0 ? "  (goal <= 1.05)" : "");
	}
	return 0;
}
