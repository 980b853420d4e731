/* SPDX-License-Identifier: MIT */
/*
 * verify-heap.c - memory from malloc, as most C programs get it: glibc
 * grows its heap with brk and its other threads' arenas with its own
 * mmap, neither of which passes the shim's symbols.
 *
 *   heap   --threads threads each malloc --mb / --threads MiB in blocks
 *          of 4000 bytes (the first thread's from the brk heap, the
 *          others' from arenas glibc maps), fill them, and check every
 *          block --passes times; then free them all. The process's peak
 *          RSS (VmHWM) is printed, for the budget to be checked against.
 *   heapsig  heap, with a SIGALRM every 200 us to a handler installed
 *          with SA_RESTART, as signal(3) installs it: every malloc must
 *          succeed (no brk or mmap may fail with EINTR).
 *   callstorm  --threads threads map, fill, check and unmap blocks by
 *          glibc's malloc (mmap'd: 256 KiB over a fixed M_MMAP_THRESHOLD
 *          of 128 KiB, so that every one is an mmap and a munmap) while the main thread
 *          signals them (SA_RESTART) every 50 us and a thread is ended
 *          and started again every few ms: notified calls withdrawn
 *          before the daemon receives them must not stop it.
 */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

#define BLOCK 4000

struct heap_part {
	unsigned int no;
	size_t blocks;
	unsigned long bad;
};

static uint64_t block_word(unsigned int no, size_t b, size_t w, size_t pass)
{
	return pattern(0x40 + no, b, w % WORDS, pass + 1) ^ w;
}

static void *heap_part(void *arg)
{
	struct heap_part *h = arg;
	uint64_t **blk = malloc(h->blocks * sizeof(*blk));

	if (!blk) {
		perror("verify: heap: malloc");
		exit(1);
	}
	for (size_t pass = 0; pass < passes; pass++) {
		for (size_t b = 0; b < h->blocks; b++) {
			if (!pass && !(blk[b] = malloc(BLOCK))) {
				perror("verify: heap: malloc");
				exit(1);
			}
			for (size_t w = 0; w < BLOCK / 8; w++)
				blk[b][w] = block_word(h->no, b, w, pass);
		}
		for (size_t b = 0; b < h->blocks; b++)
			for (size_t w = 0; w < BLOCK / 8; w++)
				if (blk[b][w] != block_word(h->no, b, w, pass)) {
					if (h->bad++ < 4)
						fprintf(stderr, "verify: heap: "
							"thread %u block %zu "
							"word %zu wrong\n",
							h->no, b, w);
				}
	}
	for (size_t b = 0; b < h->blocks; b++)
		free(blk[b]);
	free(blk);
	return NULL;
}

static void print_hwm(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			printf("verify: heap: %s", line);
	if (f)
		fclose(f);
}

static volatile sig_atomic_t ticks;

static void tick(int sig)
{
	(void)sig;
	ticks++;
}

void t_heapsig(void)
{
	struct sigaction sa = { .sa_handler = tick, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, off = { 0 };

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	t_heap();
	setitimer(ITIMER_REAL, &off, NULL);
	printf("verify: heapsig: %d signals\n", (int)ticks);
}

struct storm {
	pthread_t t;
	unsigned int no;
	volatile bool done;
	unsigned long bad;
};

static void *storm_part(void *arg)
{
	struct storm *s = arg;

	for (size_t i = 0; i < 200; i++) {
		size_t words = (256 << 10) / 8;
		uint64_t *b = malloc(words * 8);

		if (!b) {
			perror("verify: callstorm: malloc");
			exit(1);
		}
		for (size_t w = 0; w < words; w += 4096)
			b[w] = block_word(s->no, i, w, 0);
		for (size_t w = 0; w < words; w += 4096)
			if (b[w] != block_word(s->no, i, w, 0))
				s->bad++;
		free(b);
	}
	s->done = true;
	return NULL;
}

void t_callstorm(void)
{
	struct sigaction sa = { .sa_handler = tick, .sa_flags = SA_RESTART };
	struct storm *s = calloc(nthreads, sizeof(*s));
	unsigned long n = 0, started = 0;
	size_t rounds = passes * 20;

	sigaction(SIGUSR1, &sa, NULL);
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	for (size_t r = 0; r < rounds; r++) {
		for (unsigned int k = 0; k < nthreads; k++) {
			s[k] = (struct storm){ .no = k };
			if (pthread_create(&s[k].t, NULL, storm_part, &s[k])) {
				perror("verify: callstorm: pthread_create");
				exit(1);
			}
			started++;
		}
		for (bool all = false; !all;) {
			all = true;
			for (unsigned int k = 0; k < nthreads; k++) {
				if (!s[k].done) {
					pthread_kill(s[k].t, SIGUSR1);
					all = false;
				}
			}
			usleep(50);
		}
		for (unsigned int k = 0; k < nthreads; k++) {
			pthread_join(s[k].t, NULL);
			n += s[k].bad;
		}
	}
	printf("verify: callstorm: %lu threads, %d signals\n", started,
	       (int)ticks);
	free(s);
	result("callstorm", n);
}

void t_heap(void)
{
	size_t per = mb * 1024 * 1024 / BLOCK / nthreads;
	struct heap_part *h = calloc(nthreads, sizeof(*h));
	pthread_t *t = calloc(nthreads, sizeof(*t));
	unsigned long n = 0;

	for (unsigned int k = 0; k < nthreads; k++) {
		h[k] = (struct heap_part){ k, per, 0 };
		/* The first part on this thread: the brk heap's. */
		if (k && pthread_create(&t[k], NULL, heap_part, &h[k])) {
			perror("verify: heap: pthread_create");
			exit(1);
		}
	}
	heap_part(&h[0]);
	for (unsigned int k = 1; k < nthreads; k++)
		pthread_join(t[k], NULL);
	for (unsigned int k = 0; k < nthreads; k++)
		n += h[k].bad;
	print_hwm();
	free(h);
	free(t);
	result("heap", n);
}
