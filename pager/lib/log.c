/* SPDX-License-Identifier: MIT */
/*
 * log.c - see log.h. Lines go to the log file if one is open, else to
 * stderr; errors go to both, so a user running `pager run` sees them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

int pgr_log_level = PGR_LOG_WARN;
static FILE *log_file;

void pgr_log_open(const char *path)
{
	FILE *f = fopen(path, "a");

	if (f) {
		setvbuf(f, NULL, _IOLBF, 0);
		log_file = f;
	}
}

static const char *const names[] = { "error", "warning", "info", "debug" };

/* The log file: a timestamp, the process, the level. */
static void emit_line(FILE *f, int level, const char *fmt, va_list ap)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(f, "%lld.%03ld pager[%d] %s: ", (long long)ts.tv_sec,
		ts.tv_nsec / 1000000, (int)getpid(), names[level]);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
}

/* stderr, for a person: "pager: MESSAGE", the level unless an error. */
static void emit_user(int level, const char *fmt, va_list ap)
{
	if (level == PGR_LOG_ERR)
		fputs("pager: ", stderr);
	else
		fprintf(stderr, "pager: %s: ", names[level]);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void pgr_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (log_file) {
		va_start(ap, fmt);
		emit_line(log_file, level, fmt, ap);
		va_end(ap);
	}
	if (!log_file || level == PGR_LOG_ERR) {
		va_start(ap, fmt);
		emit_user(level, fmt, ap);
		va_end(ap);
	}
}
