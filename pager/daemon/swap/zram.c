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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../pgr.h"
#include "compress.h"
#include "store.h"

/* zsmalloc's huge_class_size with 4 KiB pages: a page compressed to
 * this or more is stored as it is. */
#define HUGE_CLASS	3264

enum { Z_EMPTY, Z_SAME, Z_COMP, Z_HUGE };

/* zram's mm_stat, in bytes and pages as /sys/block/zram0/mm_stat has
 * them; and its io_stat's failures. */
struct pgr_zram_stat {
	uint64_t orig_data_size;	/* bytes of the pages stored */
	uint64_t compr_data_size;	/* bytes they take compressed */
	uint64_t mem_used_total;	/* bytes the allocator gave for them */
	uint64_t mem_used_max;
	uint64_t same_pages;		/* stored as one word */
	uint64_t huge_pages;		/* stored whole */
	uint64_t huge_pages_since;	/* ever */
	uint64_t failed_writes;		/* refused: zram.mem_limit */
	uint64_t failed_reads;
};


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

/* "zram", "zram:ALG": lz4 (the default), zstd or lzo. */
static int zram_match(const char *spec, char *why, size_t len)
{
	const char *alg = pgr_zram_spec(spec);
	enum pgr_comp comp;

	if (!alg)
		return 0;
	if (pgr_comp_parse(alg, &comp)) {
		snprintf(why, len, "zram compresses with lz4, zstd or lzo");
		return -EINVAL;
	}
	return 1;
}

static void zram_close(struct pgr *p);

static int zram_open(struct pgr *p, const char *spec, uint64_t slots)
{
	struct zram *z = pgr_xcalloc(1, sizeof(*z));

	if (pgr_comp_parse(pgr_zram_spec(spec), &z->comp))
		z->comp = PGR_COMP_LZ4;	/* zram_match() said it is one */
	z->nr_slots = slots;
	z->slots = pgr_xcalloc(slots, sizeof(*z->slots));
	z->cz = pgr_compressor_new();
	p->swap_dev_data = z;
	if (!z->cz) {
		pgr_err("zram: cannot set up zstd");
		zram_close(p);
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

static void zram_close(struct pgr *p)
{
	struct zram *z = p->swap_dev_data;

	if (!z)
		return;
	for (uint64_t k = 0; k < z->nr_slots; k++)
		slot_free(z, &z->slots[k]);
	free(z->slots);
	pgr_compressor_free(z->cz);
	free(z);
	p->swap_dev_data = NULL;
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

/* Store @page in @slot (what it held is dropped): 0, or -ENOMEM
 * (zram.mem_limit, or no memory). */
static int store(struct pgr *p, uint32_t slot, const char *page)
{
	struct zram *z = p->swap_dev_data;
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

/* @slot's page into @page: 0, or -EIO (never written, or corrupt). */
static int load(struct pgr *p, uint32_t slot, char *page)
{
	struct zram *z = p->swap_dev_data;
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

/*
 * A write is done when this returns, as zram's bio completes inside its
 * submission (reclaim frees the page in the same pass); one zram refuses
 * (zram.mem_limit) is refused here, as a full swap device refuses a
 * slot. A read completes on the loop's next turn, like the ring's; one
 * that fails stops the client.
 */
static int zram_write(struct pgr *p, const struct pgr_swap_io *io)
{
	int err = store(p, io->slot, io->buf);

	return err ? err : PGR_SWAP_DONE;
}

static int zram_read(struct pgr *p, const struct pgr_swap_io *io)
{
	int err = load(p, io->slot, io->buf);

	pgr_ring_done(p, false, PGR_IO_SWAP_READ, io->tag,
		      err ? err : PGR_PAGE);
	return 0;
}

static bool zram_free(struct pgr *p, uint32_t slot)
{
	struct zram *z = p->swap_dev_data;

	slot_free(z, &z->slots[slot]);
	return false;
}

/* mm_stat under its field names, and the compression ratio. */
static void zram_stat(const struct pgr *p, pgr_swap_line_fn *line, void *ctx)
{
	const struct zram *z = p->swap_dev_data;
	const struct pgr_zram_stat *st;

	if (!z)
		return;
	st = &z->st;
	line(ctx, "zram.comp_algorithm %s", pgr_comp_name(z->comp));
	line(ctx, "zram.orig_data_size %llu",
	     (unsigned long long)st->orig_data_size);
	line(ctx, "zram.compr_data_size %llu",
	     (unsigned long long)st->compr_data_size);
	line(ctx, "zram.mem_used_total %llu",
	     (unsigned long long)st->mem_used_total);
	line(ctx, "zram.mem_limit %llu", (unsigned long long)p->zram_mem_limit);
	line(ctx, "zram.mem_used_max %llu",
	     (unsigned long long)st->mem_used_max);
	line(ctx, "zram.same_pages %llu", (unsigned long long)st->same_pages);
	line(ctx, "zram.huge_pages %llu", (unsigned long long)st->huge_pages);
	line(ctx, "zram.huge_pages_since %llu",
	     (unsigned long long)st->huge_pages_since);
	line(ctx, "zram.failed_writes %llu",
	     (unsigned long long)st->failed_writes);
	/* as zramctl's DATA over COMPR; same-filled pages take no bytes */
	if (st->compr_data_size)
		line(ctx, "zram.compr_ratio %.2f", (double)st->orig_data_size /
		     (double)st->compr_data_size);
	else
		line(ctx, "zram.compr_ratio -");
}

const struct pgr_swap_store pgr_swap_zram = {
	.name = "zram",
	.match = zram_match,
	.open = zram_open,
	.close = zram_close,
	.write = zram_write,
	.read = zram_read,
	.free = zram_free,
	.stat = zram_stat,
};
