/* SPDX-License-Identifier: MIT */
/*
 * zram.c - swap compressed in the daemon's own memory, as the kernel's
 * zram keeps it (drivers/block/zram/zram_drv.c), for `--swap zram[:lz4]`
 * or `--swap zram:zstd`.
 *
 * A slot written is stored in one of three ways, as zram_write_page()
 * does:
 *   same   a page of one repeated word (zeros, mostly) keeps the word
 *          only (same_pages);
 *   huge   a page that does not compress below HUGE_CLASS bytes is kept
 *          whole (huge_pages: zsmalloc's huge_class_size);
 *   comp   otherwise its compressed bytes (compress.c: liblz4, or
 *          libzstd at zram's level 3).
 * Reads decompress into the page's buffer. Both run at once, inside
 * pgr_swap_io(): a write is done when it returns (reclaim frees the page
 * in the same pass, as the kernel's zram write completes inside its
 * submission); a read's completion goes through the ring like a file's
 * (ring.c, pgr_ring_done()), so the fault path cannot tell.
 *
 * As in the kernel, this memory is outside the budget, and
 * zram.mem_limit (bytes; 0: none) bounds it: a write that would go past
 * it fails with ENOMEM, and the page stays resident and dirty, as the
 * kernel's swap_writepage() redirties a page whose zram write failed.
 *
 * Owns: the compressed slots and zram's mm_stat counters.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../pgr.h"
#include "compress.h"
#include "zram.h"

/* zsmalloc's huge_class_size with 4 KiB pages: a page compressed to
 * this or more is stored as it is. */
#define HUGE_CLASS	3264

enum { Z_EMPTY, Z_SAME, Z_COMP, Z_HUGE };

struct zslot {
	union {
		void *data;		/* comp, huge */
		uint64_t word;		/* same */
	};
	uint16_t len;			/* comp, huge: bytes kept */
	uint8_t kind;
};

struct zram {
	enum pgr_comp comp;
	struct zslot *slots;
	uint64_t nr_slots;
	struct pgr_compressor *cz;
	char scratch[HUGE_CLASS];
	struct pgr_zram_stat st;
	bool warned;			/* mem_limit reached, said once */
};

int pgr_zram_open(struct pgr *p, enum pgr_comp comp, uint64_t slots)
{
	struct zram *z = pgr_xcalloc(1, sizeof(*z));

	z->comp = comp;
	z->nr_slots = slots;
	z->slots = pgr_xcalloc(slots, sizeof(*z->slots));
	z->cz = pgr_compressor_new();
	p->zram = z;
	if (!z->cz) {
		pgr_err("zram: cannot set up zstd");
		pgr_zram_close(p);
		return -ENOMEM;
	}
	return 0;
}

static void slot_free(struct zram *z, struct zslot *s)
{
	switch (s->kind) {
	case Z_SAME:
		z->st.same_pages--;
		break;
	case Z_HUGE:
		z->st.huge_pages--;
		/* fall through */
	case Z_COMP:
		z->st.compr_data_size -= s->len;
		z->st.mem_used_total -= malloc_usable_size(s->data);
		free(s->data);
		break;
	default:
		return;
	}
	z->st.orig_data_size -= PGR_PAGE;
	memset(s, 0, sizeof(*s));
}

void pgr_zram_close(struct pgr *p)
{
	struct zram *z = p->zram;

	if (!z)
		return;
	for (uint64_t k = 0; k < z->nr_slots; k++)
		slot_free(z, &z->slots[k]);
	free(z->slots);
	pgr_compressor_free(z->cz);
	free(z);
	p->zram = NULL;
}

/* A page of one repeated word, as zram's page_same_filled(). */
static bool same_filled(const char *page, uint64_t *word)
{
	uint64_t w, first;

	memcpy(&first, page, sizeof(first));
	for (size_t o = sizeof(w); o < PGR_PAGE; o += sizeof(w)) {
		memcpy(&w, page + o, sizeof(w));
		if (w != first)
			return false;
	}
	*word = first;
	return true;
}

int pgr_zram_write(struct pgr *p, uint32_t slot, const char *page)
{
	struct zram *z = p->zram;
	struct zslot *s = &z->slots[slot], n = { .kind = Z_COMP };
	size_t len, used;

	slot_free(z, s);
	if (same_filled(page, &n.word)) {
		n.kind = Z_SAME;
		z->st.same_pages++;
		goto stored;
	}
	len = pgr_compress(z->cz, z->comp, page, z->scratch, HUGE_CLASS);
	if (!len) {
		n.kind = Z_HUGE;
		len = PGR_PAGE;
	}
	n.data = malloc(len);
	if (!n.data)
		return -ENOMEM;
	used = malloc_usable_size(n.data);
	if (p->zram_mem_limit &&
	    z->st.mem_used_total + used > p->zram_mem_limit) {
		free(n.data);
		z->st.failed_writes++;
		if (!z->warned)
			pgr_warn("zram: zram.mem_limit of %llu bytes reached: "
				 "pages stay resident",
				 (unsigned long long)p->zram_mem_limit);
		z->warned = true;
		return -ENOMEM;
	}
	memcpy(n.data, n.kind == Z_HUGE ? page : z->scratch, len);
	n.len = (uint16_t)len;
	z->st.compr_data_size += len;
	z->st.mem_used_total += used;
	if (z->st.mem_used_total > z->st.mem_used_max)
		z->st.mem_used_max = z->st.mem_used_total;
	if (n.kind == Z_HUGE) {
		z->st.huge_pages++;
		z->st.huge_pages_since++;
	}
stored:
	z->st.orig_data_size += PGR_PAGE;
	*s = n;
	z->warned = false;
	return 0;
}

int pgr_zram_read(struct pgr *p, uint32_t slot, char *page)
{
	struct zram *z = p->zram;
	struct zslot *s = &z->slots[slot];

	switch (s->kind) {
	case Z_SAME:
		for (size_t o = 0; o < PGR_PAGE; o += sizeof(s->word))
			memcpy(page + o, &s->word, sizeof(s->word));
		return 0;
	case Z_HUGE:
		memcpy(page, s->data, PGR_PAGE);
		return 0;
	case Z_COMP:
		return pgr_decompress(z->cz, z->comp, s->data, s->len, page);
	}
	z->st.failed_reads++;
	return -EIO;			/* never written: nothing to hand out */
}

void pgr_zram_free(struct pgr *p, uint32_t slot)
{
	if (p->zram)
		slot_free(p->zram, &p->zram->slots[slot]);
}

const struct pgr_zram_stat *pgr_zram_stat(const struct pgr *p)
{
	return p->zram ? &p->zram->st : NULL;
}

enum pgr_comp pgr_zram_comp(const struct pgr *p)
{
	return p->zram->comp;
}
