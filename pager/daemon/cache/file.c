/* SPDX-License-Identifier: MIT */
/*
 * file.c - file pages: the pager's own page cache.
 *
 * userfaultfd cannot register regular-file mappings, so the shim maps a
 * memfd in their place: one per (device, inode), the inode's page cache,
 * shared by every client that maps the file (a page mapped by two
 * processes is resident once, counted once). The daemon maps each memfd
 * too. A client's mapping of it is a file region (file-map.c), registered
 * for MISSING, MINOR and WP faults, which file-fault.c serves (reads,
 * read-around, copy-on-write); here are the inodes, the regions that map
 * each, write-back and what reclaim does to a file page.
 *
 * The young bit: a page is young in a mapping while the slot says
 * FMAPPED; arming it asks the agent to MADV_DONTNEED it there, which
 * leaves the memfd's page in place (the next access is a MINOR fault).
 *
 * Eviction punches the page out of the memfd (which unmaps it from every
 * process; the next access is a MISSING fault) after writing it back if
 * dirty (file-wb.c: every mapping of it write-protected first, so no
 * store can slip in unseen). The shadow entry
 * stays in the inode's per-page array, as in the kernel's xarray.
 *
 * Write-back also happens on msync, munmap and exit of a shared mapping.
 * An inode no one maps keeps its pages (as the kernel keeps page cache
 * after close) until the inode shrinker or reclaim drops them; one whose
 * file changed (mtime, size) is dropped when next mapped.
 *
 * Owns: the inode cache (struct finode: memfd, per-page descriptors and
 * shadows, the regions mapping it) and the pages to punch out at the end
 * of a reclaim batch. Write-back is file-wb.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../../lib/compat.h"
#include "../../lib/ftable.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../core/core.h"
#include "../pgr.h"
#include "../uffd.h"
#include "cache.h"

#define FILES_MAX	65536	/* descriptors; the knob limits live ones */

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

void pgr_file_drop_page(struct pgr *p, struct finode *fi, uint64_t pg)
{
	uint32_t i = fi->page[pg];

	fi->page[pg] = PGR_NONE;
	p->pages[i].region = PGR_NONE;
	pol_page_free(p->pol, i);
}

void pgr_file_punch(struct finode *fi, uint64_t pg, uint64_t n)
{
	fallocate(fi->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		  (off_t)(pg * PGR_PAGE), (off_t)(n * PGR_PAGE));
}

/*
 * Evicted pages are punched in runs: a streamed file's pages leave the
 * LRU tail in file order, and each fallocate() has a fixed price (it
 * walks every mapping of the memfd to unmap): a streamed page cost a
 * third as much with runs (perf, seed 001's hashing). Until the punch
 * the data stays in the memfd, still mapped where it was: nothing can
 * read it wrongly meanwhile, because
 * the run is punched before the daemon serves anything again (at the
 * end of the reclaim batch: the policy's unmap_flush()).
 */
void pgr_file_punch_flush(struct pgr *p)
{
	if (!p->punch.n)
		return;
	pgr_file_punch(F(p, p->punch.ino), p->punch.first, p->punch.n);
	p->punch.n = 0;
}

static void punch_later(struct pgr *p, uint32_t ino, uint64_t pg)
{
	if (p->punch.n && p->punch.ino == ino) {
		if (pg == p->punch.first + p->punch.n) {
			p->punch.n++;
			return;
		}
		if (pg + 1 == p->punch.first) {
			p->punch.first--;
			p->punch.n++;
			return;
		}
	}
	pgr_file_punch_flush(p);
	p->punch.ino = ino;
	p->punch.first = pg;
	p->punch.n = 1;
}

/* Let go of what inode @ino holds: its table entry, its fanotify mark
 * and lease (closing the descriptor drops the lease), its memory. */
static void close_inode(struct pgr *p, uint32_t ino)
{
	struct finode *fi = F(p, ino);

	pgr_ftable_set(p, ino, 0);
	if ((fi->coh & (FT_WATCHED | FT_SEALED)) && p->fan_fd >= 0)
		fanotify_mark(p->fan_fd, FAN_MARK_REMOVE, FAN_OPEN_PERM, fi->fd,
			      NULL);
	for (size_t k = 0; k < fi->nr_fan_waits; k++) {
		/* Let them go: the daemon stops, or the inode is freed. */
		struct fanotify_response r = { fi->fan_waits[k], FAN_ALLOW };

		if (write(p->fan_fd, &r, sizeof(r)) < 0)
			pgr_dbg("fanotify answer: %s", strerror(errno));
		close(fi->fan_waits[k]);
	}
	free(fi->fan_waits);
	free(fi->notif_waits);
	free(fi->drains);
	if (fi->map)
		munmap(fi->map, fi->map_pages * PGR_PAGE);
	close(fi->fd);
	if (fi->wfd >= 0)
		close(fi->wfd);
	if (fi->bfd >= 0)
		close(fi->bfd);
	close(fi->memfd);
	free(fi->page);
	free(fi->shadow);
	free(fi->mappers);
	free(fi->holds);
}

void pgr_file_free_inode(struct pgr *p, uint32_t ino)
{
	struct finode *fi = F(p, ino);

	if (p->punch.n && p->punch.ino == ino)
		pgr_file_punch_flush(p);
	for (uint64_t pg = 0; pg < fi->map_pages; pg++)
		if (fi->shadow[pg])
			pol_shadow_forget(p->pol, fi->shadow[pg]);
	close_inode(p, ino);
	memset(fi, 0, sizeof(*fi));
	p->nr_files_live--;
}

uint32_t pgr_file_invalidate(struct pgr *p, uint32_t ino)
{
	struct finode *fi = F(p, ino);
	uint32_t n = 0;

	for (uint64_t pg = 0; pg < fi->map_pages; pg++) {
		uint32_t i = fi->page[pg];

		if (i == PGR_NONE || (p->pages[i].flags & (DP_READING | DP_WB | DP_COWING)) ||
		    (p->pages[i].pol.flags & (POL_PG_DIRTY |
					      POL_PG_WRITEBACK)))
			continue;
		punch_later(p, ino, pg);
		pgr_file_drop_page(p, fi, pg);
		n++;
	}
	pgr_file_punch_flush(p);
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
	for (uint32_t ino = 0; ino < p->nr_files_seen; ino++)
		if (p->files[ino].used && !p->files[ino].nr_mappers)
			forget(p, ino);
}

int pgr_file_resize(struct pgr *p, struct finode *fi, uint64_t size)
{
	uint64_t pages = (size + PGR_PAGE - 1) / PGR_PAGE;

	if (pages < fi->map_pages) {
		for (uint64_t pg = pages; pg < fi->map_pages; pg++) {
			if (fi->page[pg] != PGR_NONE &&
			    !(p->pages[fi->page[pg]].flags &
			      (DP_READING | DP_WB)))
				pgr_file_drop_page(p, fi, pg);
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
uint64_t pgr_file_ra_pages(const struct pgr *p, const struct finode *fi)
{
	uint64_t ra = p->read_ahead_pages ? p->read_ahead_pages : fi->ra_pages;

	return ra < p->o.budget / 8 ? ra : (p->o.budget / 8 ? p->o.budget / 8 : 1);
}

int pgr_file_find(struct pgr *p, dev_t dev, ino_t ino)
{
	for (uint32_t k = 0; k < p->nr_files_seen; k++)
		if (p->files[k].used && !p->files[k].gone &&
		    p->files[k].dev == dev &&
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
	fi->bfd = -1;
	fi->ft_slot = PGR_NONE;
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
	if (ino >= p->nr_files_seen)
		p->nr_files_seen = ino + 1;
	fi->gen = ++p->file_gen;
	fi->wb_err = 0;
	fi->wb_err_seq = 0;
	fi->dev = st->st_dev;
	fi->ino = st->st_ino;
	fi->mtime = st->st_mtim;
	fi->ra_pages = device_ra_pages(st->st_dev);
	p->nr_files_live++;
	err = pgr_file_resize(p, fi, (uint64_t)st->st_size);
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

static bool shared_memory(int fd)
{
	struct statfs sf;

	return !fstatfs(fd, &sf) && (sf.f_type == TMPFS_MAGIC ||
				     sf.f_type == HUGETLBFS_MAGIC ||
				     sf.f_type == RAMFS_MAGIC);
}

int pgr_file_get(struct pgr *p, struct client *c, int fd, const char **why)
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
	if (shared_memory(fd)) {
		/* A memfd, /dev/shm, hugetlbfs: its pages are memory the
		 * kernel shares with whoever has the file, mapped or passed
		 * over a socket; a copy would be coherent with none. */
		*why = "a shared-memory file (tmpfs, memfd, hugetlbfs) stays "
		       "the kernel's";
		return -ENODEV;
	}
	ino = pgr_file_find(p, st.st_dev, st.st_ino);
	if (ino >= 0) {
		struct finode *fi = F(p, (uint32_t)ino);
		bool changed = fi->mtime.tv_sec != st.st_mtim.tv_sec ||
			       fi->mtime.tv_nsec != st.st_mtim.tv_nsec ||
			       fi->size != (uint64_t)st.st_size;

		if (changed && !fi->nr_mappers && forget(p, (uint32_t)ino)) {
			ino = -1;
		} else if (fi->size != (uint64_t)st.st_size &&
			   pgr_file_resize(p, fi, (uint64_t)st.st_size)) {
			*why = "cannot resize the page cache";
			return -ENOMEM;
		}
	}
	if (ino < 0)
		ino = create(p, c, fd, &st, why);
	if (ino < 0)
		return ino;
	return ino;
}

int pgr_file_memfd(struct pgr *p, uint32_t ino, bool rw)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", F(p, ino)->memfd);
	return open(path, (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC);
}

void pgr_file_add_mapper(struct pgr *p, uint32_t rid)
{
	struct finode *fi = F(p, p->regions[rid].inode);

	pgr_grow(&fi->mappers, &fi->cap_mappers, fi->nr_mappers + 1,
		 sizeof(*fi->mappers));
	fi->mappers[fi->nr_mappers++] = rid;
	pol_inode_get(p->pol, p->regions[rid].inode);
	pgr_file_wb_sample(p, &p->clients[p->regions[rid].client],
			   p->regions[rid].inode);
}

void pgr_file_hide_mapper(struct pgr *p, uint32_t rid)
{
	struct finode *fi = F(p, p->regions[rid].inode);

	for (size_t k = 0; k < fi->nr_mappers; k++) {
		if (fi->mappers[k] == rid) {
			fi->mappers[k] = fi->mappers[--fi->nr_mappers];
			break;
		}
	}
}

void pgr_file_zap(struct pgr *p, uint32_t rid, uint32_t off)
{
	struct region *r = &p->regions[rid];
	uint64_t pg = r->pgoff + off;
	struct finode *fi = F(p, r->inode);

	if (sl_tag(r->slot[off]) == SL_EMPTY && (r->slot[off] & SL_FMAPPED) &&
	    !(r->slot[off] & SL_ARMING) && region_has_recency(r) &&
	    pg < fi->map_pages && fi->page[pg] != PGR_NONE)
		pol_mark_accessed(p->pol, fi->page[pg]);
}

void pgr_file_unmap_region(struct pgr *p, uint32_t rid)
{
	struct region *r = &p->regions[rid];
	struct finode *fi = F(p, r->inode);

	pgr_file_hide_mapper(p, rid);
	pol_inode_put(p->pol, r->inode);
	r->inode = PGR_NONE;
	/* Threads held on it (a write under way, a hand-back) retry on
	 * whatever is mapped there now. */
	if (fi->nr_holds && p->clients[r->client].used)
		pgr_wake(p, &p->clients[r->client], r->start, r->end);
}

void pgr_file_dirty(struct pgr *p, uint32_t ino, uint32_t i)
{
	struct finode *fi = F(p, ino);

	pol_page_dirty(p->pol, i, true);
	/* From now on read(2)s and write(2)s of it must have the dirty
	 * pages written back first: the shims learn it from the table
	 * before the store that dirtied the page goes on. */
	if (!(fi->coh & FT_RW) && (fi->coh & FT_WATCHED)) {
		fi->coh |= FT_RW;
		pgr_ftable_set(p, ino, fi->coh);
	}
}

bool pgr_file_held(const struct pgr *p, uint32_t ino, uint64_t pg)
{
	const struct finode *fi = &p->files[ino];

	for (size_t k = 0; k < fi->nr_holds; k++)
		if (fi->holds[k].from <= pg && pg < fi->holds[k].to)
			return true;
	return false;
}

void pgr_file_wake(struct pgr *p, uint32_t ino, uint64_t first, uint64_t n)
{
	struct finode *fi = F(p, ino);

	for (size_t k = 0; k < fi->nr_mappers; k++) {
		struct region *r = &p->regions[fi->mappers[k]];
		uint64_t end = first + n < first ? UINT64_MAX : first + n;
		uint64_t lo = first > r->pgoff ? first : r->pgoff;
		uint64_t hi = end < r->pgoff + region_pages(r) ?
			      end : r->pgoff + region_pages(r);

		if (lo < hi)
			pgr_wake(p, &p->clients[r->client],
				 r->start + (lo - r->pgoff) * PGR_PAGE,
				 r->start + (hi - r->pgoff) * PGR_PAGE);
	}
}

/* Copy [from, to) of the file (bytes, within page @pg) from the kernel's
 * cache into the cached page: what a writer wrote there. */
static void patch_page(struct finode *fi, uint64_t pg, uint64_t from,
		       uint64_t to)
{
	uint64_t lo = pg * PGR_PAGE > from ? pg * PGR_PAGE : from;
	uint64_t hi = (pg + 1) * PGR_PAGE < to ? (pg + 1) * PGR_PAGE : to;
	ssize_t n;

	if (hi > fi->size)
		hi = fi->size;
	if (lo >= hi)
		return;
	n = pread(fi->bfd, fi->map + lo, hi - lo, (off_t)lo);
	if (n >= 0 && (uint64_t)n < hi - lo)	/* shrank meanwhile */
		memset(fi->map + lo + n, 0, hi - lo - (uint64_t)n);
}

void pgr_file_patch(struct pgr *p, uint32_t ino, uint64_t from, uint64_t to)
{
	struct finode *fi = F(p, ino);
	uint64_t last;

	if (fi->bfd < 0 || from >= to)
		return;
	last = (to - 1) / PGR_PAGE;
	for (uint64_t pg = from / PGR_PAGE; pg <= last && pg < fi->map_pages;
	     pg++) {
		uint32_t i = fi->page[pg];

		if (i == PGR_NONE)
			continue;	/* read from the file when needed */
		if (p->pages[i].flags & DP_READING) {
			/* Its read may have seen the bytes before: patch it
			 * once it lands (pgr_file_read_done()). */
			p->pages[i].flags |= DP_STALE;
			continue;
		}
		patch_page(fi, pg, from, to);
	}
}

void pgr_file_patch_landed(struct pgr *p, uint32_t ino, uint64_t pg)
{
	struct finode *fi = F(p, ino);

	patch_page(fi, pg, pg * PGR_PAGE, (pg + 1) * PGR_PAGE);
}

void pgr_file_drop(struct pgr *p, uint32_t ino)
{
	struct finode *fi = F(p, ino);

	pgr_ftable_set(p, ino, 0);
	if ((fi->coh & (FT_WATCHED | FT_SEALED)) && p->fan_fd >= 0)
		fanotify_mark(p->fan_fd, FAN_MARK_REMOVE, FAN_OPEN_PERM, fi->fd,
			      NULL);
	if (fi->coh & FT_SEALED)
		fcntl(fi->fd, F_SETLEASE, F_UNLCK);
	fi->coh = FT_HANDED_BACK;
	fi->gone = true;
	if (!fi->nr_mappers)
		forget(p, ino);
}

/* ---- the backend for file pages ----------------------------------------- */

/* page_referenced(): the young bits of every mapping (FMAPPED, not being
 * armed); VM_EXEC of the young ones. */
void pgr_file_young(struct pgr *p, uint32_t i, struct pol_refs *refs)
{
	struct dpage *d = &p->pages[i];
	struct finode *fi = F(p, d->region);

	if (d->flags & (DP_READING | DP_COWING)) {
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
		/* 6.3+: a mapping without recency is left out of the
		 * walk (invalid_folio_referenced_vma()): not even cleared. */
		if ((v & SL_FMAPPED) && !(v & SL_ARMING) &&
		    region_has_recency(r)) {
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
		    !c->agent_ready || !region_has_recency(r))
			continue;
		r->slot[off] |= SL_ARMING;
		pgr_ask_file(c, region_addr(r, off));
		c->st.armed++;
	}
}

/* Punching the page out of the memfd unmaps it everywhere. */
int pgr_file_unmap(struct pgr *p, uint32_t i)
{
	return (p->pages[i].flags & (DP_READING | DP_COWING)) ? -EAGAIN : 0;
}

int pgr_file_evict(struct pgr *p, uint32_t i, uint64_t shadow)
{
	struct dpage *d = &p->pages[i];
	struct finode *fi = F(p, d->region);

	if (d->flags & (DP_READING | DP_WB | DP_COWING))
		return -EBUSY;
	punch_later(p, d->region, d->off);
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
		pgr_file_flush_now(p, k);
		close_inode(p, k);
	}
	free(p->files);
	free(p->pol_inodes);
	p->files = NULL;
}
