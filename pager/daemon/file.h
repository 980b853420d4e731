/* SPDX-License-Identifier: MIT */
/*
 * file.h - what the page cache (file.c) and the faults and reads that fill
 * it (file-fault.c) share; the rest of the daemon sees pgr.h alone.
 */
#ifndef PGR_FILE_H
#define PGR_FILE_H

#include "pgr.h"

static inline struct finode *F(struct pgr *p, uint32_t ino)
{
	return &p->files[ino];
}

static inline uint32_t npages(const struct region *r)
{
	return (uint32_t)((r->end - r->start) / PGR_PAGE);
}

static inline uint64_t slot_addr(const struct region *r, uint32_t off)
{
	return r->start + (uint64_t)off * PGR_PAGE;
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

#endif /* PGR_FILE_H */
