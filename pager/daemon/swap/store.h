/* SPDX-License-Identifier: MIT */
/*
 * store.h - a swap store: where a swapped-out page's bytes are kept, behind
 * one table of operations. Part-private: swap.c calls the stores, and no
 * store calls another.
 *
 * swap.c owns the slots (their references, the swap cache, shadows,
 * checksums) and hands a store only bytes and slot numbers, as the
 * kernel's swap code hands a block device bios. Two kinds sit behind the
 * table: the device `--swap` names (the file, zram, Redis), and a front
 * that may take a write before the device sees it and answers the reads
 * of what it took (zswap, as the kernel's frontswap hooks once had it).
 * A front's write of a page it does not take returns -ENOSPC and its read
 * of a slot it does not hold -ENOENT; swap.c then asks the device.
 *
 * A new store is one file that defines its `const struct pgr_swap_store
 * pgr_swap_NAME`, and one line in PGR_SWAP_DEVICES below. Its state is
 * its own (p->swap_dev_data, or p->swap_front_data for a front).
 */
#ifndef PGR_DAEMON_SWAP_STORE_H
#define PGR_DAEMON_SWAP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "swap.h"

/* One page's transfer. */
struct pgr_swap_io {
	uint32_t slot;
	uint64_t tag;		/* the ring completion's arg: the page
				 * descriptor, or PGR_SWAP_OWN_IO | a store's
				 * own number (swap.h) */
	char *buf;		/* the page's bytes (a budget buffer) */
	uint64_t owner;		/* a stable id of the process the page is
				 * of (its pid): Redis places by it */
	int group;		/* the memory cgroup charged for it */
};

struct pgr_swap_store {
	const char *name;
	/*
	 * Does @spec (`--swap`'s argument) name this device? 1: yes, and it
	 * is well formed; 0: not this one's; -EINVAL: this one's, wrong,
	 * the reason in @why. The file's says 1 to any path: it is asked
	 * last. NULL for a front.
	 */
	int (*match)(const char *spec, char *why, size_t len);
	/* Serve @slots slots, all free (a device: as @spec says). 0 or
	 * -errno, said in the log. */
	int (*open)(struct pgr *p, const char *spec, uint64_t slots);
	void (*close)(struct pgr *p);
	/*
	 * Start writing io->buf to io->slot. 0: its completion comes through
	 * the ring (PGR_IO_SWAP_WRITE, io->tag); PGR_SWAP_DONE: written
	 * already, no completion follows; PGR_SWAP_STORED: the same, in a
	 * front (no device I/O); -ENOSPC: a front did not take it; -EBUSY:
	 * not now (the ring is full, the slot's old bytes are on their way
	 * out); -ENOMEM: refused, as a full device refuses a slot.
	 */
	int (*write)(struct pgr *p, const struct pgr_swap_io *io);
	/* Start reading io->slot into io->buf: 0, its completion through
	 * the ring (PGR_IO_SWAP_READ, io->tag; pgr_ring_done() if it is
	 * done at once); -ENOENT: a front does not hold it; -EBUSY. */
	int (*read)(struct pgr *p, const struct pgr_swap_io *io);
	/* @slot's last reference went: its bytes go. True: the store still
	 * uses the slot (a write-back in flight) and hands it back with
	 * pgr_swap_release() when done. */
	bool (*free)(struct pgr *p, uint32_t slot);

	/* The rest may be NULL. */

	/* Is a read of @slot exclusive: the page comes back dirty, with no
	 * swap cache, and the store drops its copy once the slot is free? */
	bool (*exclusive)(const struct pgr *p, uint32_t slot);
	/* Why a read of @slot ended with @res < 0, for the process it stops. */
	void (*why)(const struct pgr *p, uint32_t slot, int res, char *buf,
		    size_t len);
	/* The ring's submit and its check for completions: send what is
	 * queued now; take the answers that came. */
	void (*flush)(struct pgr *p);
	void (*reap)(struct pgr *p);
	/* Background work when the loop next waits (zswap's shrink worker). */
	void (*background)(struct pgr *p);
	/* A completion of the store's own I/O (tag PGR_SWAP_OWN_IO | n). */
	void (*own_done)(struct pgr *p, uint64_t tag, int res);
	/* Counts the store's losses (a server gone): when it moves, the
	 * processes with a slot_lost() slot are to be stopped. */
	uint64_t (*lost_count)(const struct pgr *p);
	bool (*slot_lost)(const struct pgr *p, uint32_t slot);
	/* Are writes out that may still be answered (a fault waits)? */
	bool (*awaited)(const struct pgr *p);
	/* `pager stat`'s lines: the store's, one memory cgroup's
	 * (memory.stat), one process's. */
	void (*stat)(const struct pgr *p, pgr_swap_line_fn *line, void *ctx);
	void (*stat_group)(const struct pgr *p, int group,
			   pgr_swap_line_fn *line, void *ctx);
	void (*stat_pid)(const struct pgr *p, uint64_t owner,
			 pgr_swap_line_fn *line, void *ctx);
	/* It talks to other hosts: the confinement leaves it sockets. */
	bool network;
};

/* The devices `--swap` can name, asked in this order; one line a store. */
#define PGR_SWAP_DEVICES(X)	\
	X(redis)		\
	X(zram)			\
	X(file)

#define PGR_SWAP_DECLARE(name) extern const struct pgr_swap_store pgr_swap_##name;
PGR_SWAP_DEVICES(PGR_SWAP_DECLARE)
#undef PGR_SWAP_DECLARE

/* The front (zswap.c), set in front of the file by zswap.enabled. */
extern const struct pgr_swap_store pgr_swap_zswap;

#endif /* PGR_DAEMON_SWAP_STORE_H */
