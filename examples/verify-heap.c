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
 */
#include <pthread.h>
#include <signal.h>
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
