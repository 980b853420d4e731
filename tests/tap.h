/* SPDX-License-Identifier: MIT */
/*
 * tap.h - a tiny TAP emitter for the test programs.
 *
 * Each check prints "ok N - description" or "not ok N - description"
 * with the file:line and both compared values as diagnostics. The plan is
 * printed at the end by t_done(), whose value is the exit status.
 */
#ifndef PGR_TAP_H
#define PGR_TAP_H

#include <stdbool.h>
#include <stdint.h>

bool t_ok_(bool cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool t_eq_(uint64_t got, uint64_t want, const char *gexpr, const char *file,
	   int line, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
void t_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "1..0 # SKIP reason" and exit 0 (77 is for non-TAP harnesses). */
void t_skip_all(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						       noreturn));
/* Print the plan; return 0 if every check passed, else 1. */
int t_done(void);

#define t_ok(cond, ...) t_ok_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define t_eq(got, want, ...) \
	t_eq_((uint64_t)(got), (uint64_t)(want), #got, __FILE__, __LINE__, \
	      __VA_ARGS__)

#endif /* PGR_TAP_H */
