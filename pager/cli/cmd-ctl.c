/* SPDX-License-Identifier: MIT */
/*
 * cmd-ctl.c - `pager set`, `pager get`, `pager stat`, `pager vmstat` and
 * `pager phase`: talking to a running daemon (--socket, $PAGER_SOCKET or
 * the default).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/client-conn.h"
#include "cmd.h"
#include "../lib/util.h"

/* Pull --socket PATH out of argv (anywhere); return the socket path. */
static const char *socket_arg(int *argc, char **argv, char *buf, size_t len)
{
	for (int i = 1; i < *argc - 1; i++) {
		if (!strcmp(argv[i], "--socket")) {
			snprintf(buf, len, "%s", argv[i + 1]);
			memmove(&argv[i], &argv[i + 2],
				(size_t)(*argc - i - 1) * sizeof(*argv));
			*argc -= 2;
			return buf;
		}
	}
	return pgr_default_socket(buf, len);
}

static struct wire *open_daemon(const char *sock)
{
	int fd = pgr_connect(sock);
	struct wire *w;

	if (fd < 0) {
		pgr_warn("no pager daemon at '%s' (start one with `pager "
			 "daemon`, or give --socket)", sock);
		return NULL;
	}
	w = pgr_xcalloc(1, sizeof(*w));
	wire_init(w, fd);
	return w;
}

static void close_daemon(struct wire *w)
{
	close(w->fd);
	free(w);
}

/* Send one request line; print the answer's data lines. */
static int request(const char *sock, const char *line)
{
	struct wire *w = open_daemon(sock);
	int rc;

	if (!w)
		return 1;
	rc = pgr_request(w, line, 1);
	close_daemon(w);
	return rc;
}

/* "CMD ARG ARG..." as one request line. */
static int simple(int argc, char **argv, const char *cmd, int min_args,
		  const char *usage)
{
	char sock[108], line[8192];
	size_t n;

	socket_arg(&argc, argv, sock, sizeof(sock));
	if (argc - 1 < min_args || (argc > 1 && !strcmp(argv[1], "--help")))
		return pgr_usage_error(usage, NULL);
	n = (size_t)snprintf(line, sizeof(line), "%s", cmd);
	for (int i = 1; i < argc && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %s",
				      argv[i]);
	if (n >= sizeof(line) || strchr(line, '\n'))
		return pgr_usage_error(usage, "arguments too long");
	return request(sock, line);
}

int cmd_set(int argc, char **argv)
{
	return simple(argc, argv, "set", 1,
		      "usage: pager set [--socket PATH] KEY=VALUE...\n");
}

int cmd_get(int argc, char **argv)
{
	return simple(argc, argv, "get", 0,
		      "usage: pager get [--socket PATH] [KEY...]\n");
}

int cmd_phase(int argc, char **argv)
{
	static const char usage[] =
		"usage: pager phase [--socket PATH] NAME\n"
		"Marks the start of phase NAME (letters, digits, _.:+-): a "
		"`phase NAME` line\nin the running daemon's --record file, "
		"where `pager sim` reports the phase\napart, and a "
		"tracing_mark_write line in `pager trace`.\n";
	char sock[108], line[128];

	socket_arg(&argc, argv, sock, sizeof(sock));
	if (argc != 2 || !strcmp(argv[1], "--help"))
		return pgr_usage_error(usage, NULL);
	snprintf(line, sizeof(line), "phase %.100s", argv[1]);
	return request(sock, line);
}

int cmd_stat(int argc, char **argv)
{
	static const char usage[] =
		"usage: pager stat [--socket PATH] [--group NAME | --pid PID | "
		"--phases |\n                  --pressure | --lru-gen | --lru-gen-full]\n"
		"--phases: each phase's counters (phase.NAME.ITEM), between the "
		"marks of\n`pager phase` and programs' pager_phase().\n"
		"--pressure: memory.pressure's two lines (some, full), as the "
		"kernel's PSI.\n"
		"--lru-gen, --lru-gen-full: /sys/kernel/debug/lru_gen and "
		"lru_gen_full, as\nthe kernel prints them (lru_gen.enabled=y).\n";
	char sock[108], line[256];

	socket_arg(&argc, argv, sock, sizeof(sock));
	if (argc == 1)
		snprintf(line, sizeof(line), "stat");
	else if (argc == 3 && !strcmp(argv[1], "--group"))
		snprintf(line, sizeof(line), "stat group %.200s", argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "--pid"))
		snprintf(line, sizeof(line), "stat pid %.200s", argv[2]);
	else if (argc == 2 && !strcmp(argv[1], "--phases"))
		snprintf(line, sizeof(line), "stat phases");
	else if (argc == 2 && !strcmp(argv[1], "--pressure"))
		snprintf(line, sizeof(line), "stat pressure");
	else if (argc == 2 && !strcmp(argv[1], "--lru-gen"))
		snprintf(line, sizeof(line), "lru_gen show");
	else if (argc == 2 && !strcmp(argv[1], "--lru-gen-full"))
		snprintf(line, sizeof(line), "lru_gen show full");
	else
		return pgr_usage_error(usage, NULL);
	return request(sock, line);
}

int cmd_lru_gen(int argc, char **argv)
{
	static const char usage[] =
		"usage: pager lru-gen [--socket PATH] COMMAND\n"
		"Writes COMMAND to MGLRU's /sys/kernel/debug/lru_gen:\n"
		"  '+ memcg_id node_id max_gen_nr [swappiness [force_scan]]' "
		"ages,\n"
		"  '- memcg_id node_id min_gen_nr [swappiness [nr_to_reclaim]]' "
		"evicts;\nseveral separated by ',' or ';'. memcg_id is a group's "
		"(pager stat --lru-gen),\nnode_id 0. Needs lru_gen.enabled=y.\n";
	char sock[108], line[300];

	socket_arg(&argc, argv, sock, sizeof(sock));
	if (argc != 2 || !strcmp(argv[1], "--help") || strlen(argv[1]) > 250 ||
	    strchr(argv[1], '\n'))
		return pgr_usage_error(usage, NULL);
	snprintf(line, sizeof(line), "lru_gen cmd %s", argv[1]);
	return request(sock, line);
}

int cmd_reclaim(int argc, char **argv)
{
	static const char usage[] =
		"usage: pager reclaim [--socket PATH] [--group NAME] SIZE\n"
		"Reclaims SIZE bytes (K/M/G) from the group (default: all), as "
		"writing\ncgroup v2's memory.reclaim does; waits until done.\n";
	char sock[108], line[256];
	uint64_t bytes;

	socket_arg(&argc, argv, sock, sizeof(sock));
	if (argc == 2 && !pgr_parse_size(argv[1], &bytes) && bytes)
		snprintf(line, sizeof(line), "reclaim %.100s", argv[1]);
	else if (argc == 4 && !strcmp(argv[1], "--group") &&
		 !pgr_parse_size(argv[3], &bytes) && bytes)
		snprintf(line, sizeof(line), "reclaim %.100s group=%.100s",
			 argv[3], argv[2]);
	else
		return pgr_usage_error(usage, NULL);
	return request(sock, line);
}

int cmd_idle(int argc, char **argv)
{
	static const char usage[] =
		"usage: pager idle [--socket PATH] (--pid PID | --group NAME)\n"
		"Marks every resident page of the process or group idle (armed), "
		"as\nwriting /sys/kernel/mm/page_idle/bitmap does; the next "
		"access of each\nis a pgfault_young fault.\n";
	char sock[108], line[256];

	socket_arg(&argc, argv, sock, sizeof(sock));
	if (argc == 3 && !strcmp(argv[1], "--pid"))
		snprintf(line, sizeof(line), "idle pid %.100s", argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "--group"))
		snprintf(line, sizeof(line), "idle group %.100s", argv[2]);
	else
		return pgr_usage_error(usage, NULL);
	return request(sock, line);
}

/* ---- vmstat ------------------------------------------------------------ */

enum { F_FREE, F_IA, F_AA, F_IF, F_AF, F_SI, F_SO, F_RI, F_REF, F_SCAN,
       F_STEAL, F_OOM, NR_F };

static const char *const fields[NR_F] = {
	"nr_free_pages", "nr_inactive_anon", "nr_active_anon",
	"nr_inactive_file", "nr_active_file", "pswpin", "pswpout",
	"pgmajfault", "workingset_refault_anon", "pgscan_kswapd",
	"pgsteal_kswapd", "oom_kill",
};

struct sample {
	uint64_t v[NR_F];
	uint64_t refault_file, scan_direct, steal_direct;
	uint64_t some_us, full_us;	/* memory.pressure's totals */
	double some10, full10;		/* and its avg10 */
};

static void take(const char *s, void *arg)
{
	struct sample *x = arg;
	char name[64];
	unsigned long long v;

	if (sscanf(s, "%63s", name) == 1 &&
	    !strcmp(name, "memory.pressure.some.avg10"))
		sscanf(s, "%*s %lf", &x->some10);
	else if (sscanf(s, "%63s", name) == 1 &&
		 !strcmp(name, "memory.pressure.full.avg10"))
		sscanf(s, "%*s %lf", &x->full10);
	if (sscanf(s, "%63s %llu", name, &v) != 2)
		return;
	for (int k = 0; k < NR_F; k++)
		if (!strcmp(name, fields[k]))
			x->v[k] = v;
	if (!strcmp(name, "workingset_refault_file"))
		x->refault_file = v;
	else if (!strcmp(name, "pgscan_direct"))
		x->scan_direct = v;
	else if (!strcmp(name, "pgsteal_direct"))
		x->steal_direct = v;
	else if (!strcmp(name, "memory.pressure.some.total"))
		x->some_us = v;
	else if (!strcmp(name, "memory.pressure.full.total"))
		x->full_us = v;
}

static int sample(struct wire *w, struct sample *x)
{
	char err[256];

	memset(x, 0, sizeof(*x));
	if (wire_printf(w->fd, "stat"))
		return -1;
	return wire_call(w, take, x, err, sizeof(err)) ? -1 : 0;
}

int cmd_vmstat(int argc, char **argv)
{
	static const char usage[] =
		"usage: pager vmstat [--socket PATH] [INTERVAL [COUNT]]\n"
		"Columns: memory in KiB (free, inactive/active anon and file), "
		"then per\nsecond: swap in/out (KiB), major faults, refaults, "
		"pages scanned and\nstolen by reclaim, OOM kills; then the "
		"share of the interval (%) in which\nsome / all processes "
		"waited on memory (memory.pressure; the first line:\nits "
		"avg10).\n";
	char sock[108];
	uint64_t interval = 0, count = UINT64_MAX;
	struct sample prev, cur;
	struct wire *w;

	socket_arg(&argc, argv, sock, sizeof(sock));
	if (argc > 3 || (argc > 1 && (pgr_parse_u64(argv[1], &interval) ||
				      !interval)) ||
	    (argc > 2 && pgr_parse_u64(argv[2], &count)))
		return pgr_usage_error(usage, argc > 1 ? "bad interval or "
				       "count" : NULL);
	if (argc == 1)
		count = 1;
	w = open_daemon(sock);
	if (!w || sample(w, &prev)) {
		if (w)
			close_daemon(w);
		return 1;
	}
	printf("%10s %10s %10s %10s %10s %8s %8s %7s %8s %8s %8s %4s %5s "
	       "%5s\n", "free", "inact_anon", "act_anon", "inact_file",
	       "act_file", "si", "so", "majflt", "refault", "scan", "steal",
	       "oom", "some", "full");
	for (uint64_t k = 0; k < count; k++) {
		double dt = interval ? (double)interval : 1, some, full;

		if (k) {
			struct timespec ts = { (time_t)interval, 0 };

			nanosleep(&ts, NULL);
			if (sample(w, &cur))
				break;
		} else {
			cur = prev;
			memset(&prev.v[F_SI], 0, sizeof(uint64_t) * (NR_F - F_SI));
			prev.refault_file = prev.scan_direct = 0;
			prev.steal_direct = 0;
		}
		some = k ? (double)(cur.some_us - prev.some_us) / dt * 1e-4 :
			   cur.some10;
		full = k ? (double)(cur.full_us - prev.full_us) / dt * 1e-4 :
			   cur.full10;
#define RATE(f) ((double)(cur.v[f] - prev.v[f]) / dt)
		printf("%10llu %10llu %10llu %10llu %10llu %8.0f %8.0f %7.0f "
		       "%8.0f %8.0f %8.0f %4llu %5.1f %5.1f\n",
		       (unsigned long long)cur.v[F_FREE] * 4,
		       (unsigned long long)cur.v[F_IA] * 4,
		       (unsigned long long)cur.v[F_AA] * 4,
		       (unsigned long long)cur.v[F_IF] * 4,
		       (unsigned long long)cur.v[F_AF] * 4,
		       RATE(F_SI) * 4, RATE(F_SO) * 4, RATE(F_RI),
		       RATE(F_REF) + (double)(cur.refault_file -
					      prev.refault_file) / dt,
		       RATE(F_SCAN) + (double)(cur.scan_direct -
					       prev.scan_direct) / dt,
		       RATE(F_STEAL) + (double)(cur.steal_direct -
						prev.steal_direct) / dt,
		       (unsigned long long)(cur.v[F_OOM] - prev.v[F_OOM]),
		       some, full);
#undef RATE
		fflush(stdout);
		prev = cur;
	}
	close_daemon(w);
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	static const char usage[] =
		"usage: pager trace [--socket PATH] [--events LIST] [-o FILE]\n"
		"Streams the running daemon's reclaim events, one line each in\n"
		"ftrace's text format with the kernel's mm_vmscan_* names,\n"
		"until interrupted. LIST: comma-separated names (kswapd_wake,\n"
		"kswapd_sleep, direct_reclaim_begin, direct_reclaim_end,\n"
		"lru_isolate, lru_shrink_inactive, lru_shrink_active, writepage,\n"
		"workingset_refault, workingset_activate), default all.\n";
	const char *events = NULL, *out = NULL;
	char sock[108], line[600], err[256] = "";
	FILE *f = stdout;
	struct wire *w;
	char *s;
	int rc;

	socket_arg(&argc, argv, sock, sizeof(sock));
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--events") && i + 1 < argc)
			events = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else
			return pgr_usage_error(usage, "unknown argument '%s'",
					       argv[i]);
	}
	if (events && strpbrk(events, " \t\n"))
		return pgr_usage_error(usage, "--events: no blanks");
	w = open_daemon(sock);
	if (!w)
		return 1;
	snprintf(line, sizeof(line), "trace%s%.500s", events ? " " : "",
		 events ? events : "");
	if (wire_printf(w->fd, "%s", line) ||
	    (rc = wire_call(w, NULL, NULL, err, sizeof(err)))) {
		if (err[0])
			pgr_warn("%s", err);
		close_daemon(w);
		return 1;
	}
	if (out && !(f = fopen(out, "we"))) {
		pgr_warn("cannot write %s", out);
		close_daemon(w);
		return 1;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	for (;;) {
		while ((s = wire_line(w)))
			fprintf(f, "%s\n", s);
		if (wire_fill(w) <= 0)
			break;
	}
	if (f != stdout)
		fclose(f);
	close_daemon(w);
	return 0;
}
