/* SPDX-License-Identifier: MIT */
/*
 * log.h - the daemon's logger: one line per decision, to stderr or a log
 * file, prefixed with the time and level. The macros check the level
 * before formatting anything.
 */
#ifndef PGR_LOG_H
#define PGR_LOG_H

#include <stdio.h>

enum pgr_log_level { PGR_LOG_ERR, PGR_LOG_WARN, PGR_LOG_INFO, PGR_LOG_DBG };

/* The one mutable global besides signal flags (house style §3). */
extern int pgr_log_level;

void pgr_log_open(const char *path);
void pgr_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define pgr_err(...) do { if (pgr_log_level >= PGR_LOG_ERR) \
	pgr_log(PGR_LOG_ERR, __VA_ARGS__); } while (0)
#define pgr_warn_(...) do { if (pgr_log_level >= PGR_LOG_WARN) \
	pgr_log(PGR_LOG_WARN, __VA_ARGS__); } while (0)
#define pgr_info(...) do { if (pgr_log_level >= PGR_LOG_INFO) \
	pgr_log(PGR_LOG_INFO, __VA_ARGS__); } while (0)
#define pgr_dbg(...) do { if (pgr_log_level >= PGR_LOG_DBG) \
	pgr_log(PGR_LOG_DBG, __VA_ARGS__); } while (0)

#endif /* PGR_LOG_H */
