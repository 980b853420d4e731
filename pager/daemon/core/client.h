/* SPDX-License-Identifier: MIT */
/*
 * client.h - what client.c offers the rest of the daemon: the processes
 * under the pager, from hello (or fork) to exit.
 */
#ifndef PGR_DAEMON_CLIENT_H
#define PGR_DAEMON_CLIENT_H

#include "../pgr.h"

struct client *pgr_client_new(struct pgr *p, pid_t pid, int uffd);
struct client *pgr_client_find(struct pgr *p, pid_t pid);
/* The client whose agent process is @agent. */
struct client *pgr_client_of_agent(struct pgr *p, pid_t agent);
void pgr_client_gone(struct pgr *p, struct client *c, const char *why);
/* Has @c's mm gone (exit or exec)? Only once its agent, which holds the
 * mm too, is gone. */
bool pgr_client_mm_gone(const struct client *c);
/* @c's agent ended, and its process runs on. */
void pgr_client_cut_off(struct pgr *p, struct client *c);
/* @life is @c's program's own connection, @agent its agent process. */
void pgr_client_set_life(struct client *c, struct conn *life, pid_t agent);
/* @c's own connection closed: the program exec'd or exited (then @c is
 * gone), or closed it itself (a launcher: it runs on). */
void pgr_client_life_closed(struct pgr *p, struct client *c);
unsigned int pgr_nr_clients(const struct pgr *p);
/* Arm the client's uffd and pidfd polls. */
int pgr_client_watch(struct pgr *p, struct client *c);
int pgr_client_set_pid(struct pgr *p, struct client *c, pid_t pid);

#endif /* PGR_DAEMON_CLIENT_H */
