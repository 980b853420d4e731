/* SPDX-License-Identifier: MIT */
/*
 * record.c - `pager run --record FILE`: the run's page-reference stream in
 * `pager sim`'s text format (docs/trace.md), so a real run can be replayed
 * under other policies.
 *
 * What the daemon sees is what is recorded: every page a fault maps (the
 * faulting one, and those mapped around it) as an access `r`/`w` — a
 * first touch, a swap-in, an emulated young bit coming back, a file
 * page's miss or hit, a copy-on-write; mappings as they are taken over
 * (`mmap`, with `file:INO` for the page cache's inodes, declared once),
 * `munmap`, `mremap`, `fork` (when the child is known), `exit`, and
 * tunables changed with `pager set`. Accesses to pages already mapped
 * leave no trace: the pager learns of them only through the next arming.
 *
 * Owns: the --record stream and the inodes declared in it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/log.h"
#include "../pgr.h"
#include "base.h"

int pgr_record_open(struct pgr *p, const char *path)
{
	p->rec = fopen(path, "we");
	if (!p->rec) {
		pgr_err("cannot write the record %s", path);
		return -1;
	}
	p->rec_inodes = calloc((p->nr_files_max + 63) / 64, sizeof(uint64_t));
	fprintf(p->rec, "pager-trace 1\n# recorded by pager: %llu pages of "
		"budget\n", (unsigned long long)p->o.budget);
	return 0;
}

void pgr_record_close(struct pgr *p)
{
	if (!p->rec)
		return;
	fclose(p->rec);
	free(p->rec_inodes);
	p->rec = NULL;
}

void pgr_rec(struct pgr *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->rec)
		return;
	va_start(ap, fmt);
	vfprintf(p->rec, fmt, ap);
	va_end(ap);
	fputc('\n', p->rec);
}

void pgr_rec_set(struct pgr *p, const char *key, const char *val)
{
	char buf[128];

	if (!p->rec)
		return;
	/* The simulator knows the policy's tunables, not the daemon's
	 * knobs (how faults are served): those are kept as comments. */
	if (pol_get(p->pol, key, buf, sizeof(buf)))
		fprintf(p->rec, "# set %s=%s (the daemon's)\n", key, val);
	else
		fprintf(p->rec, "set %s=%s\n", key, val);
}

void pgr_rec_access(struct pgr *p, const struct client *c, uint64_t addr,
		    uint64_t pages, bool write)
{
	if (!p->rec || c->pid <= 0)
		return;
	if (pages == 1)
		fprintf(p->rec, "%c %d 0x%llx\n", write ? 'w' : 'r', c->pid,
			(unsigned long long)addr);
	else
		fprintf(p->rec, "%c %d 0x%llx %llu\n", write ? 'w' : 'r',
			c->pid, (unsigned long long)addr,
			(unsigned long long)(pages * PGR_PAGE));
}

void pgr_rec_mmap(struct pgr *p, const struct client *c,
		  const struct region *r)
{
	if (!p->rec || c->pid <= 0)
		return;
	if (!region_is_file(r)) {
		fprintf(p->rec, "mmap %d 0x%llx %llu anon\n", c->pid,
			(unsigned long long)r->start,
			(unsigned long long)(r->end - r->start));
		return;
	}
	if (!(p->rec_inodes[r->inode / 64] & (1ULL << (r->inode % 64)))) {
		p->rec_inodes[r->inode / 64] |= 1ULL << (r->inode % 64);
		fprintf(p->rec, "file %u %llu\n", r->inode + 1,
			(unsigned long long)p->files[r->inode].size);
	}
	fprintf(p->rec, "mmap %d 0x%llx %llu file:%u@%llu%s%s\n", c->pid,
		(unsigned long long)r->start,
		(unsigned long long)(r->end - r->start), r->inode + 1,
		(unsigned long long)(r->pgoff * PGR_PAGE),
		(r->rflags & R_EXEC) ? " exec" : "",
		(r->rflags & R_SHARED) ? " shared" : "");
}

/* An advice taken by a region (R_SEQ_READ, R_RAND_READ, 0: normal). */
void pgr_rec_madvise(struct pgr *p, const struct client *c, uint64_t addr,
		     uint64_t len, uint8_t advice)
{
	if (!p->rec || c->pid <= 0)
		return;
	fprintf(p->rec, "madvise %d 0x%llx %llu %s\n", c->pid,
		(unsigned long long)addr, (unsigned long long)len,
		advice == R_SEQ_READ ? "sequential" :
		advice == R_RAND_READ ? "random" : "normal");
}
