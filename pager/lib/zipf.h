/* SPDX-License-Identifier: MIT */
/*
 * zipf.h - a seeded PRNG and a Zipf sampler, the same streams on every
 * machine, for generated traces and benchmarks.
 */
#ifndef PGR_ZIPF_H
#define PGR_ZIPF_H

#include <stdint.h>

/* xorshift64*: next value of the stream in *state (never 0). */
uint64_t pgr_rand(uint64_t *state);

struct zipf {
	double *cdf;		/* cumulative weights of ranks 0..n-1 */
	uint64_t n;
	uint64_t state;		/* PRNG */
};

/* Ranks 0..n-1 with weight 1/(rank+1)^alpha; seed 0 means 1. */
void zipf_init(struct zipf *z, uint64_t n, double alpha, uint64_t seed);
void zipf_release(struct zipf *z);
/* The next page: a rank, scattered over 0..n-1 so that hot pages are not
 * neighbours (multiplying by a prime larger than any n is a permutation
 * modulo n). */
uint64_t zipf_next(struct zipf *z);

#endif /* PGR_ZIPF_H */
