/* SPDX-License-Identifier: MIT */
/*
 * shim-conf.h - how `pager run` tells the shim where its daemon is without
 * a variable in the program's environment: LD_PRELOAD names the shim in a
 * directory of the run's, beside a file of settings, and the shim reads
 * the file beside itself (dladdr). So the program sees nothing of the
 * pager's in its environment, /proc/self/environ included, but LD_PRELOAD.
 *
 *   DIR/libpager-preload.so    a symbolic link to the shim
 *   DIR/shim.conf              lines "KEY VALUE":
 *                                socket PATH   the daemon's socket
 *                                group NAME    the group to join
 *                                notify 1      `pager run`'s seccomp filter
 *                                              hands this process's
 *                                              mappings to the daemon
 *
 * A shim preloaded by hand, with no such file, reads $PAGER_SOCKET,
 * $PAGER_GROUP and $PAGER_NOTIFY instead; $PAGER_GROUP, set by a script
 * for one command of its own, wins over the file's group either way.
 * Header only: the shim includes it.
 */
#ifndef PGR_SHIM_CONF_H
#define PGR_SHIM_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define SHIM_LIB_NAME	"libpager-preload.so"
#define SHIM_CONF_NAME	"shim.conf"
#define SHIM_CONF_MAX	4096	/* bytes of the file read */

struct shim_conf {
	char socket[108];
	char group[64];
	bool notify;
};

/* Parse the file's text @s (NUL-terminated) into @c; unknown keys are
 * skipped (a newer pager's). False if no socket was named. */
static inline bool shim_conf_parse(const char *s, struct shim_conf *c)
{
	memset(c, 0, sizeof(*c));
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		char *dst = NULL;
		size_t cap = 0, k = 0;

		if (n > 7 && !strncmp(s, "socket ", 7)) {
			dst = c->socket, cap = sizeof(c->socket), k = 7;
		} else if (n > 6 && !strncmp(s, "group ", 6)) {
			dst = c->group, cap = sizeof(c->group), k = 6;
		} else if (n == 8 && !strncmp(s, "notify 1", 8)) {
			c->notify = true;
		}
		if (dst && n - k < cap) {
			memcpy(dst, s + k, n - k);
			dst[n - k] = 0;
		}
		s += n + (nl != NULL);
	}
	return c->socket[0] != 0;
}

#endif /* PGR_SHIM_CONF_H */
