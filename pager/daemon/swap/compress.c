/* SPDX-License-Identifier: MIT */
/*
 * compress.c - a page compressed and decompressed with liblz4, libzstd
 * (at level 3, zram's and zswap's default level) or liblzo2 (LZO1X-1, what
 * the kernel's lzo runs: zswap's default compressor in this kernel's
 * configuration), for zram.c and zswap.c.
 *
 * Owns: zstd's contexts and lzo's work memory, made once and reused (a
 * context per call would cost more than the compression).
 */
#include <errno.h>
#include <lz4.h>
#include <lzo/lzo1x.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../../lib/util.h"
#include "../pgr.h"
#include "compress.h"

#define ZSTD_LEVEL	3
/* LZO1X-1's worst case for a page: it takes no bound, so it writes here. */
#define LZO_OUT		(PGR_PAGE + PGR_PAGE / 16 + 64 + 3)

struct pgr_compressor {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	void *lzo_work;			/* LZO1X_1_MEM_COMPRESS bytes */
	unsigned char lzo_out[LZO_OUT];
};

int pgr_comp_parse(const char *name, enum pgr_comp *c)
{
	if (!strcmp(name, "lz4"))
		*c = PGR_COMP_LZ4;
	else if (!strcmp(name, "zstd"))
		*c = PGR_COMP_ZSTD;
	else if (!strcmp(name, "lzo"))
		*c = PGR_COMP_LZO;
	else
		return -EINVAL;
	return 0;
}

const char *pgr_comp_name(enum pgr_comp c)
{
	return c == PGR_COMP_ZSTD ? "zstd" : c == PGR_COMP_LZO ? "lzo" : "lz4";
}

struct pgr_compressor *pgr_compressor_new(void)
{
	struct pgr_compressor *z = pgr_xcalloc(1, sizeof(*z));

	z->cctx = ZSTD_createCCtx();
	z->dctx = ZSTD_createDCtx();
	z->lzo_work = malloc(LZO1X_1_MEM_COMPRESS);
	if (!z->cctx || !z->dctx || !z->lzo_work || lzo_init() != LZO_E_OK) {
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
	free(z->lzo_work);
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
	if (c == PGR_COMP_LZO) {
		lzo_uint n = 0;

		if (lzo1x_1_compress((const unsigned char *)page, PGR_PAGE,
				     z->lzo_out, &n, z->lzo_work) != LZO_E_OK ||
		    n >= max)
			return 0;
		memcpy(out, z->lzo_out, n);
		return n;
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
	if (c == PGR_COMP_LZO) {
		lzo_uint n = PGR_PAGE;

		return lzo1x_decompress_safe(in, len, (unsigned char *)page, &n,
					     NULL) == LZO_E_OK && n == PGR_PAGE ?
		       0 : -EIO;
	}
	return LZ4_decompress_safe(in, page, (int)len, PGR_PAGE) == PGR_PAGE ?
	       0 : -EIO;
}
