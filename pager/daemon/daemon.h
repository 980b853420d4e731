/* SPDX-License-Identifier: MIT */
/*
 * daemon.h - what daemon.c offers the rest of the daemon: the daemon's
 * setup, its loop, and its end.
 */
#ifndef PGR_DAEMON_DAEMON_H
#define PGR_DAEMON_DAEMON_H

#include "pgr.h"

int pgr_daemon_run(const struct pgr_opts *o);
/* Set a daemon up as @o says (no socket, no swap, no record) and take it
 * down: 0 if every option and setting is taken, else 1 with the reason
 * logged. For `pager daemon --check`. */
int pgr_daemon_check(const struct pgr_opts *o);
/* Set up a daemon on @loop without running it (socket_path NULL: no
 * listener; the fuzzer's way in), and take it down. */
struct pgr *pgr_daemon_new(const struct pgr_opts *o, uv_loop_t *loop);
void pgr_daemon_free(struct pgr *p);
/* `--swap SPEC` (a file, zram[:ALG], redis://...): 0 if a swap device
 * takes it, else -EINVAL and why. */
int pgr_daemon_swap_check(const char *spec, char *why, size_t len);
/* End the loop after this iteration. */
void pgr_stop(struct pgr *p);

#endif /* PGR_DAEMON_DAEMON_H */
