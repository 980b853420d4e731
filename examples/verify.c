/* SPDX-License-Identifier: MIT */
/*
 * verify - a self-verifying workload: every word of every page it owns
 * holds a pattern of the page's place and a generation, so a page that
 * comes back from the pager with the wrong contents (zeros, an older
 * generation, another page's data) is caught and counted.
 *
 *   verify [--mb N] [--passes N] [--threads N] [--seed N] [--file PATH]
 *          [--compressible PCT] TEST...
 *
 * --compressible PCT: that share of each page's words repeats its first
 * word, so the page compresses (zram, zswap); 0 (the default): none.
 *
 * Tests (run in order; each prints "verify: TEST ok" or what went wrong):
 *   passes    write and verify the buffer, generation after generation,
 *             sequentially and in a random order
 *   threads   N threads each write and verify their own slice, and read
 *             each other's
 *   fork      the parent fills, forks; the child verifies the parent's
 *             pattern, then both write and verify their own generations
 *             (evictions before and after the fork), the child exits
 *   mremap    grow the buffer (it moves), verify the moved pages, fill and
 *             verify the new tail; shrink it back
 *   remaps    the buffer moved back and forth by mremap, checked after
 *             each move
 *   regrow    realloc's growth: a buffer grown by a moving mremap and
 *             shrunk back, many times, a small mapping made before each
 *             move (the daemon rescans the maps after one), checked after
 *             each move
 *   munmap    unmap the middle half, map it again: zeros there, the rest
 *             intact
 *   dontneed  MADV_DONTNEED a quarter: zeros there, the rest intact
 *   mprotect  every other page of a PROT_NONE reservation made writable
 *             with mprotect, as allocators do: zeros first, then written
 *   reserve   1 MiB pieces of a 256 GiB reservation opened by mprotect,
 *             as V8 and PartitionAlloc do; some closed and reopened
 *   pipe      read(2) from a pipe into the buffer after it was evicted:
 *             the fault is taken inside the kernel's copy
 *   fshared   a file (--file PATH, created) mapped MAP_SHARED: written and
 *             verified generation after generation, msync'd, unmapped,
 *             then read back with pread(2): the file holds the last one
 *   fprivate  a file written with pwrite(2), mapped MAP_PRIVATE: every page
 *             verified, half of them written (copy-on-write) and verified
 *             again with the rest; the file itself is unchanged
 *   fcow      the same mapping read through, then the pages still cached
 *             written oldest first: each copy's memory is made by
 *             reclaiming the page being copied, or the next
 *   fpages    (verify-remap.c) a window of a shared file mapping
 *             rearranged with remap_file_pages(2): each page reads and
 *             writes the file page it was given, through eviction; a
 *             read-only window too, and the kernel's EINVALs
 *   fbadptr   (verify-badptr.c) sendfile, copy_file_range, splice and
 *             the vector reads and writes of a mapped file, given a
 *             PROT_NONE or unmapped pointer: EFAULT, as natively
 *   guard     (verify-guard.c) every eighth page of a buffer guarded
 *             (MADV_GUARD_INSTALL), resident or evicted: a child's touch
 *             SIGSEGV, the rest intact; removed, they read zeros
 *   clone     a child made by a raw clone(2) (no atfork handler) maps the
 *             file the parent mapped and reads both their memories
 *   ftwo      the file mapped by two processes: what one writes through
 *             its mapping the other reads through its own
 *   fwrite    pwrite(2), writev(2), write(2) to a file mapped read-only:
 *             the next load sees each
 *   fread     stores through a shared mapping, read back with pread(2),
 *             preadv(2), read(2), no msync
 *   fgrow     a mapping past the end of the file; the file grown by
 *             write(2) and ftruncate: the new pages read, no SIGBUS
 *   fremap    file mappings grown by mremap, moved and in place: the new
 *             part reads the file, stores there reach it
 *   fmoves    two threads move file mappings with mremap, one into the
 *             range the other has just vacated: both read the file
 *   mapbusy   mappings made and filled while another thread's
 *             madvise(MADV_DONTNEED) events wait to be read: adopted
 *             (the test samples RssAnon), every word right
 *   advise    --passes generations written and checked while another
 *             thread gives random ranges MADV_SEQUENTIAL, _RANDOM and
 *             _NORMAL
 *   ftrunc    a mapped file truncated inside a page: its tail zeros,
 *             SIGBUS on exactly the pages past it
 *   fraw      raw syscall(2) writes and stdio's own, to a mapped file
 *   fwb       pwrite(2) from evicted memory while another thread's stores
 *             through a shared mapping are written back for its reads
 *   fredirty  stores read back with pread(2) while another thread fsyncs:
 *             a page dirtied again during its write-back
 *   fstress   --threads processes' random pwrite, stores, pread, loads
 *             and holes on their pages of one file, each byte checked
 *             against a model of it; between rounds every process checks
 *             all of it, and the first truncates it down or up
 *   heap      (verify-heap.c) malloc's blocks from the brk heap and
 *             glibc's arenas, filled and checked; VmHWM printed
 *   heapsig   heap, with a SIGALRM every 200 us (SA_RESTART)
 *   callstorm threads' mmap'd mallocs, signalled and restarted all along
 *   all       all of the above
 *   foutside  (not in all) the file written by a process outside the
 *             pager while mapped here: waits for a line on stdin before
 *             each check; `verify fstamp` is that outsider
 *   fstamp    (not in all) write foutside's generation --passes
 *
 * Run it with a buffer several times the pager's budget, e.g.
 *   pager run --mem 16M -- verify --mb 64 all
 * Exit status: 0 when every word checked out, 1 on any mismatch, 2 on a
 * usage error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify.h"

size_t mb = 64, passes = 2, nthreads = 4;
const char *file_path;
uint64_t seed = 1;
uint64_t random_words = WORDS;	/* the rest repeat word 0: --compressible */
unsigned long bad;		/* mismatched words, all tests */

/*
 * The word @w of page @pg of buffer @tag in generation @gen. Never zero,
 * and different for every page, buffer and generation, and every word
 * of the page but those --compressible makes repeat its first.
 */
uint64_t pattern(uint64_t tag, uint64_t pg, uint64_t w, uint64_t gen)
{
	uint64_t x = tag << 56 ^ gen << 40 ^ pg << 9 ^
		     (w < random_words ? w : 0);

	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ULL;
	return x | 1;
}

void fill_page(uint64_t *p, uint64_t tag, uint64_t pg, uint64_t gen)
{
	for (uint64_t w = 0; w < WORDS; w++)
		p[w] = pattern(tag, pg, w, gen);
}

/* Check a page; return the words that are wrong, reporting the first few
 * mismatching pages. @gen 0: the page must be zeros. */
unsigned long check_page(const char *test, const uint64_t *p,
				uint64_t tag, uint64_t pg, uint64_t gen)
{
	static __thread unsigned int reported;
	unsigned long n = 0;

	for (uint64_t w = 0; w < WORDS; w++)
		if (p[w] != (gen ? pattern(tag, pg, w, gen) : 0))
			n++;
	if (n && reported++ < 5)
		fprintf(stderr, "verify: %s: page %llu (%p): %lu of %lu words "
			"wrong (first word %#llx, want %#llx)\n", test,
			(unsigned long long)pg, (const void *)p, n,
			(unsigned long)WORDS, (unsigned long long)p[0],
			(unsigned long long)(gen ? pattern(tag, pg, 0, gen) : 0));
	return n;
}

char *map(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("verify: mmap");
		exit(1);
	}
	return p;
}

uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Fill pages [from, to) of @buf with generation @gen. */
void fill(char *buf, uint64_t tag, size_t from, size_t to, uint64_t gen)
{
	for (size_t pg = from; pg < to; pg++)
		fill_page((uint64_t *)(buf + pg * PAGE), tag, pg, gen);
}

unsigned long check(const char *test, const char *buf, uint64_t tag,
			   size_t from, size_t to, uint64_t gen)
{
	unsigned long n = 0;

	for (size_t pg = from; pg < to; pg++)
		n += check_page(test, (const uint64_t *)(buf + pg * PAGE), tag,
				pg, gen);
	return n;
}

unsigned long check_eighth(const char *test, const char *buf, uint64_t tag,
			   size_t to, size_t round, uint64_t gen)
{
	unsigned long n = 0;

	for (size_t pg = round % 8; pg < to; pg += 8)
		n += check_page(test, (const uint64_t *)(buf + pg * PAGE), tag,
				pg, gen);
	return n;
}

void result(const char *test, unsigned long n)
{
	bad += n;
	if (n)
		printf("verify: %s FAILED: %lu words wrong\n", test, n);
	else
		printf("verify: %s ok\n", test);
	fflush(stdout);
}

/* ---- the tests ------------------------------------------------------------ */

/*
 * reserve: what V8's cage and PartitionAlloc's pools do: a reservation of
 * 256 GiB without access (MAP_NORESERVE), opened 1 MiB piece by piece
 * with mprotect at scattered places (each piece a VMA of its own), the
 * pieces filled and checked pass after pass; some closed again
 * (MADV_DONTNEED, PROT_NONE) and reopened, which must read zeros.
 */
static void t_reserve(void)
{
	size_t pieces = mb, piece = 1UL << 20, span = 256UL << 30;
	char *res = mmap(NULL, span, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	size_t ppp = piece / PAGE;
	unsigned long n = 0;

	if (res == MAP_FAILED) {
		perror("verify: reserve");
		exit(1);
	}
	/* Piece k at (k * 977 MiB) modulo the span, 1 MiB aligned: apart;
	 * each opened as the first pass comes to it. */
	for (uint64_t g = 1; g <= passes; g++)
		for (size_t k = 0; k < pieces; k++) {
			char *p = res + (k * 977 % (span >> 20)) * piece;

			if (g == 1 && mprotect(p, piece,
					       PROT_READ | PROT_WRITE)) {
				perror("verify: mprotect");
				exit(1);
			}

			for (size_t pg = 0; pg < ppp; pg++) {
				uint64_t *w = (uint64_t *)(p + pg * PAGE);

				if (g > 1)
					n += check_page("reserve", w, 2,
							k * ppp + pg, g - 1);
				fill_page(w, 2, k * ppp + pg, g);
			}
		}
	for (size_t k = 0; k < pieces; k++) {
		char *p = res + (k * 977 % (span >> 20)) * piece;

		if (k % 4)
			continue;
		madvise(p, piece, MADV_DONTNEED);
		mprotect(p, piece, PROT_NONE);
		mprotect(p, piece, PROT_READ | PROT_WRITE);
		for (size_t pg = 0; pg < ppp; pg++)
			n += check_page("reserve (reopened)",
					(uint64_t *)(p + pg * PAGE), 2,
					k * ppp + pg, 0);
	}
	for (size_t k = 0; k < pieces; k++) {
		char *p = res + (k * 977 % (span >> 20)) * piece;

		for (size_t pg = 0; k % 4 && pg < ppp; pg++)
			n += check_page("reserve", (uint64_t *)(p + pg * PAGE),
					2, k * ppp + pg, passes);
	}
	munmap(res, span);
	result("reserve", n);
}

static void t_passes(void)
{
	size_t pages = mb << 20 >> 12;
	char *buf = map(pages * PAGE);
	uint64_t s = seed, *gen = calloc(pages, sizeof(*gen));
	unsigned long n = 0;

	for (uint64_t g = 1; g <= passes; g++) {
		fill(buf, 1, 0, pages, g);
		n += check("passes", buf, 1, 0, pages, g);
	}
	for (size_t pg = 0; pg < pages; pg++)
		gen[pg] = passes;
	/* Random order: single pages rewritten and checked out of turn. */
	for (size_t k = 0; k < pages * 2; k++) {
		size_t pg = rnd(&s) % pages;

		if (rnd(&s) & 1) {
			fill_page((uint64_t *)(buf + pg * PAGE), 1, pg,
				  ++gen[pg]);
		} else {
			n += check_page("passes", (uint64_t *)(buf + pg * PAGE),
					1, pg, gen[pg]);
		}
	}
	for (size_t pg = 0; pg < pages; pg++)
		n += check_page("passes", (uint64_t *)(buf + pg * PAGE), 1, pg,
				gen[pg]);
	munmap(buf, pages * PAGE);
	free(gen);
	result("passes", n);
}

struct slice {
	char *buf;
	size_t pages, per, id;
	pthread_barrier_t *bar;
	unsigned long bad;
};

static void *thread_main(void *arg)
{
	struct slice *t = arg;
	size_t from = t->id * t->per, to = from + t->per;

	for (uint64_t g = 1; g <= passes; g++) {
		fill(t->buf, 2, from, to, g);
		t->bad += check("threads", t->buf, 2, from, to, g);
	}
	pthread_barrier_wait(t->bar);
	/* Everyone's slices, read by everyone, at once. */
	t->bad += check("threads", t->buf, 2, 0, t->pages, passes);
	return NULL;
}

static void t_threads(void)
{
	size_t per = (mb << 20 >> 12) / nthreads, pages = per * nthreads;
	char *buf = map(pages * PAGE);
	pthread_t *tid = calloc(nthreads, sizeof(*tid));
	struct slice *sl = calloc(nthreads, sizeof(*sl));
	pthread_barrier_t bar;
	unsigned long n = 0;

	pthread_barrier_init(&bar, NULL, (unsigned int)nthreads);
	for (size_t k = 0; k < nthreads; k++) {
		sl[k] = (struct slice){ buf, pages, per, k, &bar, 0 };
		if (pthread_create(&tid[k], NULL, thread_main, &sl[k])) {
			perror("verify: pthread_create");
			exit(1);
		}
	}
	for (size_t k = 0; k < nthreads; k++) {
		pthread_join(tid[k], NULL);
		n += sl[k].bad;
	}
	pthread_barrier_destroy(&bar);
	munmap(buf, pages * PAGE);
	free(tid);
	free(sl);
	result("threads", n);
}

static void t_fork(void)
{
	size_t pages = mb << 20 >> 12;
	char *buf = map(pages * PAGE);
	unsigned long n;
	int status;
	pid_t pid;

	fill(buf, 3, 0, pages, 1);	/* evicts part of it before the fork */
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("verify: fork");
		exit(1);
	}
	if (pid == 0) {
		/* The parent's data, then the child's own generations. */
		n = check("fork (child)", buf, 3, 0, pages, 1);
		for (uint64_t g = 10; g < 10 + passes; g++) {
			fill(buf, 3, 0, pages, g);
			n += check("fork (child)", buf, 3, 0, pages, g);
		}
		_exit(n ? 1 : 0);
	}
	n = check("fork (parent)", buf, 3, 0, pages, 1);
	for (uint64_t g = 20; g < 20 + passes; g++) {
		fill(buf, 3, pages / 2, pages, g);
		n += check("fork (parent)", buf, 3, pages / 2, pages, g);
	}
	n += check("fork (parent)", buf, 3, 0, pages / 2, 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "verify: fork: the child failed (status %#x)\n",
			status);
		n++;
	}
	/* The child's exit freed its pages, not ours. */
	n += check("fork (parent)", buf, 3, 0, pages / 2, 1);
	n += check("fork (parent)", buf, 3, pages / 2, pages, 20 + passes - 1);
	munmap(buf, pages * PAGE);
	result("fork", n);
}

/*
 * Two children cloned at once, each into a PID namespace of its own and
 * with no fork handler run (a raw clone(2), as Chromium's zygote makes
 * its renderers): each is process 1 of its namespace, so no pid tells
 * which userfaultfd is whose. Each reads a page of the parent's data,
 * then maps memory (it joins the daemon), then reads all of it (part was
 * evicted before the clones) and writes its own. Needs CAP_SYS_ADMIN.
 */
static void t_nstwins(void)
{
	size_t pages = mb << 20 >> 12;
	char *buf = map(pages * PAGE);
	unsigned long n = 0;
	pid_t kid[2];
	int go[2];

	fill(buf, 12, 0, pages, 1);
	fflush(stdout);
	if (pipe(go)) {
		perror("verify: pipe");
		exit(1);
	}
	for (int k = 0; k < 2; k++) {
		kid[k] = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL,
					NULL, NULL, NULL);
		if (kid[k] < 0) {
			perror("verify: clone(CLONE_NEWPID)");
			exit(1);
		}
		if (kid[k] == 0) {
			char c, *own;
			unsigned long m;

			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(3);
			m = check("nstwins (child)", buf, 12, 0, 1, 1);
			own = map(pages / 4 * PAGE);
			fill(own, 13, 0, pages / 4, 1);
			m += check("nstwins (child)", buf, 12, 0, pages, 1);
			m += check("nstwins (child)", own, 13, 0, pages / 4, 1);
			fill(buf, 12, 0, pages / 2, 2 + (uint64_t)k);
			m += check("nstwins (child)", buf, 12, 0, pages / 2,
				   2 + (uint64_t)k);
			_exit(getpid() == 1 && !m ? 0 : 1);
		}
	}
	close(go[0]);
	if (write(go[1], "gg", 2) != 2) {	/* both exist: go */
		perror("verify: write");
		exit(1);
	}
	close(go[1]);
	for (int k = 0; k < 2; k++) {
		int status;

		if (waitpid(kid[k], &status, 0) != kid[k] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "verify: nstwins: child %d failed "
				"(status %#x)\n", k, status);
			n++;
		}
	}
	n += check("nstwins (parent)", buf, 12, 0, pages, 1);
	munmap(buf, pages * PAGE);
	result("nstwins", n);
}

static void t_mremap(void)
{
	size_t pages = mb << 20 >> 12, more = pages / 2;
	char *buf = map(pages * PAGE), *moved, *blocker;
	unsigned long n;

	fill(buf, 4, 0, pages, 1);
	/* Something right after it, so that growing has to move it. */
	blocker = mmap(buf + pages * PAGE, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	moved = mremap(buf, pages * PAGE, (pages + more) * PAGE,
		       MREMAP_MAYMOVE);
	if (moved == MAP_FAILED) {
		perror("verify: mremap");
		exit(1);
	}
	n = check("mremap", moved, 4, 0, pages, 1);
	n += check("mremap", moved, 4, pages, pages + more, 0);
	fill(moved, 4, pages, pages + more, 2);
	n += check("mremap", moved, 4, 0, pages, 1);
	n += check("mremap", moved, 4, pages, pages + more, 2);
	/* Shrink: the tail goes, the head stays. */
	moved = mremap(moved, (pages + more) * PAGE, pages * PAGE, 0);
	if (moved == MAP_FAILED) {
		perror("verify: mremap (shrink)");
		exit(1);
	}
	n += check("mremap", moved, 4, 0, pages, 1);
	munmap(moved, pages * PAGE);
	if (blocker != MAP_FAILED)
		munmap(blocker, PAGE);
	result("mremap", n);
}

/*
 * remaps: the buffer moved back and forth with mremap, --passes x 100
 * times, a page in eight checked after each move: pages the pager is
 * arming when one comes must follow it.
 */
static void t_remaps(void)
{
	size_t pages = mb << 20 >> 12;
	char *buf = map(pages * PAGE), *other = map(pages * PAGE);
	unsigned long n = 0;

	fill(buf, 9, 0, pages, 1);
	for (size_t k = 0; k < passes * 100; k++) {
		char *to = mremap(buf, pages * PAGE, pages * PAGE,
				  MREMAP_MAYMOVE | MREMAP_FIXED, other);

		if (to == MAP_FAILED) {
			perror("verify: mremap");
			exit(1);
		}
		other = buf;	/* unmapped now: the next move's target */
		buf = to;
		n += check_eighth("remaps", buf, 9, pages, k, 1);
	}
	munmap(buf, pages * PAGE);
	result("remaps", n);
}

/*
 * regrow: glibc's realloc of a large block, as perl grows a hash: a
 * mapping next to the buffer keeps it from growing in place, so each
 * growth moves it; then it shrinks back and the blocker goes. --passes x
 * 50 rounds, a page in eight checked after each move. The blocker is a
 * mapping the daemon hears of, and rescans the maps for: a rescan that
 * saw the moved mapping before the move's event was read made a second
 * region over it, and faults there were served zeros or never answered.
 */
static void t_regrow(void)
{
	size_t pages = mb << 20 >> 12, half = pages / 2;
	char *buf = map(half * PAGE);
	unsigned long n = 0;

	fill(buf, 10, 0, half, 1);
	for (size_t k = 0; k < passes * 50; k++) {
		/* As glibc's own calls, past the shim: the seccomp notifier
		 * hears of it, and the daemon rescans 2 ms later. */
		char *blocker = (char *)syscall(SYS_mmap, buf + half * PAGE,
				PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE |
				MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		struct timespec ts = { 0, (long)(k % 7) * 400000 };
		char *moved;

		nanosleep(&ts, NULL);	/* the move at times near the rescan */
		moved = mremap(buf, half * PAGE, pages * PAGE, MREMAP_MAYMOVE);

		if (moved == MAP_FAILED ||
		    mremap(moved, pages * PAGE, half * PAGE, 0) == MAP_FAILED) {
			perror("verify: mremap");
			exit(1);
		}
		if (blocker != MAP_FAILED)
			syscall(SYS_munmap, blocker, PAGE);
		buf = moved;
		n += check_eighth("regrow", buf, 10, half, k, 1);
	}
	munmap(buf, half * PAGE);
	result("regrow", n);
}

static void t_munmap(void)
{
	size_t pages = mb << 20 >> 12, q = pages / 4;
	char *buf = map(pages * PAGE), *again;
	unsigned long n;

	fill(buf, 5, 0, pages, 1);
	munmap(buf + q * PAGE, 2 * q * PAGE);
	again = mmap(buf + q * PAGE, 2 * q * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (again == MAP_FAILED) {
		perror("verify: mmap (again)");
		exit(1);
	}
	n = check("munmap", buf, 5, 0, q, 1);
	n += check("munmap", buf, 5, q, 3 * q, 0);
	n += check("munmap", buf, 5, 3 * q, pages, 1);
	fill(buf, 5, q, 3 * q, 2);
	n += check("munmap", buf, 5, q, 3 * q, 2);
	n += check("munmap", buf, 5, 0, q, 1);
	munmap(buf, pages * PAGE);
	result("munmap", n);
}

static void t_dontneed(void)
{
	size_t pages = mb << 20 >> 12, q = pages / 4;
	char *buf = map(pages * PAGE);
	unsigned long n;

	fill(buf, 6, 0, pages, 1);
	if (madvise(buf + q * PAGE, q * PAGE, MADV_DONTNEED)) {
		perror("verify: madvise");
		exit(1);
	}
	n = check("dontneed", buf, 6, 0, q, 1);
	n += check("dontneed", buf, 6, q, 2 * q, 0);
	n += check("dontneed", buf, 6, 2 * q, pages, 1);
	fill(buf, 6, q, 2 * q, 3);
	n += check("dontneed", buf, 6, q, 2 * q, 3);
	munmap(buf, pages * PAGE);
	result("dontneed", n);
}

/*
 * An allocator's reservation: a PROT_NONE range of which pages are made
 * writable one by one with mprotect(2), each a mapping of its own between
 * inaccessible ones; every other page here, so that no fault-around
 * window fits in one mapping.
 */
static void t_mprotect(void)
{
	size_t pages = mb << 20 >> 12;
	char *buf = mmap(NULL, pages * PAGE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	unsigned long n = 0;

	if (buf == MAP_FAILED) {
		perror("verify: mmap (reservation)");
		exit(1);
	}
	for (size_t pg = 1; pg < pages; pg += 2) {
		if (mprotect(buf + pg * PAGE, PAGE, PROT_READ | PROT_WRITE)) {
			perror("verify: mprotect");
			exit(1);
		}
		n += check_page("mprotect", (uint64_t *)(buf + pg * PAGE), 9,
				pg, 0);
		fill_page((uint64_t *)(buf + pg * PAGE), 9, pg, 1);
	}
	for (size_t pg = 1; pg < pages; pg += 2)
		n += check_page("mprotect", (uint64_t *)(buf + pg * PAGE), 9,
				pg, 1);
	munmap(buf, pages * PAGE);
	result("mprotect", n);
}

static void t_pipe(void)
{
	size_t pages = mb << 20 >> 12, chunk = 16;
	char *buf = map(pages * PAGE), *src = malloc(chunk * PAGE);
	unsigned long n = 0;
	int fd[2];

	if (!src || pipe(fd)) {
		perror("verify: pipe");
		exit(1);
	}
	/* Fill all, so that the first pages are evicted by the last. */
	fill(buf, 7, 0, pages, 1);
	for (size_t pg = 0; pg < pages; pg += chunk) {
		size_t k = pg + chunk <= pages ? chunk : pages - pg;

		for (size_t j = 0; j < k; j++)
			fill_page((uint64_t *)(src + j * PAGE), 7, pg + j, 2);
		/* The pipe holds 64 KiB: write and read a page at a time
		 * less than that. */
		for (size_t off = 0; off < k * PAGE; off += PAGE) {
			ssize_t w = write(fd[1], src + off, PAGE), r;

			if (w != (ssize_t)PAGE) {
				perror("verify: write");
				exit(1);
			}
			r = read(fd[0], buf + pg * PAGE + off, PAGE);
			if (r != (ssize_t)PAGE) {
				perror("verify: read");
				exit(1);
			}
		}
	}
	n += check("pipe", buf, 7, 0, pages, 2);
	close(fd[0]);
	close(fd[1]);
	free(src);
	munmap(buf, pages * PAGE);
	result("pipe", n);
}

static const struct {
	const char *name;
	void (*run)(void);
} tests[] = {
	{ "passes", t_passes }, { "threads", t_threads }, { "fork", t_fork },
	{ "mremap", t_mremap }, { "remaps", t_remaps },
	{ "regrow", t_regrow },
	{ "munmap", t_munmap },
	{ "dontneed", t_dontneed }, { "mprotect", t_mprotect },
	{ "reserve", t_reserve },
	{ "pipe", t_pipe },
	{ "fshared", t_fshared }, { "fprivate", t_fprivate },
	{ "fcow", t_fcow }, { "fpages", t_fpages }, { "fbadptr", t_fbadptr },
	{ "guard", t_guard }, { "mlock", t_mlock }, { "bigfork", t_bigfork },
	{ "ownuffd", t_ownuffd }, { "mmcalls", t_mmcalls },
	{ "ftwo", t_ftwo }, { "clone", t_clone },
	{ "fwrite", t_fwrite }, { "fread", t_fread }, { "fgrow", t_fgrow },
	{ "fremap", t_fremap },
	{ "fmoves", t_fmoves }, { "mapbusy", t_mapbusy },
	{ "advise", t_advise },
	{ "ftrunc", t_ftrunc }, { "fraw", t_fraw }, { "fwb", t_fwb },
	{ "fredirty", t_fredirty },
	{ "fstress", t_fstress }, { "heap", t_heap },
	{ "heapsig", t_heapsig }, { "callstorm", t_callstorm },
};

/* Not in "all": they need a partner (foutside's outsider is fstamp),
 * CAP_SYS_ADMIN (nstwins) or a small file system (fnospc). */
static const struct {
	const char *name;
	void (*run)(void);
} alone[] = {
	{ "foutside", t_foutside }, { "fstamp", t_fstamp },
	{ "fnospc", t_fnospc },
	{ "nstwins", t_nstwins },
};

static int usage(const char *why)
{
	fprintf(stderr, "verify: %s\nusage: verify [--mb N] [--passes N] "
		"[--threads N] [--seed N] [--file PATH] [--compressible PCT] "
		"TEST...\ntests: passes "
		"threads fork mremap remaps regrow munmap dontneed mprotect reserve pipe "
		"fshared fprivate fcow fpages fbadptr guard mlock bigfork ownuffd mmcalls ftwo clone fwrite fread fgrow fremap fmoves mapbusy advise "
		"ftrunc fraw "
		"fwb "
		"fredirty fstress heap heapsig callstorm all; foutside fstamp "
		"nstwins fnospc\n", why);
	return 2;
}

static int number(const char *s, size_t min, size_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s || *end || x < min || x > 1 << 20)
		return -1;
	*v = (size_t)x;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mb", required_argument, NULL, 'm' },
		{ "passes", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "file", required_argument, NULL, 'f' },
		{ "compressible", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	size_t v;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (number(optarg, 1, &mb))
				return usage("--mb: a number of MiB, 1 or more");
			break;
		case 'p':
			if (number(optarg, 1, &passes) || passes > 1000)
				return usage("--passes: 1 to 1000");
			break;
		case 't':
			if (number(optarg, 1, &nthreads) || nthreads > 256)
				return usage("--threads: 1 to 256");
			break;
		case 's':
			if (number(optarg, 1, &v))
				return usage("--seed: a positive number");
			seed = v;
			break;
		case 'f':
			file_path = optarg;
			break;
		case 'c':
			if (number(optarg, 0, &v) || v > 99)
				return usage("--compressible: 0 to 99 (%)");
			random_words = WORDS - WORDS * v / 100;
			break;
		default:
			return usage("bad option");
		}
	}
	if (optind == argc)
		return usage("which tests?");
	for (int a = optind; a < argc; a++) {
		bool all = !strcmp(argv[a], "all"), found = all;

		for (size_t k = 0; k < sizeof(tests) / sizeof(tests[0]); k++) {
			if (all || !strcmp(argv[a], tests[k].name)) {
				tests[k].run();
				found = true;
			}
		}
		for (size_t k = 0; k < sizeof(alone) / sizeof(alone[0]); k++) {
			if (!strcmp(argv[a], alone[k].name)) {
				alone[k].run();
				found = true;
			}
		}
		if (!found)
			return usage("unknown test");
	}
	printf("verify: %s, %lu words wrong\n", bad ? "FAILED" : "all ok", bad);
	return bad ? 1 : 0;
}
