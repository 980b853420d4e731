/* SPDX-License-Identifier: MIT */
/*
 * file-write.c - write-through: a client's write(2) to a cached file is
 * the kernel's, and then the pager's cache takes it before the call
 * returns, as FUSE's write-through mode keeps the kernel's cache (the
 * shim's io.c says when; seal.c makes sure no other writer exists).
 *
 *   wpre   (the inode has shared writable mappings) the dirty pages of
 *          the range are written back and write-protected in every
 *          mapping; a store to them waits (a hold) until the wpost, so
 *          that neither a store nor a write-back can slip under the
 *          write.
 *   wpost  the cache takes the file's size (grown: mappings reach the new
 *          pages; shrunk: pages past the end go, accesses there get
 *          SIGBUS), and each cached page of the range copies what was
 *          written from the kernel's cache (buffered pread: the bytes are
 *          there already). A page being read meanwhile is patched when
 *          its read lands. Only the bytes written are copied, so a store
 *          to the rest of a page is kept. Then the holds go and the
 *          stores waiting on them retry.
 *   rsync  (a read, fsync, msync) dirty pages of the range go to the
 *          file first: read(2) sees what the mappings wrote.
 *
 * Write-back goes through the ring (file.c), so the answers to wpre and
 * rsync wait for it to land (a drain, struct pgr_drain).
 *
 * Owns: nothing beyond each inode's holds (file.c keeps them).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/ftable.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../pgr.h"
#include "cache.h"

static uint64_t first_page(uint64_t from)
{
	return from / PGR_PAGE;
}

static uint64_t end_page(uint64_t to)
{
	return to >= UINT64_MAX - PGR_PAGE ? UINT64_MAX :
	       (to + PGR_PAGE - 1) / PGR_PAGE;
}

void pgr_fwrite_pre(struct pgr *p, struct client *c, uint32_t ino,
		    uint64_t from, uint64_t to, struct pgr_drain *d)
{
	struct finode *fi = F(p, ino);

	if (!(fi->coh & FT_WATCHED) || from > to)
		return;
	pgr_grow(&fi->holds, &fi->cap_holds, fi->nr_holds + 1,
		 sizeof(*fi->holds));
	fi->holds[fi->nr_holds++] = (struct wrange){ first_page(from),
		end_page(to), pgr_client_id(p, c) };
	pgr_file_flush(p, ino, first_page(from), end_page(to), PGR_NONE);
	pgr_file_drain(p, ino, d);
}

/* Let @c's holds on [from, to) go (all of its holds: to UINT64_MAX). */
static void unhold(struct pgr *p, uint32_t ino, uint32_t client,
		   uint64_t from, uint64_t to)
{
	struct finode *fi = F(p, ino);

	for (size_t k = 0; k < fi->nr_holds;) {
		struct wrange h = fi->holds[k];

		if (h.client != client || h.to <= from || h.from >= to) {
			k++;
			continue;
		}
		fi->holds[k] = fi->holds[--fi->nr_holds];
		pgr_file_wake(p, ino, h.from, h.to - h.from);
	}
}

void pgr_fwrite_post(struct pgr *p, struct client *c, uint32_t ino,
		     uint64_t from, uint64_t to)
{
	struct finode *fi = F(p, ino);
	struct stat st;

	if (!(fi->coh & FT_WATCHED))
		return;
	if (!fstat(fi->bfd, &st) && (uint64_t)st.st_size != fi->size &&
	    pgr_file_resize(p, fi, (uint64_t)st.st_size))
		pgr_err("cannot resize the cache of inode %lu to %lld bytes",
			(unsigned long)fi->ino, (long long)st.st_size);
	if (from < to)
		pgr_file_patch(p, ino, from, to);
	unhold(p, ino, pgr_client_id(p, c), first_page(from),
	       from == to ? UINT64_MAX : end_page(to));
}

void pgr_fwrite_sync(struct pgr *p, uint32_t ino, uint64_t from,
		     uint64_t to, struct pgr_drain *d)
{
	if (ino == PGR_NONE) {
		for (uint32_t k = 0; k < p->nr_files_seen; k++) {
			if (!p->files[k].used || !(p->files[k].coh & FT_RW))
				continue;
			pgr_file_flush(p, k, 0, p->files[k].map_pages,
				       PGR_NONE);
			pgr_file_drain(p, k, d);
		}
		return;
	}
	if (F(p, ino)->coh & FT_RW) {
		pgr_file_flush(p, ino, first_page(from), end_page(to),
			       PGR_NONE);
		pgr_file_drain(p, ino, d);
	}
}

void pgr_fwrite_forget(struct pgr *p, struct client *c)
{
	uint32_t id = pgr_client_id(p, c);

	for (uint32_t k = 0; k < p->nr_files_seen; k++)
		if (p->files[k].used && p->files[k].nr_holds)
			unhold(p, k, id, 0, UINT64_MAX);
}
