/* SPDX-License-Identifier: MIT */
/*
 * control.h - what control/ offers the other parts: the control socket: its
 * connections, commands, tunables, proactive reclaim, `pager trace`.
 *
 * One section per file of the part. What a file keeps to the part is
 * not here: it is in a header only the part includes, or in the file.
 */
#ifndef PGR_DAEMON_CONTROL_H
#define PGR_DAEMON_CONTROL_H

#include "../pgr.h"

/*
 * ---- conn.c ----
 * The control socket and its connections.
 */

int pgr_listen(struct pgr *p);
/* Serve the control protocol on connected socket @fd (peer: its pid). */
struct conn *pgr_conn_open(struct pgr *p, int fd, pid_t peer);
void pgr_conns_close(struct pgr *p);
/*
 * "socket", a connected socket attached: a connection its sender made
 * with socketpair(2) where it cannot connect(2) to the daemon's socket
 * (a chroot, another mount namespace: Chrome's zygote forks its
 * renderers so). Admitted as an accepted one is, by its creator's
 * SO_PEERCRED. No answer, success or not: it comes through a door (the
 * shim's, shim.h) that nobody reads.
 */
void pgr_conn_passed(struct conn *from);
/* Send a line (a newline is added); on failure the connection closes. */
int pgr_conn_send(struct conn *c, const char *line);
/* Send @len bytes as they are (lines, newlines included). */
int pgr_conn_send_bytes(struct conn *c, const char *buf, size_t len);
/* Send a line with a file descriptor. */
int pgr_conn_send_fd(struct conn *c, const char *line, int fd);
/* Is @pid a process of `pager run`'s command (a descendant of the run,
 * the private daemon's parent)? Always false for a standing daemon. */
bool pgr_conn_in_run(const struct pgr *p, pid_t pid);
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

/*
 * ---- ctl.c ----
 * The control protocol's commands.
 */

void pgr_ctl_command(struct pgr *p, struct conn *c, char *line);

/*
 * ---- knobs.c ----
 * The daemon's tunables (the policy has its own).
 */

void pgr_knobs_init(struct pgr *p);
/* Set @key to @val: 0, -ENOENT (not a knob of ours), -EINVAL (*why). */
int pgr_knob_set(struct pgr *p, const char *key, const char *val,
		 const char **why);
int pgr_knob_get(const struct pgr *p, const char *key, char *buf,
		 size_t len);
const char *pgr_knob_name(unsigned int i);
/* Either kind of tunable, as `pager set` and --set take them. */
int pgr_tunable_set(struct pgr *p, const char *key, const char *val,
		    const char **why);

/*
 * ---- proactive.c ----
 * Memory.reclaim and idle page marking.
 */

/* Reclaim @bytes from @group, answering on @conn when done or failed. */
void pgr_reclaim_start(struct pgr *p, struct conn *conn, int group,
		       uint64_t bytes);
/* Go on with reclaims under way (after completions). */
void pgr_reclaim_step(struct pgr *p);
void pgr_reclaim_cancel(struct pgr *p, struct conn *conn);
/* Arm every present page of @c; return how many. */
uint64_t pgr_idle_client(struct pgr *p, struct client *c);

/*
 * ---- tracing.c ----
 * `pager trace`, the policy's events as mm_vmscan_* lines.
 */

/* Parse a comma-separated event list ("" or "all": every one). */
int pgr_trace_mask(const char *list, uint32_t *mask, const char **why);
void pgr_trace_start(struct pgr *p, struct conn *c, uint32_t mask);
void pgr_trace_drop(struct pgr *p, struct conn *c);
void pgr_trace_event(struct pgr *p, const struct pol_event *ev);
/* Send what the subscribers gathered (before the loop waits). */
void pgr_trace_flush(struct pgr *p);
/* Phase marks (`phase NAME`): a name the record's and the simulator's
 * formats take as one word. */
#define PGR_PHASE_NAME_MAX 63
bool pgr_phase_name_ok(const char *name);
void pgr_trace_mark(struct pgr *p, const char *name);

#endif /* PGR_DAEMON_CONTROL_H */
