/* SPDX-License-Identifier: MIT */
/*
 * compress.h - page compression for the stores that keep pages in the
 * daemon's memory (zram.c, zswap.c): liblz4, libzstd and liblzo2 (LZO1X-1,
 * the kernel's lzo), as the kernel's crypto_acomp names them.
 */
#ifndef PGR_DAEMON_COMPRESS_H
#define PGR_DAEMON_COMPRESS_H

#include <stddef.h>

enum pgr_comp { PGR_COMP_LZ4 = 1, PGR_COMP_ZSTD, PGR_COMP_LZO };

struct pgr_compressor;

/* "lz4", "zstd" or "lzo": 0, or -EINVAL for any other name. */
int pgr_comp_parse(const char *name, enum pgr_comp *c);
const char *pgr_comp_name(enum pgr_comp c);
/* The contexts the algorithms need; NULL if one cannot be set up. */
struct pgr_compressor *pgr_compressor_new(void);
void pgr_compressor_free(struct pgr_compressor *z);
/* @page compressed by @c into @out: its length, or 0 if it would take
 * @max bytes or more (the caller keeps such a page whole, or not). */
size_t pgr_compress(struct pgr_compressor *z, enum pgr_comp c,
		    const char *page, char *out, size_t max);
/* @len bytes of @in, compressed by @c, back into @page: 0, or -EIO if
 * they are not a whole page's. */
int pgr_decompress(struct pgr_compressor *z, enum pgr_comp c,
		   const void *in, size_t len, char *page);

#endif /* PGR_DAEMON_COMPRESS_H */
