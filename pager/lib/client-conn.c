/* SPDX-License-Identifier: MIT */
/*
 * client-conn.c - see client-conn.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "client-conn.h"
#include "util.h"

#ifndef PGR_PKGLIBDIR
#define PGR_PKGLIBDIR "/usr/local/lib/pager"
#endif

bool pgr_shim_conf_read(const char *dir, struct shim_conf *c)
{
	char path[PATH_MAX], text[SHIM_CONF_MAX + 1];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, SHIM_CONF_NAME);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, text, SHIM_CONF_MAX);
	close(fd);
	if (n < 0)
		return false;
	text[n] = 0;
	return shim_conf_parse(text, c);
}

const char *pgr_inherited_socket(char *buf, size_t len)
{
	const char *env = getenv("PAGER_SOCKET"), *pre = getenv("LD_PRELOAD");
	char word[PATH_MAX];
	struct shim_conf c;

	if (env && *env)
		return snprintf(buf, len, "%s", env), buf;
	/* A program under `pager run`: the shim's settings, beside it. */
	while (pre && *pre) {
		size_t n = strcspn(pre, " :");
		char *slash;

		if (n && n < sizeof(word)) {
			memcpy(word, pre, n);
			word[n] = 0;
			slash = strrchr(word, '/');
			if (slash && !strcmp(slash + 1, SHIM_LIB_NAME)) {
				*slash = 0;
				if (pgr_shim_conf_read(word, &c))
					return snprintf(buf, len, "%s",
							c.socket), buf;
			}
		}
		pre += n + (pre[n] != 0);
	}
	return NULL;
}

/* FNV-1a, 64 bits: a name for a set of settings. */
static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h ^ 0xff) * 0x100000001b3ULL;
}

int pgr_shim_dir(const char *base, const struct shim_conf *c,
		 const char *shim, char *lib, size_t len)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 16], text[PATH_MAX + 256];
	uint64_t h = fnv(fnv(fnv(0xcbf29ce484222325ULL, c->socket), c->group),
			 c->notify ? "1" : "0");
	struct stat st;
	int fd, n;

	h = fnv(h, shim);
	snprintf(dir, sizeof(dir), "%s/%016llx", base, (unsigned long long)h);
	/* Searchable and readable by all: a program may change its user
	 * (setpriv, a service dropping root) and still load the shim. */
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return -EPERM;
	snprintf(lib, len, "%s/%s", dir, SHIM_LIB_NAME);
	if (symlink(shim, lib) && errno != EEXIST)
		return -errno;
	n = snprintf(text, sizeof(text), "socket %s\n%s%s%s%s", c->socket,
		     c->group[0] ? "group " : "", c->group,
		     c->group[0] ? "\n" : "", c->notify ? "notify 1\n" : "");
	/* Written aside and renamed: a shim starting meanwhile reads the
	 * old file or the new one, never half of one. */
	snprintf(tmp, sizeof(tmp), "%s/.%s.%d", dir, SHIM_CONF_NAME,
		 (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, text, (size_t)n) != n) {
		close(fd);
		unlink(tmp);
		return -EIO;
	}
	close(fd);
	snprintf(text, sizeof(text), "%s/%s", dir, SHIM_CONF_NAME);
	if (rename(tmp, text)) {
		unlink(tmp);
		return -errno;
	}
	return 0;
}

const char *pgr_default_socket(char *buf, size_t len)
{
	if (pgr_inherited_socket(buf, len))
		return buf;
	if (geteuid() == 0)
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
