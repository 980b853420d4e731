/* SPDX-License-Identifier: MIT */
/*
 * client.h - what client.c offers the rest of the daemon: the processes
 * under the pager, from hello (or fork) to exit.
 */
#ifndef PGR_DAEMON_CLIENT_H
#define PGR_DAEMON_CLIENT_H

#include "pgr.h"

struct client *pgr_client_new(struct pgr *p, pid_t pid, int uffd);
struct client *pgr_client_find(struct pgr *p, pid_t pid);
void pgr_client_gone(struct pgr *p, struct client *c, const char *why);
/* Has @c's mm gone (exit or exec)? */
bool pgr_client_mm_gone(const struct client *c);
/* @c's process closed its agent's connection and runs on. */
void pgr_client_cut_off(struct pgr *p, struct client *c);
unsigned int pgr_nr_clients(const struct pgr *p);
/* Arm the client's uffd and pidfd polls. */
int pgr_client_watch(struct pgr *p, struct client *c);
int pgr_client_set_pid(struct pgr *p, struct client *c, pid_t pid);

#endif /* PGR_DAEMON_CLIENT_H */
