/* SPDX-License-Identifier: MIT */
/*
 * file.h - what file.c offers the rest of the daemon: the pager's page
 * cache (an inode's pages in its memfd) and what reclaim does to a file
 * page; its write-back is file-wb.h's.
 */
#ifndef PGR_DAEMON_FILE_H
#define PGR_DAEMON_FILE_H

#include "../pgr.h"

int pgr_files_init(struct pgr *p);
void pgr_files_release(struct pgr *p);
/* vm.drop_caches: forget every cached file no client maps. */
void pgr_files_drop_unused(struct pgr *p);
/* The inode cache entry for the regular file @fd, created or refreshed;
 * its index, or -errno (*why says why). A new entry's `coh` is 0: it may
 * not be served until seal.c has made it safe. */
int pgr_file_get(struct pgr *p, struct client *c, int fd, const char **why);
/* The cached inode of (@dev, @ino), or -1. */
int pgr_file_find(struct pgr *p, dev_t dev, ino_t ino);
/* A memfd descriptor the client may map: read-only unless @rw. */
int pgr_file_memfd(struct pgr *p, uint32_t ino, bool rw);
/* Slot @off of file region @rid is unmapped (munmap, MADV_DONTNEED): a
 * young mapping passes its reference on, as zap_pte_range() does. */
void pgr_file_zap(struct pgr *p, uint32_t rid, uint32_t off);
/* Region @rid maps its inode now (a new mapping, a fork's, an mremap's). */
void pgr_file_add_mapper(struct pgr *p, uint32_t rid);
/* Take region @rid out of its inode's mappers, so that reclaim zaps
 * nothing at its address; it keeps its inode reference. A parked region
 * (region.c), whose address is someone else's now, until its move or its
 * freeing hands the inode on or lets it go; and every region going. */
void pgr_file_hide_mapper(struct pgr *p, uint32_t rid);
/* The region's mapping of the file is going (region.c). */
void pgr_file_unmap_region(struct pgr *p, uint32_t rid);

/* Page @i of @ino is dirty now (a store through a shared mapping): the
 * inode is RW in the shared table from now on. */
void pgr_file_dirty(struct pgr *p, uint32_t ino, uint32_t i);
/* Is page @pg of @ino held (a write under way, a hand-back)? Its write
 * faults wait. */
bool pgr_file_held(const struct pgr *p, uint32_t ino, uint64_t pg);
/* Wake whoever waits on pages [first, first + n) of @ino, in every
 * mapping (n may run to UINT64_MAX). */
void pgr_file_wake(struct pgr *p, uint32_t ino, uint64_t first, uint64_t n);
/* Someone wrote bytes [from, to) of the file: its cached pages take them
 * from the kernel's cache (a page being read, once its read lands). */
void pgr_file_patch(struct pgr *p, uint32_t ino, uint64_t from, uint64_t to);
/* Page @pg's read landed after a write patched it (DP_STALE): again. */
void pgr_file_patch_landed(struct pgr *p, uint32_t ino, uint64_t pg);
/* Inode @ino is the kernel's now: out of the table, its mark and lease
 * let go, found no more; freed now, or once no page of it is read. */
void pgr_file_drop(struct pgr *p, uint32_t ino);

/* The backend's operations on file pages (backend.c calls them). */
void pgr_file_young(struct pgr *p, uint32_t i, struct pol_refs *refs);
void pgr_file_arm(struct pgr *p, uint32_t i);
int pgr_file_unmap(struct pgr *p, uint32_t i);
int pgr_file_evict(struct pgr *p, uint32_t i, uint64_t shadow);
void pgr_file_punch_flush(struct pgr *p);
uint32_t pgr_file_invalidate(struct pgr *p, uint32_t ino);
void pgr_file_free_inode(struct pgr *p, uint32_t ino);

/* For the page cache's own files (file-fault.c, file-map.c, file-wb.c). */
static inline struct finode *F(struct pgr *p, uint32_t ino)
{
	return &p->files[ino];
}

/* Does region @rid map file page @pg? Then its slot index is *off. */
static inline bool covers(const struct region *r, uint64_t pg, uint32_t *off)
{
	if (pg < r->pgoff || pg >= r->pgoff + region_pages(r))
		return false;
	*off = (uint32_t)(pg - r->pgoff);
	return true;
}

/* Forget page @pg of @fi: its descriptor goes back to the policy. The
 * memfd keeps the data until pgr_file_punch(). */
void pgr_file_drop_page(struct pgr *p, struct finode *fi, uint64_t pg);
/* Punch @n pages from @pg out of @fi's memfd (and so out of every
 * process that maps them). */
void pgr_file_punch(struct finode *fi, uint64_t pg, uint64_t n);
/* Make @fi's cache @size bytes long (the file's size changed): pages
 * past the end are dropped, the daemon's mapping grows. 0 or -errno. */
int pgr_file_resize(struct pgr *p, struct finode *fi, uint64_t size);
/* The readahead window of @fi, in pages. */
uint64_t pgr_file_ra_pages(const struct pgr *p, const struct finode *fi);

#endif /* PGR_DAEMON_FILE_H */
