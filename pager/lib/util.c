/* SPDX-License-Identifier: MIT */
/*
 * util.c - see util.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "util.h"

int pgr_parse_u64(const char *s, uint64_t *v)
{
	unsigned int base = 10;
	uint64_t x = 0;

	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return -EINVAL;
	}
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			return -EINVAL;
		if (x > (UINT64_MAX - d) / base)
			return -ERANGE;
		x = x * base + d;
	}
	*v = x;
	return 0;
}

const char *pgr_tmp_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/var/tmp";
}

const char *pgr_zram_spec(const char *dev)
{
	if (strncmp(dev, "zram", 4) || (dev[4] && dev[4] != ':'))
		return NULL;
	return dev[4] ? dev + 5 : "lz4";
}

int pgr_parse_size(const char *s, uint64_t *bytes)
{
	char num[40];
	size_t n = s ? strlen(s) : 0;
	unsigned int shift = 0;
	uint64_t v;
	int err;

	if (n == 0 || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n + 1);
	/* A hex number may end in a digit that looks like a suffix. */
	if (!(n > 2 && num[0] == '0' && (num[1] == 'x' || num[1] == 'X'))) {
		switch (num[n - 1]) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		case 't': case 'T': shift = 40; break;
		}
	}
	if (shift)
		num[--n] = 0;
	err = pgr_parse_u64(num, &v);
	if (err)
		return err;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*bytes = v << shift;
	return 0;
}

const char *pgr_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char sfx[] = "KMGT";
	int i = -1;

	while (i < 3 && bytes && !(bytes & 1023)) {
		bytes >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)bytes, sfx[i]);
	return buf;
}

void pgr_grow(void *arr, size_t *cap, size_t need, size_t size)
{
	void **p = arr;
	size_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return;
	while (c < need)
		c *= 2;
	*p = realloc(*p, c * size);
	if (!*p)
		pgr_die("out of memory");
	memset((char *)*p + *cap * size, 0, (c - *cap) * size);
	*cap = c;
}

void *pgr_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		pgr_die("out of memory");
	return p;
}

void *pgr_xrealloc(void *p, size_t n, size_t size)
{
	p = realloc(p, (n ? n : 1) * size);
	if (!p)
		pgr_die("out of memory");
	return p;
}

char *pgr_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		pgr_die("out of memory");
	return p;
}

void pgr_die(const char *fmt, ...)
{
	va_list ap;

	fputs("pager: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void pgr_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("pager: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

double pgr_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double pgr_cpu_time(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
