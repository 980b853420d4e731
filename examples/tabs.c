/* SPDX-License-Identifier: MIT */
/*
 * tabs - seed 004's situation ("vmscan: add min_filelist_kbytes sysctl",
 * ChromiumOS without swap): browser tabs until the OOM killer acts, as the
 * kernel anchors' tab-switching program does.
 *
 *   tabs BINARY HEAP_MB WINDOW_MB MAX_TABS LIMIT_S [dense]
 *
 * BINARY (256 MiB of random bytes if missing) is the "browser binary":
 * every tab maps it PROT_READ|PROT_EXEC, MAP_PRIVATE. Each tab fills an
 * anon heap of HEAP_MB. Activated, a tab loads and stores a word in every
 * heap page and reads every page of a WINDOW_MB window of the binary
 * (tab i's starts at i * 32 MiB modulo 192 MiB, so windows overlap), then
 * answers. The driver (oom_score_adj -1000, the browser) forks tabs one
 * at a time; after each it switches through all tabs in order three
 * times, timing each switch. It stops at the first tab killed, at
 * MAX_TABS, or after LIMIT_S seconds.
 *
 * A line per tab count (`tabs N p50_ms P p99_ms Q step_s S`), then
 * `name value` lines: first_kill_s (or -1), tabs_at_kill, switches,
 * switch_p50_ms, switch_p99_ms, switch_max_ms (every switch before the
 * kill), calm_p50_ms (switches while nothing was read: the first sweep's
 * median). Self-check: each tab verifies its heap's words on every
 * activation and its window's checksum against the first reading; a tab
 * that finds a mismatch reports it and the driver exits 1.
 *
 * A heap holds one word a page, the rest zeros; with `dense` every word
 * is written and checked, and one byte of each is pseudo-random, so a
 * page compresses about as a browser's heap does (lz4 2.7:1, zstd 7.5:1
 * under `--swap zram`) instead of to a few bytes: for swap that
 * compresses (zram).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL
#define MB (1UL << 20)
#define MAX_SWITCHES 200000

static bool dense;		/* every word of the heap, not one a page */

/* Word @w of tab @id's heap in generation @gen. */
static uint64_t heap_word(int id, uint64_t gen, size_t w)
{
	uint64_t v = (uint64_t)id << 32 | gen;

	return dense ? v ^ ((uint64_t)w * 0x9e3779b97f4a7c15ULL &
			    0xff00000000000000ULL) : v;
}

struct tab {
	pid_t pid;
	int cmd, reply;		/* pipes: driver -> tab, tab -> driver */
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void make_binary(const char *path)
{
	struct stat st;
	char buf[1 << 16];
	int fd, rnd;

	if (!stat(path, &st) && st.st_size >= (off_t)(256 * MB))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	rnd = open("/dev/urandom", O_RDONLY);
	if (fd < 0 || rnd < 0) {
		perror("tabs: create the binary");
		exit(2);
	}
	for (size_t done = 0; done < 256 * MB; done += sizeof(buf))
		if (read(rnd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
		    write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("tabs: write the binary");
			exit(2);
		}
	fsync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(rnd);
	close(fd);
}

/* The tab: wait for a command byte, touch, answer "ok" or "bad". */
static void tab_main(int id, const char *binary, size_t heap_mb,
		     size_t window_mb, int cmd, int reply)
{
	size_t heap_len = heap_mb * MB, win = window_mb * MB;
	size_t start = ((size_t)id * 32 * MB) % (192 * MB);
	int fd = open(binary, O_RDONLY);
	uint64_t *heap, gen = 1, want = 0;
	char *bin;
	char c;

	bin = mmap(NULL, 256 * MB, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	heap = mmap(NULL, heap_len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || bin == MAP_FAILED || heap == MAP_FAILED)
		_exit(3);
	size_t step = dense ? 1 : PAGE / 8;

	for (size_t w = 0; w < heap_len / 8; w += step)
		heap[w] = heap_word(id, gen, w);
	if (start + win > 256 * MB)
		win = 256 * MB - start;
	while (read(cmd, &c, 1) == 1) {
		uint64_t sum = 0;
		bool bad = false;

		for (size_t w = 0; w < heap_len / 8; w += step) {
			bad |= heap[w] != heap_word(id, gen, w);
			heap[w] = heap_word(id, gen + 1, w);
		}
		gen++;
		for (size_t o = 0; o < win; o += PAGE)
			sum += *(volatile uint64_t *)(bin + start + o);
		if (!want)
			want = sum;
		bad |= sum != want;
		if (write(reply, bad ? "b" : "k", 1) != 1)
			_exit(4);
	}
	_exit(0);
}

static int spawn(struct tab *t, int id, const char *binary, size_t heap_mb,
		 size_t window_mb)
{
	int down[2], up[2];

	if (pipe(down) || pipe(up))
		return -1;
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (t->pid == 0) {
		close(down[1]);
		close(up[0]);
		tab_main(id, binary, heap_mb, window_mb, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	t->cmd = down[1];
	t->reply = up[0];
	return 0;
}

/* Activate a tab: seconds, or -1 if it is gone, -2 if it found bad data. */
static double activate(struct tab *t)
{
	double t0 = now();
	char c;

	if (write(t->cmd, "g", 1) != 1 || read(t->reply, &c, 1) != 1)
		return -1;
	return c == 'b' ? -2 : now() - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp);
	return v[(size_t)(p * (double)(n - 1) + 0.5)];
}

int main(int argc, char **argv)
{
	static double all[MAX_SWITCHES], step[MAX_SWITCHES];
	size_t heap_mb, window_mb, nall = 0;
	int max_tabs, ntabs = 0, bad = 0, killed_at = 0;
	double limit, t0, first_kill = -1, calm = -1;
	struct tab *tabs;
	FILE *adj;

	if (argc != 6 && (argc != 7 || strcmp(argv[6], "dense"))) {
		fprintf(stderr, "usage: tabs BINARY HEAP_MB WINDOW_MB "
			"MAX_TABS LIMIT_S [dense]\n");
		return 2;
	}
	dense = argc == 7;
	heap_mb = strtoul(argv[2], NULL, 10);
	window_mb = strtoul(argv[3], NULL, 10);
	max_tabs = atoi(argv[4]);
	limit = atof(argv[5]);
	if (!heap_mb || !window_mb || max_tabs < 1 || limit <= 0)
		return 2;
	make_binary(argv[1]);
	adj = fopen("/proc/self/oom_score_adj", "w");
	if (adj) {
		fputs("-1000", adj);	/* the browser is not the victim */
		fclose(adj);
	}
	signal(SIGPIPE, SIG_IGN);
	tabs = calloc((size_t)max_tabs, sizeof(*tabs));
	t0 = now();
	while (ntabs < max_tabs && !killed_at && now() - t0 < limit) {
		double ts = now();
		size_t nstep = 0;

		if (spawn(&tabs[ntabs], ntabs, argv[1], heap_mb, window_mb))
			break;
		ntabs++;
		for (int sweep = 0; sweep < 3 && !killed_at; sweep++) {
			for (int i = 0; i < ntabs; i++) {
				double d = activate(&tabs[i]);

				if (d == -2) {
					printf("tabs: tab %d read wrong data\n", i);
					bad = 1;
					continue;
				}
				if (d < 0) {
					killed_at = ntabs;
					first_kill = now() - t0;
					break;
				}
				if (nall < MAX_SWITCHES)
					all[nall++] = d * 1e3;
				if (nstep < MAX_SWITCHES)
					step[nstep++] = d * 1e3;
			}
		}
		if (ntabs == 1 && nstep)
			calm = step[nstep - 1];
		printf("tabs %d p50_ms %.2f p99_ms %.2f step_s %.2f\n", ntabs,
		       pct(step, nstep, 0.5), pct(step, nstep, 0.99),
		       now() - ts);
		fflush(stdout);
	}
	printf("first_kill_s %.2f\n", first_kill);
	printf("tabs_at_kill %d\n", killed_at);
	printf("switches %zu\n", nall);
	printf("calm_switch_ms %.2f\n", calm);
	printf("switch_p50_ms %.2f\n", pct(all, nall, 0.5));
	printf("switch_p99_ms %.2f\n", pct(all, nall, 0.99));
	printf("switch_max_ms %.2f\n", nall ? all[nall - 1] : 0.0);
	printf("elapsed_run_s %.2f\n", now() - t0);
	for (int i = 0; i < ntabs; i++) {
		close(tabs[i].cmd);
		kill(tabs[i].pid, SIGKILL);
		waitpid(tabs[i].pid, NULL, 0);
	}
	return bad;
}
