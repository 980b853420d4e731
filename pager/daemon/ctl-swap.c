/* SPDX-License-Identifier: MIT */
/*
 * ctl-swap.c - `pager stat`'s lines of the swap device that is not a
 * file: zram's mm_stat (zram.c), or the Redis store's (redis.c).
 */
#include "ctl-req.h"
#include "redis.h"
#include "zram.h"

/* zram's mm_stat under its field names, and the compression ratio. */
static void stat_zram(struct req *r)
{
	const struct pgr_zram_stat *z = pgr_zram_stat(r->p);

	if (!z)
		return;
	reply(r, "zram.comp_algorithm %s",
	      pgr_zram_comp_name(pgr_zram_comp(r->p)));
	reply(r, "zram.orig_data_size %llu",
	      (unsigned long long)z->orig_data_size);
	reply(r, "zram.compr_data_size %llu",
	      (unsigned long long)z->compr_data_size);
	reply(r, "zram.mem_used_total %llu",
	      (unsigned long long)z->mem_used_total);
	reply(r, "zram.mem_limit %llu",
	      (unsigned long long)r->p->zram_mem_limit);
	reply(r, "zram.mem_used_max %llu", (unsigned long long)z->mem_used_max);
	reply(r, "zram.same_pages %llu", (unsigned long long)z->same_pages);
	reply(r, "zram.huge_pages %llu", (unsigned long long)z->huge_pages);
	reply(r, "zram.huge_pages_since %llu",
	      (unsigned long long)z->huge_pages_since);
	reply(r, "zram.failed_writes %llu",
	      (unsigned long long)z->failed_writes);
	/* as zramctl's DATA over COMPR; same-filled pages take no bytes */
	if (z->compr_data_size)
		reply(r, "zram.compr_ratio %.2f", (double)z->orig_data_size /
		      (double)z->compr_data_size);
	else
		reply(r, "zram.compr_ratio -");
}

/* The Redis store: its servers and whether they answer, its commands,
 * its failures, and its mean GET round trip. */
static void stat_redis(struct req *r)
{
	const struct pgr_redis_stat *st = pgr_redis_stat(r->p);
	unsigned int up = 0, n = 0;
	char name[300];
	bool is_up;

	if (!st)
		return;
	for (; pgr_redis_server(r->p, n, name, sizeof(name), &is_up); n++) {
		reply(r, "redis.server.%s %s", name, is_up ? "up" : "gone");
		up += is_up;
	}
	reply(r, "redis.servers %u", n);
	reply(r, "redis.servers_up %u", up);
	reply(r, "redis.sets %llu", (unsigned long long)st->sets);
	reply(r, "redis.gets %llu", (unsigned long long)st->gets);
	reply(r, "redis.dels %llu", (unsigned long long)st->dels);
	reply(r, "redis.failed_writes %llu",
	      (unsigned long long)st->failed_writes);
	reply(r, "redis.failed_reads %llu",
	      (unsigned long long)st->failed_reads);
	reply(r, "redis.lost %llu", (unsigned long long)st->lost);
	reply(r, "redis.timeouts %llu", (unsigned long long)st->timeouts);
	reply(r, "redis.reconnects %llu", (unsigned long long)st->reconnects);
	if (st->rtt_n)
		reply(r, "redis.get_rtt_us %.1f", (double)st->rtt_ns_sum /
		      (double)st->rtt_n / 1e3);
	else
		reply(r, "redis.get_rtt_us -");
}

void pgr_ctl_stat_swap(struct req *r)
{
	stat_zram(r);
	stat_redis(r);
}

void pgr_ctl_stat_swap_pid(struct req *r, pid_t pid)
{
	char name[300];

	if (pgr_redis_server_of(r->p, (uint64_t)pid, name, sizeof(name)))
		reply(r, "redis.server %s", name);
}
