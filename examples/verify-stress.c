/* SPDX-License-Identifier: MIT */
/*
 * verify-stress.c - verify's fstress: processes' random calls on one
 * file, each byte checked against a model of what the file must hold.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify.h"

/* What the processes of fstress share (an anonymous shared mapping, which
 * stays the kernel's): the model of the file and a barrier. */
struct stress_shared {
	pthread_barrier_t bar;
	size_t size;		/* the file's */
	unsigned char bytes[];	/* what the file must hold */
};

struct model {
	struct stress_shared *sh;
	size_t max;		/* bytes the mappings span */
	int me, procs;		/* this process owns pages pg % procs == me */
	int fd;
	char *ro, *rw;		/* shared mappings, max bytes long */
	unsigned long bad;
	unsigned long op;
};

static void mismatch(struct model *m, const char *what, size_t off)
{
	if (m->bad++ < 5)
		printf("verify: fstress: process %d, op %lu (%s): wrong at "
		       "byte %zu (file size %zu)\n", m->me, m->op, what, off,
		       m->sh->size);
}

static void random_bytes(uint64_t *s, unsigned char *p, size_t n)
{
	for (size_t k = 0; k < n; k++)
		p[k] = (unsigned char)(rnd(s) >> 24);
}

/* A range inside one of this process's pages, inside the file; false if
 * it has none there. */
static bool pick_own(struct model *m, uint64_t *s, size_t *off, size_t *len)
{
	size_t pages = m->sh->size / PAGE, pg;

	if (pages <= (size_t)m->me)
		return false;
	pg = (rnd(s) % ((pages - (size_t)m->me + m->procs - 1) /
			(size_t)m->procs)) * (size_t)m->procs + (size_t)m->me;
	*off = pg * PAGE + rnd(s) % PAGE;
	*len = 1 + rnd(s) % (PAGE - *off % PAGE);
	return true;
}

/* Bytes [off, off + len) through the read-only mapping, against the
 * model: SIGBUS exactly on the pages past the file's last one. */
static void check_load(struct model *m, size_t off, size_t len)
{
	static char got[PAGE];
	size_t size = m->sh->size, end = (size + PAGE - 1) / PAGE * PAGE;

	for (size_t pg = off / PAGE * PAGE; pg < off + len; pg += PAGE) {
		size_t a = pg > off ? pg : off, b = pg + PAGE < off + len ?
			   pg + PAGE : off + len;
		bool ok = load(m->ro + a, got, b - a);

		if (ok != (pg < end)) {
			mismatch(m, ok ? "no SIGBUS past the end" :
				 "SIGBUS inside the file", a);
			continue;
		}
		for (size_t k = 0; ok && k < b - a; k++) {
			unsigned char want = a + k < size ?
					     m->sh->bytes[a + k] : 0;

			if ((unsigned char)got[k] != want) {
				mismatch(m, "mapped load", a + k);
				break;
			}
		}
	}
}

static void check_pread(struct model *m, size_t off, size_t len)
{
	static unsigned char got[4 * PAGE];
	size_t size = m->sh->size;
	ssize_t r = pread(m->fd, got, len, (off_t)off);
	size_t want = off >= size ? 0 : (size - off < len ? size - off : len);

	if (r != (ssize_t)want) {
		mismatch(m, "pread's length", off);
		return;
	}
	for (size_t k = 0; k < want; k++)
		if (got[k] != m->sh->bytes[off + k]) {
			mismatch(m, "pread", off + k);
			return;
		}
}

/* One call on this process's own pages, checked at once. */
static void stress_op(struct model *m, uint64_t *s)
{
	static unsigned char data[PAGE];
	size_t off, len;

	if (!pick_own(m, s, &off, &len))
		return;
	switch (rnd(s) % 8) {
	case 0:
	case 1:		/* pwrite, then a load */
		random_bytes(s, data, len);
		if (pwrite(m->fd, data, len, (off_t)off) != (ssize_t)len) {
			mismatch(m, "pwrite failed", off);
			return;
		}
		memcpy(m->sh->bytes + off, data, len);
		check_load(m, off, len);
		break;
	case 2:
	case 3:		/* a store through the writable mapping, then pread */
		random_bytes(s, data, len);
		memcpy(m->rw + off, data, len);
		memcpy(m->sh->bytes + off, data, len);
		check_pread(m, off, len);
		break;
	case 4:
		check_pread(m, off, len);
		break;
	case 5:
		check_load(m, off, len);
		break;
	case 6:		/* the page punched out of the file */
		off = off / PAGE * PAGE;
		if (off + PAGE > m->sh->size ||
		    fallocate(m->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)off, PAGE))
			return;
		memset(m->sh->bytes + off, 0, PAGE);
		check_load(m, off, PAGE);
		break;
	default:	/* write(2) at an offset, then msync or fsync */
		random_bytes(s, data, len);
		if (pwritev(m->fd, &(struct iovec){ data, len }, 1,
			    (off_t)off) != (ssize_t)len) {
			mismatch(m, "pwritev failed", off);
			return;
		}
		memcpy(m->sh->bytes + off, data, len);
		if (rnd(s) & 1)
			msync(m->rw, m->max, MS_SYNC);
		else
			fsync(m->fd);
		check_pread(m, off, len);
	}
}

/* The first process, while the others wait: truncate down or up. */
static void stress_truncate(struct model *m, uint64_t *s)
{
	size_t len = m->max / 4 + rnd(s) % (m->max - m->max / 4 + 1);

	if (ftruncate(m->fd, (off_t)len)) {
		mismatch(m, "ftruncate failed", len);
		return;
	}
	if (len > m->sh->size)
		memset(m->sh->bytes + m->sh->size, 0, len - m->sh->size);
	else
		memset(m->sh->bytes + len, 0, m->sh->size - len);
	m->sh->size = len;
}

static void stress_check_all(struct model *m)
{
	for (size_t off = 0; off < m->max; off += 4 * PAGE) {
		size_t len = m->max - off < 4 * PAGE ? m->max - off : 4 * PAGE;

		check_load(m, off, len);
		check_pread(m, off, len);
	}
}

static unsigned long stress_proc(struct model *m)
{
	uint64_t s = seed * 2654435761u + (uint64_t)m->me * 977 + 1;

	m->fd = open_file(0, false);
	m->ro = mmap(NULL, m->max, PROT_READ, MAP_SHARED, m->fd, 0);
	m->rw = mmap(NULL, m->max, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd,
		     0);
	if (m->ro == MAP_FAILED || m->rw == MAP_FAILED) {
		perror("verify: fstress");
		exit(1);
	}
	for (size_t round = 0; round < passes * 10; round++) {
		for (int k = 0; k < 400; k++, m->op++)
			stress_op(m, &s);
		/* Everyone sees everyone's writes, then the truncation. */
		pthread_barrier_wait(&m->sh->bar);
		stress_check_all(m);
		pthread_barrier_wait(&m->sh->bar);
		if (m->me == 0)
			stress_truncate(m, &s);
		pthread_barrier_wait(&m->sh->bar);
		stress_check_all(m);
		pthread_barrier_wait(&m->sh->bar);
	}
	munmap(m->ro, m->max);
	munmap(m->rw, m->max);
	close(m->fd);
	return m->bad;
}

/*
 * fstress: --threads processes share one file, each mapping it twice
 * (read-only and writable, shared), each making random calls on its own
 * pages — pwrite, pwritev, stores through the mapping, pread, loads,
 * holes punched, msync and fsync — checked at once against a model of
 * the file in shared memory; then, all waiting on a barrier, each checks
 * every byte of the file both ways (others' writes and stores included),
 * the first truncates it down or up, and each checks again, where loads
 * must raise SIGBUS too. --passes x 10 rounds of 400 calls a process.
 */
void t_fstress(void)
{
	size_t pages = mb << 20 >> 12, max = pages * PAGE;
	int procs = (int)(nthreads > 16 ? 16 : nthreads), fd;
	struct stress_shared *sh = mmap(NULL, sizeof(*sh) + max,
					PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_barrierattr_t ba;
	unsigned long n = 0;
	pid_t kids[16];

	if (sh == MAP_FAILED) {
		perror("verify: fstress");
		exit(1);
	}
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(&sh->bar, &ba, (unsigned int)procs);
	fd = open_file(max, true);
	close(fd);
	sh->size = max;
	fflush(stdout);
	for (int me = 1; me < procs; me++) {
		kids[me] = fork();
		if (kids[me] == 0) {
			struct model m = { sh, max, me, procs, -1, NULL, NULL,
					   0, 0 };

			unsigned long bad = stress_proc(&m);

			/* _exit() would drop what mismatch() printed. */
			fflush(stdout);
			_exit(bad ? 1 : 0);
		}
	}
	{
		struct model m = { sh, max, 0, procs, -1, NULL, NULL, 0, 0 };

		n = stress_proc(&m);
	}
	for (int me = 1; me < procs; me++) {
		int status;

		if (waitpid(kids[me], &status, 0) != kids[me]) {
			printf("verify: fstress: process %d lost\n", me);
			n++;
		} else if (WIFSIGNALED(status)) {
			printf("verify: fstress: process %d killed by signal "
			       "%d\n", me, WTERMSIG(status));
			n++;
		} else if (WEXITSTATUS(status)) {
			printf("verify: fstress: process %d failed\n", me);
			n++;
		}
	}
	unlink(file_path);
	munmap(sh, sizeof(*sh) + max);
	result("fstress", n);
}

