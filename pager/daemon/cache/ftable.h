/* SPDX-License-Identifier: MIT */
/*
 * ftable.h - what ftable.c offers the rest of the daemon: the table of
 * cached files shared read-only with the shims (lib/ftable.h).
 */
#ifndef PGR_DAEMON_FTABLE_H
#define PGR_DAEMON_FTABLE_H

#include "../pgr.h"

int pgr_ftable_init(struct pgr *p);
void pgr_ftable_release(struct pgr *p);
/* A read-only descriptor of the table, for a shim (-1 on failure). */
int pgr_ftable_fd(struct pgr *p);
/* Inode @ino's entry says @coh (FT_SEALED, FT_WATCHED, FT_RW,
 * FT_HANDED_BACK); 0 removes it. */
void pgr_ftable_set(struct pgr *p, uint32_t ino, uint32_t coh);

#endif /* PGR_DAEMON_FTABLE_H */
