/* SPDX-License-Identifier: MIT */
/*
 * trace-build.c - the trace builder: follows each process's address space
 * while a trace is read, and turns every address into (region, page).
 *
 * Each process keeps a sorted array of extents, each mapping a run of
 * page numbers onto a run of pages of one region. munmap cuts extents
 * (a region dies when its last page is unmapped), mremap moves or grows
 * them, fork clones every region of the parent. An access looks up its
 * extent by binary search, starting with the one that served the last
 * access, which is the common case.
 *
 * Errors name the file and line and stop the read: a trace that maps
 * nothing where it accesses, or reads past a file's end, is wrong, and
 * replaying the rest would give numbers nobody can interpret. The syntax
 * of each format is its reader's business (trace-text.c, trace-flat.c,
 * trace-bin.c); the builder takes plain values.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/hmap.h"
#include "trace-build.h"
#include "../lib/util.h"

struct tb {
	struct trace *t;
	const char *name;
	struct hmap pids;	/* pid -> index into t->procs */
	struct hmap inos;	/* inode number -> index into t->inodes */
	int64_t last_pid;
	uint32_t last_proc;
	unsigned int line;	/* of the operation in progress */
	bool failed;
};

int tb_error(struct tb *b, unsigned int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return -1;
	b->failed = true;
	if (!line)
		line = b->line;
	n = snprintf(b->t->err, sizeof(b->t->err), "%s:%u: ", b->name, line);
	va_start(ap, fmt);
	vsnprintf(b->t->err + n, sizeof(b->t->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

struct tb *tb_create(struct trace *t, const char *name)
{
	struct tb *b = pgr_xcalloc(1, sizeof(*b));

	memset(t, 0, sizeof(*t));
	t->name = name;
	b->t = t;
	b->name = name;
	b->last_proc = T_NONE;
	hmap_init(&b->pids);
	hmap_init(&b->inos);
	return b;
}

int tb_finish(struct tb *b)
{
	return b->failed ? -1 : 0;
}

void tb_destroy(struct tb *b)
{
	if (!b)
		return;
	hmap_release(&b->pids);
	hmap_release(&b->inos);
	free(b);
}

static void emit(struct tb *b, uint8_t op, uint8_t flags, uint16_t aux,
		 uint32_t obj, uint32_t off, uint32_t len)
{
	struct trace *t = b->t;

	if (t->nr_ev == t->cap_ev)
		pgr_grow(&t->ev, &t->cap_ev, t->nr_ev + 1, sizeof(*t->ev));
	t->ev[t->nr_ev++] = (struct ev){ op, flags, aux, obj, off, len };
}

static uint32_t add_string(struct tb *b, const char *s)
{
	struct trace *t = b->t;
	size_t cap = t->cap_strings;

	pgr_grow(&t->strings, &cap, t->nr_strings + 1, sizeof(*t->strings));
	t->cap_strings = (uint32_t)cap;
	t->strings[t->nr_strings] = pgr_xstrdup(s);
	return t->nr_strings++;
}

/* ---- processes, groups, files ------------------------------------------ */

uint32_t tb_group_find(struct tb *b, const char *name)
{
	for (uint32_t i = 0; i < b->t->nr_groups; i++)
		if (!strcmp(b->t->groups[i].name, name))
			return i;
	return T_NONE;
}

static uint32_t proc_find(struct tb *b, int64_t pid)
{
	uint32_t i;

	if (pid == b->last_pid && b->last_proc != T_NONE)
		return b->last_proc;
	i = hmap_get(&b->pids, (uint64_t)pid);
	if (i != T_NONE && !b->t->procs[i].live)
		i = T_NONE;
	if (i != T_NONE) {
		b->last_pid = pid;
		b->last_proc = i;
	}
	return i;
}

static uint32_t proc_new(struct tb *b, int64_t pid, uint32_t group)
{
	struct trace *t = b->t;
	size_t cap = t->cap_procs;
	struct t_proc *p;

	pgr_grow(&t->procs, &cap, t->nr_procs + 1, sizeof(*t->procs));
	t->cap_procs = (uint32_t)cap;
	p = &t->procs[t->nr_procs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->group = group;
	p->live = true;
	hmap_put(&b->pids, (uint64_t)pid, t->nr_procs);
	b->last_proc = T_NONE;
	return t->nr_procs++;
}

/* The live process @pid, created in the root group on first mention. */
static uint32_t proc_get(struct tb *b, int64_t pid)
{
	uint32_t i = proc_find(b, pid);

	return i != T_NONE ? i : proc_new(b, pid, T_NONE);
}

uint32_t tb_inode_find(struct tb *b, uint64_t ino)
{
	return hmap_get(&b->inos, ino);
}

static uint32_t region_new(struct tb *b, uint32_t proc, uint32_t npages,
			   uint8_t flags, uint32_t inode, uint64_t foff)
{
	struct trace *t = b->t;
	size_t cap = t->cap_regions;
	struct t_region *r;

	pgr_grow(&t->regions, &cap, t->nr_regions + 1, sizeof(*t->regions));
	t->cap_regions = (uint32_t)cap;
	r = &t->regions[t->nr_regions];
	r->proc = proc;
	r->npages = npages;
	r->inode = inode;
	r->foff = foff;
	r->clone_of = T_NONE;
	r->flags = flags;
	r->mapped = 0;
	return t->nr_regions++;
}

/* ---- extents ------------------------------------------------------------ */

/* Index of the first extent of @p ending after @page. */
static size_t ext_lower(const struct t_proc *p, uint64_t page)
{
	size_t lo = 0, hi = p->nr_ext;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->ext[mid].end <= page)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void ext_insert(struct t_proc *p, size_t at, struct t_extent e)
{
	pgr_grow(&p->ext, &p->cap_ext, p->nr_ext + 1, sizeof(*p->ext));
	memmove(&p->ext[at + 1], &p->ext[at],
		(p->nr_ext - at) * sizeof(*p->ext));
	p->ext[at] = e;
	p->nr_ext++;
}

static void ext_remove(struct t_proc *p, size_t at)
{
	memmove(&p->ext[at], &p->ext[at + 1],
		(p->nr_ext - at - 1) * sizeof(*p->ext));
	p->nr_ext--;
}

/*
 * Cut pages [s, e) out of the extents of process @pi. With @unmap, emit
 * EV_UNMAP for each piece, with EVF_FINAL when a region loses its last
 * mapped page; without, the pages are only detached (mremap moves them).
 */
static void cut_range(struct tb *b, uint32_t pi, uint64_t s, uint64_t e,
		      bool unmap)
{
	struct t_proc *p = &b->t->procs[pi];
	size_t i = ext_lower(p, s);

	while (i < p->nr_ext && p->ext[i].start < e) {
		struct t_extent *x = &p->ext[i];
		struct t_region *r = &b->t->regions[x->region];
		uint64_t os = s > x->start ? s : x->start;
		uint64_t oe = e < x->end ? e : x->end;
		uint32_t n = (uint32_t)(oe - os);

		if (unmap) {
			r->mapped -= n;
			emit(b, EV_UNMAP, r->mapped ? 0 : EVF_FINAL, 0,
			     x->region, x->roff + (uint32_t)(os - x->start), n);
		}
		if (os == x->start && oe == x->end) {
			ext_remove(p, i);
			continue;
		}
		if (os == x->start) {
			x->roff += (uint32_t)(oe - x->start);
			x->start = oe;
		} else if (oe == x->end) {
			x->end = os;
		} else {
			struct t_extent right = *x;

			right.roff += (uint32_t)(oe - x->start);
			right.start = oe;
			x->end = os;
			ext_insert(p, i + 1, right);
		}
		i++;
	}
	p->last = 0;
}

static void unmap_range(struct tb *b, uint32_t pi, uint64_t s, uint64_t e)
{
	cut_range(b, pi, s, e, true);
}

/* Resolve page number @page of @p to its extent, or NULL. */
static const struct t_extent *resolve(struct t_proc *p, uint64_t page)
{
	size_t i;

	if (p->last < p->nr_ext && p->ext[p->last].start <= page &&
	    page < p->ext[p->last].end)
		return &p->ext[p->last];
	i = ext_lower(p, page);
	if (i == p->nr_ext || p->ext[i].start > page)
		return NULL;
	p->last = i;
	return &p->ext[i];
}

void tb_line(struct tb *b, unsigned int line)
{
	b->line = line;
}

struct trace *tb_trace(struct tb *b)
{
	return b->t;
}

static int fail(struct tb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct tb *b, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tb_error(b, b->line, "%s", msg);
}

static int live_proc(struct tb *b, int64_t pid, uint32_t *pi)
{
	*pi = proc_find(b, pid);
	if (*pi == T_NONE)
		return fail(b, "no process %lld", (long long)pid);
	return 0;
}

/* ---- declarations ------------------------------------------------------- */

int tb_group(struct tb *b, const struct t_group *g)
{
	struct trace *t = b->t;
	size_t cap = t->cap_groups;

	if (tb_group_find(b, g->name) != T_NONE || !strcmp(g->name, "root"))
		return fail(b, "group '%s' declared twice", g->name);
	pgr_grow(&t->groups, &cap, t->nr_groups + 1, sizeof(*t->groups));
	t->cap_groups = (uint32_t)cap;
	t->groups[t->nr_groups++] = *g;
	return 0;
}

int tb_file(struct tb *b, uint64_t ino, uint64_t npages, uint32_t group)
{
	struct trace *t = b->t;
	size_t cap = t->cap_inodes;
	struct t_inode *n;

	if (tb_inode_find(b, ino) != T_NONE)
		return fail(b, "file %llu declared twice",
			    (unsigned long long)ino);
	if (npages > UINT32_MAX / 2)
		return fail(b, "file too large");
	pgr_grow(&t->inodes, &cap, t->nr_inodes + 1, sizeof(*t->inodes));
	t->cap_inodes = (uint32_t)cap;
	n = &t->inodes[t->nr_inodes];
	n->ino = ino;
	n->size = n->npages = (uint32_t)npages;
	n->group = group;
	hmap_put(&b->inos, ino, t->nr_inodes++);
	return 0;
}

int tb_truncate(struct tb *b, uint32_t inode, uint64_t npages)
{
	struct t_inode *n = &b->t->inodes[inode];

	if (npages > UINT32_MAX / 2)
		return fail(b, "file too large");
	n->size = (uint32_t)npages;
	if (n->size > n->npages)
		n->npages = n->size;
	emit(b, EV_TRUNCATE, 0, 0, inode, 0, n->size);
	return 0;
}

int tb_proc(struct tb *b, int64_t pid, uint32_t group)
{
	uint32_t pi = proc_get(b, pid);

	b->t->procs[pi].group = group;
	emit(b, EV_PROCGROUP, 0, 0, pi, group, 0);
	return 0;
}

/* ---- mappings ----------------------------------------------------------- */

int tb_mmap(struct tb *b, int64_t pid, uint64_t s, uint64_t e, uint8_t flags,
	    uint32_t inode, uint64_t foff)
{
	uint32_t pi, region;

	if (e - s > UINT32_MAX / 2)
		return fail(b, "mapping too large");
	pi = proc_get(b, pid);
	unmap_range(b, pi, s, e);	/* MAP_FIXED over what was there */
	region = region_new(b, pi, (uint32_t)(e - s), flags, inode, foff);
	b->t->regions[region].mapped = (uint32_t)(e - s);
	ext_insert(&b->t->procs[pi], ext_lower(&b->t->procs[pi], s),
		   (struct t_extent){ s, e, region, 0 });
	emit(b, EV_MAP, 0, 0, region, 0, (uint32_t)(e - s));
	return 0;
}

int tb_munmap(struct tb *b, int64_t pid, uint64_t s, uint64_t e)
{
	uint32_t pi;

	if (live_proc(b, pid, &pi))
		return -1;
	unmap_range(b, pi, s, e);
	return 0;
}

/* Does any extent of @p map pages [from, to) of @region? */
static bool region_mapped_in(const struct t_proc *p, uint32_t region,
			     uint32_t from, uint32_t to)
{
	for (size_t i = 0; i < p->nr_ext; i++) {
		const struct t_extent *x = &p->ext[i];
		uint32_t end = x->roff + (uint32_t)(x->end - x->start);

		if (x->region == region && x->roff < to && from < end)
			return true;
	}
	return false;
}

int tb_mremap(struct tb *b, int64_t pid, uint64_t os, uint64_t oe,
	      uint64_t ns, uint64_t ne)
{
	uint64_t olen = oe - os, nlen = ne - ns;
	struct t_extent *xp;
	struct t_region *r;
	struct t_proc *p;
	uint32_t pi, region, roff;
	size_t i;

	if (live_proc(b, pid, &pi))
		return -1;
	p = &b->t->procs[pi];
	i = ext_lower(p, os);
	if (i == p->nr_ext || p->ext[i].start > os || p->ext[i].end < oe)
		return fail(b, "old range is not one mapping");
	if (ns != os && ns < oe && os < ne)
		return fail(b, "old and new ranges overlap");
	xp = &p->ext[i];
	region = xp->region;
	roff = xp->roff + (uint32_t)(os - xp->start);
	r = &b->t->regions[region];
	if (nlen > olen && region_mapped_in(p, region, roff + (uint32_t)olen,
					    roff + (uint32_t)nlen))
		return fail(b, "cannot grow into pages of the mapping that are "
			    "mapped elsewhere");
	if (roff + nlen > UINT32_MAX / 2)
		return fail(b, "mapping too large");
	if (nlen < olen) {
		unmap_range(b, pi, os + nlen, oe);
		oe = os + nlen;
	}
	cut_range(b, pi, os, oe, false);
	unmap_range(b, pi, ns, ne);	/* MREMAP_FIXED over what was there */
	r = &b->t->regions[region];
	if (nlen > olen) {
		r->mapped += (uint32_t)(nlen - olen);
		if (roff + nlen > r->npages) {
			r->npages = roff + (uint32_t)nlen;
			emit(b, EV_RESIZE, 0, 0, region, 0, r->npages);
		}
	}
	p = &b->t->procs[pi];
	ext_insert(p, ext_lower(p, ns),
		   (struct t_extent){ ns, ne, region, roff });
	return 0;
}

int tb_madvise(struct tb *b, int64_t pid, uint64_t s, uint64_t e,
	       enum t_advice adv)
{
	uint32_t pi;

	if (live_proc(b, pid, &pi))
		return -1;
	for (uint64_t pg = s; pg < e;) {
		const struct t_extent *x = resolve(&b->t->procs[pi], pg);
		uint64_t end;

		if (!x)
			return fail(b, "address 0x%llx is not mapped",
				    (unsigned long long)(pg << PAGE_SHIFT));
		end = e < x->end ? e : x->end;
		emit(b, EV_MADVISE, 0, (uint16_t)adv, x->region,
		     x->roff + (uint32_t)(pg - x->start), (uint32_t)(end - pg));
		pg = end;
	}
	return 0;
}

static int access_page(struct tb *b, uint32_t pi, uint64_t page, bool write)
{
	struct t_proc *p = &b->t->procs[pi];
	const struct t_extent *x = resolve(p, page);
	const struct t_region *r;
	uint32_t off;

	if (!x)
		return fail(b, "access to 0x%llx of process %lld, which is "
			    "not mapped", (unsigned long long)(page << PAGE_SHIFT),
			    (long long)p->pid);
	off = x->roff + (uint32_t)(page - x->start);
	r = &b->t->regions[x->region];
	if ((r->flags & R_FILE) && r->foff + off >= b->t->inodes[r->inode].size)
		return fail(b, "access to 0x%llx is beyond the end of file "
			    "%llu (SIGBUS)",
			    (unsigned long long)(page << PAGE_SHIFT),
			    (unsigned long long)b->t->inodes[r->inode].ino);
	emit(b, EV_ACCESS, write ? EVF_WRITE : 0, 0, x->region, off, 1);
	b->t->nr_accesses++;
	return 0;
}

int tb_access(struct tb *b, int64_t pid, uint64_t page, bool write,
	      unsigned int line)
{
	uint32_t pi;

	b->line = line;
	if (live_proc(b, pid, &pi))
		return -1;
	return access_page(b, pi, page, write);
}

int tb_fd(struct tb *b, uint32_t inode, uint64_t s, uint64_t e, bool write,
	  bool fullpage, int64_t pid)
{
	struct t_inode *n = &b->t->inodes[inode];
	uint32_t group = T_NONE;

	if (pid >= 0) {
		uint32_t pi;

		if (live_proc(b, pid, &pi))
			return -1;
		group = b->t->procs[pi].group;
	}
	if (e > UINT32_MAX / 2)
		return fail(b, "file too large");
	if (write && e > n->size) {
		/* A write extends the file, as write(2) does. */
		n->size = (uint32_t)e;
		if (e > n->npages)
			n->npages = (uint32_t)e;
	}
	if (e > n->size)
		return fail(b, "read beyond the end of file %llu",
			    (unsigned long long)n->ino);
	emit(b, EV_FD, (write ? EVF_WRITE : 0) | (fullpage ? EVF_FULLPAGE : 0),
	     (uint16_t)(group == T_NONE ? 0xffff : group), inode, (uint32_t)s,
	     (uint32_t)(e - s));
	b->t->nr_accesses += e - s;
	return 0;
}

/* ---- processes ---------------------------------------------------------- */

int tb_fork(struct tb *b, int64_t ppid, int64_t cpid)
{
	struct hmap clones;
	uint32_t parent, child;

	if (live_proc(b, ppid, &parent))
		return -1;
	if (proc_find(b, cpid) != T_NONE)
		return fail(b, "process %lld already exists", (long long)cpid);
	child = proc_new(b, cpid, b->t->procs[parent].group);
	hmap_init(&clones);
	for (size_t i = 0; i < b->t->procs[parent].nr_ext; i++) {
		struct t_extent x = b->t->procs[parent].ext[i];
		uint32_t nr = hmap_get(&clones, x.region);

		if (nr == T_NONE) {
			struct t_region src = b->t->regions[x.region];

			nr = region_new(b, child, src.npages, src.flags,
					src.inode, src.foff);
			b->t->regions[nr].clone_of = x.region;
			hmap_put(&clones, x.region, nr);
			emit(b, EV_CLONE, 0, 0, nr, x.region, 0);
		}
		b->t->regions[nr].mapped += (uint32_t)(x.end - x.start);
		x.region = nr;
		ext_insert(&b->t->procs[child], b->t->procs[child].nr_ext, x);
	}
	hmap_release(&clones);
	return 0;
}

int tb_exit(struct tb *b, int64_t pid)
{
	uint32_t pi;

	if (live_proc(b, pid, &pi))
		return -1;
	unmap_range(b, pi, 0, UINT64_MAX);
	b->t->procs[pi].live = false;
	b->last_proc = T_NONE;
	emit(b, EV_EXIT, 0, 0, pi, 0, 0);
	return 0;
}

/* ---- markers ------------------------------------------------------------ */

int tb_string(struct tb *b, enum ev_op op, const char *s)
{
	emit(b, (uint8_t)op, 0, 0, 0, add_string(b, s), 0);
	return 0;
}

int tb_reclaim(struct tb *b, enum t_reclaim kind, uint32_t group,
	       uint32_t lru, uint32_t nr)
{
	emit(b, EV_RECLAIM, 0, (uint16_t)kind, group, lru, nr);
	return 0;
}

int tb_expect(struct tb *b, struct t_expect *x, int64_t pid,
	      uint64_t addr_page)
{
	struct trace *t = b->t;
	size_t cap = t->cap_expects;

	if (x->page && !x->file) {
		const struct t_extent *e;
		uint32_t pi;

		if (live_proc(b, pid, &pi))
			return -1;
		e = resolve(&t->procs[pi], addr_page);
		if (!e)
			return fail(b, "address not mapped");
		x->obj = e->region;
		x->off = e->roff + (uint32_t)(addr_page - e->start);
	}
	x->line = b->line;
	pgr_grow(&t->expects, &cap, t->nr_expects + 1, sizeof(*t->expects));
	t->cap_expects = (uint32_t)cap;
	t->expects[t->nr_expects] = *x;
	emit(b, EV_EXPECT, 0, 0, 0, t->nr_expects++, 0);
	return 0;
}

/* ---- the flat formats --------------------------------------------------- */

/*
 * A region of process 1 for a format without mappings: the reader gives
 * pages dense offsets and the region grows to fit them. @text: a private
 * executable file mapping (instruction fetches), else anon.
 */
uint32_t tb_flat_region(struct tb *b, bool text)
{
	uint32_t pi = proc_get(b, 1), inode = T_NONE, r;

	if (text) {
		tb_file(b, UINT64_MAX - b->t->nr_inodes, 0, T_NONE);
		inode = b->t->nr_inodes - 1;
	}
	r = region_new(b, pi, 0, text ? R_FILE | R_EXEC : 0, inode, 0);
	emit(b, EV_MAP, 0, 0, r, 0, 0);
	return r;
}

void tb_flat_access(struct tb *b, uint32_t region, uint32_t off, bool write)
{
	struct t_region *r = &b->t->regions[region];

	if (off >= r->npages) {
		r->npages = off + 1;
		r->mapped = off + 1;
		if (r->flags & R_FILE) {
			b->t->inodes[r->inode].npages = off + 1;
			b->t->inodes[r->inode].size = off + 1;
		}
	}
	emit(b, EV_ACCESS, write ? EVF_WRITE : 0, 0, region, off, 1);
	b->t->nr_accesses++;
}
