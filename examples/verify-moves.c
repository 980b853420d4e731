/* SPDX-License-Identifier: MIT */
/*
 * verify-moves.c - verify's tests of one thread's mappings changing while
 * another thread's userfaultfd events wait to be read (fmoves, mapbusy).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verify.h"

/*
 * fmoves: two threads move mappings of a file with mremap, the second
 * into the range the first has just vacated, while the first's move is
 * still being reported (Chromium's allocator does this); then every page
 * of both is read. A move is two userfaultfd events, REMAP and then the
 * old range's UNMAP, and the second thread's REMAP can be read between
 * them: the pager once took the late UNMAP for the newcomer's and killed
 * the process at its first touch there.
 */
#define FMOVES_PAGES	4
#define FMOVES_ROUNDS	300

struct fmove {
	char *from, *to;	/* the second thread's mapping, and where the
				 * first's was */
	char *moved;		/* where it went */
};

/* The second thread: wait until the first's range is vacated (mincore
 * says ENOMEM), then move its own mapping there. */
static void *fmove_into(void *arg)
{
	struct fmove *m = arg;
	unsigned char v[FMOVES_PAGES];

	while (!mincore(m->to, FMOVES_PAGES * PAGE, v) || errno != ENOMEM)
		;
	m->moved = mremap(m->from, FMOVES_PAGES * PAGE, FMOVES_PAGES * PAGE,
			  MREMAP_MAYMOVE | MREMAP_FIXED, m->to);
	return NULL;
}

void t_fmoves(void)
{
	size_t len = FMOVES_PAGES * PAGE, pages = 2 * FMOVES_ROUNDS *
						  FMOVES_PAGES;
	int fd = open_file(pages * PAGE, true);
	unsigned long n = 0;

	write_file(fd, 14, pages);
	for (size_t r = 0; r < FMOVES_ROUNDS && !n; r++) {
		size_t o1 = 2 * r * FMOVES_PAGES, o2 = o1 + FMOVES_PAGES;
		char *a = mmap(NULL, len, PROT_READ, MAP_SHARED, fd,
			       (off_t)(o1 * PAGE));
		char *b = mmap(NULL, len, PROT_READ, MAP_SHARED, fd,
			       (off_t)(o2 * PAGE));
		char *spare = mmap(NULL, len, PROT_NONE, MAP_PRIVATE |
				   MAP_ANONYMOUS, -1, 0);
		struct fmove m = { b, a, NULL };
		pthread_t t;

		if (a == MAP_FAILED || b == MAP_FAILED || spare == MAP_FAILED ||
		    pthread_create(&t, NULL, fmove_into, &m)) {
			perror("verify: fmoves");
			exit(1);
		}
		/* Untouched, so the reads below fault. */
		a = mremap(a, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, spare);
		pthread_join(t, NULL);
		if (a != spare || m.moved != m.to) {
			perror("verify: mremap");
			exit(1);
		}
		n += check_mapped("fmoves", a - o1 * PAGE, 14, o1,
				  o1 + FMOVES_PAGES, NULL, 1);
		n += check_mapped("fmoves (into the vacated range)",
				  m.moved - o2 * PAGE, 14, o2,
				  o2 + FMOVES_PAGES, NULL, 1);
		munmap(a, len);
		munmap(m.moved, len);
	}
	close(fd);
	unlink(file_path);
	result("fmoves", n);
}

/*
 * mapbusy: mappings made (mmap, which the shim reports as "map") while
 * another thread's madvise(MADV_DONTNEED) events wait to be read. The
 * daemon adopts nothing while an event is unread; it once answered the
 * "map" at once anyway, and the program filled the mapping in the
 * kernel's memory, past the budget (the test samples RssAnon). All of it
 * stays mapped, and every word is checked at the end.
 */
#define MAPBUSY_LEN	(1UL << 20)

static volatile int mapbusy_stop;

static void *dontneed_loop(void *arg)
{
	volatile char *p = arg;

	while (!mapbusy_stop) {
		p[0] = 1;
		madvise((void *)p, PAGE, MADV_DONTNEED);
	}
	return NULL;
}

void t_mapbusy(void)
{
	size_t rounds = (mb << 20) / MAPBUSY_LEN, pages = MAPBUSY_LEN / PAGE;
	char **bufs = calloc(rounds, sizeof(*bufs));
	unsigned long n = 0;
	pthread_t t;

	if (!bufs || pthread_create(&t, NULL, dontneed_loop, map(PAGE))) {
		perror("verify: mapbusy");
		exit(1);
	}
	for (size_t r = 0; r < rounds; r++) {
		bufs[r] = map(MAPBUSY_LEN);
		fill(bufs[r], 100 + r, 0, pages, 1);
	}
	mapbusy_stop = 1;
	pthread_join(t, NULL);
	for (size_t r = 0; r < rounds; r++)
		n += check("mapbusy", bufs[r], 100 + r, 0, pages, 1);
	free(bufs);
	result("mapbusy", n);
}

/*
 * advise: a thread gives random ranges of the buffer MADV_SEQUENTIAL,
 * MADV_RANDOM and MADV_NORMAL (the pager cuts its regions at their ends,
 * as the kernel splits the VMAs) while the main one writes and checks
 * every page, generation after generation.
 */
static volatile int advise_stop;

struct advise_arg {
	char *buf;
	size_t pages;
};

static void *advise_loop(void *arg)
{
	static const int advice[] = { MADV_SEQUENTIAL, MADV_RANDOM,
				      MADV_NORMAL };
	const struct advise_arg *a = arg;
	uint64_t s = seed * 7919 + 1;

	while (!advise_stop) {
		size_t at = rnd(&s) % a->pages, len = 1 + rnd(&s) % 256;

		if (at + len > a->pages)
			len = a->pages - at;
		madvise(a->buf + at * PAGE, len * PAGE, advice[rnd(&s) % 3]);
	}
	return NULL;
}

void t_advise(void)
{
	size_t pages = (mb << 20) / PAGE;
	struct advise_arg a = { map(mb << 20), pages };
	unsigned long n = 0;
	pthread_t t;

	fill(a.buf, 11, 0, pages, 1);
	if (pthread_create(&t, NULL, advise_loop, &a)) {
		perror("verify: advise");
		exit(1);
	}
	for (uint64_t gen = 2; gen < 2 + passes; gen++) {
		fill(a.buf, 11, 0, pages, gen);
		n += check("advise", a.buf, 11, 0, pages, gen);
	}
	advise_stop = 1;
	pthread_join(t, NULL);
	n += check("advise", a.buf, 11, 0, pages, 1 + passes);
	result("advise", n);
}
