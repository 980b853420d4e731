/* SPDX-License-Identifier: MIT */
/*
 * page.c - the daemon's page buffers (its own copies of page contents:
 * armed pages, swap I/O) and the freeing of a page descriptor.
 *
 * Owns: the buffer arena's free stack and which buffers' memory went back
 * to the system.
 */
#include <sys/mman.h>

#include "../pgr.h"
#include "../swap/swap.h"
#include "core.h"

/*
 * Free buffers are a stack, so the same few stay in use; memory of those
 * left idle for a second goes back to the system (pgr_bufs_trim()), not at
 * each put: a madvise per page costs more than the copy it saves.
 */
uint32_t pgr_buf_get(struct pgr *p)
{
	uint32_t b;

	if (!p->nr_free_bufs)
		return PGR_NONE;
	b = p->free_bufs[--p->nr_free_bufs];
	if (p->nr_free_bufs < p->bufs_idle)
		p->bufs_idle = p->nr_free_bufs;
	p->buf_released[b] = false;
	return b;
}

void pgr_buf_put(struct pgr *p, uint32_t buf)
{
	p->free_bufs[p->nr_free_bufs++] = buf;
}

void pgr_bufs_trim(struct pgr *p)
{
	/* The bottom of the stack was not touched since the last trim. */
	for (uint32_t k = 0; k < p->bufs_idle; k++) {
		uint32_t b = p->free_bufs[k];

		if (!p->buf_released[b]) {
			madvise(pgr_buf(p, b), PGR_PAGE, MADV_DONTNEED);
			p->buf_released[b] = true;
		}
	}
	p->bufs_idle = p->nr_free_bufs;
}

bool pgr_page_clean_cached(const struct pgr *p, uint32_t i)
{
	const struct dpage *d = &p->pages[i];

	return d->swap != PGR_NONE && !(d->pol.flags & POL_PG_DIRTY);
}

void pgr_page_buf_release(struct pgr *p, uint32_t i)
{
	struct dpage *d = &p->pages[i];

	if (d->buf == PGR_NONE || (d->pol.flags & POL_PG_WRITEBACK))
		return;
	pgr_buf_put(p, d->buf);
	d->buf = PGR_NONE;
}

void pgr_page_free(struct pgr *p, uint32_t i)
{
	struct dpage *d = &p->pages[i];

	if ((d->pol.flags & POL_PG_WRITEBACK) || (d->flags & DP_READING)) {
		/* I/O on its buffer completes later; free it then. */
		d->region = PGR_NONE;
		return;
	}
	if (d->buf != PGR_NONE)
		pgr_buf_put(p, d->buf);
	if (d->swap != PGR_NONE) {
		p->swap[d->swap].cache = PGR_NONE;
		pgr_swap_put(p, d->swap);
	}
	d->buf = PGR_NONE;
	d->swap = PGR_NONE;
	d->region = PGR_NONE;
	pol_page_free(p->pol, i);
}
