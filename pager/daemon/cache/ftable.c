/* SPDX-License-Identifier: MIT */
/*
 * ftable.c - the daemon's side of the shared table of cached files
 * (lib/ftable.h): which inodes the page cache holds and in which state of
 * coherence, for the shims to read with a load.
 *
 * Owns: the table's memfd and the daemon's writable mapping of it. Each
 * cached inode has at most one entry; its slot is kept in the inode's
 * descriptor (ft_slot). An entry's flags are the inode's `coh` state;
 * changing them bumps its sequence number to odd, stores, then to even,
 * with release ordering, so a shim reading at any moment sees the entry
 * before or after, never half of it; the header counts follow.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../lib/ftable.h"
#include "../../lib/log.h"
#include "../pgr.h"
#include "cache.h"

int pgr_ftable_init(struct pgr *p)
{
	int fd = memfd_create("pager-files", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	struct ftable *t;

	if (fd < 0 || ftruncate(fd, sizeof(*t))) {
		pgr_err("cannot make the table of cached files: %s",
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	/* The shims map it read-only and must never be able to grow or
	 * shrink it under each other. */
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (t == MAP_FAILED) {
		close(fd);
		return -ENOMEM;
	}
	t->magic = FT_MAGIC;
	t->slots = FT_SLOTS;
	p->ftable = t;
	p->ftable_fd = fd;
	return 0;
}

void pgr_ftable_release(struct pgr *p)
{
	if (!p->ftable)
		return;
	munmap(p->ftable, sizeof(*p->ftable));
	close(p->ftable_fd);
	p->ftable = NULL;
}

int pgr_ftable_fd(struct pgr *p)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", p->ftable_fd);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void count(struct ftable *t, uint32_t flags, int d)
{
	if (flags & FT_WATCHED)
		t->nr_watched += (uint32_t)d;
	if (flags & FT_RW)
		t->nr_rw += (uint32_t)d;
	if (flags & FT_SEALED)
		t->nr_sealed += (uint32_t)d;
}

/* Write @e's fields and flags as one update. */
static void publish(struct ft_entry *e, uint64_t dev, uint64_t ino,
		    uint32_t flags, uint32_t id, uint32_t gen)
{
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	e->dev = dev;
	e->ino = ino;
	e->flags = flags;
	e->id = id;
	e->gen = gen;
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
}

void pgr_ftable_set(struct pgr *p, uint32_t ino, uint32_t coh)
{
	struct finode *fi = &p->files[ino];
	struct ftable *t = p->ftable;
	struct ft_entry *e;
	uint32_t k;

	if (!t)
		return;
	coh &= FT_SEALED | FT_WATCHED | FT_RW | FT_HANDED_BACK;
	if (fi->ft_slot == PGR_NONE) {
		if (!coh)
			return;
		/* Probe from the hash for an empty or deleted slot. */
		k = ft_hash(fi->dev, fi->ino);
		for (uint32_t n = 0; n < FT_SLOTS; n++) {
			if (!(t->e[k].flags & FT_USED))
				break;
			k = (k + 1) & (FT_SLOTS - 1);
		}
		if (t->e[k].flags & FT_USED)
			return;		/* cannot be: FT_SLOTS > inodes */
		fi->ft_slot = k;
		publish(&t->e[k], fi->dev, fi->ino, FT_USED | coh, ino,
			fi->gen);
		count(t, coh, 1);
		return;
	}
	e = &t->e[fi->ft_slot];
	count(t, e->flags, -1);
	if (!coh) {
		publish(e, 0, 0, FT_DELETED, 0, 0);
		fi->ft_slot = PGR_NONE;
		return;
	}
	publish(e, fi->dev, fi->ino, FT_USED | coh, ino, fi->gen);
	count(t, coh, 1);
}
