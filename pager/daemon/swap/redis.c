/* SPDX-License-Identifier: MIT */
/*
 * redis.c - swap in other machines' memory: one or more Redis servers,
 * for `--swap redis://HOST:PORT[,HOST:PORT...][/DB]`.
 *
 * A slot's page is the value of the key PREFIX:SLOT, where PREFIX is
 * "pager:HOSTNAME:PID.RANDOM", this daemon's own: many machines' daemons
 * can share one store. A write is a SET, a swap-in a GET, a freed slot a
 * DEL. Everything goes through hiredis's asynchronous API on the
 * daemon's libuv loop (its libuv adapter): nothing here waits, but the
 * first PING of each server at start and the last flush at exit.
 *
 * Placement: each process's pages go to one server, picked by a jump
 * consistent hash (Lamping & Veach, 2014) of its id over the servers: the
 * same process always lands on the same server, adding a server moves
 * only 1/n of the processes, and a server that dies stops only the
 * processes whose pages it held. A write whose server is down goes to the
 * next server of the hash that answers; with none, it is refused as a
 * full device would refuse it (the page stays resident). Debian packages
 * no C library for consistent hashing (libketama is not in it), so the
 * hash's eight lines are here.
 *
 * Failure is fail-stop, never a wrong page:
 *   - a server whose connection drops, or that leaves a command
 *     unanswered for redis.timeout_ms, is "gone": its unanswered commands
 *     complete with -EHOSTDOWN, and every process with a page on it is
 *     stopped at once with "the swap store at HOST:PORT is gone" (oom.c,
 *     at the daemon's next tick): what it held is lost, and waiting for
 *     the process to fault on it would leave its memory pinned and the
 *     OOM killer to pick among the rest. The connection is tried again
 *     every second; until a server is gone, writes out to it are awaited
 *     by reclaim as writeback is;
 *   - a server that answers a GET with nothing (restarted empty, flushed,
 *     or evicting keys) fails the swap-in with -ENODATA: "lost the page";
 *   - a value changed in the store is caught by the slot's checksum
 *     (swap.c), as for a swap file.
 *
 * Owns: the connections, which server holds each slot, and the store's
 * counters.
 */
#include <errno.h>
#include <hiredis/adapters/libuv.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../pgr.h"
#include "store.h"

#define PGR_REDIS_MAX_SERVERS	64

/* What the store has done, for `pager stat` (redis.*). */
struct pgr_redis_stat {
	uint64_t sets, gets, dels;	/* commands sent */
	uint64_t failed_writes;		/* a SET not acknowledged */
	uint64_t failed_reads;		/* a GET without the page */
	uint64_t lost;			/* ... of those: the key was missing */
	uint64_t timeouts;		/* a server declared gone for silence */
	uint64_t reconnects;		/* connections made again */
	uint64_t rtt_ns_sum, rtt_n;	/* GET round trips, for the mean */
};

#define TICK_MS		100		/* timeouts checked, reconnects tried */
#define RECONNECT_MS	1000

enum op { OP_PLAIN, OP_GET, OP_SET };

struct server {
	struct redis *r;
	char name[300];			/* as given: HOST:PORT */
	char ip[64];			/* resolved at start */
	int port;
	redisAsyncContext *ac;		/* NULL: no connection */
	bool up;			/* connected, answering */
	bool said;			/* "gone" said since it was last up */
	uint64_t next_try;		/* ms: a reconnection, when down */
	uint64_t *sent;			/* FIFO of send times (ns), replies
					 * come in order */
	size_t head, nr, cap;
};

struct redis {
	struct pgr *p;
	struct server srv[PGR_REDIS_MAX_SERVERS];
	unsigned int n;
	int db;
	char prefix[128];
	uint8_t *where;			/* per slot: server + 1, 0: none */
	uint64_t nr_slots;
	uv_timer_t tick;
	bool closing;
	uint64_t goings;		/* servers gone, ever */
	struct pgr_redis_stat st;
};

/* ---- the address list ------------------------------------------------ */

/* Split @spec into servers and a db; -EINVAL with the reason. */
static int parse(const char *spec, struct redis *r, char *why, size_t len)
{
	const char *s, *db;
	char *end;

	if (strncmp(spec, "redis://", 8)) {
		snprintf(why, len, "a store is redis://HOST:PORT");
		return -EINVAL;
	}
	s = spec + 8;
	db = strchr(s, '/');
	r->db = 0;
	if (db) {
		long v = strtol(db + 1, &end, 10);

		if (!db[1] || *end || v < 0 || v > 1 << 20) {
			snprintf(why, len, "bad database '%s'", db + 1);
			return -EINVAL;
		}
		r->db = (int)v;
	}
	r->n = 0;
	while (*s && s != db) {
		const char *comma = strchr(s, ','), *colon;
		size_t l;
		long port;

		if (!comma || (db && comma > db))
			comma = db ? db : s + strlen(s);
		l = (size_t)(comma - s);
		colon = memrchr(s, ':', l);
		if (!colon || colon == s) {
			snprintf(why, len, "'%.*s' is not HOST:PORT", (int)l, s);
			return -EINVAL;
		}
		port = strtol(colon + 1, &end, 10);
		if (end != comma || port < 1 || port > 65535) {
			snprintf(why, len, "bad port in '%.*s'", (int)l, s);
			return -EINVAL;
		}
		if (r->n == PGR_REDIS_MAX_SERVERS || l >= sizeof(r->srv[0].name)) {
			snprintf(why, len, "at most %d servers",
				 PGR_REDIS_MAX_SERVERS);
			return -EINVAL;
		}
		memcpy(r->srv[r->n].name, s, l);
		r->srv[r->n].name[l] = 0;
		r->srv[r->n].name[colon - s] = 0;	/* the host, for now */
		r->srv[r->n].port = (int)port;
		r->n++;
		s = *comma == ',' ? comma + 1 : comma;
	}
	if (!r->n) {
		snprintf(why, len, "no server in '%s'", spec);
		return -EINVAL;
	}
	return 0;
}

static struct redis *redis_of(const struct pgr *p)
{
	return p->swap_dev_data;
}

/* "redis://HOST:PORT[,HOST:PORT...][/DB]", well formed. */
static int redis_match(const char *spec, char *why, size_t len)
{
	struct redis *r;
	int err;

	if (strncmp(spec, "redis://", 8))
		return 0;
	r = pgr_xcalloc(1, sizeof(*r));
	err = parse(spec, r, why, len);
	free(r);
	return err ? err : 1;
}

/* The host's first address, numeric: reconnections then need no name
 * service (nor the files and sockets it opens, under confinement). */
static int resolve(struct server *s)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int err = getaddrinfo(s->name, NULL, &hints, &ai);

	if (err) {
		pgr_err("swap store '%s': %s", s->name, gai_strerror(err));
		return -EHOSTUNREACH;
	}
	err = getnameinfo(ai->ai_addr, ai->ai_addrlen, s->ip, sizeof(s->ip),
			  NULL, 0, NI_NUMERICHOST);
	freeaddrinfo(ai);
	if (err) {
		pgr_err("swap store '%s': %s", s->name, gai_strerror(err));
		return -EHOSTUNREACH;
	}
	snprintf(s->name + strlen(s->name), sizeof(s->name) - strlen(s->name),
		 ":%d", s->port);
	return 0;
}

/* ---- placement --------------------------------------------------------- */

/* Jump consistent hash: a bucket in [0, n) for @key. */
static unsigned int jump(uint64_t key, unsigned int n)
{
	int64_t b = -1, j = 0;

	while (j < (int64_t)n) {
		b = j;
		key = key * 2862933555777941757ULL + 1;
		j = (int64_t)((double)(b + 1) * ((double)(1LL << 31) /
						 (double)((key >> 33) + 1)));
	}
	return (unsigned int)b;
}

/* The server for @owner's pages: its own if up, else the next of its
 * hash sequence that is; -1: none is. */
static int place(const struct redis *r, uint64_t owner)
{
	for (unsigned int k = 0; k < r->n; k++) {
		unsigned int s = jump(owner ^ (k * 0x9e3779b97f4a7c15ULL),
				      r->n);

		if (r->srv[s].up)
			return (int)s;
	}
	for (unsigned int s = 0; s < r->n; s++)
		if (r->srv[s].up)
			return (int)s;
	return -1;
}

/* ---- connections ------------------------------------------------------- */

static uint64_t now_ms(const struct redis *r)
{
	return uv_now(r->p->loop);
}

static void gone(struct server *s, const char *why)
{
	if (s->up)
		s->r->goings++;
	s->up = false;
	s->next_try = now_ms(s->r) + RECONNECT_MS;
	if (!s->said && !s->r->closing)
		pgr_err("the swap store at %s is gone (%s): the processes "
			"whose pages it held are stopped", s->name, why);
	s->said = true;
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
	struct server *s = ac->data;

	s->ac = NULL;
	s->nr = s->head = 0;
	gone(s, ac->errstr[0] ? ac->errstr : "disconnected");
}

static void on_plain(redisAsyncContext *ac, void *reply, void *priv);

/* Send a command, its send time noted for the timeout: 0, or -1 if the
 * connection refuses it (gone then). */
static int send_cmd(struct server *s, redisCallbackFn *fn, uintptr_t priv,
		    const char *fmt, ...);

/* A connection made again is used once the server answers a PING: a
 * stopped server's kernel still accepts connections. */
static void on_pong(redisAsyncContext *ac, void *reply, void *priv)
{
	struct server *s = ac->data;

	on_plain(ac, reply, priv);
	if (!reply || s->r->closing || s->up)
		return;
	pgr_info("the swap store at %s answers again: what it lost stops "
		 "its processes when they need it", s->name);
	s->up = true;
	s->said = false;
	s->r->st.reconnects++;
}

static void on_connect(const redisAsyncContext *ac, int status)
{
	struct server *s = ac->data;

	if (status != REDIS_OK) {
		s->ac = NULL;		/* hiredis frees it */
		gone(s, ac->errstr[0] ? ac->errstr : "cannot connect");
	}
}

/* hiredis 0.14's libuv adapter drops a poll error (status < 0: libuv
 * saw POLLERR, a connection reset by a killed server, and stopped the
 * poll), so the connection would look alive, unanswered, until
 * redis.timeout_ms. These replace its four event functions: the same
 * but for the error, which reads, finds the reset and disconnects (as
 * hiredis 1.x's adapter does). */
static void on_poll(uv_poll_t *h, int status, int events)
{
	redisLibuvEvents *e = h->data;

	if (e->context && (status < 0 || (events & UV_READABLE)))
		redisAsyncHandleRead(e->context);
	if (status >= 0 && e->context && (events & UV_WRITABLE))
		redisAsyncHandleWrite(e->context);
}

static void poll_events(void *data, int add, int del)
{
	redisLibuvEvents *e = data;

	e->events = (e->events | add) & ~del;
	if (e->events)
		uv_poll_start(&e->handle, e->events, on_poll);
	else
		uv_poll_stop(&e->handle);
}

static void add_read(void *data) { poll_events(data, UV_READABLE, 0); }
static void del_read(void *data) { poll_events(data, 0, UV_READABLE); }
static void add_write(void *data) { poll_events(data, UV_WRITABLE, 0); }
static void del_write(void *data) { poll_events(data, 0, UV_WRITABLE); }

static void connect_server(struct server *s)
{
	redisAsyncContext *ac = redisAsyncConnect(s->ip, s->port);

	if (!ac || ac->err) {
		gone(s, ac ? ac->errstr : "out of memory");
		if (ac)
			redisAsyncFree(ac);
		return;
	}
	ac->data = s;
	if (redisLibuvAttach(ac, s->r->p->loop) != REDIS_OK) {
		redisAsyncFree(ac);
		gone(s, "cannot watch its socket");
		return;
	}
	ac->ev.addRead = add_read;
	ac->ev.delRead = del_read;
	ac->ev.addWrite = add_write;
	ac->ev.delWrite = del_write;
	redisAsyncSetConnectCallback(ac, on_connect);
	redisAsyncSetDisconnectCallback(ac, on_disconnect);
	s->ac = ac;
	s->nr = s->head = 0;
	if (s->r->db)
		send_cmd(s, on_plain, OP_PLAIN, "SELECT %d", s->r->db);
	send_cmd(s, on_pong, OP_PLAIN, "PING");
}

static int send_cmd(struct server *s, redisCallbackFn *fn, uintptr_t priv,
		    const char *fmt, ...)
{
	va_list ap;
	int rc;

	if (!s->ac)
		return -1;
	va_start(ap, fmt);
	rc = redisvAsyncCommand(s->ac, fn, (void *)priv, fmt, ap);
	va_end(ap);
	if (rc != REDIS_OK)
		return -1;
	if (s->head && s->head + s->nr == s->cap) {
		memmove(s->sent, s->sent + s->head, s->nr * sizeof(*s->sent));
		s->head = 0;
	}
	pgr_grow(&s->sent, &s->cap, s->head + s->nr + 1, sizeof(*s->sent));
	s->sent[s->head + s->nr++] = uv_hrtime();
	return 0;
}

/* A reply came (or NULL: the connection went): its send time leaves the
 * FIFO; the ns it took. */
static uint64_t answered(struct server *s)
{
	uint64_t t = 0;

	if (s->nr) {
		t = uv_hrtime() - s->sent[s->head++];
		if (!--s->nr)
			s->head = 0;
	}
	return t;
}

static void on_plain(redisAsyncContext *ac, void *reply, void *priv)
{
	answered(ac->data);
}

static void on_page(redisAsyncContext *ac, void *reply, void *priv)
{
	struct server *s = ac->data;
	struct redis *r = s->r;
	struct pgr *p = r->p;
	redisReply *rep = reply;
	uintptr_t v = (uintptr_t)priv;
	uint32_t page = (uint32_t)(v >> 2);
	uint64_t ns = answered(s);
	int res;

	if (r->closing)
		return;
	if ((v & 3) == OP_SET) {
		res = !rep ? -EHOSTDOWN :
		      rep->type == REDIS_REPLY_STATUS ? PGR_PAGE : -EIO;
		if (res != PGR_PAGE)
			r->st.failed_writes++;
		pgr_ring_finish(p, PGR_IO_SWAP_WRITE, page, res);
		return;
	}
	if (!rep) {
		res = -EHOSTDOWN;
	} else if (rep->type == REDIS_REPLY_STRING && rep->len == PGR_PAGE) {
		memcpy(pgr_buf(p, p->pages[page].buf), rep->str, PGR_PAGE);
		res = PGR_PAGE;
		r->st.rtt_ns_sum += ns;
		r->st.rtt_n++;
	} else if (rep->type == REDIS_REPLY_NIL) {
		res = -ENODATA;
		r->st.lost++;
	} else {
		res = -EBADMSG;		/* not a page: someone else's value */
	}
	if (res != PGR_PAGE)
		r->st.failed_reads++;
	pgr_ring_finish(p, PGR_IO_SWAP_READ, page, res);
}

/* Every TICK_MS: a server silent for redis.timeout_ms is gone (its
 * commands complete with -EHOSTDOWN as the context is freed); a server
 * down is tried again. */
static void on_tick(uv_timer_t *t)
{
	struct redis *r = t->data;
	uint64_t now = uv_hrtime();

	for (unsigned int k = 0; k < r->n; k++) {
		struct server *s = &r->srv[k];

		if (s->ac && s->nr &&
		    now - s->sent[s->head] > r->p->redis_timeout_ms * 1000000) {
			redisAsyncContext *ac = s->ac;

			r->st.timeouts++;
			gone(s, "no answer within redis.timeout_ms");
			/* Its unanswered commands complete with NULL; if it
			 * was connected, on_disconnect runs too. */
			redisAsyncFree(ac);
			s->ac = NULL;
			s->nr = s->head = 0;
		} else if (!s->ac && now_ms(r) >= s->next_try) {
			connect_server(s);
		}
	}
}

/* ---- start and end ------------------------------------------------------ */

/* Does @s answer PING now (a blocking check, before the loop runs)? */
static int ping(struct server *s)
{
	struct timeval tv = { 2, 0 };
	redisContext *c = redisConnectWithTimeout(s->ip, s->port, tv);
	redisReply *rep;
	int err = 0;

	if (!c || c->err) {
		pgr_err("cannot reach the swap store at %s: %s", s->name,
			c ? c->errstr : "out of memory");
		redisFree(c);
		return -ECONNREFUSED;
	}
	redisSetTimeout(c, tv);
	rep = redisCommand(c, "SELECT %d", s->r->db);
	if (!rep || rep->type == REDIS_REPLY_ERROR) {
		pgr_err("the swap store at %s refuses database %d: %s", s->name,
			s->r->db, rep ? rep->str : c->errstr);
		err = -EINVAL;
	}
	freeReplyObject(rep);
	redisFree(c);
	return err;
}

static int redis_open(struct pgr *p, const char *spec, uint64_t slots)
{
	struct redis *r = pgr_xcalloc(1, sizeof(*r));
	char why[256], host[64] = "?";
	uint64_t rnd = 0;
	int err;

	r->p = p;
	err = parse(spec, r, why, sizeof(why));
	if (err)
		pgr_err("--swap %s: %s", spec, why);
	for (unsigned int k = 0; !err && k < r->n; k++) {
		r->srv[k].r = r;
		err = resolve(&r->srv[k]);
		if (!err)
			err = ping(&r->srv[k]);
	}
	if (err) {
		free(r);
		return err;
	}
	gethostname(host, sizeof(host) - 1);
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (uint64_t)uv_hrtime();
	snprintf(r->prefix, sizeof(r->prefix), "pager:%s:%d.%016llx", host,
		 (int)getpid(), (unsigned long long)rnd);
	r->nr_slots = slots;
	r->where = pgr_xcalloc(slots, 1);
	p->swap_dev_data = r;
	for (unsigned int k = 0; k < r->n; k++) {
		connect_server(&r->srv[k]);
		r->srv[k].up = r->srv[k].ac != NULL;	/* it answered ping() */
	}
	uv_timer_init(p->loop, &r->tick);
	r->tick.data = r;
	uv_timer_start(&r->tick, on_tick, TICK_MS, TICK_MS);
	pgr_info("swap in Redis: %u server%s, keys %s:SLOT", r->n,
		 r->n == 1 ? "" : "s", r->prefix);
	return 0;
}

static bool redis_free(struct pgr *p, uint32_t slot);

static void tick_closed(uv_handle_t *h)
{
	*(bool *)h->data = true;
}

static void guard_done(uv_timer_t *t)
{
	uv_timer_stop(t);
}

static void redis_close(struct pgr *p)
{
	struct redis *r = redis_of(p);
	bool closed = false;
	uv_timer_t guard;

	if (!r)
		return;
	r->closing = true;
	/* What is left (a daemon ended with clients) goes; then a clean
	 * disconnect flushes it, the loop running for it a second at most. */
	for (uint64_t slot = 0; slot < r->nr_slots; slot++)
		redis_free(p, (uint32_t)slot);
	for (unsigned int k = 0; k < r->n; k++)
		if (r->srv[k].ac)
			redisAsyncDisconnect(r->srv[k].ac);
	uv_timer_stop(&r->tick);
	uv_timer_init(p->loop, &guard);
	uv_timer_start(&guard, guard_done, 1000, 0);
	for (;;) {
		bool any = false;

		for (unsigned int k = 0; k < r->n; k++)
			any |= r->srv[k].ac != NULL;
		if (!any || !uv_is_active((uv_handle_t *)&guard))
			break;
		uv_run(p->loop, UV_RUN_ONCE);
	}
	for (unsigned int k = 0; k < r->n; k++)
		if (r->srv[k].ac)
			redisAsyncFree(r->srv[k].ac);
	r->tick.data = &closed;
	uv_close((uv_handle_t *)&r->tick, tick_closed);
	uv_close((uv_handle_t *)&guard, NULL);
	while (!closed)
		uv_run(p->loop, UV_RUN_NOWAIT);
	uv_run(p->loop, UV_RUN_NOWAIT);
	for (unsigned int k = 0; k < r->n; k++)
		free(r->srv[k].sent);
	free(r->where);
	free(r);
	p->swap_dev_data = NULL;
}

/* ---- I/O ------------------------------------------------------------------ */

/* The completion goes through the ring (pgr_ring_finish()) when the
 * server answers: PGR_PAGE, or -EHOSTDOWN (its server is gone),
 * -ENODATA (the server no longer has the key). A write to no server
 * that answers: -ENOMEM at once, as a full device. */
static int redis_write(struct pgr *p, const struct pgr_swap_io *io)
{
	struct redis *r = redis_of(p);
	uint32_t slot = io->slot, page = (uint32_t)io->tag;
	const char *buf = io->buf;
	int s = place(r, io->owner);

	if (s < 0)
		return -ENOMEM;
	if (r->where[slot] && r->where[slot] != s + 1)
		redis_free(p, slot);	/* its old copy elsewhere */
	if (send_cmd(&r->srv[s], on_page, (uintptr_t)page << 2 | OP_SET,
		     "SET %s:%u %b", r->prefix, slot, buf, (size_t)PGR_PAGE)) {
		gone(&r->srv[s], "refused a command");
		return -ENOMEM;
	}
	r->where[slot] = (uint8_t)(s + 1);
	r->st.sets++;
	pgr_ring_start(p, true);
	return 0;
}

static int redis_read(struct pgr *p, const struct pgr_swap_io *io)
{
	struct redis *r = redis_of(p);
	uint32_t slot = io->slot, page = (uint32_t)io->tag;
	struct server *s;

	pgr_ring_start(p, false);
	if (!r->where[slot]) {
		pgr_ring_finish(p, PGR_IO_SWAP_READ, page, -ENODATA);
		return 0;
	}
	s = &r->srv[r->where[slot] - 1];
	if (!s->up || send_cmd(s, on_page, (uintptr_t)page << 2 | OP_GET,
			       "GET %s:%u", r->prefix, slot)) {
		r->st.failed_reads++;
		pgr_ring_finish(p, PGR_IO_SWAP_READ, page, -EHOSTDOWN);
		return 0;
	}
	r->st.gets++;
	return 0;
}

static bool redis_free(struct pgr *p, uint32_t slot)
{
	struct redis *r = redis_of(p);

	if (!r || !r->where[slot])
		return false;
	if (!send_cmd(&r->srv[r->where[slot] - 1], on_plain, OP_PLAIN,
		      "DEL %s:%u", r->prefix, slot))
		r->st.dels++;
	r->where[slot] = 0;
	return false;
}

static void redis_why(const struct pgr *p, uint32_t slot, int res,
		      char *buf, size_t len)
{
	const struct redis *r = redis_of(p);
	const char *name = r && r->where[slot] ?
			   r->srv[r->where[slot] - 1].name : "?";

	if (res == -ENODATA)
		snprintf(buf, len, "the swap store at %s lost its page "
			 "(restarted empty, flushed or evicting?)", name);
	else if (res == -EBADMSG)
		snprintf(buf, len, "the swap store at %s handed back a value "
			 "that is not its page", name);
	else
		snprintf(buf, len, "the swap store at %s is gone", name);
}

static uint64_t redis_lost_count(const struct pgr *p)
{
	return redis_of(p) ? redis_of(p)->goings : 0;
}

static bool redis_slot_lost(const struct pgr *p, uint32_t slot)
{
	const struct redis *r = redis_of(p);

	return r && r->where[slot] && !r->srv[r->where[slot] - 1].up;
}

static bool redis_awaited(const struct pgr *p)
{
	const struct redis *r = redis_of(p);

	for (unsigned int k = 0; r && k < r->n; k++)
		if (r->srv[k].up && r->srv[k].nr)
			return true;
	return false;
}

static void redis_flush(struct pgr *p)
{
	struct redis *r = redis_of(p);

	for (unsigned int k = 0; r && k < r->n; k++)
		if (r->srv[k].up && r->srv[k].ac && r->srv[k].nr)
			redisAsyncHandleWrite(r->srv[k].ac);
}

static void redis_reap(struct pgr *p)
{
	struct redis *r = redis_of(p);

	for (unsigned int k = 0; r && k < r->n; k++)
		if (r->srv[k].up && r->srv[k].ac && r->srv[k].nr)
			redisAsyncHandleRead(r->srv[k].ac);
}

/* Its servers and whether they answer, its commands, its failures, and
 * its mean GET round trip. */
static void redis_stat(const struct pgr *p, pgr_swap_line_fn *line,
		       void *ctx)
{
	const struct redis *r = redis_of(p);
	const struct pgr_redis_stat *st;
	unsigned int up = 0;

	if (!r)
		return;
	st = &r->st;
	for (unsigned int k = 0; k < r->n; k++) {
		line(ctx, "redis.server.%s %s", r->srv[k].name,
		     r->srv[k].up ? "up" : "gone");
		up += r->srv[k].up;
	}
	line(ctx, "redis.servers %u", r->n);
	line(ctx, "redis.servers_up %u", up);
	line(ctx, "redis.sets %llu", (unsigned long long)st->sets);
	line(ctx, "redis.gets %llu", (unsigned long long)st->gets);
	line(ctx, "redis.dels %llu", (unsigned long long)st->dels);
	line(ctx, "redis.failed_writes %llu",
	     (unsigned long long)st->failed_writes);
	line(ctx, "redis.failed_reads %llu",
	     (unsigned long long)st->failed_reads);
	line(ctx, "redis.lost %llu", (unsigned long long)st->lost);
	line(ctx, "redis.timeouts %llu", (unsigned long long)st->timeouts);
	line(ctx, "redis.reconnects %llu", (unsigned long long)st->reconnects);
	if (st->rtt_n)
		line(ctx, "redis.get_rtt_us %.1f", (double)st->rtt_ns_sum /
		     (double)st->rtt_n / 1e3);
	else
		line(ctx, "redis.get_rtt_us -");
}

/* The server @owner's pages go to now, if one answers. */
static void redis_stat_pid(const struct pgr *p, uint64_t owner,
			   pgr_swap_line_fn *line, void *ctx)
{
	const struct redis *r = redis_of(p);
	int s = r ? place(r, owner) : -1;

	if (s >= 0)
		line(ctx, "redis.server %s", r->srv[s].name);
}

const struct pgr_swap_store pgr_swap_redis = {
	.name = "redis",
	.match = redis_match,
	.open = redis_open,
	.close = redis_close,
	.write = redis_write,
	.read = redis_read,
	.free = redis_free,
	.why = redis_why,
	.flush = redis_flush,
	.reap = redis_reap,
	.lost_count = redis_lost_count,
	.slot_lost = redis_slot_lost,
	.awaited = redis_awaited,
	.stat = redis_stat,
	.stat_pid = redis_stat_pid,
	.network = true,
};
