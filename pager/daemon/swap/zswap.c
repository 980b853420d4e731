/* SPDX-License-Identifier: MIT */
/*
 * zswap.c - a compressed pool in front of the swap file, as the kernel's
 * zswap (mm/zswap.c) keeps one: `pager set zswap.enabled=Y`.
 *
 * A page written out to a slot is compressed (compress.c) and kept in the
 * pool instead of going to the file (zswap_store()); its swap-in
 * decompresses it (zswap_load()). The slot stays allocated in the file,
 * unwritten, so that an entry can always be written back there.
 *
 * The pool is charged to the budget: its memory is pages of the budget,
 * taken as reclaim takes them (pol_page_alloc_reserve(): PF_MEMALLOC)
 * and charged to the group of the pages stored in them, so a program's
 * pool counts against its memory.max, as the kernel charges zswap to the
 * memcg. The pages hold the entries as zsmalloc does: size classes
 * 32 bytes apart, each in zspages of one to four pages, whichever count
 * wastes least, with objects straddling page ends.
 *
 * Limits, as zswap_check_limits(): the pool may take
 * zswap.max_pool_percent of the budget (the kernel: of RAM). A store
 * that finds it full is refused (pool_limit_hit) and the shrink worker
 * writes the oldest entries back to the file; stores are refused until
 * the pool is back under zswap.accept_threshold_percent of its maximum.
 * The write-back walks the entries' LRU with a second chance, as
 * shrink_memcg_cb() (the LRU is the pool's, not one per memcg; the kernel
 * visits memcgs in turn). An entry whose slot is in the swap cache is
 * skipped. A write-back takes the entry out of the pool at once (its
 * bytes are in the write's buffer until the write completes, where a
 * read finds them), as the kernel moves it into a swap-cache folio.
 *
 * Loads are exclusive, as in the kernel since 6.8: a page read from the
 * pool is dirty, with no swap cache (fault.c, start_read()), so its slot
 * and entry are freed once read; a slot still shared with a fork child
 * keeps its entry for the other's fault.
 *
 * Counters: zswpout, zswpin, zswpwb (/proc/vmstat, memory.stat), and
 * debugfs's: stored_pages, pool_total_size, pool_limit_hit,
 * reject_alloc_fail, reject_compress_poor, decompress_fail,
 * written_back_pages. Not mirrored: memory.zswap.max and
 * memory.zswap.writeback, the shrinker (zswap.shrinker_enabled, off by
 * default), same-filled and incompressible pages kept as they are.
 *
 * Owns: the pool (its zspages, entries, LRU) and its write-backs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../core/core.h"
#include "../pgr.h"
#include "compress.h"
#include "store.h"
#include "swap.h"

#define CLASS_DELTA	32
#define NR_CLASSES	(PGR_PAGE / CLASS_DELTA)	/* sizes 32 .. 4096 */
#define ZSPAGE_MAX	4
#define OBJ_NONE	UINT16_MAX
#define WB_MAX		32		/* write-backs in flight at most */

/* /sys/kernel/debug/zswap/, under its names. */
struct pgr_zswap_stat {
	uint64_t stored_pages;		/* entries in the pool */
	uint64_t pool_pages;		/* pages the pool takes (charged) */
	uint64_t compressed_bytes;	/* what its entries take */
	uint64_t pool_limit_hit;	/* stores that found the pool full */
	uint64_t reject_alloc_fail;	/* no free page for the pool */
	uint64_t reject_compress_poor;	/* did not compress below a page */
	uint64_t decompress_fail;
	uint64_t written_back_pages;	/* moved to the swap file */
	uint64_t wb_skipped;		/* write-backs skipped: swap cache */
};

/* Entry flags. */
enum {
	ZE_COMP = 3,		/* its compressor: enum pgr_comp */
	ZE_REFERENCED = 4,	/* second chance left (shrink_memcg_cb()) */
	ZE_WB = 8,		/* being written back: its bytes in wb[] */
	ZE_DEAD = 16,		/* its slot was freed meanwhile */
};

/* One slot's entry: where its bytes are, and its place on the LRU. */
struct zentry {
	uint32_t zspage;	/* PGR_NONE: no entry */
	uint16_t obj;		/* its object; with ZE_WB: its write-back */
	uint16_t len;		/* compressed bytes */
	uint32_t older, newer;	/* LRU, by slot */
	uint16_t group;
	uint8_t flags;
};

/* Pages holding objects of one class; linked on its group's list of
 * zspages with room, or on the list of unused zspage records. */
struct zspage {
	uint32_t pg[ZSPAGE_MAX];	/* page descriptors: their buffers */
	uint32_t next, prev;
	uint16_t free;			/* first free object */
	uint16_t inuse;
	uint16_t group;
	uint8_t cls;
	uint8_t listed;			/* on its class's list */
};

struct zclass {
	uint16_t size;
	uint8_t pages;
	uint16_t objs;
};

struct writeback {
	uint32_t slot;
	uint32_t buf;			/* PGR_NONE: free */
	bool failed;			/* the write failed: the page stays
					 * in the buffer until its slot goes */
};

struct zswap {
	struct zentry *e;		/* per slot */
	uint64_t nr_slots;
	struct zspage *zs;
	uint32_t nr_zs, cap_zs, free_zs;
	uint32_t *partial;		/* [group][class]: zspages with room */
	struct zclass cls[NR_CLASSES];
	uint32_t oldest, newest;	/* LRU ends */
	bool full;			/* zswap_pool_reached_full */
	struct writeback wb[WB_MAX];
	unsigned int nr_wb;
	struct pgr_compressor *cz;
	char scratch[PGR_PAGE];
	struct pgr_zswap_stat st;
	uint64_t g_pages[POL_MAX_GROUPS], g_stored[POL_MAX_GROUPS];
};

/* ---- the allocator --------------------------------------------------------- */

/* zsmalloc's calculate_zspage_chain_size(): the page count that wastes
 * least of a zspage for objects of @size. */
static void class_init(struct zclass *c, uint16_t size)
{
	unsigned int best = 1, best_used = 0;

	for (unsigned int n = 1; n <= ZSPAGE_MAX; n++) {
		unsigned int bytes = n * PGR_PAGE;
		unsigned int used = (bytes - bytes % size) * 100 / bytes;

		if (used > best_used) {
			best_used = used;
			best = n;
		}
	}
	c->size = size;
	c->pages = (uint8_t)best;
	c->objs = (uint16_t)(best * PGR_PAGE / size);
}

static char *pg_buf(struct pgr *p, uint32_t page)
{
	return pgr_buf(p, p->pages[page].buf);
}

/* Copy @len bytes between @data and @zs's bytes at @off, across its
 * pages' ends. */
static void zs_copy(struct pgr *p, const struct zspage *zs, size_t off,
		    void *data, size_t len, bool write)
{
	char *d = data;

	while (len) {
		size_t in = off % PGR_PAGE;
		size_t n = PGR_PAGE - in < len ? PGR_PAGE - in : len;
		char *b = pg_buf(p, zs->pg[off / PGR_PAGE]) + in;

		if (write)
			memcpy(b, d, n);
		else
			memcpy(d, b, n);
		d += n;
		off += n;
		len -= n;
	}
}

static uint16_t next_free(struct pgr *p, const struct zspage *zs,
			  const struct zclass *c, uint16_t obj)
{
	uint16_t n;

	zs_copy(p, zs, (size_t)obj * c->size, &n, sizeof(n), false);
	return n;
}

static void set_next_free(struct pgr *p, const struct zspage *zs,
			  const struct zclass *c, uint16_t obj, uint16_t n)
{
	zs_copy(p, zs, (size_t)obj * c->size, &n, sizeof(n), true);
}

static uint32_t *list_of(struct zswap *z, unsigned int group,
			 unsigned int cls)
{
	return &z->partial[group * NR_CLASSES + cls];
}

static void list_add(struct zswap *z, uint32_t k)
{
	struct zspage *zs = &z->zs[k];
	uint32_t *head = list_of(z, zs->group, zs->cls);

	zs->prev = PGR_NONE;
	zs->next = *head;
	if (*head != PGR_NONE)
		z->zs[*head].prev = k;
	*head = k;
	zs->listed = 1;
}

static void list_del(struct zswap *z, uint32_t k)
{
	struct zspage *zs = &z->zs[k];

	if (zs->prev != PGR_NONE)
		z->zs[zs->prev].next = zs->next;
	else
		*list_of(z, zs->group, zs->cls) = zs->next;
	if (zs->next != PGR_NONE)
		z->zs[zs->next].prev = zs->prev;
	zs->listed = 0;
}

static void zspage_release(struct pgr *p, struct zswap *z, uint32_t k)
{
	struct zspage *zs = &z->zs[k];

	for (unsigned int n = 0; n < ZSPAGE_MAX; n++) {
		if (zs->pg[n] == PGR_NONE)
			continue;
		pgr_page_free(p, zs->pg[n]);
		z->st.pool_pages--;
		z->g_pages[zs->group]--;
	}
	zs->next = z->free_zs;
	z->free_zs = k;
}

/* A new zspage for @cls, its pages taken from the budget as reclaim
 * takes them: its index, or PGR_NONE if no page is free. */
static uint32_t zspage_new(struct pgr *p, struct zswap *z, int group,
			   unsigned int cls)
{
	const struct zclass *c = &z->cls[cls];
	struct zspage *zs;
	uint32_t k;

	if (z->free_zs != PGR_NONE) {
		k = z->free_zs;
		z->free_zs = z->zs[k].next;
	} else {
		if (z->nr_zs == z->cap_zs) {
			z->cap_zs = z->cap_zs ? z->cap_zs * 2 : 256;
			z->zs = pgr_xrealloc(z->zs, z->cap_zs, sizeof(*z->zs));
		}
		k = z->nr_zs++;
	}
	zs = &z->zs[k];
	*zs = (struct zspage){ .group = (uint16_t)group, .cls = (uint8_t)cls,
			       .pg = { PGR_NONE, PGR_NONE, PGR_NONE,
				       PGR_NONE } };
	for (unsigned int n = 0; n < c->pages; n++) {
		uint32_t i, b = pgr_buf_get(p);

		if (b == PGR_NONE ||
		    !pol_page_alloc_reserve(p->pol, group, &i)) {
			if (b != PGR_NONE)
				pgr_buf_put(p, b);
			zspage_release(p, z, k);
			return PGR_NONE;
		}
		p->pages[i] = (struct dpage){ .pol = p->pages[i].pol,
					      .region = PGR_NONE,
					      .swap = PGR_NONE, .buf = b };
		zs->pg[n] = i;
		z->st.pool_pages++;
		z->g_pages[group]++;
	}
	for (uint16_t o = 0; o < c->objs; o++)
		set_next_free(p, zs, c, o, o + 1 < c->objs ? o + 1 : OBJ_NONE);
	zs->free = 0;
	return k;
}

/* An object of @cls for @group: 0, or -ENOMEM. */
static int obj_alloc(struct pgr *p, struct zswap *z, int group,
		     unsigned int cls, uint32_t *zsp, uint16_t *obj)
{
	const struct zclass *c = &z->cls[cls];
	uint32_t k = *list_of(z, (unsigned int)group, cls);
	struct zspage *zs;

	if (k == PGR_NONE) {
		k = zspage_new(p, z, group, cls);
		if (k == PGR_NONE)
			return -ENOMEM;
		list_add(z, k);
	}
	zs = &z->zs[k];
	*zsp = k;
	*obj = zs->free;
	zs->free = next_free(p, zs, c, zs->free);
	if (++zs->inuse == c->objs)
		list_del(z, k);
	return 0;
}

static void obj_free(struct pgr *p, struct zswap *z, uint32_t k, uint16_t obj)
{
	struct zspage *zs = &z->zs[k];
	const struct zclass *c = &z->cls[zs->cls];

	set_next_free(p, zs, c, obj, zs->free);
	zs->free = obj;
	if (!--zs->inuse) {
		if (zs->listed)
			list_del(z, k);
		zspage_release(p, z, k);
	} else if (!zs->listed) {
		list_add(z, k);
	}
}

/* ---- entries and their LRU ------------------------------------------------- */

static void lru_add(struct zswap *z, uint32_t slot)
{
	struct zentry *e = &z->e[slot];

	e->newer = PGR_NONE;
	e->older = z->newest;
	if (z->newest != PGR_NONE)
		z->e[z->newest].newer = slot;
	else
		z->oldest = slot;
	z->newest = slot;
}

static void lru_del(struct zswap *z, uint32_t slot)
{
	struct zentry *e = &z->e[slot];

	if (e->older != PGR_NONE)
		z->e[e->older].newer = e->newer;
	else
		z->oldest = e->newer;
	if (e->newer != PGR_NONE)
		z->e[e->newer].older = e->older;
	else
		z->newest = e->older;
}

/* Drop @slot's entry from the pool (not one being written back). */
static void entry_free(struct pgr *p, struct zswap *z, uint32_t slot)
{
	struct zentry *e = &z->e[slot];

	lru_del(z, slot);
	obj_free(p, z, e->zspage, e->obj);
	z->st.stored_pages--;
	z->st.compressed_bytes -= e->len;
	z->g_stored[e->group]--;
	e->zspage = PGR_NONE;
	e->flags = 0;
}

static struct zswap *zswap_of(const struct pgr *p)
{
	return p->swap_front_data;
}

/* The pool, empty, for @slots slots of the file. */
static int zswap_open(struct pgr *p, const char *spec, uint64_t slots)
{
	struct zswap *z = pgr_xcalloc(1, sizeof(*z));

	(void)spec;
	z->cz = pgr_compressor_new();
	if (!z->cz) {
		free(z);
		return -ENOMEM;
	}
	z->nr_slots = slots;
	z->e = pgr_xcalloc(z->nr_slots, sizeof(*z->e));
	for (uint64_t s = 0; s < z->nr_slots; s++)
		z->e[s].zspage = PGR_NONE;
	z->partial = pgr_xcalloc((size_t)POL_MAX_GROUPS * NR_CLASSES,
				 sizeof(*z->partial));
	memset(z->partial, 0xff, (size_t)POL_MAX_GROUPS * NR_CLASSES *
	       sizeof(*z->partial));
	for (unsigned int c = 0; c < NR_CLASSES; c++)
		class_init(&z->cls[c], (uint16_t)((c + 1) * CLASS_DELTA));
	z->oldest = z->newest = z->free_zs = PGR_NONE;
	for (unsigned int w = 0; w < WB_MAX; w++)
		z->wb[w].buf = PGR_NONE;
	p->swap_front_data = z;
	return 0;
}

/* The pool goes in front of the file at the first Y, and stays (what it
 * holds is read back from it) when N stops its stores. */
int pgr_zswap_enable(struct pgr *p, bool on)
{
	if (on && p->swap_dev != &pgr_swap_file)
		return -ENODEV;
	/* No slots (`--check`): the setting is taken, no pool made. */
	if (on && !zswap_of(p) && pgr_has_swap(p)) {
		int err = zswap_open(p, NULL, p->o.swap_pages);

		if (err)
			return err;
		p->swap_front = &pgr_swap_zswap;
	}
	p->zswap_enabled = on;
	return 0;
}

static void zswap_close(struct pgr *p)
{
	struct zswap *z = zswap_of(p);

	if (!z)
		return;
	free(z->e);
	free(z->zs);
	free(z->partial);
	pgr_compressor_free(z->cz);
	free(z);
	p->swap_front_data = NULL;
}

/* ---- store, load, free ------------------------------------------------------- */

static uint64_t max_pages(const struct pgr *p)
{
	return p->o.budget * p->zswap_max_pool_percent / 100;
}

/* zswap_check_limits(): may a store go ahead? */
static bool check_limits(struct pgr *p, struct zswap *z)
{
	uint64_t max = max_pages(p);

	if (z->st.pool_pages >= max) {
		z->st.pool_limit_hit++;
		z->full = true;
	} else if (z->full && z->st.pool_pages <=
		   max * p->zswap_accept_thr_percent / 100) {
		z->full = false;
	}
	return !z->full;
}

/*
 * zswap_store(): keep @page, written to @slot, compressed in the pool,
 * charged to @group. What @slot held in the pool before goes first,
 * stored or not. 0: stored (no I/O); -ENOSPC: not stored (disabled, the
 * pool full, no page for it, or the page does not compress): write it
 * to the file; -EBUSY: @slot's old entry is being written back: try
 * later.
 */
static int store(struct pgr *p, uint32_t slot, const char *page, int group)
{
	struct zswap *z = zswap_of(p);
	struct zentry *e;
	enum pgr_comp comp = (enum pgr_comp)p->zswap_comp;
	size_t len;
	uint32_t k;
	uint16_t obj;

	if (!z)
		return -ENOSPC;
	e = &z->e[slot];
	if (e->flags & ZE_WB)
		return -EBUSY;
	if (e->zspage != PGR_NONE)
		entry_free(p, z, slot);	/* stale now, stored or not */
	if (!p->zswap_enabled)
		return -ENOSPC;
	if (!check_limits(p, z))
		return -ENOSPC;
	len = pgr_compress(z->cz, comp, page, z->scratch, PGR_PAGE);
	if (!len) {
		z->st.reject_compress_poor++;
		return -ENOSPC;
	}
	if (obj_alloc(p, z, group, (unsigned int)(len - 1) / CLASS_DELTA, &k,
		      &obj)) {
		z->st.reject_alloc_fail++;
		return -ENOSPC;
	}
	zs_copy(p, &z->zs[k], (size_t)obj * z->cls[z->zs[k].cls].size,
		z->scratch, len, true);
	*e = (struct zentry){ .zspage = k, .obj = obj, .len = (uint16_t)len,
			      .group = (uint16_t)group,
			      .flags = (uint8_t)(ZE_REFERENCED | comp) };
	lru_add(z, slot);
	z->st.stored_pages++;
	z->st.compressed_bytes += len;
	z->g_stored[group]++;
	pol_count(p->pol, group, POL_ZSWPOUT, 1);
	return 0;
}

/* Is @slot's page in the pool (or on its way to the file)? Its load is
 * exclusive. */
static bool zswap_holds(const struct pgr *p, uint32_t slot)
{
	return zswap_of(p) && (zswap_of(p)->e[slot].zspage != PGR_NONE ||
			    (zswap_of(p)->e[slot].flags & ZE_WB));
}

/* @slot's entry decompressed into @page: 0, or -EIO. */
static int decompress(struct pgr *p, struct zswap *z, uint32_t slot,
		      char *page)
{
	const struct zentry *e = &z->e[slot];
	const struct zspage *zs;
	int err;

	if (e->flags & ZE_WB) {
		/* On its way to the file: in the write's buffer. */
		memcpy(page, pgr_buf(p, z->wb[e->obj].buf), PGR_PAGE);
		return 0;
	}
	zs = &z->zs[e->zspage];
	zs_copy(p, zs, (size_t)e->obj * z->cls[zs->cls].size, z->scratch,
		e->len, false);
	err = pgr_decompress(z->cz, (enum pgr_comp)(e->flags & ZE_COMP),
			     z->scratch, e->len, page);
	if (err)
		z->st.decompress_fail++;
	return err;
}

/* zswap_load(): @slot's page into @page, counted as zswpin: 0, or -EIO.
 * The entry stays until the slot is freed (the fault path frees it:
 * exclusive loads). */
static int load(struct pgr *p, uint32_t slot, char *page)
{
	int err = decompress(p, zswap_of(p), slot, page);

	if (!err)
		pol_count(p->pol, zswap_of(p)->e[slot].group, POL_ZSWPIN, 1);
	return err;
}

/* Write-back @w is over: its buffer and record go. */
static void wb_end(struct pgr *p, struct zswap *z, struct writeback *wb)
{
	pgr_buf_put(p, wb->buf);
	wb->buf = PGR_NONE;
	wb->failed = false;
	z->nr_wb--;
	z->e[wb->slot].flags = 0;
}

/* @slot is freed: its entry goes. True if its write-back is in flight:
 * the slot may be used again only once zswap_own_done() frees it. */
static bool zswap_free(struct pgr *p, uint32_t slot)
{
	struct zswap *z = zswap_of(p);
	struct zentry *e;

	if (!z)
		return false;
	e = &z->e[slot];
	if (e->flags & ZE_WB) {
		if (z->wb[e->obj].failed) {
			wb_end(p, z, &z->wb[e->obj]);
			return false;
		}
		e->flags |= ZE_DEAD;
		return true;
	}
	if (e->zspage != PGR_NONE)
		entry_free(p, z, slot);
	return false;
}

/* ---- write-back ------------------------------------------------------------ */

/* zswap_writeback_entry(): start writing the oldest entry to its slot of
 * the file. 1: started; 0: passed over (second chance, swap cache);
 * -errno: cannot now. */
static int writeback_one(struct pgr *p, struct zswap *z)
{
	uint32_t slot = z->oldest, w;
	struct zentry *e = &z->e[slot];
	char *buf;
	int err;

	if (e->flags & ZE_REFERENCED) {
		e->flags &= (uint8_t)~ZE_REFERENCED;
		lru_del(z, slot);
		lru_add(z, slot);
		return 0;
	}
	if (p->swap[slot].cache != PGR_NONE) {
		/* Its page is in the swap cache: -EEXIST, skipped. */
		z->st.wb_skipped++;
		lru_del(z, slot);
		lru_add(z, slot);
		return 0;
	}
	for (w = 0; w < WB_MAX && z->wb[w].buf != PGR_NONE; w++)
		;
	if (w == WB_MAX)
		return -EBUSY;
	z->wb[w].buf = pgr_buf_get(p);
	if (z->wb[w].buf == PGR_NONE)
		return -ENOMEM;
	buf = pgr_buf(p, z->wb[w].buf);
	err = decompress(p, z, slot, buf);
	if (!err) {
		/* To the device under the pool (the file), as its own I/O. */
		struct pgr_swap_io io = { .slot = slot, .buf = buf,
					  .tag = PGR_SWAP_OWN_IO | w };

		err = p->swap_dev->write(p, &io);
	}
	if (err) {
		pgr_buf_put(p, z->wb[w].buf);
		z->wb[w].buf = PGR_NONE;
		return err;
	}
	z->wb[w].slot = slot;
	z->nr_wb++;
	/* Counted as the device write it is, by the entry's group. */
	pol_count(p->pol, e->group, POL_PSWPOUT, 1);
	pol_count(p->pol, e->group, POL_PGPGOUT, 4);
	entry_free(p, z, slot);
	e->flags = ZE_WB;
	e->obj = (uint16_t)w;
	return 1;
}

/* The shrink worker: while the pool is over its accept threshold after
 * filling up, write its oldest entries back to the file. */
static void zswap_shrink(struct pgr *p)
{
	struct zswap *z = zswap_of(p);
	uint64_t thr;
	unsigned int passed = 0;

	if (!z || !z->full)
		return;
	thr = max_pages(p) * p->zswap_accept_thr_percent / 100;
	while (z->st.pool_pages > thr && z->oldest != PGR_NONE) {
		int r = writeback_one(p, z);

		if (r < 0)
			return;
		/* Every entry passed over twice: nothing to write now. */
		if (!r && ++passed > 2 * z->st.stored_pages)
			return;
	}
}

/* A write-back's completion (@arg carries PGR_SWAP_OWN_IO). */
static void zswap_own_done(struct pgr *p, uint64_t arg, int res)
{
	struct zswap *z = zswap_of(p);
	struct writeback *wb = &z->wb[arg & ~PGR_SWAP_OWN_IO];
	struct zentry *e = &z->e[wb->slot];

	bool dead = e->flags & ZE_DEAD;

	if (res != PGR_PAGE && !dead) {
		/* The page stays in the write's buffer, read from there,
		 * until its slot is freed: lost never. */
		pgr_err("zswap: write-back to swap slot %u failed: %s",
			wb->slot, res < 0 ? strerror(-res) : "short write");
		wb->failed = true;
		return;
	}
	if (res == PGR_PAGE) {
		z->st.written_back_pages++;
		pol_count(p->pol, e->group, POL_ZSWPWB, 1);
	}
	wb_end(p, z, wb);
	if (dead)
		pgr_swap_release(p, wb->slot);
}

/* ---- the table ------------------------------------------------------------- */

static int zswap_write(struct pgr *p, const struct pgr_swap_io *io)
{
	int err = store(p, io->slot, io->buf, io->group);

	return err ? err : PGR_SWAP_STORED;	/* synchronous, as zswap_store() */
}

static int zswap_read(struct pgr *p, const struct pgr_swap_io *io)
{
	int err;

	if (!zswap_holds(p, io->slot))
		return -ENOENT;
	err = load(p, io->slot, io->buf);
	pgr_ring_done(p, false, PGR_IO_SWAP_READ, io->tag,
		      err ? err : PGR_PAGE);
	return 0;
}

/* /sys/kernel/debug/zswap/ under its names, and the compression ratio. */
static void zswap_stat(const struct pgr *p, pgr_swap_line_fn *line,
		       void *ctx)
{
	const struct zswap *z = zswap_of(p);
	const struct pgr_zswap_stat *st;

	if (!z)
		return;
	st = &z->st;
	line(ctx, "zswap.stored_pages %llu",
	     (unsigned long long)st->stored_pages);
	line(ctx, "zswap.pool_total_size %llu",
	     (unsigned long long)st->pool_pages * PGR_PAGE);
	line(ctx, "zswap.compressed_bytes %llu",
	     (unsigned long long)st->compressed_bytes);
	line(ctx, "zswap.pool_limit_hit %llu",
	     (unsigned long long)st->pool_limit_hit);
	line(ctx, "zswap.reject_alloc_fail %llu",
	     (unsigned long long)st->reject_alloc_fail);
	line(ctx, "zswap.reject_compress_poor %llu",
	     (unsigned long long)st->reject_compress_poor);
	line(ctx, "zswap.decompress_fail %llu",
	     (unsigned long long)st->decompress_fail);
	line(ctx, "zswap.written_back_pages %llu",
	     (unsigned long long)st->written_back_pages);
	line(ctx, "zswap.writeback_skipped %llu",
	     (unsigned long long)st->wb_skipped);
	if (st->pool_pages)
		line(ctx, "zswap.ratio %.2f", (double)st->stored_pages /
		     (double)st->pool_pages);
	else
		line(ctx, "zswap.ratio -");
}

/* memory.stat's zswap (the pool's bytes charged to @group) and zswapped
 * (the bytes of the pages it holds for it). */
static void zswap_stat_group(const struct pgr *p, int group,
			     pgr_swap_line_fn *line, void *ctx)
{
	const struct zswap *z = zswap_of(p);

	if (!z)
		return;
	line(ctx, "zswap %llu", (unsigned long long)z->g_pages[group] * PGR_PAGE);
	line(ctx, "zswapped %llu",
	     (unsigned long long)z->g_stored[group] * PGR_PAGE);
}

const struct pgr_swap_store pgr_swap_zswap = {
	.name = "zswap",
	.open = zswap_open,
	.close = zswap_close,
	.write = zswap_write,
	.read = zswap_read,
	.free = zswap_free,
	.exclusive = zswap_holds,
	.background = zswap_shrink,
	.own_done = zswap_own_done,
	.stat = zswap_stat,
	.stat_group = zswap_stat_group,
};
