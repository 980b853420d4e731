/* SPDX-License-Identifier: MIT */
/*
 * ctl.c - the commands of the control protocol (docs/protocol.md): the
 * shim's hello and agent traffic, the launcher's setup, and the users'
 * set/get (stat, clients and debug are ctl-stat.c's). Every command answers with data lines, then "ok" or
 * "error REASON"; agent traffic ("done") answers nothing.
 *
 * Owns: nothing but the parsing: each command calls the part that owns
 * what it changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/log.h"
#include "../../lib/uffd-open.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../core/core.h"
#include "../daemon.h"
#include "../pgr.h"
#include "../watch/watch.h"
#include "control.h"
#include "ctl-req.h"

/* uffd-dev: /dev/userfaultfd, open, for a process of `pager run` that may
 * not make a userfaultfd with fork events itself (shim.c,
 * uffd_from_daemon()); its hello then says "api". */
static void cmd_uffd_dev(struct req *r)
{
	int fd;

	if (!pgr_conn_in_run(r->p, pgr_conn_peer(r->conn))) {
		fail(r, "uffd-dev: only for the processes of a pager run");
		return;
	}
	fd = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fail(r, "uffd-dev: /dev/userfaultfd: %s", strerror(errno));
		return;
	}
	pgr_conn_send_fd(r->conn, "dev", fd);
	close(fd);
	reply(r, "ok");
}

/* UFFDIO_API for a shim that may not ask for fork events (hello's "api"):
 * with file pages if the kernel can; -errno. */
static int api_for(struct req *r, int uffd)
{
	int err = pgr_uffd_api(uffd, PGR_UFFD_FEATURES |
				     PGR_UFFD_FILE_FEATURES);

	if (!err) {
		reply(r, "files 1");
		return 0;
	}
	if (err != -EPERM)
		err = pgr_uffd_api(uffd, PGR_UFFD_FEATURES);
	if (!err)
		reply(r, "files 0");
	return err;
}

/* hello PID [group=NAME] [child] [api]  (+ fd: the userfaultfd, unless
 * child; api: its UFFDIO_API is ours to make) */
static void cmd_hello(struct req *r)
{
	struct pgr *p = r->p;
	struct client *c;
	uint64_t pid;
	int group = POL_ROOT, uffd, err;
	bool child = false, api = false;

	if (r->argc < 2 || pgr_parse_u64(r->argv[1], &pid) || !pid ||
	    pid > INT32_MAX) {
		fail(r, "hello: expected a pid");
		return;
	}
	if (!pgr_ns_is(pgr_conn_peer(r->conn), (pid_t)pid)) {
		/* A process speaks for itself only. */
		fail(r, "hello: process %d cannot speak for process %llu",
		     (int)pgr_conn_peer(r->conn), (unsigned long long)pid);
		return;
	}
	pid = (uint64_t)pgr_conn_peer(r->conn);	/* ours, not its namespace's */
	for (int i = 2; i < r->argc; i++) {
		const char *v = opt(r, i, "group");

		if (!strcmp(r->argv[i], "child")) {
			child = true;
		} else if (!strcmp(r->argv[i], "api")) {
			api = true;
		} else if (v) {
			group = pol_group_find(p->pol, v);
			if (group < 0)
				group = pol_group_create(p->pol, v, POL_ROOT);
			if (group < 0) {
				fail(r, "hello: bad group '%s'", v);
				return;
			}
		}
	}
	if (child) {
		/* Its userfaultfd came with the parent's fork event, and its
		 * first fault (the beacon) told us its pid. */
		c = pgr_client_find(p, (pid_t)pid);
		if (!c) {
			fail(r, "hello: no fork event for process %llu",
			     (unsigned long long)pid);
			return;
		}
		pgr_conn_set_client(r->conn, c, true);
		pgr_conn_send_fd(r->conn, "ok", c->uffd);
		return;
	}
	uffd = pgr_conn_take_fd(r->conn);
	if (uffd < 0) {
		fail(r, "hello: no userfaultfd attached");
		return;
	}
	fcntl(uffd, F_SETFL, fcntl(uffd, F_GETFL) | O_NONBLOCK);
	if (api && (err = api_for(r, uffd))) {
		close(uffd);
		fail(r, "hello: UFFDIO_API: %s", strerror(-err));
		return;
	}
	c = pgr_client_find(p, (pid_t)pid);
	if (c)
		pgr_client_gone(p, c, "replaced by exec");
	c = pgr_client_new(p, (pid_t)pid, uffd);
	if (!c) {
		close(uffd);
		fail(r, "hello: too many processes");
		return;
	}
	c->group = group;
	pgr_client_set_pid(p, c, (pid_t)pid);
	pgr_client_watch(p, c);
	pgr_conn_set_client(r->conn, c, true);
	p->clients_joined++;
	pgr_info("process %d joined (group %s)", (int)pid,
		 pol_group_name(p->pol, group));
	reply(r, "ok");
}

/* attach PID [AGENT]: the program's own connection, for requests from its
 * threads; AGENT is its agent process. Its close (close-on-exec) tells
 * that the program exec'd or exited, unless it closed it itself
 * (client.c). */
static void cmd_attach(struct req *r)
{
	uint64_t pid, agent = 0;
	struct client *c;

	if (r->argc < 2 || r->argc > 3 || pgr_parse_u64(r->argv[1], &pid) ||
	    pid > INT32_MAX || !pgr_ns_is(pgr_conn_peer(r->conn), (pid_t)pid) ||
	    (r->argc == 3 && (pgr_parse_u64(r->argv[2], &agent) ||
			      agent > INT32_MAX)) ||
	    !(c = pgr_client_find(r->p, pgr_conn_peer(r->conn)))) {
		fail(r, "attach: expected the pid of a client, its own, and "
		     "its agent's");
		return;
	}
	if (agent)	/* its number in the program's namespace */
		agent = (uint64_t)pgr_ns_find(c->pid, (pid_t)agent);
	pgr_conn_set_client(r->conn, c, false);
	pgr_client_set_life(c, r->conn, (pid_t)agent);
	reply(r, "ok");
}

/* exclude START LEN: memory of the shim's own, never to adopt */
static void cmd_exclude(struct req *r)
{
	struct client *c = own(r);
	uint64_t s, n;

	if (!c)
		return;
	if (arg_hex(r, 1, &s) || arg_hex(r, 2, &n)) {
		fail(r, "exclude: expected START LEN");
		return;
	}
	if (c->nr_excluded >= r->p->max_map_count) {
		fail(r, "exclude: too many ranges (vm.max_map_count)");
		return;
	}
	pgr_grow(&c->excluded, &c->cap_excluded, c->nr_excluded + 1,
		 sizeof(*c->excluded));
	c->excluded[c->nr_excluded++] = (struct range){ .start = s,
							 .end = s + n };
	reply(r, "ok");
}

/* The shim waits for the answer to "map" before mmap returns, so the
 * program has not touched the mapping: the answer waits for the adoption
 * (adopt.c, pgr_adopt_then()). */
static void answer_map(struct pgr *p, void *conn)
{
	(void)p;
	pgr_conn_send(conn, "ok");
	pgr_conn_put(conn);
}

/* adopt: every anonymous mapping now; map START LEN: this one */
static void cmd_adopt(struct req *r, bool one)
{
	struct client *c = own(r);
	uint64_t s, n, end;

	if (!c)
		return;
	if (!one) {
		pgr_adopt_maps(r->p, c);
	} else if (arg_hex(r, 1, &s) || arg_hex(r, 2, &n) || (s & 4095)) {
		fail(r, "map: expected START LEN");
		return;
	} else {
		end = s + ((n + 4095) & ~4095ULL);
		pgr_conn_get(r->conn);
		pgr_adopt_then(r->p, c, s, end, answer_map, r->conn);
		return;
	}
	reply(r, "ok");
}

/* reserve START LEN: an anonymous mapping without access (adopt.c) */
static void cmd_reserve(struct req *r)
{
	struct client *c = own(r);
	uint64_t s, n;

	if (!c)
		return;
	if (arg_hex(r, 1, &s) || arg_hex(r, 2, &n) || (s & 4095) || !n ||
	    s + n < s) {
		fail(r, "reserve: expected START LEN");
		return;
	}
	pgr_reserve(r->p, c, s, s + ((n + 4095) & ~4095ULL));
	reply(r, "ok");
}

/* handback START LEN: the program's own userfaultfd wants [START, +LEN):
 * "ok" once it is the kernel's; else up to 256 lines ADDR (hex) and
 * "error again: busy N": N pages to be faulted in first
 * (core/handback.c) */
static void cmd_handback(struct req *r)
{
	struct client *c = own(r);
	uint64_t s, n, busy, at[256];
	int err;

	if (!c)
		return;
	if (arg_hex(r, 1, &s) || arg_hex(r, 2, &n) || (s & 4095) || !n ||
	    (n & 4095) || s + n < s) {
		fail(r, "handback: expected START LEN, page aligned");
		return;
	}
	err = pgr_hand_back(r->p, c, s, s + n, &busy, at, 256);
	for (uint64_t k = 0; err == -EAGAIN && k < busy && k < 256; k++)
		reply(r, "%llx", (unsigned long long)at[k]);
	if (err == -EAGAIN)
		fail(r, "again: busy %llu", (unsigned long long)busy);
	else if (err == -EINVAL)
		fail(r, "handback: a file mapping stays the pager's");
	else if (err)
		fail(r, "handback: %s", strerror(-err));
	else
		reply(r, "ok");
}

/* kept START LEN: a move with MREMAP_DONTUNMAP kept [START, +LEN) */
static void cmd_kept(struct req *r)
{
	struct client *c = own(r);
	uint64_t s, n;

	if (!c)
		return;
	if (arg_hex(r, 1, &s) || arg_hex(r, 2, &n) || s + n < s) {
		fail(r, "kept: expected START LEN");
		return;
	}
	pgr_vacated_forget(c, s, s + n);
	reply(r, "ok");
}

/* trace [EVENT,...]: "ok", then the events as lines until the
 * connection closes */
static void cmd_trace(struct req *r)
{
	const char *why = NULL;
	uint32_t mask;

	if (r->argc > 2 || pgr_trace_mask(r->argc == 2 ? r->argv[1] : NULL,
					  &mask, &why)) {
		fail(r, "trace: %s", why ? why : "expected [EVENT,...]");
		return;
	}
	reply(r, "ok");
	pgr_trace_start(r->p, r->conn, mask);
}

/* Phases counted at most; later marks still go to the record and the
 * traces. */
#define MAX_PHASES 1024

/* End the open phase now and open @name (phase.h). */
static void phase_start(struct pgr *p, const char *name)
{
	uint64_t now[POL_NR_ITEMS];

	if (p->nr_phases == MAX_PHASES)
		return;
	pgr_phase_snapshot(p->pol, now);
	pgr_phase_mark(&p->phases, &p->nr_phases, &p->cap_phases, name, now);
	if (p->nr_phases == MAX_PHASES)
		pgr_warn("phase %s: %d phases counted, later ones are not",
			 name, MAX_PHASES);
}

/*
 * phase NAME: a mark, as a write to ftrace's trace_marker: `phase NAME` in
 * the record (where `pager sim` starts a phase), a tracing_mark_write
 * line in every trace stream, and a new phase for `stat phases`. From
 * `pager phase` or a program's pager_phase(); a program's own faults
 * before it are already counted, as it waits for the answer.
 */
static void cmd_phase(struct req *r)
{
	if (r->argc != 2 || !pgr_phase_name_ok(r->argv[1])) {
		fail(r, "phase: expected one NAME of letters, digits and "
			"_.:+- (at most %d)", PGR_PHASE_NAME_MAX);
		return;
	}
	pgr_rec(r->p, "phase %s", r->argv[1]);
	pgr_trace_mark(r->p, r->argv[1]);
	phase_start(r->p, r->argv[1]);
	reply(r, "ok");
}

/* done ID | moved ID: the agent dropped what request ID asked, by
 * madvise or by moves (no answer) */
static void cmd_done(struct req *r, enum agent_drop how)
{
	struct client *c = pgr_conn_client(r->conn);
	uint64_t id;

	if (c && !arg_hex(r, 1, &id)) {
		pgr_agent_done(r->p, c, id, how);
		pgr_retry_deferred(r->p, NULL);
	}
}

/* fell ID START LEN: pages of request ID the agent could not move and
 * dropped by madvise; locked ID START LEN: nor drop, their mapping being
 * mlocked (no answer) */
static void cmd_fell(struct req *r, uint64_t flag)
{
	struct client *c = pgr_conn_client(r->conn);
	uint64_t id, start, len;

	if (c && !arg_hex(r, 1, &id) && !arg_hex(r, 2, &start) &&
	    !arg_hex(r, 3, &len))
		pgr_agent_fell(r->p, c, id, start, len, flag);
}

/* called ID RET OLD: the agent made call ID for its program (no answer) */
static void cmd_called(struct req *r)
{
	struct client *c = pgr_conn_client(r->conn);
	uint64_t id, ret, old;

	if (c && c->conn == r->conn && !arg_hex(r, 1, &id) &&
	    !arg_hex(r, 2, &ret) && !arg_hex(r, 3, &old))
		pgr_call_made(r->p, c, id, (int64_t)ret, old);
}

/* ready [moves]: the agent runs, moving pages out or not; the client's
 * pages may be armed (no answer) */
static void cmd_ready(struct req *r)
{
	struct client *c = pgr_conn_client(r->conn);

	if (c && c->conn == r->conn) {
		c->agent_ready = true;
		c->agent_moves = r->argc > 1 && !strcmp(r->argv[1], "moves");
		pgr_call_agent_ready(r->p, c);
		pgr_retry_deferred(r->p, NULL);	/* reclaim can go on */
	}
}

/* notify (+ fd): a seccomp listener for the launcher's process tree */
static void cmd_notify(struct req *r)
{
	int fd = pgr_conn_take_fd(r->conn);

	if (fd < 0) {
		fail(r, "notify: no listener attached");
		return;
	}
	if (pgr_notify_start(r->p, fd)) {
		close(fd);
		fail(r, "notify: cannot watch the listener");
		return;
	}
	reply(r, "ok");
}

/* group NAME [parent=NAME] */
static void cmd_group(struct req *r)
{
	struct pgr *p = r->p;
	int parent = POL_ROOT, id;
	const char *v = opt(r, 2, "parent");

	if (r->argc < 2) {
		fail(r, "group: expected a name");
		return;
	}
	if (v && (parent = pol_group_find(p->pol, v)) < 0) {
		fail(r, "group: no parent group '%s'", v);
		return;
	}
	id = pol_group_find(p->pol, r->argv[1]);
	if (id < 0)
		id = pol_group_create(p->pol, r->argv[1], parent);
	if (id < 0) {
		fail(r, "group: cannot create '%s': %s", r->argv[1],
		     strerror(-id));
		return;
	}
	reply(r, "ok");
}

/* set KEY=VALUE... : all or nothing is not promised; the first bad one
 * stops and says why. */
static void cmd_set(struct req *r)
{
	if (r->argc < 2) {
		fail(r, "set: expected KEY=VALUE");
		return;
	}
	for (int i = 1; i < r->argc; i++) {
		char *eq = strchr(r->argv[i], '=');
		const char *why;

		if (!eq) {
			fail(r, "set: '%s' is not KEY=VALUE", r->argv[i]);
			return;
		}
		*eq = 0;
		if (pgr_tunable_set(r->p, r->argv[i], eq + 1, &why)) {
			fail(r, "%s: %s", r->argv[i], why);
			return;
		}
		pgr_info("set %s=%s", r->argv[i], eq + 1);
		pgr_rec_set(r->p, r->argv[i], eq + 1);
		*eq = '=';
	}
	reply(r, "ok");
}

static int get_value(struct req *r, const char *key, char *v, size_t len)
{
	if (pol_get(r->p->pol, key, v, len) == 0 ||
	    pgr_knob_get(r->p, key, v, len) == 0)
		return 0;
	return -1;
}

static void get_one(struct req *r, const char *key)
{
	char v[128];

	if (!get_value(r, key, v, sizeof(v)))
		reply(r, "%s %s", key, v);
}

static void cmd_get(struct req *r)
{
	struct pgr *p = r->p;
	const char *name;

	for (int i = 1; i < r->argc; i++) {
		char v[128];

		if (get_value(r, r->argv[i], v, sizeof(v))) {
			fail(r, "get: unknown tunable '%.80s'", r->argv[i]);
			return;
		}
	}
	for (int i = 1; i < r->argc; i++)
		get_one(r, r->argv[i]);
	if (r->argc > 1) {
		reply(r, "ok");
		return;
	}
	for (unsigned int i = 0; (name = pol_tunable_name(i, NULL)); i++)
		get_one(r, name);
	for (unsigned int i = 0; (name = pgr_knob_name(i)); i++)
		get_one(r, name);
	for (unsigned int g = 1; g < pol_nr_groups(p->pol); g++) {
		static const char *const keys[] = { "memory.min", "memory.low",
						    "memory.max" };

		for (int k = 0; k < 3; k++) {
			char key[96];

			snprintf(key, sizeof(key), "%s@%s", keys[k],
				 pol_group_name(p->pol, (int)g));
			get_one(r, key);
		}
	}
	reply(r, "ok");
}

/* reclaim SIZE [group=NAME]: memory.reclaim (answered when done) */
static void cmd_reclaim(struct req *r)
{
	const char *gname = opt(r, 2, "group");
	int group = POL_ROOT;
	uint64_t bytes;

	if (r->argc < 2 || r->argc > 3 || pgr_parse_size(r->argv[1], &bytes) ||
	    !bytes || (r->argc == 3 && !gname)) {
		fail(r, "reclaim: expected SIZE [group=NAME]");
		return;
	}
	if (gname && (group = pol_group_find(r->p->pol, gname)) < 0) {
		fail(r, "reclaim: no group '%.80s'", gname);
		return;
	}
	pgr_reclaim_start(r->p, r->conn, group, bytes);
}

/* idle pid PID | idle group NAME: arm every present page, as writing
 * /sys/kernel/mm/page_idle/bitmap clears young bits */
static void cmd_idle(struct req *r)
{
	struct pgr *p = r->p;
	uint64_t n = 0, v;
	int group = -1;
	struct client *one = NULL;

	if (r->argc == 3 && !strcmp(r->argv[1], "pid") &&
	    !pgr_parse_u64(r->argv[2], &v)) {
		one = pgr_client_find(p, (pid_t)v);
		if (!one) {
			fail(r, "idle: process %llu is not under the pager",
			     (unsigned long long)v);
			return;
		}
	} else if (r->argc == 3 && !strcmp(r->argv[1], "group")) {
		group = pol_group_find(p->pol, r->argv[2]);
		if (group < 0) {
			fail(r, "idle: no group '%.80s'", r->argv[2]);
			return;
		}
	} else {
		fail(r, "idle: expected pid PID or group NAME");
		return;
	}
	for (uint32_t k = 0; k < p->nr_clients; k++) {
		struct client *c = &p->clients[k];

		if (c->used && (c == one || (!one && c->group == group)))
			n += pgr_idle_client(p, c);
	}
	reply(r, "idle %llu", (unsigned long long)n);
	reply(r, "ok");
}

static int tokenize(char *s, char **argv)
{
	int argc = 0;

	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (argc == MAX_ARGS)
			return -1;
		argv[argc++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = 0;
	}
	return argc;
}

void pgr_ctl_command(struct pgr *p, struct conn *conn, char *line)
{
	struct req r = { .p = p, .conn = conn };
	const char *cmd;

	for (const unsigned char *c = (const unsigned char *)line; *c; c++) {
		if ((*c < 0x20 && *c != '\t') || *c >= 0x7f) {
			fail(&r, "not a line of text (byte 0x%02x)", *c);
			return;
		}
	}
	r.argc = tokenize(line, r.argv);
	if (r.argc < 0) {
		fail(&r, "too many words");
		return;
	}
	if (!r.argc)
		return;
	cmd = r.argv[0];
	if (!strcmp(cmd, "hello"))
		cmd_hello(&r);
	else if (!strcmp(cmd, "socket"))
		pgr_conn_passed(conn);	/* no answer: see control.h */
	else if (!strcmp(cmd, "uffd-dev"))
		cmd_uffd_dev(&r);
	else if (!strcmp(cmd, "attach"))
		cmd_attach(&r);
	else if (!strcmp(cmd, "exclude"))
		cmd_exclude(&r);
	else if (!strcmp(cmd, "adopt"))
		cmd_adopt(&r, false);
	else if (!strcmp(cmd, "map"))
		cmd_adopt(&r, true);
	else if (!strcmp(cmd, "reserve"))
		cmd_reserve(&r);
	else if (!strcmp(cmd, "kept"))
		cmd_kept(&r);
	else if (!strcmp(cmd, "handback"))
		cmd_handback(&r);
	else if (pgr_ctl_file(&r) || pgr_ctl_lru_gen(&r))
		;
	else if (!strcmp(cmd, "trace"))
		cmd_trace(&r);
	else if (!strcmp(cmd, "phase"))
		cmd_phase(&r);
	else if (!strcmp(cmd, "done"))
		cmd_done(&r, DROP_MADVISED);
	else if (!strcmp(cmd, "moved"))
		cmd_done(&r, DROP_MOVED);
	else if (!strcmp(cmd, "fell"))
		cmd_fell(&r, SL_FELL);
	else if (!strcmp(cmd, "locked"))
		cmd_fell(&r, SL_FELL | SL_LOCKED);
	else if (!strcmp(cmd, "ready"))
		cmd_ready(&r);
	else if (!strcmp(cmd, "called"))
		cmd_called(&r);
	else if (!strcmp(cmd, "notify"))
		cmd_notify(&r);
	else if (!strcmp(cmd, "group"))
		cmd_group(&r);
	else if (!strcmp(cmd, "set"))
		cmd_set(&r);
	else if (!strcmp(cmd, "get"))
		cmd_get(&r);
	else if (pgr_ctl_report(&r))
		;
	else if (!strcmp(cmd, "reclaim"))
		cmd_reclaim(&r);
	else if (!strcmp(cmd, "idle"))
		cmd_idle(&r);
	else if (!strcmp(cmd, "detach")) {
		p->detached = true;
		reply(&r, "ok");
	} else if (!strcmp(cmd, "shutdown")) {
		reply(&r, "ok");
		pgr_stop(p);
	} else if (!strcmp(cmd, "ping"))
		reply(&r, "ok");
	else
		fail(&r, "unknown command '%.40s'", cmd);
}
