/* SPDX-License-Identifier: MIT */
/*
 * tap.c - see tap.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

static int nr_tests, nr_failed;

static void result(bool cond, const char *fmt, va_list ap)
{
	printf("%sok %d - ", cond ? "" : "not ", ++nr_tests);
	vprintf(fmt, ap);
	putchar('\n');
	if (!cond)
		nr_failed++;
	fflush(stdout);
}

bool t_ok_(bool cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	result(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("#   failed at %s:%d\n", file, line);
	return cond;
}

bool t_eq_(uint64_t got, uint64_t want, const char *gexpr, const char *file,
	   int line, const char *fmt, ...)
{
	va_list ap;
	bool cond = got == want;

	va_start(ap, fmt);
	result(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("#   failed at %s:%d\n#   %s: got %llu, want %llu\n",
		       file, line, gexpr, (unsigned long long)got,
		       (unsigned long long)want);
	return cond;
}

void t_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void t_skip_all(const char *fmt, ...)
{
	va_list ap;

	fputs("1..0 # SKIP ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(0);
}

int t_done(void)
{
	printf("1..%d\n", nr_tests);
	return nr_failed ? 1 : 0;
}
