/* SPDX-License-Identifier: MIT */
/*
 * file.c - file pages: the pager's own page cache.
 *
 * userfaultfd cannot register regular-file mappings, so the shim maps a
 * memfd in their place: one per (device, inode), the inode's page cache,
 * shared by every client that maps the file (a page mapped by two
 * processes is resident once, counted once). The daemon maps each memfd
 * too. A client's mapping of it is a file region, registered for MISSING,
 * MINOR and WP faults:
 *
 *   MISSING  the page is not in the cache: read it from the file with
 *            io_uring (O_DIRECT when the file system allows, so the
 *            kernel's cache does not hide the I/O) straight into the
 *            daemon's mapping of the memfd, with read-around; when the
 *            read completes, UFFDIO_CONTINUE maps it in the faulting
 *            process, and every other waiter is woken to fault again
 *   MINOR    in the cache, not mapped here: UFFDIO_CONTINUE, with
 *            fault-around over neighbours that are cached too. This is
 *            also the young bit: a page is young in a mapping while the
 *            slot says FMAPPED; arming it asks the agent to MADV_DONTNEED
 *            it there, which leaves the memfd's page in place
 *   WP       private mapping: pages are mapped write-protected, so the
 *            first write is seen: the page becomes the region's anon page
 *            (copy-on-write, as in the kernel), managed as anon from then
 *            on (its slot holds it like an anon region's). Shared mapping:
 *            a clean page is mapped write-protected; its first write
 *            dirties it (the dirty bit for write-back)
 *
 * Eviction punches the page out of the memfd (which unmaps it from every
 * process; the next access is a MISSING fault) after writing it back if
 * dirty (pwrite from the daemon's mapping, with every mapping of it
 * write-protected first, so no write can slip in unseen). The shadow entry
 * stays in the inode's per-page array, as in the kernel's xarray.
 *
 * Write-back also happens on msync, munmap and exit of a shared mapping.
 * An inode no one maps keeps its pages (as the kernel keeps page cache
 * after close) until the inode shrinker or reclaim drops them; one whose
 * file changed (mtime, size) is dropped when next mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "compat.h"
#include "log.h"
#include "pgr.h"
#include "util.h"

#define MMAP_LOTSAMISS	100	/* mm/filemap.c: read-around off above */
#define FILES_MAX	65536	/* descriptors; the knob limits live ones */

/* A read in flight: a run of pages of one inode, and the fault it serves. */
struct file_read {
	uint32_t ino;
	uint64_t first;		/* file page */
	uint32_t n;
	uint32_t client;	/* the fault to serve, PGR_NONE: readahead */
	uint64_t addr;
	bool write;
} __attribute__((aligned(8)));

static struct finode *F(struct pgr *p, uint32_t ino)
{
	return &p->files[ino];
}

static uint32_t npages(const struct region *r)
{
	return (uint32_t)((r->end - r->start) / PGR_PAGE);
}

/* Does region @rid map file page @pg? Then its slot index is *off. */
static bool covers(const struct region *r, uint64_t pg, uint32_t *off)
{
	if (pg < r->pgoff || pg >= r->pgoff + npages(r))
		return false;
	*off = (uint32_t)(pg - r->pgoff);
	return true;
}

static uint64_t slot_addr(const struct region *r, uint32_t off)
{
	return r->start + (uint64_t)off * PGR_PAGE;
}

/* ---- the inode cache ------------------------------------------------------ */

int pgr_files_init(struct pgr *p)
{
	struct rlimit rl;

	p->nr_files_max = FILES_MAX;
	p->files = pgr_xcalloc(FILES_MAX, sizeof(*p->files));
	p->pol_inodes = pgr_xcalloc(FILES_MAX, sizeof(*p->pol_inodes));
	/* Each cached inode holds two or three descriptors. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	getrlimit(RLIMIT_NOFILE, &rl);
	p->inode_fd_cap = FILES_MAX;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 3 * FILES_MAX + 256)
		p->inode_fd_cap = rl.rlim_cur > 512 ?
				  (uint32_t)((rl.rlim_cur - 256) / 3) : 64;
	return 0;
}

static void drop_page(struct pgr *p, struct finode *fi, uint64_t pg)
{
	uint32_t i = fi->page[pg];

	fi->page[pg] = PGR_NONE;
	p->pages[i].region = PGR_NONE;
	pol_page_free(p->pol, i);
}

static void punch(struct finode *fi, uint64_t pg, uint64_t n)
{
	fallocate(fi->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		  (off_t)(pg * PGR_PAGE), (off_t)(n * PGR_PAGE));
}

void pgr_file_free_inode(struct pgr *p, uint32_t ino)
{
	struct finode *fi = F(p, ino);

	for (uint64_t pg = 0; pg < fi->map_pages; pg++)
		if (fi->shadow[pg])
			pol_shadow_forget(p->pol, fi->shadow[pg]);
	if (fi->map)
		munmap(fi->map, fi->map_pages * PGR_PAGE);
	close(fi->fd);
	if (fi->wfd >= 0)
		close(fi->wfd);
	close(fi->memfd);
	free(fi->page);
	free(fi->shadow);
	free(fi->mappers);
	memset(fi, 0, sizeof(*fi));
	p->nr_files_live--;
}

uint32_t pgr_file_invalidate(struct pgr *p, uint32_t ino)
{
	struct finode *fi = F(p, ino);
	uint32_t n = 0;

	for (uint64_t pg = 0; pg < fi->map_pages; pg++) {
		uint32_t i = fi->page[pg];

		if (i == PGR_NONE || (p->pages[i].flags & DP_READING) ||
		    (p->pages[i].pol.flags & (POL_PG_DIRTY |
					      POL_PG_WRITEBACK)))
			continue;
		punch(fi, pg, 1);
		drop_page(p, fi, pg);
		n++;
	}
	return n;
}

/* Forget a cached inode no one maps (its file changed): pages, shadows
 * and all. Pages being read keep it. */
static bool forget(struct pgr *p, uint32_t ino)
{
	struct finode *fi = F(p, ino);

	pgr_file_flush(p, ino, 0, fi->map_pages, PGR_NONE);
	pgr_file_invalidate(p, ino);
	if (p->pol_inodes[ino].nrpages)
		return false;
	pol_inode_release(p->pol, ino);
	pgr_file_free_inode(p, ino);
	return true;
}

void pgr_files_drop_unused(struct pgr *p)
{
	for (uint32_t ino = 0; ino < p->nr_files_max; ino++)
		if (p->files[ino].used && !p->files[ino].nr_mappers)
			forget(p, ino);
}

/* Make the cache @pages long (the file's size changed). */
static int resize(struct pgr *p, struct finode *fi, uint64_t size)
{
	uint64_t pages = (size + PGR_PAGE - 1) / PGR_PAGE;

	if (pages < fi->map_pages) {
		for (uint64_t pg = pages; pg < fi->map_pages; pg++) {
			if (fi->page[pg] != PGR_NONE &&
			    !(p->pages[fi->page[pg]].flags & DP_READING))
				drop_page(p, fi, pg);
		}
	}
	if (ftruncate(fi->memfd, (off_t)size))
		return -errno;
	fi->size = size;
	if (pages <= fi->map_pages)
		return 0;
	{
		void *m = fi->map ? mremap(fi->map, fi->map_pages * PGR_PAGE,
					   pages * PGR_PAGE, MREMAP_MAYMOVE) :
			  mmap(NULL, pages * PGR_PAGE, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fi->memfd, 0);

		if (m == MAP_FAILED)
			return -errno;
		fi->map = m;
	}
	fi->page = pgr_xrealloc(fi->page, pages, sizeof(*fi->page));
	fi->shadow = pgr_xrealloc(fi->shadow, pages, sizeof(*fi->shadow));
	for (uint64_t pg = fi->map_pages; pg < pages; pg++) {
		fi->page[pg] = PGR_NONE;
		fi->shadow[pg] = 0;
	}
	fi->map_pages = pages;
	return 0;
}

/* The read_ahead_kb of the device holding a file, in pages; 32 (the
 * kernel's default 128 KiB) if it cannot be told. */
static unsigned int device_ra_pages(dev_t dev)
{
	char path[128];
	unsigned int kb = 128;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/read_ahead_kb",
		 major(dev), minor(dev));
	f = fopen(path, "re");
	if (!f) {
		/* A partition: its disk's queue. */
		snprintf(path, sizeof(path),
			 "/sys/dev/block/%u:%u/../queue/read_ahead_kb",
			 major(dev), minor(dev));
		f = fopen(path, "re");
	}
	if (f) {
		if (fscanf(f, "%u", &kb) != 1)
			kb = 128;
		fclose(f);
	}
	return kb >= 4 ? kb / 4 : 1;
}

/* The readahead window of @fi: the knob, else its device's setting; at
 * most an eighth of the budget, so that a window is not reclaimed before
 * it is read (a small budget with a disk's 8 MiB read_ahead_kb). */
static uint64_t ra_pages(const struct pgr *p, const struct finode *fi)
{
	uint64_t ra = p->read_ahead_pages ? p->read_ahead_pages : fi->ra_pages;

	return ra < p->o.budget / 8 ? ra : (p->o.budget / 8 ? p->o.budget / 8 : 1);
}

static int find(struct pgr *p, dev_t dev, ino_t ino)
{
	for (uint32_t k = 0; k < p->nr_files_max; k++)
		if (p->files[k].used && p->files[k].dev == dev &&
		    p->files[k].ino == ino)
			return (int)k;
	return -1;
}

/* Room for one more inode: the shrinker of every group, then give up. */
static bool make_room(struct pgr *p)
{
	for (int prio = 12; prio >= 0 && p->nr_files_live >=
	     p->max_cached_inodes; prio--)
		for (unsigned int g = 0; g < pol_nr_groups(p->pol); g++)
			pol_inode_shrink(p->pol, (int)g, prio);
	return p->nr_files_live < p->max_cached_inodes;
}

static int create(struct pgr *p, struct client *c, int fd,
		  const struct stat *st, const char **why)
{
	char path[64], name[64];
	struct finode *fi;
	uint32_t ino;
	int err;

	if (p->nr_files_live >= p->max_cached_inodes && !make_room(p)) {
		*why = "the inode cache is full (pager.max_cached_inodes)";
		return -ENOSPC;
	}
	for (ino = 0; ino < p->nr_files_max && p->files[ino].used; ino++)
		;
	if (ino == p->nr_files_max ||
	    (p->pol_inodes[ino].flags & POL_INODE_LIVE)) {
		*why = "no free inode descriptor";
		return -ENOSPC;
	}
	fi = F(p, ino);
	memset(fi, 0, sizeof(*fi));
	fi->wfd = -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fi->fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	fi->direct = fi->fd >= 0;
	if (fi->fd < 0)
		fi->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fi->fd < 0) {
		*why = "cannot open the file for reading";
		return -errno;
	}
	snprintf(name, sizeof(name), "pager:%lu", (unsigned long)st->st_ino);
	fi->memfd = memfd_create(name, MFD_CLOEXEC);
	if (fi->memfd < 0) {
		err = -errno;
		close(fi->fd);
		*why = "memfd_create failed";
		return err;
	}
	fi->used = true;
	fi->gen = ++p->file_gen;
	fi->dev = st->st_dev;
	fi->ino = st->st_ino;
	fi->mtime = st->st_mtim;
	fi->ra_pages = device_ra_pages(st->st_dev);
	p->nr_files_live++;
	err = resize(p, fi, (uint64_t)st->st_size);
	if (err) {
		pgr_file_free_inode(p, ino);
		*why = "cannot size the page cache";
		return err;
	}
	pol_inode_init(p->pol, ino, c->group);
	pol_inode_put(p->pol, ino);	/* users are mappings */
	pgr_dbg("cached inode %lu (%llu bytes) as %u%s",
		(unsigned long)st->st_ino, (unsigned long long)st->st_size,
		ino, fi->direct ? ", O_DIRECT" : "");
	return (int)ino;
}

int pgr_file_get(struct pgr *p, struct client *c, int fd, bool writable,
		 const char **why)
{
	struct stat st;
	int ino;

	if (fstat(fd, &st)) {
		*why = "fstat failed";
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		return -ENODEV;
	}
	ino = find(p, st.st_dev, st.st_ino);
	if (ino >= 0) {
		struct finode *fi = F(p, (uint32_t)ino);
		bool changed = fi->mtime.tv_sec != st.st_mtim.tv_sec ||
			       fi->mtime.tv_nsec != st.st_mtim.tv_nsec ||
			       fi->size != (uint64_t)st.st_size;

		if (changed && !fi->nr_mappers && forget(p, (uint32_t)ino)) {
			ino = -1;
		} else if (fi->size != (uint64_t)st.st_size &&
			   resize(p, fi, (uint64_t)st.st_size)) {
			*why = "cannot resize the page cache";
			return -ENOMEM;
		}
	}
	if (ino < 0)
		ino = create(p, c, fd, &st, why);
	if (ino < 0)
		return ino;
	if (writable && F(p, (uint32_t)ino)->wfd < 0) {
		F(p, (uint32_t)ino)->wfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (F(p, (uint32_t)ino)->wfd < 0) {
			*why = "cannot keep the file for write-back";
			return -errno;
		}
	}
	return ino;
}

int pgr_file_memfd(struct pgr *p, uint32_t ino, bool rw)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", F(p, ino)->memfd);
	return open(path, (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC);
}

void pgr_file_hand(struct pgr *p, struct client *c, uint32_t ino)
{
	pgr_file_unhand(p, c);
	pol_inode_get(p->pol, ino);
	c->handed = ino + 1;
	c->handed_gen = F(p, ino)->gen;
}

void pgr_file_unhand(struct pgr *p, struct client *c)
{
	if (!c->handed)
		return;
	if (F(p, c->handed - 1)->used && F(p, c->handed - 1)->gen ==
	    c->handed_gen)
		pol_inode_put(p->pol, c->handed - 1);
	c->handed = 0;
}

void pgr_file_add_mapper(struct pgr *p, uint32_t rid)
{
	struct finode *fi = F(p, p->regions[rid].inode);

	pgr_grow(&fi->mappers, &fi->cap_mappers, fi->nr_mappers + 1,
		 sizeof(*fi->mappers));
	fi->mappers[fi->nr_mappers++] = rid;
	pol_inode_get(p->pol, p->regions[rid].inode);
}

void pgr_file_zap(struct pgr *p, uint32_t rid, uint32_t off)
{
	struct region *r = &p->regions[rid];
	uint64_t pg = r->pgoff + off;
	struct finode *fi = F(p, r->inode);

	if (sl_tag(r->slot[off]) == SL_EMPTY && (r->slot[off] & SL_FMAPPED) &&
	    pg < fi->map_pages && fi->page[pg] != PGR_NONE)
		pol_mark_accessed(p->pol, fi->page[pg]);
}

void pgr_file_unmap_region(struct pgr *p, uint32_t rid)
{
	struct region *r = &p->regions[rid];
	struct finode *fi = F(p, r->inode);

	for (size_t k = 0; k < fi->nr_mappers; k++) {
		if (fi->mappers[k] == rid) {
			fi->mappers[k] = fi->mappers[--fi->nr_mappers];
			break;
		}
	}
	pol_inode_put(p->pol, r->inode);
	r->inode = PGR_NONE;
}

int pgr_file_map(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t len, uint32_t ino, uint32_t gen, uint64_t pgoff,
		 uint8_t rflags, const char **why)
{
	struct uffdio_register reg = {
		.range = { start, len },
		.mode = UFFDIO_REGISTER_MODE_MISSING |
			UFFDIO_REGISTER_MODE_MINOR | UFFDIO_REGISTER_MODE_WP,
	};
	uint32_t rid;
	struct region *r;

	if (ino >= p->nr_files_max || !F(p, ino)->used ||
	    F(p, ino)->gen != gen) {
		*why = "no such cached inode (dropped meanwhile?)";
		return -ENOENT;
	}
	if (pgr_region_find(p, c, start, &rid) ||
	    pgr_region_find(p, c, start + len - 1, &rid)) {
		*why = "the range is owned already";
		return -EEXIST;
	}
	if (!pgr_region_room(p, c, len / PGR_PAGE)) {
		*why = "too many mappings, or too large a one";
		return -ENOSPC;
	}
	if (ioctl(c->uffd, UFFDIO_REGISTER, &reg)) {
		static char msg[96];

		snprintf(msg, sizeof(msg), "cannot register the mapping with "
			 "userfaultfd: %s", strerror(errno));
		*why = msg;
		return -errno;
	}
	rid = pgr_region_new(p, c, start, start + len);
	r = &p->regions[rid];
	r->inode = ino;
	r->pgoff = pgoff;
	r->rflags = rflags;
	pgr_file_add_mapper(p, rid);
	pgr_rec_mmap(p, c, r);
	return 0;
}

/* ---- faults ------------------------------------------------------------- */

static void count_fault(struct pgr *p, struct client *c, bool major)
{
	pol_count(p->pol, c->group, POL_PGFAULT, 1);
	if (major)
		pol_count(p->pol, c->group, POL_PGMAJFAULT, 1);
	c->st.faults++;
}

/* May page @i of a shared mapping be mapped writable? Only once dirty:
 * a clean one is write-protected so its first write is seen. */
static bool map_wp(const struct pgr *p, const struct region *r, uint32_t i,
		   bool write)
{
	if (!(r->rflags & R_SHARED))
		return true;		/* private: a write is a COW */
	return !write && !(p->pages[i].pol.flags & POL_PG_DIRTY);
}

/* Can slot @off of @r be mapped by fault-around (same protection)? */
static bool around_ok(struct pgr *p, struct region *r, struct finode *fi,
		      uint32_t off, bool wp)
{
	uint64_t pg = r->pgoff + off, v = r->slot[off];
	uint32_t i;

	if (pg >= fi->map_pages || pg * PGR_PAGE >= fi->size ||
	    v != SL_EMPTY)
		return false;
	i = fi->page[pg];
	if (i == PGR_NONE || (p->pages[i].flags & (DP_READING | DP_RA_MARK)))
		return false;
	return map_wp(p, r, i, false) == wp;
}

static void read_ahead(struct pgr *p, struct client *c, uint32_t rid,
		       uint64_t from, uint64_t to);
static enum pgr_served file_miss(struct pgr *p, struct client *c,
				 uint32_t rid, uint32_t off, bool write);

/* The region's anon copy of a file page: a private mapping's write. */
static enum pgr_served cow(struct pgr *p, struct client *c, uint32_t rid,
			   uint32_t off)
{
	struct region *r = &p->regions[rid];
	struct finode *fi = F(p, r->inode);
	uint64_t pg = r->pgoff + off, addr = slot_addr(r, off);
	struct pol_add how = { .anon = true, .dirty = true, .inode = POL_NONE };
	enum pgr_served s;
	uint32_t a;
	int err;

	s = pgr_alloc(p, c, &a);
	if (s != PGR_SERVED)
		return s;
	r = &p->regions[rid];
	if (r->slot[off] & SL_FMAPPED) {
		/* Mapped write-protected: lift it, the kernel copies. */
		struct uffdio_writeprotect u = { .range = { addr, PGR_PAGE } };

		err = ioctl(c->uffd, UFFDIO_WRITEPROTECT, &u) ? -errno : 0;
	} else {
		struct uffdio_copy cp = {
			.dst = addr, .len = PGR_PAGE,
			.src = (uintptr_t)(fi->map + pg * PGR_PAGE),
		};

		err = ioctl(c->uffd, UFFDIO_COPY, &cp) ? -errno : 0;
	}
	if (err == -EAGAIN) {
		pol_page_free(p->pol, a);
		return PGR_RETRY;
	}
	if (err && err != -EEXIST) {
		pol_page_free(p->pol, a);
		pgr_dbg("copy-on-write of 0x%llx in %d: %s",
			(unsigned long long)addr, c->pid, strerror(-err));
		pgr_wake(p, c, addr, addr + PGR_PAGE);
		return PGR_SERVED;
	}
	p->pages[a].region = rid;
	p->pages[a].off = off;
	p->pages[a].buf = PGR_NONE;
	p->pages[a].swap = PGR_NONE;
	p->pages[a].flags = 0;
	r->slot[off] = sl_of_page(a);
	pol_page_add(p->pol, a, &how);
	c->resident++;
	count_fault(p, c, false);
	return PGR_SERVED;
}

/* Map cached page(s) with UFFDIO_CONTINUE: the faulting one and the run of
 * cached, unmapped neighbours in the fault-around window. */
static enum pgr_served map_cached(struct pgr *p, struct client *c,
				  uint32_t rid, uint32_t off, bool write)
{
	struct region *r = &p->regions[rid];
	struct finode *fi = F(p, r->inode);
	uint64_t pg = r->pgoff + off;
	uint32_t i = fi->page[pg], lo = off, hi = off + 1, win;
	bool wp = map_wp(p, r, i, write);
	struct uffdio_continue cont;
	struct dpage *d = &p->pages[i];

	if (write && (r->rflags & R_SHARED) &&
	    !(d->pol.flags & POL_PG_DIRTY))
		pol_page_dirty(p->pol, i, true);
	win = p->fault_around ? p->fault_around : 1;
	if (!write && win > 1) {
		/* do_fault_around(): the aligned window holding the fault. */
		uint32_t wlo = off - (off % win), whi = wlo + win;

		if (whi > npages(r))
			whi = npages(r);
		while (lo > wlo && around_ok(p, r, fi, lo - 1, wp))
			lo--;
		while (hi < whi && around_ok(p, r, fi, hi, wp))
			hi++;
	}
	cont = (struct uffdio_continue){
		.range = { slot_addr(r, lo), (uint64_t)(hi - lo) * PGR_PAGE },
		.mode = wp ? UFFDIO_CONTINUE_MODE_WP : 0,
	};
	if (ioctl(c->uffd, UFFDIO_CONTINUE, &cont)) {
		int err = errno;

		if (err == EAGAIN && cont.mapped <= 0)
			return PGR_RETRY;
		if (hi - lo > 1 || cont.mapped > 0) {
			/* Part of the window was mapped already, or it
			 * crosses a VMA boundary (ENOENT: a mprotect split
			 * the mapping): the faulting page alone. */
			cont.range = (struct uffdio_range){ slot_addr(r, off),
							     PGR_PAGE };
			lo = off;
			hi = off + 1;
			err = ioctl(c->uffd, UFFDIO_CONTINUE, &cont) ? errno : 0;
			if (err == EAGAIN)
				return PGR_RETRY;
		}
		if (err == EFAULT) {
			/* Not in the memfd after all (the program punched it
			 * with MADV_REMOVE): read it again. */
			pgr_dbg("continue at 0x%llx in %d: %s",
				(unsigned long long)slot_addr(r, off), c->pid,
				strerror(err));
			drop_page(p, fi, pg);
			return file_miss(p, c, rid, off, write);
		}
		if (err && err != EEXIST) {
			/* ENOENT: the page is no longer this userfaultfd's
			 * (unmapped, moved, exec'd): its event is on the way.
			 * Let the thread fault again on what is there now. */
			pgr_dbg("continue at 0x%llx in %d: %s",
				(unsigned long long)slot_addr(r, off), c->pid,
				strerror(err));
			pgr_wake(p, c, slot_addr(r, off),
				 slot_addr(r, off) + PGR_PAGE);
			return PGR_SERVED;
		}
	}
	r = &p->regions[rid];
	for (uint32_t o = lo; o < hi; o++)
		r->slot[o] |= SL_FMAPPED;
	if (off > lo)	/* mapped around the fault: young, as touched */
		pgr_rec_access(p, c, slot_addr(r, lo), off - lo, false);
	if (hi > off + 1)
		pgr_rec_access(p, c, slot_addr(r, off + 1), hi - off - 1, false);
	if (d->flags & DP_FRESH) {
		/* Read ahead, touched for the first time: a hit, not a
		 * reference seen by the scanner's emulation. */
		d->flags &= (uint8_t)~DP_FRESH;
		pol_count(p->pol, c->group, POL_FILE_RA_HIT, 1);
	} else {
		pol_count(p->pol, c->group, POL_PGFAULT_YOUNG, 1);
		c->st.young++;
	}
	/* filemap_map_pages(): every page found cached is a hit. */
	r->mmap_miss = r->mmap_miss > hi - lo ? r->mmap_miss - (hi - lo) : 0;
	if (d->flags & DP_RA_MARK) {
		/* PG_readahead: the stream goes on, read the next window,
		 * from the end of what is cached, before it is needed
		 * (do_async_mmap_readahead(); the kernel ramps the window
		 * up to read_ahead_kb, we start there). */
		uint64_t ra = ra_pages(p, fi), from = pg + 1;

		d->flags &= (uint8_t)~DP_RA_MARK;
		while (from < fi->map_pages && from < pg + 1 + 2 * ra &&
		       fi->page[from] != PGR_NONE)
			from++;
		read_ahead(p, c, rid, from, from + ra);
	}
	count_fault(p, c, false);
	return PGR_SERVED;
}

/*
 * Read file pages [first, first + n) of @ino (not cached, descriptors
 * @pages) in one I/O. @c/@addr: the fault it serves, or NULL. The pages
 * join the LRU now (with their shadows: the refault test), READING.
 */
static int start_read(struct pgr *p, struct client *c, uint32_t ino,
		      uint64_t first, uint32_t n, const uint32_t *pages,
		      uint64_t addr, bool write, uint64_t fault_pg,
		      uint64_t mark)
{
	struct finode *fi = F(p, ino);
	struct file_read *rec = pgr_xcalloc(1, sizeof(*rec));
	uint64_t len = (uint64_t)n * PGR_PAGE;

	*rec = (struct file_read){ .ino = ino, .first = first, .n = n,
		.client = c && addr ? pgr_client_id(p, c) : PGR_NONE,
		.addr = addr, .write = write};
	pgr_dbg("read inode %lu pages %llu+%u%s", (unsigned long)fi->ino,
		(unsigned long long)first, n, fi->direct ? " O_DIRECT" : "");
	if (pgr_file_io(p, fi->fd, fi->map + first * PGR_PAGE, len,
			(off_t)(first * PGR_PAGE), rec)) {
		free(rec);
		return -EBUSY;
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = pages[k];
		uint64_t pg = first + k;
		struct pol_add how = { .inode = ino, .shadow = fi->shadow[pg] };
		struct dpage *d = &p->pages[i];

		d->region = ino;
		d->off = (uint32_t)pg;
		d->buf = PGR_NONE;
		d->swap = PGR_NONE;
		d->flags = DP_FILE | DP_READING |
			   (pg != fault_pg ? DP_FRESH : 0) |
			   (pg == mark ? DP_RA_MARK : 0);
		fi->shadow[pg] = 0;
		fi->page[pg] = i;
		pol_page_add(p->pol, i, &how);
		if (pg != fault_pg)
			pol_count(p->pol, p->pol_inodes[ino].group,
				  POL_FILE_RA, 1);
	}
	pol_count(p->pol, c ? c->group : POL_ROOT, POL_PGPGIN, 4 * n);
	return 0;
}

/* Read the uncached pages of [from, to) (clamped to the file), in runs,
 * with free pages only: readahead never reclaims. The first page read
 * gets PG_readahead, so the stream asks for the next window as it enters
 * this one: a window is always in flight ahead of the reader. */
static void read_ahead(struct pgr *p, struct client *c, uint32_t rid,
		       uint64_t from, uint64_t to)
{
	uint32_t ino = p->regions[rid].inode, pages[PGR_MAX_AROUND];
	struct finode *fi = F(p, ino);
	uint64_t end = (fi->size + PGR_PAGE - 1) / PGR_PAGE;
	uint64_t mark = UINT64_MAX;

	if (to > end)
		to = end;
	while (from < to) {
		uint64_t first;
		uint32_t n = 0;

		while (from < to && fi->page[from] != PGR_NONE)
			from++;
		first = from;
		if (mark == UINT64_MAX)
			mark = first;
		while (from < to && fi->page[from] == PGR_NONE &&
		       n < PGR_MAX_AROUND) {
			int over = POL_ROOT;

			if (pol_page_alloc_nowait(p->pol, c->group, &pages[n],
						  &over) != POL_ALLOC_OK) {
				to = from;	/* no free page: stop */
				break;
			}
			n++;
			from++;
		}
		if (n && start_read(p, c, ino, first, n, pages, 0, false,
				    UINT64_MAX, mark)) {
			for (uint32_t k = 0; k < n; k++)
				pol_page_free(p->pol, pages[k]);
			return;
		}
	}
}

/*
 * A page not in the cache: read it, and around it (do_sync_mmap_readahead:
 * read_ahead_kb centred on the fault, a quarter of it marked for the next
 * async window; nothing around once the mapping missed MMAP_LOTSAMISS
 * times more than it hit).
 */
static enum pgr_served file_miss(struct pgr *p, struct client *c,
				 uint32_t rid, uint32_t off, bool write)
{
	struct region *r = &p->regions[rid];
	uint32_t ino = r->inode, pages[PGR_MAX_AROUND], n = 1;
	struct finode *fi = F(p, ino);
	uint64_t pg = r->pgoff + off, first = pg, last, end, ra;
	enum pgr_served s;
	uint64_t mark = UINT64_MAX;

	s = pgr_alloc(p, c, &pages[0]);
	if (s != PGR_SERVED)
		return s;
	r = &p->regions[rid];
	ra = ra_pages(p, fi);
	if (ra > PGR_MAX_AROUND)
		ra = PGR_MAX_AROUND;	/* the rest comes asynchronously */
	end = (fi->size + PGR_PAGE - 1) / PGR_PAGE;
	if (r->mmap_miss < MMAP_LOTSAMISS * 10)
		r->mmap_miss++;
	if (ra > 1 && r->mmap_miss <= MMAP_LOTSAMISS) {
		/* The run of uncached pages around pg in [pg - ra/2, +ra). */
		uint64_t lo = pg > ra / 2 ? pg - ra / 2 : 0, hi = lo + ra;

		if (hi > end)
			hi = end;
		while (first > lo && fi->page[first - 1] == PGR_NONE)
			first--;
		last = pg + 1;
		while (last < hi && fi->page[last] == PGR_NONE)
			last++;
		n = 0;
		pages[n++] = pages[0];	/* the faulting page's, placed below */
		for (uint64_t q = first; q < last && n < ra; q++) {
			int over = POL_ROOT;

			if (q == pg)
				continue;
			if (pol_page_alloc_nowait(p->pol, c->group, &pages[n],
						  &over) != POL_ALLOC_OK) {
				/* Short of pages: just the fault. */
				for (uint32_t k = 1; k < n; k++)
					pol_page_free(p->pol, pages[k]);
				n = 1;
				first = pg;
				last = pg + 1;
				break;
			}
			n++;
		}
		if (n > 1) {
			/* pages[0] is the fault's: move it to its place. */
			uint32_t f = pages[0], at = (uint32_t)(pg - first);

			memmove(&pages[0], &pages[1], at * sizeof(pages[0]));
			pages[at] = f;
			last = first + n;
			mark = last - ra / 4 > pg ? last - ra / 4 : UINT64_MAX;
		}
	}
	if (start_read(p, c, ino, first, n, pages, slot_addr(r, off), write,
		       pg, mark)) {
		for (uint32_t k = 0; k < n; k++)
			pol_page_free(p->pol, pages[k]);
		return PGR_RETRY;
	}
	c->st.swapins++;
	count_fault(p, c, true);
	return PGR_PARKED;
}

enum pgr_served pgr_file_fault(struct pgr *p, struct client *c, uint32_t rid,
			       uint32_t off, bool write, bool wp)
{
	struct region *r = &p->regions[rid];
	struct finode *fi = F(p, r->inode);
	uint64_t pg = r->pgoff + off, v = r->slot[off];
	uint64_t addr = slot_addr(r, off);
	uint32_t i;

	if (v & SL_ARMING)
		return PGR_PARKED;	/* the agent's answer wakes it */
	if (pg >= fi->map_pages || pg * PGR_PAGE >= fi->size) {
		/* Past the end of the file: the kernel's SIGBUS, on the
		 * retry (the memfd's size is the file's). */
		pgr_wake(p, c, addr, addr + PGR_PAGE);
		return PGR_SERVED;
	}
	i = fi->page[pg];
	if (wp) {
		struct uffdio_writeprotect u = { .range = { addr, PGR_PAGE } };

		if (!(r->rflags & R_SHARED)) {
			if (i != PGR_NONE)
				return cow(p, c, rid, off);
			/* Evicted meanwhile: it faults again as missing. */
			pgr_wake(p, c, addr, addr + PGR_PAGE);
			return PGR_SERVED;
		}
		/* The first write to a clean shared page: its dirty bit. */
		if (i != PGR_NONE &&
		    !(p->pages[i].pol.flags & POL_PG_DIRTY))
			pol_page_dirty(p->pol, i, true);
		if (ioctl(c->uffd, UFFDIO_WRITEPROTECT, &u) && errno == EAGAIN)
			return PGR_RETRY;
		return PGR_SERVED;
	}
	if (i == PGR_NONE)
		return file_miss(p, c, rid, off, write);
	if (p->pages[i].flags & DP_READING)
		return PGR_PARKED;	/* its completion wakes it */
	if (write && !(r->rflags & R_SHARED))
		return cow(p, c, rid, off);
	return map_cached(p, c, rid, off, write);
}

/* Wake every thread waiting on pages [first, first + n) of @ino. */
static void wake_mappers(struct pgr *p, uint32_t ino, uint64_t first,
			 uint64_t n)
{
	struct finode *fi = F(p, ino);

	for (size_t k = 0; k < fi->nr_mappers; k++) {
		struct region *r = &p->regions[fi->mappers[k]];
		uint64_t lo = first > r->pgoff ? first : r->pgoff;
		uint64_t hi = first + n < r->pgoff + npages(r) ?
			      first + n : r->pgoff + npages(r);

		if (lo < hi)
			pgr_wake(p, &p->clients[r->client],
				 r->start + (lo - r->pgoff) * PGR_PAGE,
				 r->start + (hi - r->pgoff) * PGR_PAGE);
	}
}

void pgr_file_read_done(struct pgr *p, void *arg, int res)
{
	struct file_read *rec = arg;
	struct finode *fi = F(p, rec->ino);
	uint64_t good = res > 0 ? ((uint64_t)res + PGR_PAGE - 1) / PGR_PAGE : 0;
	bool shrank = false;

	pgr_dbg("read of inode %lu pages %llu+%u: %d", (unsigned long)fi->ino,
		(unsigned long long)rec->first, rec->n, res);

	for (uint32_t k = 0; k < rec->n; k++) {
		uint64_t pg = rec->first + k;
		uint32_t i = pg < fi->map_pages ? fi->page[pg] : PGR_NONE;

		if (i == PGR_NONE || !(p->pages[i].flags & DP_READING))
			continue;
		p->pages[i].flags &= (uint8_t)~DP_READING;
		if (k < good)
			continue;
		/* Not read: an error, or the file is shorter than we knew
		 * (truncated under the mapping). Never map what we have. */
		punch(fi, pg, 1);
		drop_page(p, fi, pg);
		shrank = shrank || res >= 0;
	}
	if (res < 0)
		pgr_err("read of inode %lu at page %llu failed: %s",
			(unsigned long)fi->ino, (unsigned long long)rec->first,
			strerror(-res));
	if (shrank) {
		struct stat st;

		if (!fstat(fi->fd, &st) && (uint64_t)st.st_size < fi->size) {
			pgr_info("inode %lu shrank to %lld bytes under a "
				 "mapping: accesses past its end get SIGBUS",
				 (unsigned long)fi->ino,
				 (long long)st.st_size);
			resize(p, fi, (uint64_t)st.st_size);
		}
	}
	if (rec->client != PGR_NONE && p->clients[rec->client].used) {
		struct client *c = &p->clients[rec->client];
		uint32_t rid;
		struct region *r = pgr_region_find(p, c, rec->addr, &rid);

		if (res < 0 && r && region_is_file(r)) {
			pgr_kill(p, c, "a read of a mapped file failed "
				 "(the kernel would send SIGBUS)");
		} else if (r && region_is_file(r)) {
			enum pgr_served s = pgr_file_fault(p, c, rid,
				(uint32_t)((rec->addr - r->start) / PGR_PAGE),
				rec->write, false);

			if (s == PGR_RETRY || s == PGR_NOMEM)
				pgr_defer(p, c, rec->addr, rec->write, false,
					  s);
		}
	}
	wake_mappers(p, rec->ino, rec->first, rec->n);
	free(rec);
}

/* ---- write-back ------------------------------------------------------- */

/* Write-protect page @pg of @ino in every shared mapping that has it
 * mapped, but @except; false if one could not be done now. */
static bool protect_all(struct pgr *p, uint32_t ino, uint64_t pg,
			uint32_t except)
{
	struct finode *fi = F(p, ino);
	bool ok = true;

	for (size_t k = 0; k < fi->nr_mappers; k++) {
		struct region *r = &p->regions[fi->mappers[k]];
		uint32_t off;

		if (fi->mappers[k] == except || !(r->rflags & R_SHARED) ||
		    !covers(r, pg, &off) || sl_tag(r->slot[off]) != SL_EMPTY ||
		    !(r->slot[off] & SL_FMAPPED))
			continue;
		{
			struct uffdio_writeprotect u = {
				.range = { slot_addr(r, off), PGR_PAGE },
				.mode = UFFDIO_WRITEPROTECT_MODE_WP,
			};

			if (ioctl(p->clients[r->client].uffd,
				  UFFDIO_WRITEPROTECT, &u))
				ok = false;
		}
	}
	return ok;
}

/* pwrite page @pg from the cache to the file. */
static int write_page(struct finode *fi, uint64_t pg)
{
	uint64_t off = pg * PGR_PAGE, len = PGR_PAGE;
	ssize_t n;

	if (fi->wfd < 0)
		return -EBADF;
	if (off >= fi->size)
		return 0;
	if (off + len > fi->size)
		len = fi->size - off;
	n = pwrite(fi->wfd, fi->map + off, len, (off_t)off);
	if (n < 0)
		return -errno;
	return (uint64_t)n == len ? 0 : -EIO;
}

void pgr_file_flush(struct pgr *p, uint32_t ino, uint64_t from, uint64_t to,
		    uint32_t except)
{
	struct finode *fi = F(p, ino);

	if (to > fi->map_pages)
		to = fi->map_pages;
	for (uint64_t pg = from; pg < to; pg++) {
		uint32_t i = fi->page[pg];
		bool clean;
		int err;

		if (i == PGR_NONE || !(p->pages[i].pol.flags & POL_PG_DIRTY))
			continue;
		clean = protect_all(p, ino, pg, except);
		err = write_page(fi, pg);
		if (err) {
			pgr_err("write-back of inode %lu page %llu failed: %s",
				(unsigned long)fi->ino, (unsigned long long)pg,
				strerror(-err));
			continue;
		}
		pol_count(p->pol, p->pages[i].pol.group, POL_PGPGOUT, 4);
		if (clean)
			pol_page_dirty(p->pol, i, false);
	}
}

void pgr_file_msync(struct pgr *p, struct client *c, uint64_t start,
		    uint64_t end)
{
	for (size_t k = 0; k < c->nr_regions; k++) {
		uint32_t rid = c->regions[k];
		struct region *r = &p->regions[rid];
		uint64_t s = start > r->start ? start : r->start;
		uint64_t e = end < r->end ? end : r->end;

		if (s >= e || !region_is_file(r) || !(r->rflags & R_SHARED))
			continue;
		pgr_file_flush(p, r->inode, r->pgoff + (s - r->start) / PGR_PAGE,
			       r->pgoff + (e - r->start + PGR_PAGE - 1) /
			       PGR_PAGE, PGR_NONE);
	}
}

/* ---- the backend for file pages ----------------------------------------- */

/* page_referenced(): the young bits of every mapping (FMAPPED, not being
 * armed); VM_EXEC of the young ones. */
void pgr_file_young(struct pgr *p, uint32_t i, struct pol_refs *refs)
{
	struct dpage *d = &p->pages[i];
	struct finode *fi = F(p, d->region);

	if (d->flags & DP_READING) {
		refs->contended = true;
		return;
	}
	refs->file_mapped = fi->nr_mappers > 0;
	for (size_t k = 0; k < fi->nr_mappers; k++) {
		struct region *r = &p->regions[fi->mappers[k]];
		uint32_t off;
		uint64_t v;

		if (!covers(r, d->off, &off))
			continue;
		v = r->slot[off];
		if (sl_tag(v) != SL_EMPTY || !(v & (SL_FMAPPED | SL_ARMING)))
			continue;
		refs->mapped = true;
		if ((v & SL_FMAPPED) && !(v & SL_ARMING)) {
			refs->young++;
			if (r->rflags & R_EXEC)
				refs->vmflags |= POL_VM_EXEC;
		}
	}
	refs->kept = refs->young > 0;
}

/* Clear the young bits: the agents unmap it where it is mapped. */
void pgr_file_arm(struct pgr *p, uint32_t i)
{
	struct dpage *d = &p->pages[i];
	struct finode *fi = F(p, d->region);

	for (size_t k = 0; k < fi->nr_mappers; k++) {
		struct region *r = &p->regions[fi->mappers[k]];
		struct client *c = &p->clients[r->client];
		uint32_t off;
		uint64_t v;

		if (!covers(r, d->off, &off))
			continue;
		v = r->slot[off];
		if (v != (SL_EMPTY | SL_FMAPPED) || !c->conn ||
		    !c->agent_ready)
			continue;
		r->slot[off] |= SL_ARMING;
		pgr_ask_file(c, slot_addr(r, off));
		c->st.armed++;
	}
}

/* Punching the page out of the memfd unmaps it everywhere. */
int pgr_file_unmap(struct pgr *p, uint32_t i)
{
	return (p->pages[i].flags & DP_READING) ? -EAGAIN : 0;
}

enum pol_writeout pgr_file_writeout(struct pgr *p, uint32_t i)
{
	struct dpage *d = &p->pages[i];
	struct finode *fi = F(p, d->region);
	int err;

	if (fi->wfd < 0)
		return POL_WRITEOUT_FAILED;
	if (!protect_all(p, d->region, d->off, PGR_NONE))
		return POL_WRITEOUT_KEEP;
	err = write_page(fi, d->off);
	if (err) {
		pgr_err("write-back of inode %lu page %u failed: %s",
			(unsigned long)fi->ino, d->off, strerror(-err));
		return POL_WRITEOUT_FAILED;
	}
	return POL_WRITEOUT_DONE;
}

int pgr_file_evict(struct pgr *p, uint32_t i, uint64_t shadow)
{
	struct dpage *d = &p->pages[i];
	struct finode *fi = F(p, d->region);

	if (d->flags & DP_READING)
		return -EBUSY;
	if (fallocate(fi->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)d->off * PGR_PAGE, PGR_PAGE))
		return -EBUSY;
	for (size_t k = 0; k < fi->nr_mappers; k++) {
		struct region *r = &p->regions[fi->mappers[k]];
		uint32_t off;

		if (covers(r, d->off, &off) && sl_tag(r->slot[off]) == SL_EMPTY)
			r->slot[off] &= ~(uint64_t)SL_FMAPPED;
	}
	fi->page[d->off] = PGR_NONE;
	fi->shadow[d->off] = shadow;
	d->region = PGR_NONE;
	return 0;
}

/* ---- shutdown ----------------------------------------------------------- */

void pgr_files_release(struct pgr *p)
{
	if (!p->files)
		return;
	for (uint32_t k = 0; k < p->nr_files_max; k++) {
		if (!p->files[k].used)
			continue;
		pgr_file_flush(p, k, 0, p->files[k].map_pages, PGR_NONE);
		if (p->files[k].map)
			munmap(p->files[k].map,
			       p->files[k].map_pages * PGR_PAGE);
		close(p->files[k].fd);
		if (p->files[k].wfd >= 0)
			close(p->files[k].wfd);
		close(p->files[k].memfd);
		free(p->files[k].page);
		free(p->files[k].shadow);
		free(p->files[k].mappers);
	}
	free(p->files);
	free(p->pol_inodes);
	p->files = NULL;
}
