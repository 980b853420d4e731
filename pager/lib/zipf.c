/* SPDX-License-Identifier: MIT */
/*
 * zipf.c - see zipf.h. Sampling inverts the cumulative weights by binary
 * search: 20 steps for a million pages.
 */
#include <math.h>
#include <stdlib.h>

#include "util.h"
#include "zipf.h"

uint64_t pgr_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

void zipf_init(struct zipf *z, uint64_t n, double alpha, uint64_t seed)
{
	double sum = 0;

	z->cdf = pgr_xcalloc(n, sizeof(*z->cdf));
	z->n = n;
	z->state = seed ? seed : 1;
	for (uint64_t i = 0; i < n; i++) {
		sum += 1.0 / pow((double)(i + 1), alpha);
		z->cdf[i] = sum;
	}
}

void zipf_release(struct zipf *z)
{
	free(z->cdf);
	z->cdf = NULL;
}

uint64_t zipf_next(struct zipf *z)
{
	double u = (double)(pgr_rand(&z->state) >> 11) / 9007199254740992.0 *
		   z->cdf[z->n - 1];
	uint64_t lo = 0, hi = z->n - 1;

	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;

		if (z->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo * 2654435761u) % z->n;
}
