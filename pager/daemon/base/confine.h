/* SPDX-License-Identifier: MIT */
/*
 * confine.h - what confine.c offers the rest of the daemon: what the daemon
 * gives up once it is set up.
 */
#ifndef PGR_DAEMON_CONFINE_H
#define PGR_DAEMON_CONFINE_H

#include "../pgr.h"

/* After setup: capabilities cut, no_new_privs, a seccomp allowlist. */
int pgr_confine(bool net);

#endif /* PGR_DAEMON_CONFINE_H */
