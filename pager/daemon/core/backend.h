/* SPDX-License-Identifier: MIT */
/*
 * backend.h - what backend.c offers the rest of the daemon: what the
 * policy's decisions become (struct pol_backend).
 */
#ifndef PGR_DAEMON_BACKEND_H
#define PGR_DAEMON_BACKEND_H

#include "../pgr.h"

extern const struct pol_backend pgr_backend;
/* The write-out of @page completed with @res. */
void pgr_writeout_done(struct pgr *p, uint32_t page, int res);

#endif /* PGR_DAEMON_BACKEND_H */
