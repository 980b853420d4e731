/* SPDX-License-Identifier: MIT */
/*
 * compress.c - a page compressed and decompressed with liblz4 or libzstd
 * (zstd at level 3, zram's and zswap's default level), for zram.c and
 * zswap.c.
 *
 * Owns: zstd's contexts, made once and reused (a context per call would
 * cost more than the compression).
 */
#include <errno.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../lib/util.h"
#include "pgr.h"
#include "compress.h"

#define ZSTD_LEVEL	3

struct pgr_compressor {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
};

int pgr_comp_parse(const char *name, enum pgr_comp *c)
{
	if (!strcmp(name, "lz4"))
		*c = PGR_COMP_LZ4;
	else if (!strcmp(name, "zstd"))
		*c = PGR_COMP_ZSTD;
	else
		return -EINVAL;
	return 0;
}

const char *pgr_comp_name(enum pgr_comp c)
{
	return c == PGR_COMP_ZSTD ? "zstd" : "lz4";
}

struct pgr_compressor *pgr_compressor_new(void)
{
	struct pgr_compressor *z = pgr_xcalloc(1, sizeof(*z));

	z->cctx = ZSTD_createCCtx();
	z->dctx = ZSTD_createDCtx();
	if (!z->cctx || !z->dctx) {
		pgr_compressor_free(z);
		return NULL;
	}
	return z;
}

void pgr_compressor_free(struct pgr_compressor *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cctx);
	ZSTD_freeDCtx(z->dctx);
	free(z);
}

size_t pgr_compress(struct pgr_compressor *z, enum pgr_comp c,
		    const char *page, char *out, size_t max)
{
	if (c == PGR_COMP_ZSTD) {
		size_t n = ZSTD_compressCCtx(z->cctx, out, max, page, PGR_PAGE,
					     ZSTD_LEVEL);

		return ZSTD_isError(n) || n >= max ? 0 : n;
	}
	int n = LZ4_compress_default(page, out, PGR_PAGE, (int)max - 1);

	return n > 0 ? (size_t)n : 0;
}

int pgr_decompress(struct pgr_compressor *z, enum pgr_comp c,
		   const void *in, size_t len, char *page)
{
	if (c == PGR_COMP_ZSTD) {
		size_t n = ZSTD_decompressDCtx(z->dctx, page, PGR_PAGE, in, len);

		return !ZSTD_isError(n) && n == PGR_PAGE ? 0 : -EIO;
	}
	return LZ4_decompress_safe(in, page, (int)len, PGR_PAGE) == PGR_PAGE ?
	       0 : -EIO;
}
