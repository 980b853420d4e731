/* SPDX-License-Identifier: MIT */
/*
 * trace-build.h - the builder's operations, for the trace readers only.
 *
 * Each reader (text, binary, pages, lackey) parses its own syntax and calls
 * these with plain values. The builder checks what only it can know (is
 * this address mapped, is this page inside the file) and reports errors
 * against the line set with tb_line().
 */
#ifndef PGR_TRACE_BUILD_H
#define PGR_TRACE_BUILD_H

#include "trace.h"

#define PAGE_SHIFT 12

/* The line the next operations come from, for error messages. */
void tb_line(struct tb *b, unsigned int line);
struct trace *tb_trace(struct tb *b);

uint32_t tb_group_find(struct tb *b, const char *name);
uint32_t tb_inode_find(struct tb *b, uint64_t ino);

/* Each returns 0, or -1 with the trace's err set. Ranges are in pages. */
int tb_group(struct tb *b, const struct t_group *g);
int tb_file(struct tb *b, uint64_t ino, uint64_t npages, uint32_t group);
int tb_truncate(struct tb *b, uint32_t inode, uint64_t npages);
int tb_proc(struct tb *b, int64_t pid, uint32_t group);
int tb_mmap(struct tb *b, int64_t pid, uint64_t s, uint64_t e, uint8_t flags,
	    uint32_t inode, uint64_t foff);
int tb_munmap(struct tb *b, int64_t pid, uint64_t s, uint64_t e);
int tb_mremap(struct tb *b, int64_t pid, uint64_t os, uint64_t oe,
	      uint64_t ns, uint64_t ne);
int tb_madvise(struct tb *b, int64_t pid, uint64_t s, uint64_t e,
	       enum t_advice adv);
int tb_fd(struct tb *b, uint32_t inode, uint64_t s, uint64_t e, bool write,
	  bool fullpage, int64_t pid);
int tb_fork(struct tb *b, int64_t parent, int64_t child);
int tb_exit(struct tb *b, int64_t pid);
int tb_string(struct tb *b, enum ev_op op, const char *s);
int tb_reclaim(struct tb *b, enum t_reclaim kind, uint32_t group,
	       uint32_t lru, uint32_t nr);
/* An expectation; for a page of a process, @pid and @addr_page are
 * resolved here (x->obj, x->off). */
int tb_expect(struct tb *b, struct t_expect *x, int64_t pid,
	      uint64_t addr_page);

/* The flat formats: dense regions of process 1 that grow to fit. */
uint32_t tb_flat_region(struct tb *b, bool text);
void tb_flat_access(struct tb *b, uint32_t region, uint32_t off, bool write);

#endif /* PGR_TRACE_BUILD_H */
