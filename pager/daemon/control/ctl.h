/* SPDX-License-Identifier: MIT */
/*
 * ctl.h - what ctl.c offers the rest of the daemon: the control protocol's
 * commands.
 */
#ifndef PGR_DAEMON_CTL_H
#define PGR_DAEMON_CTL_H

#include "../pgr.h"

void pgr_ctl_command(struct pgr *p, struct conn *c, char *line);
/* Answer the "map"s still held (the daemon stops). */
void pgr_ctl_release_held(struct pgr *p);

#endif /* PGR_DAEMON_CTL_H */
