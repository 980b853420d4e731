/* SPDX-License-Identifier: MIT */
/*
 * cmd-daemon.c - `pager daemon`: a standing daemon several `pager run`
 * commands can join, and the options it shares with `pager run`.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/client-conn.h"
#include "cmd.h"
#include "../lib/log.h"
#include "../daemon/daemon.h"
#include "../lib/util.h"

#define MIN_BUDGET	(4ULL << 20)
/* Enough that a program a few times the budget runs, as on a machine
 * with a swap partition; the file is sparse, so unused swap costs no
 * disk, only 20 bytes of slot records a page. */
#define DEFAULT_SWAP(mem) ((mem) * 4 > (1ULL << 30) ? (mem) * 4 : 1ULL << 30)

static const char usage[] =
	"usage: pager daemon [--mem SIZE] [--swap DEVICE | --no-swap] "
	"[--swap-size SIZE]\n"
	"                    [--socket PATH] [--set KEY=VALUE]... "
	"[--log FILE] [--record FILE] [-v]\n"
	"                    [--allow-uid UID]... [--check]\n"
	"Runs the pager daemon in the foreground until SIGTERM or SIGINT.\n"
	"--check: only set it up with the options and settings and say "
	"whether all\nare taken (status 0) or which is not (status 1).\n"
	"Defaults: --mem 1G; swap in a removed temporary file in $TMPDIR or "
	"/var/tmp\n"
	"of four times the budget, at least 1G (sparse: disk is used as "
	"pages go out);\n"
	"DEVICE: a FILE; zram[:lz4|:zstd|:lzo]: that much swap compressed in the "
	"daemon's\nmemory, outside the budget, as the kernel's zram "
	"(--set zram.mem_limit=SIZE\nbounds it); "
	"redis://HOST:PORT[,HOST:PORT...][/DB]: pages in Redis servers,\n"
	"each process's on one of them by a stable hash;\n"
	"the socket of $PAGER_SOCKET, /run/pager.sock (root) or "
	"/tmp/pager-UID.sock,\n"
	"mode 0600: only the daemon's user and root may join; --allow-uid "
	"lets that user's\nprocesses join too (the socket is then 0666, "
	"the peer checked by SO_PEERCRED).\n";

void daemon_args_init(struct daemon_args *a)
{
	memset(a, 0, sizeof(*a));
	a->mem = 1ULL << 30;
}

int daemon_parse_opt(struct daemon_args *a, int c, const char *arg,
		     const char *use)
{
	uint64_t v;

	switch (c) {
	case 'm':
		if (pgr_parse_size(arg, &v))
			return pgr_usage_error(use, "bad size '%s'", arg);
		if (v < MIN_BUDGET)
			return pgr_usage_error(use, "a budget of %s is too small "
					       "to run anything: at least 4M",
					       arg);
		a->mem = v;
		return 0;
	case 's': {
		char why[256];

		if (pgr_daemon_swap_check(arg, why, sizeof(why)))
			return pgr_usage_error(use, "--swap %s: %s", arg, why);
		a->swap = arg;
		a->no_swap = false;
		return 0;
	}
	case 'S':
		if (pgr_parse_size(arg, &v) || v < 4096)
			return pgr_usage_error(use, "bad swap size '%s'", arg);
		a->swap_size = v;
		return 0;
	case 'n':
		a->no_swap = true;
		a->swap = NULL;
		return 0;
	case 'k':
		a->socket = arg;
		return 0;
	case 'e':
		if (!strchr(arg, '='))
			return pgr_usage_error(use, "--set needs KEY=VALUE");
		a->sets = pgr_xrealloc(a->sets, a->nr_sets + 1,
				       sizeof(*a->sets));
		a->sets[a->nr_sets++] = arg;
		return 0;
	case 'l':
		a->log = arg;
		return 0;
	case 'r':
		a->record = arg;
		return 0;
	case 'v':
		a->verbose++;
		return 0;
	case 'u':
		if (pgr_parse_u64(arg, &v) || v >= UINT32_MAX)
			return pgr_usage_error(use, "bad uid '%s'", arg);
		if (a->nr_allow_uids == PGR_MAX_ALLOW)
			return pgr_usage_error(use, "at most %d --allow-uid",
					       PGR_MAX_ALLOW);
		a->allow_uids[a->nr_allow_uids++] = (uid_t)v;
		return 0;
	}
	return pgr_usage_error(use, NULL);
}

/* Fill @o from @a: the swap file (a temporary one by default). */
int daemon_opts(struct daemon_args *a, struct pgr_opts *o, char *swap_buf,
		size_t len)
{
	memset(o, 0, sizeof(*o));
	o->budget = a->mem / 4096;
	o->sets = a->sets;
	o->nr_sets = a->nr_sets;
	o->ready_fd = -1;
	o->socket_path = a->socket;
	o->record = a->record;
	_Static_assert(sizeof(o->allow_uids) == sizeof(a->allow_uids),
		       "--allow-uid: one bound for the options and the daemon");
	memcpy(o->allow_uids, a->allow_uids, sizeof(o->allow_uids));
	o->nr_allow_uids = a->nr_allow_uids;
	if (a->no_swap)
		return 0;
	o->swap_pages = (a->swap_size ? a->swap_size : DEFAULT_SWAP(a->mem)) /
			4096;
	if (a->swap) {
		o->swap = a->swap;	/* a file, zram or Redis */
		return 0;
	}
	{
		int fd;

		snprintf(swap_buf, len, "%s/pager-swap.XXXXXX", pgr_tmp_dir());
		fd = mkstemp(swap_buf);
		if (fd < 0) {
			pgr_warn("cannot create a swap file in %s: %s",
				 pgr_tmp_dir(), strerror(errno));
			return 1;
		}
		close(fd);
		o->swap = swap_buf;
		o->swap_temp = true;
	}
	return 0;
}

void daemon_logging(const struct daemon_args *a)
{
	pgr_log_level = PGR_LOG_WARN + a->verbose;
	if (a->log)
		pgr_log_open(a->log);
}

int cmd_daemon(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mem", required_argument, NULL, 'm' },
		{ "swap", required_argument, NULL, 's' },
		{ "swap-size", required_argument, NULL, 'S' },
		{ "no-swap", no_argument, NULL, 'n' },
		{ "socket", required_argument, NULL, 'k' },
		{ "set", required_argument, NULL, 'e' },
		{ "log", required_argument, NULL, 'l' },
		{ "record", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "allow-uid", required_argument, NULL, 'u' },
		{ "check", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct daemon_args a;
	struct pgr_opts o;
	char sock[108], swap[256];
	bool check = false;
	int c, rc;

	daemon_args_init(&a);
	optind = 1;
	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		if (c == 'C') {
			check = true;
			continue;
		}
		if (daemon_parse_opt(&a, c, optarg, usage))
			return 2;
	}
	if (optind != argc)
		return pgr_usage_error(usage, "unexpected '%s'", argv[optind]);
	if (!a.socket)
		a.socket = pgr_default_socket(sock, sizeof(sock));
	if (check) {
		/* No swap file is made (the dry run opens no swap), but the
		 * settings that depend on its kind (zswap) see it. */
		if (!a.no_swap && !a.swap)
			a.swap = "(a temporary file)";
		a.log = NULL;		/* the verdict goes to stderr */
	}
	daemon_logging(&a);
	if (daemon_opts(&a, &o, swap, sizeof(swap)))
		return 1;
	rc = check ? pgr_daemon_check(&o) : pgr_daemon_run(&o);
	free(a.sets);
	return rc;
}
