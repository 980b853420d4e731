/* SPDX-License-Identifier: MIT */
/*
 * trace.h - page-reference traces: the model every trace format is read
 * into, and the builder that resolves addresses.
 *
 * A trace on disk speaks of processes, addresses and files (docs/trace.md).
 * Reading it resolves every address, once, to a region and a page offset
 * in that region, following mmap, munmap, mremap and fork as they come;
 * the result is a flat array of 16-byte events that replay without any
 * address lookup:
 *
 *   "mmap 7 0x1000 8K anon"   -> region 0 (2 pages)    EV_MAP r0
 *   "w 7 0x2000"              -> region 0, page 1       EV_ACCESS r0+1 (write)
 *   "fork 7 8"                -> region 1 copies r0     EV_CLONE r1 <- r0
 *   "munmap 8 0x1000 4K"      -> region 1, page 0       EV_UNMAP r1+0 1
 */
#ifndef PGR_TRACE_H
#define PGR_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define T_NONE UINT32_MAX

enum ev_op {
	EV_ACCESS,	/* obj region, off page; flags EVF_WRITE */
	EV_FD,		/* read(2)/write(2): obj inode, off page, len pages,
			 * aux group; flags EVF_WRITE */
	EV_MAP,		/* obj region comes to life */
	EV_UNMAP,	/* obj region, off, len; EVF_FINAL: region dies */
	EV_CLONE,	/* obj new region, off the region it is forked from */
	EV_RESIZE,	/* obj region grows to len pages */
	EV_MADVISE,	/* obj region, off, len; aux enum t_advice */
	EV_EXIT,	/* obj process */
	EV_PROCGROUP,	/* obj process, off group */
	EV_TRUNCATE,	/* obj inode, len new size in pages */
	EV_PHASE,	/* off index into trace.strings */
	EV_SET,		/* off index into trace.strings: "key=value" */
	EV_EXPECT,	/* off index into trace.expects */
	EV_RECLAIM,	/* aux enum t_reclaim, obj group, off lru, len pages */
	EV_LRU_GEN,	/* off index into trace.strings: an lru_gen command */
};

enum { EVF_WRITE = 1, EVF_FINAL = 2, EVF_FULLPAGE = 4 };

struct ev {
	uint8_t op;		/* enum ev_op */
	uint8_t flags;		/* EVF_* */
	uint16_t aux;
	uint32_t obj;
	uint32_t off;		/* pages */
	uint32_t len;		/* pages */
};
_Static_assert(sizeof(struct ev) == 16, "events are 16 bytes");

enum t_advice {
	ADV_DONTNEED, ADV_REMOVE, ADV_COLD, ADV_PAGEOUT, ADV_FREE,
	ADV_MLOCK, ADV_MUNLOCK, ADV_SEQUENTIAL, ADV_NORMAL, ADV_RANDOM,
};

enum t_reclaim { RC_KSWAPD, RC_DIRECT, RC_GROUP, RC_LIST, RC_INODES,
		 RC_LRUVEC };

enum { R_FILE = 1, R_SHARED = 2, R_EXEC = 4, R_SEQ = 8, R_LOCKED = 16 };

struct t_region {
	uint32_t proc;		/* owning process (index into procs) */
	uint32_t npages;	/* largest size it ever has */
	uint32_t inode;		/* file regions: index into inodes */
	uint32_t clone_of;	/* forked from this region, or T_NONE */
	uint64_t foff;		/* file regions: page offset in the file */
	uint8_t flags;		/* R_* at creation */
	uint32_t mapped;	/* builder: pages still mapped */
};

struct t_inode {
	uint64_t ino;		/* the trace's inode number */
	uint32_t npages;	/* size, pages (largest ever) */
	uint32_t size;		/* builder: current size, pages */
	uint32_t group;		/* group the file is charged to */
};

struct t_group {
	char name[32];
	uint32_t parent;	/* index, T_NONE for top level */
	char limits[3][24];	/* memory.min/low/max as given, "" if not */
};

struct t_extent {
	uint64_t start;		/* first page number */
	uint64_t end;		/* one past the last */
	uint32_t region;
	uint32_t roff;		/* page offset in the region of start */
};

struct t_proc {
	int64_t pid;
	uint32_t group;
	bool live;
	struct t_extent *ext;	/* sorted by start, non-overlapping */
	size_t nr_ext, cap_ext;
	size_t last;		/* extent that resolved the last access */
};

/* expect lines (docs/trace.md) */
enum t_cmp { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };
enum t_state {
	ST_ABSENT = 1 << 0, ST_RESIDENT = 1 << 1, ST_ACTIVE = 1 << 2,
	ST_INACTIVE = 1 << 3, ST_REFERENCED = 1 << 4,
	ST_UNREFERENCED = 1 << 5, ST_SWAPPED = 1 << 6, ST_SHADOW = 1 << 7,
	ST_WORKINGSET = 1 << 8, ST_DIRTY = 1 << 9, ST_UNEVICTABLE = 1 << 10,
	ST_MAPPED = 1 << 11, ST_UNMAPPED = 1 << 12,
	ST_MAX_SEQ = 1 << 13, ST_MAX_SEQ_1 = 1 << 14, ST_MIN_SEQ = 1 << 15,
};
#define T_NR_STATES 16
/* Their names in expect lines, bit k's at [k] (trace-text.c). */
extern const char *const t_state_names[T_NR_STATES];

struct t_expect {
	unsigned int line;
	bool page;		/* page state, else a counter */
	char counter[48];	/* counter name (also "refs", "misses") */
	uint32_t group;		/* T_NONE: instance total */
	enum t_cmp cmp;
	uint64_t value;
	bool file;		/* page: obj is an inode, else a region */
	uint32_t obj;
	uint32_t off;
	uint32_t states;	/* enum t_state mask */
};

struct trace {
	const char *name;	/* for messages */
	struct ev *ev;
	size_t nr_ev, cap_ev;
	struct t_region *regions;
	uint32_t nr_regions, cap_regions;
	struct t_inode *inodes;
	uint32_t nr_inodes, cap_inodes;
	struct t_group *groups;
	uint32_t nr_groups, cap_groups;
	struct t_proc *procs;
	uint32_t nr_procs, cap_procs;
	char **strings;
	uint32_t nr_strings, cap_strings;
	struct t_expect *expects;
	uint32_t nr_expects, cap_expects;
	uint64_t nr_accesses;	/* EV_ACCESS events, plus pages of EV_FD */
	char err[256];		/* the first error, "file:line: reason" */
};

enum trace_format { TF_AUTO, TF_TEXT, TF_BINARY, TF_PAGES, TF_LACKEY };

/* Read a whole trace from @f in @fmt (TF_AUTO: by its first bytes).
 * Return 0, or -1 with t->err set to "NAME:LINE: reason". */
int trace_read(struct trace *t, FILE *f, const char *name,
	       enum trace_format fmt);
void trace_release(struct trace *t);
/* Parse a format name ("text", "binary", "pages", "lackey", "auto"). */
int trace_format_parse(const char *s, enum trace_format *fmt);

/* ---- the builder: formats call these, line by line ------------------- */

struct tb;	/* trace builder, trace-build.c */

struct tb *tb_create(struct trace *t, const char *name);
/* Finish: sets t->err and returns -1 on an error, else 0. */
int tb_finish(struct tb *b);
void tb_destroy(struct tb *b);
/* Handle one line of the text format; @line for messages. Return 0, or -1
 * with the reason in the trace's err. */
int tb_text_line(struct tb *b, char *text, unsigned int line);
/* Fast path for the compact formats: an access through a mapping. */
int tb_access(struct tb *b, int64_t pid, uint64_t page, bool write,
	      unsigned int line);
/* Declare error at @line (formats with their own syntax). */
int tb_error(struct tb *b, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* trace-bin.c: the compact binary form, and a writer of either form */
#define TRACE_BIN_MAGIC "PGRTRC1\n"
struct linesrc;
struct trace_writer;
int trace_read_binary(struct tb *b, struct linesrc *ls);
/* Copy a binary trace from @ls to a (text) writer; 0 or -EINVAL. */
int trace_binary_to_text(struct linesrc *ls, struct trace_writer *w);
struct trace_writer *trace_writer_open(FILE *f, bool binary);
/* Write one line of the text format (no newline). */
int trace_writer_line(struct trace_writer *w, const char *line);
/* Write an access through a mapping (compact in binary). */
int trace_writer_access(struct trace_writer *w, int64_t pid, uint64_t addr,
			bool write);
/* Flush and free; 0 or -EIO. */
int trace_writer_close(struct trace_writer *w);

/* trace-flat.c: `pages` and valgrind `lackey` logs */
int trace_read_pages(struct tb *b, struct linesrc *ls);
int trace_read_lackey(struct tb *b, struct linesrc *ls);

#endif /* PGR_TRACE_H */
