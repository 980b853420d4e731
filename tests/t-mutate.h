/* SPDX-License-Identifier: MIT */
/* t-mutate.h - trace inputs for the fuzz test (t-mutate.c). */
#ifndef T_MUTATE_H
#define T_MUTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FUZZ_MAX 8192

/* An input: up to FUZZ_MAX bytes of trace text (or binary). */
struct input {
	char p[FUZZ_MAX + 1];
	size_t len;
};

void t_rnd_seed(uint64_t seed);
uint64_t t_rnd(void);
/* 0 <= value < @n (0 if @n is 0). */
size_t t_below(size_t n);
/* The well-formed seed traces, and one of them at random. */
extern const char *const t_seeds[];
extern const size_t t_nr_seeds;
const char *t_seed_trace(void);
/* Mutate @in once, at random. */
void t_mutate(struct input *in);
/* Drop @n bytes of @in at @at. */
void t_in_delete(struct input *in, size_t at, size_t n);
/* The line of @in around @pos: [*s, *e), its newline included. */
void t_line_at(const struct input *in, size_t pos, size_t *s, size_t *e);

#endif /* T_MUTATE_H */
