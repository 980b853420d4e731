/* SPDX-License-Identifier: MIT */
/*
 * client-conn.c - see client-conn.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "client-conn.h"
#include "util.h"

#ifndef PGR_PKGLIBDIR
#define PGR_PKGLIBDIR "/usr/local/lib/pager"
#endif

const char *pgr_default_socket(char *buf, size_t len)
{
	const char *env = getenv("PAGER_SOCKET");

	if (env && *env)
		snprintf(buf, len, "%s", env);
	else if (geteuid() == 0)
		snprintf(buf, len, "/run/pager.sock");
	else
		snprintf(buf, len, "/tmp/pager-%d.sock", (int)geteuid());
	return buf;
}

const char *pgr_shim_path(char *buf, size_t len)
{
	const char *env = getenv("PAGER_PRELOAD");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return access(env, R_OK) ? NULL : (snprintf(buf, len, "%s", env),
						   buf);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			snprintf(buf, len, "%s/libpager-preload.so", exe);
			if (!access(buf, R_OK))
				return buf;
		}
	}
	snprintf(buf, len, "%s/libpager-preload.so", PGR_PKGLIBDIR);
	return access(buf, R_OK) ? NULL : buf;
}

int pgr_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static void print_line(const char *s, void *arg)
{
	puts(s);
}

int pgr_request(struct wire *w, const char *line, int print)
{
	char err[512];
	int rc;

	if (wire_printf(w->fd, "%s", line)) {
		pgr_warn("the daemon hung up");
		return 1;
	}
	rc = wire_call(w, print ? print_line : NULL, NULL, err, sizeof(err));
	if (rc == -1) {
		pgr_warn("%s", err);
		return 1;
	}
	if (rc) {
		pgr_warn("the daemon hung up: %s", strerror(-rc));
		return 1;
	}
	return 0;
}
