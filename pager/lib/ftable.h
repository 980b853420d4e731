/* SPDX-License-Identifier: MIT */
/*
 * ftable.h - the table of cached files that the daemon shares, read-only,
 * with every shim: which (device, inode) the pager's page cache holds, and
 * in which state, so that a process's write(2) or read(2) learns with one
 * load whether it must tell the daemon anything (docs/files.md,
 * "Coherence").
 *
 * The daemon alone writes it (a memfd it maps shared; each shim maps it
 * read-only after hello). An entry is found by open addressing on
 * (dev, ino); each carries a sequence number the daemon makes odd while
 * it changes the entry, so a reader never takes half an update. The
 * counters in the header are the fast path: while nr_watched is 0 no
 * write needs a word to the daemon, while nr_rw is 0 no read does.
 *
 * Header only: the shim may include it (no allocation, no libc beyond
 * what the compiler inlines).
 */
#ifndef PGR_FTABLE_H
#define PGR_FTABLE_H

#include <stdbool.h>
#include <stdint.h>

#define FT_MAGIC	0x70676674u	/* "pgft" */
#define FT_SLOTS	4096		/* a power of two, > the inodes cached */

enum {
	FT_USED = 1,		/* an inode is here (else empty or deleted) */
	FT_DELETED = 2,		/* was used: probing goes on past it */
	FT_SEALED = 4,		/* no writer can exist: a lease is held */
	FT_WATCHED = 8,		/* writers exist, all of them write-through
				 * clients: a write must be told (wpost) */
	FT_RW = 16,		/* a store through a shared mapping dirtied a
				 * page (ever): reads, syncs and writes of it
				 * have dirty pages written back first
				 * (rsync, wpre) */
	FT_HANDED_BACK = 32,	/* being demoted: the kernel's from now on */
};

struct ft_entry {
	uint64_t dev;
	uint64_t ino;
	uint32_t seq;		/* odd while the daemon changes the entry */
	uint32_t flags;		/* FT_* */
	uint32_t id;		/* the daemon's inode index */
	uint32_t gen;		/* and its generation */
};

struct ftable {
	uint32_t magic;
	uint32_t slots;		/* FT_SLOTS */
	uint32_t nr_watched;	/* entries with FT_WATCHED */
	uint32_t nr_rw;		/* entries with FT_RW */
	uint32_t nr_sealed;	/* entries with FT_SEALED */
	uint32_t pad[11];	/* to 64 bytes */
	struct ft_entry e[FT_SLOTS];
};

static inline uint32_t ft_hash(uint64_t dev, uint64_t ino)
{
	uint64_t h = (ino ^ (dev << 32 | dev >> 32)) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 40) & (FT_SLOTS - 1);
}

/*
 * Look (@dev, @ino) up in @t (which another process changes): its entry
 * copied into *@out, or false if the table does not hold it.
 */
static inline bool ft_lookup(const volatile struct ftable *t, uint64_t dev,
			     uint64_t ino, struct ft_entry *out)
{
	uint32_t k = ft_hash(dev, ino);

	for (uint32_t n = 0; n < FT_SLOTS; n++, k = (k + 1) & (FT_SLOTS - 1)) {
		const volatile struct ft_entry *e = &t->e[k];
		uint32_t seq, flags;

		do {
			seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
			out->dev = e->dev;
			out->ino = e->ino;
			flags = e->flags;
			out->id = e->id;
			out->gen = e->gen;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
		} while ((seq & 1) ||
			 seq != __atomic_load_n(&e->seq, __ATOMIC_RELAXED));
		out->seq = seq;
		out->flags = flags;
		if (!(flags & (FT_USED | FT_DELETED)))
			return false;		/* empty: not here */
		if ((flags & FT_USED) && out->dev == dev && out->ino == ino)
			return true;
	}
	return false;
}

#endif /* PGR_FTABLE_H */
