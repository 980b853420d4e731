/* SPDX-License-Identifier: MIT */
/*
 * cache.h - what cache/ offers the other parts: the page cache: cached
 * files, their write-back, write(2)s written through, the table shared with
 * the shims.
 *
 * One section per file of the part. What a file keeps to the part is
 * not here: it is in a header only the part includes, or in the file.
 */
#ifndef PGR_DAEMON_CACHE_H
#define PGR_DAEMON_CACHE_H

#include "../pgr.h"

/*
 * ---- file-wb.c ----
 * What file-wb.c offers: write-back of the page cache's dirty pages to
 * their files.
 */

/* Start writing dirty pages [from, to) of @ino back (msync, munmap, exit,
 * a read or write of them). Each is write-protected in every mapping but
 * region @except (going away) first; where that worked it is clean from
 * now on. A page whose write is in flight already is written once more
 * when it lands. pgr_file_drain() waits for the writes to land. */
void pgr_file_flush(struct pgr *p, uint32_t ino, uint64_t from, uint64_t to,
		    uint32_t except);
/* @d waits until @ino has no write-back in flight (nothing if it has
 * none): a reference of @d's, dropped with pgr_drain_put() then. */
void pgr_file_drain(struct pgr *p, uint32_t ino, struct pgr_drain *d);
void pgr_drain_put(struct pgr *p, struct pgr_drain *d);
/* The write-back of (arg: inode << 40 | page) landed with @res. */
void pgr_file_write_done(struct pgr *p, uint64_t arg, int res);
/* The backend's writeout of file page @i (reclaim). */
enum pol_writeout pgr_file_writeout(struct pgr *p, uint32_t i);
/* The dirty pages of @ino to the file, each waited for: at shutdown,
 * when no client is served any more. */
void pgr_file_flush_now(struct pgr *p, uint32_t ino);

/*
 * ---- file-write.c ----
 * A client's write(2)s and read(2)s of a cached file, written through.
 */

/* @c will write bytes [from, to) of @ino: dirty pages there go to the
 * file (@d waits for them), and stores there wait until
 * pgr_fwrite_post(). */
void pgr_fwrite_pre(struct pgr *p, struct client *c, uint32_t ino,
		    uint64_t from, uint64_t to, struct pgr_drain *d);
/* @c wrote [from, to) of @ino (from == to: the size alone changed): the
 * cache takes the file's size and bytes; @c's holds there go. */
void pgr_fwrite_post(struct pgr *p, struct client *c, uint32_t ino,
		     uint64_t from, uint64_t to);
/* @c will read (or sync) [from, to) of @ino: dirty pages there go to the
 * file first (@d waits for them); every inode's, if @ino is PGR_NONE. */
/* file-wb.c: write-back errors told once to each client (errseq):
 * sample the inode's count when @c maps it; the errno of a failure since
 * the last check or sample, or 0. */
void pgr_file_wb_sample(struct pgr *p, struct client *c, uint32_t ino);
int pgr_file_wb_check(struct pgr *p, struct client *c, uint32_t ino);
void pgr_fwrite_sync(struct pgr *p, uint32_t ino, uint64_t from,
		     uint64_t to, struct pgr_drain *d);
/* @c ends: the writes it had under way are let go. */
void pgr_fwrite_forget(struct pgr *p, struct client *c);

/*
 * ---- file.c ----
 * The pager's page cache (an inode's pages in its memfd) and what reclaim
 * does to a file page; its write-back is file-wb.h's.
 */

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

/*
 * ---- ftable.c ----
 * The table of cached files shared read-only with the shims (lib/ftable.h).
 */

int pgr_ftable_init(struct pgr *p);
void pgr_ftable_release(struct pgr *p);
/* A read-only descriptor of the table, for a shim (-1 on failure). */
int pgr_ftable_fd(struct pgr *p);
/* Inode @ino's entry says @coh (FT_SEALED, FT_WATCHED, FT_RW,
 * FT_HANDED_BACK); 0 removes it. */
void pgr_ftable_set(struct pgr *p, uint32_t ino, uint32_t coh);

#endif /* PGR_DAEMON_CACHE_H */
