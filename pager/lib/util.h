/* SPDX-License-Identifier: MIT */
/*
 * util.h - small helpers every command shares: number and size parsing,
 * growing arrays, and the process-wide program name for messages.
 */
#ifndef PGR_UTIL_H
#define PGR_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A decimal or 0x-hexadecimal unsigned number, nothing after it. */
int pgr_parse_u64(const char *s, uint64_t *v);
/* Seconds on the monotonic clock. */
double pgr_now(void);
/* Seconds of CPU this process has used, all its threads. */
double pgr_cpu_time(void);
/* A size in bytes: a number with an optional K, M, G or T suffix (powers
 * of 1024), e.g. "512M", "0x1000", "4096". */
int pgr_parse_size(const char *s, uint64_t *bytes);
/* Where temporary files go: $TMPDIR, or /var/tmp (the daemon's swap file,
 * an experiment's working directory). */
const char *pgr_tmp_dir(void);
/* A swap device "zram" or "zram:ALG": ALG ("lz4" for plain "zram"), or
 * NULL if @dev names no zram (`--swap`, an experiment's swap=). */
const char *pgr_zram_spec(const char *dev);
/* Format @bytes with the largest exact suffix ("512M", "4100K"). */
const char *pgr_fmt_size(uint64_t bytes, char *buf, size_t len);

/* Make room for @need elements in *@arr of *@cap, each @size bytes.
 * Aborts when out of memory: the commands cannot go on without it. */
void pgr_grow(void *arr, size_t *cap, size_t need, size_t size);
void *pgr_xcalloc(size_t n, size_t size);
void *pgr_xrealloc(void *p, size_t n, size_t size);
char *pgr_xstrdup(const char *s);

/* Print "pager: " and the message to stderr. */
void pgr_die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						  noreturn));
void pgr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* PGR_UTIL_H */
