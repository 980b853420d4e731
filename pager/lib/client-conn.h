/* SPDX-License-Identifier: MIT */
/*
 * client-conn.h - how the commands find and talk to a daemon: the socket
 * path (--socket, $PAGER_SOCKET, or the default), the preload library, and
 * a blocking request/response helper.
 */
#ifndef PGR_CLIENT_CONN_H
#define PGR_CLIENT_CONN_H

#include <stddef.h>

#include "wire.h"

/* The socket of the standing daemon: $PAGER_SOCKET, else /run/pager.sock
 * for root, else /tmp/pager-UID.sock. */
const char *pgr_default_socket(char *buf, size_t len);
/* The preload library: $PAGER_PRELOAD, else beside this executable, else
 * where `make install` put it. NULL if none exists. */
const char *pgr_shim_path(char *buf, size_t len);
/* Connect to the daemon at @path: the fd, or -errno. */
int pgr_connect(const char *path);
/* Send @line and print the data lines of the answer to stdout (if
 * @print); return 0, or 1 with the daemon's error on stderr. */
int pgr_request(struct wire *w, const char *line, int print);

#endif /* PGR_CLIENT_CONN_H */
