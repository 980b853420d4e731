/* SPDX-License-Identifier: MIT */
/*
 * hmap.c - linear probing over a power-of-two table; a key's presence is
 * its value being set (empty slots hold UINT32_MAX), so any 64-bit key
 * can be stored. Grows at 50 % load.
 */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "util.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= UINT64_C(0xff51afd7ed558ccd);
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

void hmap_init(struct hmap *m)
{
	memset(m, 0, sizeof(*m));
}

void hmap_release(struct hmap *m)
{
	free(m->keys);
	free(m->vals);
	hmap_init(m);
}

uint32_t hmap_get(const struct hmap *m, uint64_t key)
{
	if (!m->cap)
		return UINT32_MAX;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->vals[i] == UINT32_MAX)
			return UINT32_MAX;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static void rehash(struct hmap *m, size_t cap)
{
	uint64_t *keys = m->keys;
	uint32_t *vals = m->vals;
	size_t old = m->cap;

	m->keys = pgr_xcalloc(cap, sizeof(*m->keys));
	m->vals = malloc(cap * sizeof(*m->vals));
	if (!m->vals)
		pgr_die("out of memory");
	memset(m->vals, 0xff, cap * sizeof(*m->vals));
	m->cap = cap;
	m->nr = 0;
	for (size_t i = 0; i < old; i++)
		if (vals[i] != UINT32_MAX)
			hmap_put(m, keys[i], vals[i]);
	free(keys);
	free(vals);
}

void hmap_put(struct hmap *m, uint64_t key, uint32_t val)
{
	if ((m->nr + 1) * 2 > m->cap)
		rehash(m, m->cap ? m->cap * 2 : 64);
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->vals[i] == UINT32_MAX) {
			m->keys[i] = key;
			m->vals[i] = val;
			m->nr++;
			return;
		}
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return;
		}
	}
}
