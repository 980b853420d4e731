/* SPDX-License-Identifier: MIT */
/*
 * forklock - what a program with its own allocator and helper processes
 * does (Chromium's crashpad handler, with PartitionAlloc): malloc is the
 * program's, behind one lock that its fork handlers hold across fork(2)
 * (prepare locks it, parent and child unlock it, as jemalloc, tcmalloc and
 * PartitionAlloc do, so that a child never inherits it mid-change); and it
 * checks, as Chromium's zygote does, that it has one thread before it
 * forks. Each child allocates, checks its own threads, and exits; the
 * parent waits for each and for nothing else.
 *
 * Natively it prints "forklock: N children, 1 thread, ok". Under a shim
 * with an agent thread it saw three threads; and a fork child hung for
 * ever on the allocator's lock when the shim's own fork handler, which
 * runs before the program's child handler unlocks it, allocated (as
 * pthread_create does for a thread's TLS).
 *
 *   forklock [CHILDREN]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <malloc.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the program's allocator: a bump allocator behind one lock ------- */

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static char *heap, *heap_end;

#define HEAP_CHUNK (64UL << 20)

static void *bump(size_t n)
{
	void *p;

	n = (n + 15) & ~15UL;
	pthread_mutex_lock(&heap_lock);
	if (!heap || heap + n + 16 > heap_end) {
		size_t len = n + 16 > HEAP_CHUNK ? n + 16 : HEAP_CHUNK;
		char *h = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (h == MAP_FAILED) {
			pthread_mutex_unlock(&heap_lock);
			return NULL;
		}
		heap = h;
		heap_end = h + len;
	}
	*(size_t *)heap = n;
	p = heap + 16;
	heap += n + 16;
	pthread_mutex_unlock(&heap_lock);
	return p;
}

void *malloc(size_t n)
{
	return bump(n);
}

void *calloc(size_t k, size_t n)
{
	void *p;

	if (n && k > SIZE_MAX / n)
		return NULL;
	p = bump(k * n);	/* fresh mmap memory: zeros */
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p = bump(n);
	size_t had;

	if (!p || !old)
		return p;
	had = *(size_t *)((char *)old - 16);
	memcpy(p, old, had < n ? had : n);
	return p;
}

void free(void *p)
{
	(void)p;
}

void *memalign(size_t align, size_t n)
{
	char *p = bump(n + align);

	return p ? (void *)(((uintptr_t)p + align - 1) & ~(align - 1)) : NULL;
}

int posix_memalign(void **out, size_t align, size_t n)
{
	*out = memalign(align, n);
	return *out ? 0 : ENOMEM;
}

void *aligned_alloc(size_t align, size_t n)
{
	return memalign(align, n);
}

static void lock_heap(void)
{
	pthread_mutex_lock(&heap_lock);
}

static void unlock_heap(void)
{
	pthread_mutex_unlock(&heap_lock);
}

/* ---- the program ------------------------------------------------------ */

static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	int children = argc > 1 ? atoi(argv[1]) : 20, bad = 0;

	pthread_atfork(lock_heap, unlock_heap, unlock_heap);
	for (int k = 0; k < children; k++) {
		char *p = malloc(4096);
		pid_t pid, w;
		int st;

		/* A zygote's CHECK before it forks. */
		if (threads() != 1) {
			printf("forklock: %d threads before fork %d\n",
			       threads(), k);
			return 1;
		}
		memset(p, k, 4096);
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("forklock: fork");
			return 1;
		}
		if (pid == 0) {
			char *q = malloc(1 << 20);

			memset(q, 1, 1 << 20);
			_exit(threads() == 1 && p[4095] == (char)k &&
			      q[12345] == 1 ? 0 : 1);
		}
		w = waitpid(-1, &st, 0);
		if (w != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("forklock: child %d: waited %d, status %#x\n",
			       k, (int)w, st);
			bad++;
		}
	}
	/* Every child reaped: nothing else is ours to wait for. */
	if (waitpid(-1, NULL, WNOHANG | __WALL) != -1 || errno != ECHILD) {
		printf("forklock: a child that is not the program's\n");
		bad++;
	}
	printf("forklock: %d children, %d thread, %s\n", children, threads(),
	       bad ? "FAILED" : "ok");
	return bad ? 1 : 0;
}
