/* SPDX-License-Identifier: MIT */
/*
 * client-conn.h - how the commands find and talk to a daemon: the socket
 * path (--socket, $PAGER_SOCKET, or the default), the preload library, and
 * a blocking request/response helper.
 */
#ifndef PGR_CLIENT_CONN_H
#define PGR_CLIENT_CONN_H

#include <stddef.h>

#include "shim-conf.h"
#include "wire.h"

/* The socket of the standing daemon: the inherited one (below), else
 * /run/pager.sock for root, else /tmp/pager-UID.sock. */
const char *pgr_default_socket(char *buf, size_t len);
/* The daemon this process runs under: $PAGER_SOCKET, else the shim.conf
 * beside a shim in $LD_PRELOAD (a command run under `pager run`); NULL if
 * none. */
const char *pgr_inherited_socket(char *buf, size_t len);
/* The shim's settings in @dir/shim.conf: false if none. */
bool pgr_shim_conf_read(const char *dir, struct shim_conf *c);
/* A directory under @base for the settings @c: a link to @shim and its
 * shim.conf (shim-conf.h), made or refreshed; the link's path in @lib.
 * 0 or -errno. */
int pgr_shim_dir(const char *base, const struct shim_conf *c,
		 const char *shim, char *lib, size_t len);
/* The preload library: $PAGER_PRELOAD, else beside this executable, else
 * where `make install` put it. NULL if none exists. */
const char *pgr_shim_path(char *buf, size_t len);
/* Connect to the daemon at @path: the fd, or -errno. */
int pgr_connect(const char *path);
/* Send @line and print the data lines of the answer to stdout (if
 * @print); return 0, or 1 with the daemon's error on stderr. */
int pgr_request(struct wire *w, const char *line, int print);

#endif /* PGR_CLIENT_CONN_H */
