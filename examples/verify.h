/* SPDX-License-Identifier: MIT */
/*
 * verify.h - what verify's files share: the options, the page patterns
 * and their checks, and the tests of file mappings (verify-file.c).
 */
#ifndef VERIFY_H
#define VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PAGE	4096UL
#define WORDS	(PAGE / sizeof(uint64_t))

extern size_t mb, passes, nthreads;
extern const char *file_path;
extern uint64_t seed;
extern unsigned long bad;	/* mismatched words, all tests */

/* The word @w of page @pg of buffer @tag in generation @gen: never zero,
 * different for every page, word, buffer and generation. */
uint64_t pattern(uint64_t tag, uint64_t pg, uint64_t w, uint64_t gen);
void fill_page(uint64_t *p, uint64_t tag, uint64_t pg, uint64_t gen);
/* The words of a page that are wrong (@gen 0: it must be zeros), the
 * first few mismatching pages reported. */
unsigned long check_page(const char *test, const uint64_t *p, uint64_t tag,
			 uint64_t pg, uint64_t gen);
char *map(size_t len);
uint64_t rnd(uint64_t *s);
/* Pages [from, to) of @buf: filled with, checked against @gen. */
void fill(char *buf, uint64_t tag, size_t from, size_t to, uint64_t gen);
unsigned long check(const char *test, const char *buf, uint64_t tag,
		    size_t from, size_t to, uint64_t gen);
/* Pages round % 8, round % 8 + 8, ... of [0, to): eight rounds cover
 * them all. */
unsigned long check_eighth(const char *test, const char *buf, uint64_t tag,
			   size_t to, size_t round, uint64_t gen);
/* "verify: TEST ok", or what failed; the words count in bad. */
void result(const char *test, unsigned long n);

/* verify-file.c */
int open_file(size_t len, bool create);
char *map_file(int fd, size_t len, int flags);
unsigned long check_file(const char *test, int fd, uint64_t tag, size_t from,
			 size_t to, size_t step, const uint64_t *gens,
			 uint64_t gen);
void write_file(int fd, uint64_t tag, size_t pages);
/* Pages [from, to) of the file's mapping @buf read (SIGBUS counted as a
 * whole page wrong) and checked against @gens[pg] or @gen. */
unsigned long check_mapped(const char *test, const char *buf,
			   uint64_t tag, size_t from, size_t to,
			   const uint64_t *gens, uint64_t gen);
/* Copy @n bytes of a mapping at @p to @out: false if it raised SIGBUS. */
bool load(const volatile char *p, char *out, size_t n);
void t_fshared(void);
void t_clone(void);
void t_ftwo(void);
void t_fwrite(void);
void t_fread(void);
void t_fgrow(void);
void t_fremap(void);
void t_ftrunc(void);
void t_foutside(void);
void t_fstamp(void);
void t_fraw(void);
void t_fwb(void);
void t_fredirty(void);
/* verify-guard.c */
void t_guard(void);
/* verify-mlock.c */
void t_mlock(void);
/* verify-bigfork.c */
void t_bigfork(void);
/* verify-ownuffd.c */
void t_ownuffd(void);
/* verify-mmcalls.c */
void t_mmcalls(void);
/* verify-nospc.c */
void t_fnospc(void);
/* verify-badptr.c */
void t_fbadptr(void);
/* verify-remap.c */
void t_fpages(void);
/* verify-private.c */
void t_fprivate(void);
void t_fcow(void);
/* verify-moves.c */
void t_fmoves(void);
void t_mapbusy(void);
void t_advise(void);
/* verify-stress.c */
void t_fstress(void);
/* verify-heap.c */
void t_heap(void);
void t_heapsig(void);
void t_callstorm(void);

#endif /* VERIFY_H */
