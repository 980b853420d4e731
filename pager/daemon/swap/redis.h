/* SPDX-License-Identifier: MIT */
/*
 * redis.h - swap in Redis servers (redis.c), `--swap redis://...`.
 */
#ifndef PGR_DAEMON_REDIS_H
#define PGR_DAEMON_REDIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pgr;

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

/* Is "redis://HOST:PORT[,HOST:PORT...][/DB]" well formed? 0, or -EINVAL
 * with the reason in @why. */
int pgr_redis_check(const char *spec, char *why, size_t len);
/* Connect to every server of @spec (each must answer PING now) and
 * start serving @slots slots. 0 or -errno, said in the log. */
int pgr_redis_open(struct pgr *p, const char *spec, uint64_t slots);
/* Delete what is left, and disconnect (running the loop for at most a
 * second for it). */
void pgr_redis_close(struct pgr *p);
/* Send @page's bytes to @slot (the server is chosen from @owner, a
 * stable id of the process the page is of); or read @slot into @page.
 * The completion goes through the ring (pgr_ring_finish()) when the
 * server answers: @res PGR_PAGE, or -EHOSTDOWN (its server is gone),
 * -ENODATA (the server no longer has the key). A write to no server
 * that answers: -ENOMEM at once, as a full device. */
int pgr_redis_write(struct pgr *p, uint32_t slot, uint32_t page,
		    uint64_t owner, const char *buf);
int pgr_redis_read(struct pgr *p, uint32_t slot, uint32_t page);
/* Send what is queued now, not at the loop's next turn (the ring's
 * submit calls it). */
void pgr_redis_flush(struct pgr *p);
/* Read the answers that came, handing them on (the ring's check for
 * completions calls it: a fault spinning for its swap-in sees its GET's
 * answer without the loop). */
void pgr_redis_reap(struct pgr *p);
/* @slot is free: its key goes. */
void pgr_redis_free(struct pgr *p, uint32_t slot);
/* Why a read of @slot failed with @res, for the killed process. */
void pgr_redis_why(const struct pgr *p, uint32_t slot, int res, char *buf,
		   size_t len);
/* Counts the servers' goings (0 without Redis): when it moves, the
 * processes whose pages a gone server held are to be stopped. */
uint64_t pgr_redis_gone_count(const struct pgr *p);
/* Is @slot's page on a server that is gone? */
bool pgr_redis_slot_gone(const struct pgr *p, uint32_t slot);
/* Are writes out to a server that may still answer them (sent less than
 * redis.timeout_ms ago)? */
bool pgr_redis_awaited(const struct pgr *p);
/* NULL without Redis. */
const struct pgr_redis_stat *pgr_redis_stat(const struct pgr *p);
/* The server @owner's pages go to now, as "HOST:PORT"; false if none
 * answers (or no Redis). */
bool pgr_redis_server_of(const struct pgr *p, uint64_t owner, char *name,
			 size_t len);
/* Server @k: "HOST:PORT", and whether it answers; false past the last. */
bool pgr_redis_server(const struct pgr *p, unsigned int k, char *name,
		      size_t len, bool *up);

#endif /* PGR_DAEMON_REDIS_H */
