/* SPDX-License-Identifier: MIT */
/*
 * verify-file.c - verify's tests of file mappings (verify.c lists them):
 * what a mapping shows and what read(2), write(2), truncate and another
 * process see of the same file must agree, word for word, as they do in
 * the kernel's one page cache, while the pager evicts and refaults.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify.h"

int open_file(size_t len, bool create)
{
	const char *dir = getenv("TMPDIR");
	static char path[256];
	int fd;

	if (!file_path) {
		snprintf(path, sizeof(path), "%s/verify-%d.data",
			 dir && *dir ? dir : "/tmp", (int)getpid());
		file_path = path;
	}
	fd = open(file_path, O_RDWR | (create ? O_CREAT | O_TRUNC : 0), 0600);
	if (fd < 0 || (create && ftruncate(fd, (off_t)len))) {
		perror("verify: file");
		exit(1);
	}
	return fd;
}

char *map_file(int fd, size_t len, int flags)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);

	if (p == MAP_FAILED) {
		perror("verify: mmap of the file");
		exit(1);
	}
	return p;
}

/* Check the file's pages [from, to) with pread(2), step @step. */
unsigned long check_file(const char *test, int fd, uint64_t tag,
				size_t from, size_t to, size_t step,
				const uint64_t *gens, uint64_t gen)
{
	static uint64_t page[WORDS];
	unsigned long n = 0;

	for (size_t pg = from; pg < to; pg += step) {
		if (pread(fd, page, PAGE, (off_t)(pg * PAGE)) != (ssize_t)PAGE) {
			printf("verify: %s: short read of page %zu\n", test, pg);
			return n + WORDS;
		}
		n += check_page(test, page, tag, pg, gens ? gens[pg] : gen);
	}
	return n;
}

void t_fshared(void)
{
	size_t pages = mb << 20 >> 12;
	int fd = open_file(pages * PAGE, true);
	char *buf = map_file(fd, pages * PAGE, MAP_SHARED);
	uint64_t s = seed, *gen = calloc(pages, sizeof(*gen));
	unsigned long n = 0;

	for (uint64_t g = 1; g <= passes; g++) {
		fill(buf, 2, 0, pages, g);
		n += check("fshared", buf, 2, 0, pages, g);
		if (g == 1 && msync(buf, pages * PAGE, MS_SYNC))
			perror("verify: msync");
	}
	for (size_t pg = 0; pg < pages; pg++)
		gen[pg] = passes;
	for (size_t k = 0; k < pages; k++) {
		size_t pg = rnd(&s) % pages;

		if (rnd(&s) & 1)
			fill_page((uint64_t *)(buf + pg * PAGE), 2, pg,
				  ++gen[pg]);
		else
			n += check_page("fshared", (uint64_t *)(buf + pg * PAGE),
					2, pg, gen[pg]);
	}
	for (size_t pg = 0; pg < pages; pg++)
		n += check_page("fshared", (uint64_t *)(buf + pg * PAGE), 2,
				pg, gen[pg]);
	/* After msync the file holds it, as the kernel's read(2) sees it. */
	if (msync(buf, pages * PAGE, MS_SYNC))
		perror("verify: msync");
	n += check_file("fshared (read after msync)", fd, 2, 0, pages, 7, gen,
			0);
	munmap(buf, pages * PAGE);
	/* And after munmap, all of it. Leave the last generation written
	 * everywhere, so the file's digest can be compared with a native
	 * run's. */
	n += check_file("fshared (read after munmap)", fd, 2, 0, pages, 1, gen,
			0);
	buf = map_file(fd, pages * PAGE, MAP_SHARED);
	fill(buf, 2, 0, pages, passes + 1);
	munmap(buf, pages * PAGE);
	n += check_file("fshared (final)", fd, 2, 0, pages, 1, NULL,
			passes + 1);
	close(fd);
	free(gen);
	result("fshared", n);
}

/* Write generation 1 of buffer @tag into the first @pages of file @fd,
 * with pwrite(2): the kernel's page cache, not the pager's. */
void write_file(int fd, uint64_t tag, size_t pages)
{
	static uint64_t page[WORDS];

	for (size_t pg = 0; pg < pages; pg++) {
		fill_page(page, tag, pg, 1);
		if (pwrite(fd, page, PAGE, (off_t)(pg * PAGE)) != (ssize_t)PAGE) {
			perror("verify: pwrite");
			exit(1);
		}
	}
}

/*
 * A child made by a raw clone(2), which runs no atfork handler (Chrome's
 * zygote forks so): the parent has mapped a file already; the child maps
 * the file again and reads it, then its own memory and the parent's.
 */
void t_clone(void)
{
	size_t pages = mb << 20 >> 12;
	int fd = open_file(pages * PAGE, true), status;
	char *buf = map(pages * PAGE), *a;
	unsigned long n = 0;
	pid_t pid;

	write_file(fd, 10, pages);
	a = map_file(fd, pages * PAGE, MAP_PRIVATE);
	n += check("clone (parent)", a, 10, 0, pages, 1);
	fill(buf, 11, 0, pages, 1);
	fflush(stdout);
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		perror("verify: clone");
		exit(1);
	}
	if (pid == 0) {
		char *b = map_file(fd, pages * PAGE, MAP_PRIVATE);
		unsigned long m = check("clone (child)", b, 10, 0, pages, 1);

		m += check("clone (child)", buf, 11, 0, pages, 1);
		fill(buf, 11, 0, pages, 2);
		m += check("clone (child)", buf, 11, 0, pages, 2);
		_exit(m ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "verify: clone: the child failed (status %#x)\n",
			status);
		n++;
	}
	n += check("clone (parent)", a, 10, 0, pages, 1);
	n += check("clone (parent)", buf, 11, 0, pages, 1);
	munmap(a, pages * PAGE);
	munmap(buf, pages * PAGE);
	close(fd);
	unlink(file_path);
	result("clone", n);
}

void t_ftwo(void)
{
	size_t pages = mb << 20 >> 12;
	int fd = open_file(pages * PAGE, true), status;
	char *buf = map_file(fd, pages * PAGE, MAP_SHARED);
	unsigned long n = 0;
	pid_t pid;

	fill(buf, 4, 0, pages, 1);
	pid = fork();
	if (pid == 0) {
		/* A mapping of its own, not the inherited one. */
		int cfd = open_file(0, false);
		char *mine = map_file(cfd, pages * PAGE, MAP_SHARED);
		unsigned long cn = check("ftwo (child)", mine, 4, 0, pages, 1);

		for (size_t pg = 1; pg < pages; pg += 2)
			fill_page((uint64_t *)(mine + pg * PAGE), 4, pg, 2);
		munmap(mine, pages * PAGE);
		_exit(cn ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("verify: ftwo: the child failed\n");
		n++;
	}
	for (size_t pg = 0; pg < pages; pg++)
		n += check_page("ftwo", (uint64_t *)(buf + pg * PAGE), 4, pg,
				pg % 2 ? 2 : 1);
	munmap(buf, pages * PAGE);
	close(fd);
	unlink(file_path);
	result("ftwo", n);
}


/* ---- coherence with read(2), write(2) and truncate ---------------------- */

static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;

static void on_bus(int sig)
{
	(void)sig;
	if (bus_armed)
		siglongjmp(bus_jmp, 1);
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

/* Copy @n bytes of a mapping at @p to @out: false if it raised SIGBUS
 * (past the end of the file). */
bool load(const volatile char *p, char *out, size_t n)
{
	static bool installed;

	if (!installed) {
		struct sigaction sa = { .sa_handler = on_bus };

		sigaction(SIGBUS, &sa, NULL);
		installed = true;
	}
	if (sigsetjmp(bus_jmp, 1)) {
		bus_armed = 0;
		return false;
	}
	bus_armed = 1;
	for (size_t k = 0; k < n; k++)
		out[k] = p[k];
	bus_armed = 0;
	return true;
}

/* Page @pg of a mapping, copied (false: SIGBUS). */
static bool load_page(const char *buf, size_t pg, uint64_t *page)
{
	return load(buf + pg * PAGE, (char *)page, PAGE);
}

static void pwrite_page(int fd, uint64_t tag, size_t pg, uint64_t gen)
{
	static uint64_t page[WORDS];

	fill_page(page, tag, pg, gen);
	if (pwrite(fd, page, PAGE, (off_t)(pg * PAGE)) != (ssize_t)PAGE) {
		perror("verify: pwrite");
		exit(1);
	}
}

/* Pages [from, to) through the mapping @buf, against @gen (or @gens). */
unsigned long check_mapped(const char *test, const char *buf,
			   uint64_t tag, size_t from, size_t to,
			   const uint64_t *gens, uint64_t gen)
{
	static uint64_t page[WORDS];
	unsigned long n = 0;

	for (size_t pg = from; pg < to; pg++) {
		if (!load_page(buf, pg, page)) {
			printf("verify: %s: SIGBUS on page %zu\n", test, pg);
			n += WORDS;
			continue;
		}
		n += check_page(test, page, tag, pg, gens ? gens[pg] : gen);
	}
	return n;
}

/*
 * fwrite: the file mapped read-only and shared (as LMDB maps its data),
 * written with pwrite(2), writev(2) at its offset and write(2): every
 * load after a write returned sees it, page after page, in random order.
 */
void t_fwrite(void)
{
	size_t pages = mb << 20 >> 12;
	int fd = open_file(pages * PAGE, true);
	char *buf = mmap(NULL, pages * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	uint64_t s = seed, *gen = calloc(pages, sizeof(*gen));
	static uint64_t two[2][WORDS];
	unsigned long n = 0;

	if (buf == MAP_FAILED) {
		perror("verify: mmap");
		exit(1);
	}
	n += check_mapped("fwrite", buf, 5, 0, pages, NULL, 0);
	for (uint64_t g = 1; g <= passes; g++) {
		for (size_t k = 0; k < pages; k++) {
			size_t pg = rnd(&s) % pages, q;

			switch (rnd(&s) % 3) {
			case 0:
				pwrite_page(fd, 5, pg, ++gen[pg]);
				break;
			case 1:	/* lseek + writev, as LMDB writes */
				if (pg + 1 >= pages)
					pg = pages - 2;
				fill_page(two[0], 5, pg, ++gen[pg]);
				fill_page(two[1], 5, pg + 1, ++gen[pg + 1]);
				{
					struct iovec iov[2] = {
						{ two[0], PAGE }, { two[1], PAGE },
					};

					lseek(fd, (off_t)(pg * PAGE), SEEK_SET);
					if (writev(fd, iov, 2) != 2 * PAGE)
						perror("verify: writev");
				}
				n += check_mapped("fwrite (writev)", buf, 5, pg,
						  pg + 2, gen, 0);
				break;
			default:
				lseek(fd, (off_t)(pg * PAGE), SEEK_SET);
				fill_page(two[0], 5, pg, ++gen[pg]);
				if (write(fd, two[0], PAGE) != PAGE)
					perror("verify: write");
			}
			/* The next load after the call sees it. */
			n += check_mapped("fwrite", buf, 5, pg, pg + 1, gen, 0);
			q = rnd(&s) % pages;
			n += check_mapped("fwrite", buf, 5, q, q + 1, gen, 0);
		}
		n += check_mapped("fwrite", buf, 5, 0, pages, gen, 0);
	}
	munmap(buf, pages * PAGE);
	close(fd);
	unlink(file_path);
	free(gen);
	result("fwrite", n);
}

/*
 * fread: stores through a shared writable mapping, read back with
 * pread(2), readv(2) and read(2), without msync: read(2) sees what the
 * mapping wrote.
 */
void t_fread(void)
{
	size_t pages = mb << 20 >> 12;
	int fd = open_file(pages * PAGE, true);
	char *buf = map_file(fd, pages * PAGE, MAP_SHARED);
	uint64_t s = seed, *gen = calloc(pages, sizeof(*gen));
	static uint64_t page[2][WORDS];
	unsigned long n = 0;

	for (uint64_t g = 1; g <= passes; g++) {
		for (size_t k = 0; k < pages; k++) {
			size_t pg = rnd(&s) % pages;

			fill_page((uint64_t *)(buf + pg * PAGE), 6, pg,
				  ++gen[pg]);
			switch (rnd(&s) % 3) {
			case 0:
				n += check_file("fread (pread)", fd, 6, pg,
						pg + 1, 1, gen, 0);
				break;
			case 1:
				if (pg + 1 < pages) {
					struct iovec iov[2] = {
						{ page[0], PAGE },
						{ page[1], PAGE },
					};

					if (preadv(fd, iov, 2,
						   (off_t)(pg * PAGE)) != 2 * PAGE)
						n += WORDS;
					n += check_page("fread (preadv)", page[0],
							6, pg, gen[pg]);
					n += check_page("fread (preadv)", page[1],
							6, pg + 1, gen[pg + 1]);
				}
				break;
			default:
				lseek(fd, (off_t)(pg * PAGE), SEEK_SET);
				if (read(fd, page[0], PAGE) != PAGE)
					n += WORDS;
				n += check_page("fread (read)", page[0], 6, pg,
						gen[pg]);
			}
		}
		n += check_file("fread", fd, 6, 0, pages, 1, gen, 0);
	}
	munmap(buf, pages * PAGE);
	close(fd);
	unlink(file_path);
	free(gen);
	result("fread", n);
}

/*
 * fgrow: a mapping larger than the file; the file grown by write(2) at
 * its end and by ftruncate: the pages it grew into read through the
 * mapping at once, with no SIGBUS; a page past the end still raises it.
 */
void t_fgrow(void)
{
	size_t pages = mb << 20 >> 12, half = pages / 2;
	int fd = open_file(half * PAGE, true);
	char *buf = mmap(NULL, pages * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	static uint64_t page[WORDS];
	unsigned long n = 0;

	if (buf == MAP_FAILED) {
		perror("verify: mmap");
		exit(1);
	}
	write_file(fd, 7, half);
	n += check_mapped("fgrow", buf, 7, 0, half, NULL, 1);
	if (load_page(buf, half, page)) {
		printf("verify: fgrow: no SIGBUS past the end\n");
		n++;
	}
	/* Appended, a page a write, each read through the mapping. */
	lseek(fd, 0, SEEK_END);
	for (size_t pg = half; pg < half + half / 2; pg++) {
		fill_page(page, 7, pg, 1);
		if (write(fd, page, PAGE) != PAGE)
			perror("verify: write");
		n += check_mapped("fgrow (appended)", buf, 7, pg, pg + 1, NULL,
				  1);
	}
	/* Grown by ftruncate: zeros, then written. */
	if (ftruncate(fd, (off_t)(pages * PAGE)))
		perror("verify: ftruncate");
	n += check_mapped("fgrow (truncated up)", buf, 7, half + half / 2,
			  pages, NULL, 0);
	for (size_t pg = half + half / 2; pg < pages; pg++)
		pwrite_page(fd, 7, pg, 1);
	n += check_mapped("fgrow", buf, 7, 0, pages, NULL, 1);
	munmap(buf, pages * PAGE);
	close(fd);
	unlink(file_path);
	result("fgrow", n);
}

/*
 * fremap: mappings of a file grown with mremap(2), as SQLite grows its
 * mapping of a database: moved to a larger range (MREMAP_MAYMOVE) and
 * grown in place; the new part reads the file, and stores through a grown
 * shared mapping reach it.
 */
void t_fremap(void)
{
	size_t pages = mb << 20 >> 12, q = pages / 4;
	int fd = open_file(pages * PAGE, true);
	unsigned long n = 0;
	char *buf, *rw;

	write_file(fd, 12, pages);
	/* Moved: the REMAP event names the old length only. */
	buf = mmap(NULL, q * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (buf == MAP_FAILED) {
		perror("verify: mmap");
		exit(1);
	}
	n += check_mapped("fremap", buf, 12, 0, q, NULL, 1);
	buf = mremap(buf, q * PAGE, 2 * q * PAGE, MREMAP_MAYMOVE);
	if (buf == MAP_FAILED) {
		perror("verify: mremap");
		exit(1);
	}
	n += check_mapped("fremap (moved)", buf, 12, 0, 2 * q, NULL, 1);
	munmap(buf, 2 * q * PAGE);
	/* In place: the range after the mapping is free. */
	buf = mmap(NULL, pages * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (buf == MAP_FAILED ||
	    munmap(buf + q * PAGE, (pages - q) * PAGE) ||
	    mmap(buf, q * PAGE, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) !=
	    buf) {
		perror("verify: mmap");
		exit(1);
	}
	n += check_mapped("fremap", buf, 12, 0, q, NULL, 1);
	if (mremap(buf, q * PAGE, pages * PAGE, 0) != buf) {
		perror("verify: mremap in place");
		exit(1);
	}
	n += check_mapped("fremap (in place)", buf, 12, 0, pages, NULL, 1);
	munmap(buf, pages * PAGE);
	/* Shared and writable, moved: stores to the new part reach the
	 * file. */
	rw = map_file(fd, q * PAGE, MAP_SHARED);
	rw = mremap(rw, q * PAGE, pages * PAGE, MREMAP_MAYMOVE);
	if (rw == MAP_FAILED) {
		perror("verify: mremap");
		exit(1);
	}
	for (size_t pg = q; pg < pages; pg++)
		fill_page((uint64_t *)(rw + pg * PAGE), 12, pg, 2);
	msync(rw, pages * PAGE, MS_SYNC);
	n += check_file("fremap (stores)", fd, 12, 0, q, 1, NULL, 1);
	n += check_file("fremap (stores)", fd, 12, q, pages, 1, NULL, 2);
	munmap(rw, pages * PAGE);
	close(fd);
	unlink(file_path);
	result("fremap", n);
}

/*
 * ftrunc: a mapped file truncated to a size inside a page: the pages
 * before it intact, the rest of its last page zeros, SIGBUS on every page
 * after, as the kernel has it; grown again, those read zeros.
 */
void t_ftrunc(void)
{
	size_t pages = mb << 20 >> 12, keep = pages / 2;
	int fd = open_file(pages * PAGE, true);
	char *buf = map_file(fd, pages * PAGE, MAP_SHARED);
	static uint64_t page[WORDS];
	unsigned long n = 0, buses = 0;

	write_file(fd, 8, pages);
	n += check_mapped("ftrunc", buf, 8, 0, pages, NULL, 1);
	if (ftruncate(fd, (off_t)(keep * PAGE + 100)))
		perror("verify: ftruncate");
	n += check_mapped("ftrunc", buf, 8, 0, keep, NULL, 1);
	if (!load_page(buf, keep, page)) {
		printf("verify: ftrunc: SIGBUS on the last page\n");
		n += WORDS;
	} else {
		for (size_t w = 0; w < WORDS; w++) {
			uint64_t want = pattern(8, keep, w, 1);

			if (w == 12)	/* bytes 96-103: 4 kept, 4 zeroed */
				want &= 0xffffffffull;
			else if (w > 12)
				want = 0;
			n += page[w] != want;
		}
	}
	for (size_t pg = keep + 1; pg < pages; pg++)
		buses += !load_page(buf, pg, page);
	if (buses != pages - keep - 1) {
		printf("verify: ftrunc: SIGBUS on %lu of the %zu pages past "
		       "the end\n", buses, pages - keep - 1);
		n += WORDS;
	}
	if (ftruncate(fd, (off_t)(pages * PAGE)))
		perror("verify: ftruncate");
	n += check_mapped("ftrunc (grown again)", buf, 8, keep + 1, pages,
			  NULL, 0);
	munmap(buf, pages * PAGE);
	close(fd);
	unlink(file_path);
	result("ftrunc", n);
}

/* Wait for a line on stdin: the test script's "go". */
static void wait_go(const char *what)
{
	char line[16];

	printf("verify: foutside: %s\n", what);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		printf("verify: foutside: no go (stdin closed)\n");
}

/*
 * foutside: a writer outside the pager (`verify fstamp`, run natively
 * by the test) writes the file while this process maps it: first a file
 * this process has open only for reading (its pages may be cached
 * sealed), then one it writes itself too (cached watched). Every load
 * after the outsider's write returned sees it.
 */
void t_foutside(void)
{
	size_t pages = mb << 20 >> 12;
	int fd = open_file(pages * PAGE, true), ro;
	unsigned long n = 0;
	char *buf;

	write_file(fd, 12, pages);
	close(fd);
	ro = open(file_path, O_RDONLY);
	buf = mmap(NULL, pages * PAGE, PROT_READ, MAP_SHARED, ro, 0);
	if (ro < 0 || buf == MAP_FAILED) {
		perror("verify: foutside");
		exit(1);
	}
	n += check_mapped("foutside", buf, 12, 0, pages, NULL, 1);
	wait_go("waiting for generation 2");
	n += check_mapped("foutside (sealed)", buf, 12, 0, pages, NULL, 2);
	munmap(buf, pages * PAGE);
	close(ro);
	fd = open_file(0, false);
	buf = mmap(NULL, pages * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	for (size_t pg = 0; pg < pages; pg += 2)
		pwrite_page(fd, 12, pg, 3);
	for (size_t pg = 0; pg < pages; pg++)
		n += check_mapped("foutside", buf, 12, pg, pg + 1, NULL,
				  pg % 2 ? 2 : 3);
	wait_go("waiting for generation 4");
	n += check_mapped("foutside (watched)", buf, 12, 0, pages, NULL, 4);
	n += check_file("foutside (watched)", fd, 12, 0, pages, 1, NULL, 4);
	munmap(buf, pages * PAGE);
	close(fd);
	unlink(file_path);
	result("foutside", n);
}

/* fstamp: write generation --passes of foutside's pattern over the whole
 * file, with pwrite(2): the outsider of foutside. */
void t_fstamp(void)
{
	size_t pages = mb << 20 >> 12;
	int fd = open_file(0, false);

	for (size_t pg = 0; pg < pages; pg++)
		pwrite_page(fd, 12, pg, passes);
	close(fd);
	result("fstamp", 0);
}

/*
 * fraw: writes that no libc symbol makes: raw syscall(2) of pwrite64 and
 * writev, and stdio's own writes (fwrite, fflush), to a file mapped
 * read-only. Every load after the write returned sees it.
 */
void t_fraw(void)
{
	size_t pages = mb << 20 >> 12;
	int fd = open_file(pages * PAGE, true);
	char *buf = mmap(NULL, pages * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	static uint64_t page[WORDS];
	unsigned long n = 0;
	FILE *f;

	if (buf == MAP_FAILED) {
		perror("verify: mmap");
		exit(1);
	}
	write_file(fd, 13, pages);
	n += check_mapped("fraw", buf, 13, 0, pages, NULL, 1);
	for (size_t pg = 0; pg < pages; pg += 3) {
		fill_page(page, 13, pg, 2);
		if (syscall(SYS_pwrite64, fd, page, PAGE, (off_t)(pg * PAGE)) !=
		    (long)PAGE)
			perror("verify: pwrite64");
		n += check_mapped("fraw (syscall)", buf, 13, pg, pg + 1, NULL,
				  2);
	}
	f = fopen(file_path, "r+");
	for (size_t pg = 1; f && pg < pages; pg += 3) {
		fill_page(page, 13, pg, 2);
		fseek(f, (long)(pg * PAGE), SEEK_SET);
		if (fwrite(page, PAGE, 1, f) != 1 || fflush(f))
			perror("verify: fwrite");
		n += check_mapped("fraw (stdio)", buf, 13, pg, pg + 1, NULL,
				  2);
	}
	if (f)
		fclose(f);
	for (size_t pg = 0; pg < pages; pg++)
		n += check_mapped("fraw", buf, 13, pg, pg + 1, NULL,
				  pg % 3 == 2 ? 1 : 2);
	munmap(buf, pages * PAGE);
	close(fd);
	unlink(file_path);
	result("fraw", n);
}

/*
 * fwb: one thread writes a file with pwrite(2) from a buffer several
 * times the budget (its pages are evicted, so each write faults inside
 * the kernel, holding the file's lock), while another stores through a
 * shared mapping of the file and reads it back with pread(2), which has
 * the pager write the stores back: the write-back must never wait for
 * the lock the faulting write holds. Both halves checked at the end.
 */
struct fwb_arg {
	int fd;
	size_t pages;
	char *src;		/* --mb MiB of patterned memory */
	size_t src_pages;
	unsigned long bad;
};

static void *fwb_writer(void *arg)
{
	struct fwb_arg *a = arg;
	uint64_t s = seed;

	/* Source page j holds file page j % (pages / 2): written long ago,
	 * evicted since, so the write's copy of it faults. */
	for (size_t k = 0; k < passes * a->pages; k++) {
		size_t j = rnd(&s) % a->src_pages, pg = j % (a->pages / 2);

		if (pwrite(a->fd, a->src + j * PAGE, PAGE,
			   (off_t)(pg * PAGE)) != (ssize_t)PAGE)
			a->bad++;
	}
	return NULL;
}

void t_fwb(void)
{
	size_t pages = (mb << 20 >> 12) / 4;
	struct fwb_arg a = { .pages = pages, .src_pages = mb << 20 >> 12 };
	static uint64_t page[WORDS];
	unsigned long n = 0;
	pthread_t t;
	uint64_t s = seed + 1;
	char *map_rw;

	a.fd = open_file(pages * PAGE, true);
	write_file(a.fd, 14, pages);
	a.src = map(a.src_pages * PAGE);
	for (size_t j = 0; j < a.src_pages; j++)
		fill_page((uint64_t *)(a.src + j * PAGE), 14, j % (pages / 2),
			  2);
	map_rw = map_file(a.fd, pages * PAGE, MAP_SHARED);
	for (size_t pg = 0; pg < pages / 2; pg++)
		pwrite_page(a.fd, 14, pg, 2);
	pthread_create(&t, NULL, fwb_writer, &a);
	for (size_t k = 0; k < passes * pages; k++) {
		size_t pg = pages / 2 + rnd(&s) % (pages - pages / 2);

		fill_page((uint64_t *)(map_rw + pg * PAGE), 14, pg, 3);
		if (pread(a.fd, page, PAGE, (off_t)(pg * PAGE)) != (ssize_t)PAGE)
			n += WORDS;
		else
			n += check_page("fwb (pread)", page, 14, pg, 3);
	}
	pthread_join(t, NULL);
	n += a.bad;
	n += check_file("fwb", a.fd, 14, 0, pages / 2, 1, NULL, 2);
	munmap(map_rw, pages * PAGE);
	munmap(a.src, a.src_pages * PAGE);
	close(a.fd);
	unlink(file_path);
	result("fwb", n);
}

/*
 * fredirty: a process stores through a shared mapping and reads each
 * store back with pread(2) at once, while another process fsyncs the
 * file over and over (its own connection to the daemon: its flushes are
 * not queued behind the first process's requests), so a page is often
 * being written back when the store dirties it again. The pread must
 * still see the store, not the bytes the write-back in flight took
 * before it.
 */
void t_fredirty(void)
{
	size_t pages = 4;
	static uint64_t page[WORDS];
	volatile bool *done = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned long n = 0;
	uint64_t s = seed + 2;
	char *map_rw;
	pid_t kid;
	int fd;

	fd = open_file(pages * PAGE, true);
	map_rw = map_file(fd, pages * PAGE, MAP_SHARED);
	kid = fork();
	if (kid == 0) {
		while (!*done)
			fsync(fd);
		_exit(0);
	}
	for (size_t k = 0; k < passes * 20000; k++) {
		size_t pg = rnd(&s) % pages;

		fill_page((uint64_t *)(map_rw + pg * PAGE), 15, pg, k + 1);
		if (pread(fd, page, PAGE, (off_t)(pg * PAGE)) != (ssize_t)PAGE)
			n += WORDS;
		else
			n += check_page("fredirty (pread)", page, 15, pg, k + 1);
	}
	*done = true;
	waitpid(kid, NULL, 0);
	munmap((void *)done, PAGE);
	munmap(map_rw, pages * PAGE);
	close(fd);
	unlink(file_path);
	result("fredirty", n);
}
