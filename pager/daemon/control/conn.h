/* SPDX-License-Identifier: MIT */
/*
 * conn.h - what conn.c offers the rest of the daemon: the control socket
 * and its connections.
 */
#ifndef PGR_DAEMON_CONN_H
#define PGR_DAEMON_CONN_H

#include "../pgr.h"

int pgr_listen(struct pgr *p);
/* Serve the control protocol on connected socket @fd (peer: its pid). */
struct conn *pgr_conn_open(struct pgr *p, int fd, pid_t peer);
void pgr_conns_close(struct pgr *p);
/* Send a line (a newline is added); on failure the connection closes. */
int pgr_conn_send(struct conn *c, const char *line);
/* Send @len bytes as they are (lines, newlines included). */
int pgr_conn_send_bytes(struct conn *c, const char *buf, size_t len);
/* Send a line with a file descriptor. */
int pgr_conn_send_fd(struct conn *c, const char *line, int fd);
/* @c speaks for @cl; @agent: it is the shim's agent channel. */
void pgr_conn_set_client(struct conn *c, struct client *cl, bool agent);
struct client *pgr_conn_client(struct conn *c);
/* The process at the other end (SO_PEERCRED). */
pid_t pgr_conn_peer(const struct conn *c);
void pgr_conn_detach_client(struct conn *c);
int pgr_conn_take_fd(struct conn *c);
/* Keep @c for an answer sent later: it stays valid (sending on it once
 * closed fails quietly) until pgr_conn_put(). */
void pgr_conn_get(struct conn *c);
void pgr_conn_put(struct conn *c);

#endif /* PGR_DAEMON_CONN_H */
