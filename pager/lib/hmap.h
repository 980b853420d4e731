/* SPDX-License-Identifier: MIT */
/*
 * hmap.h - an open-addressing hash map from 64-bit keys to 32-bit values,
 * for page numbers, pids and inode numbers met while reading traces.
 */
#ifndef PGR_HMAP_H
#define PGR_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap;		/* power of two */
	size_t nr;
};

void hmap_init(struct hmap *m);
void hmap_release(struct hmap *m);
/* The value of @key, or UINT32_MAX. */
uint32_t hmap_get(const struct hmap *m, uint64_t key);
/* Set @key to @val (UINT32_MAX is reserved). */
void hmap_put(struct hmap *m, uint64_t key, uint32_t val);

#endif /* PGR_HMAP_H */
