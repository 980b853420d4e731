/* SPDX-License-Identifier: MIT */
/*
 * ctl-swap.c - `pager stat`'s lines of the swap device that is not a
 * file: zram's mm_stat (zram.c), or the Redis store's (redis.c); and of
 * zswap's pool in front of a file (zswap.c).
 */
#include "../swap/redis.h"
#include "../swap/zram.h"
#include "../swap/zswap.h"
#include "ctl-req.h"

/* zram's mm_stat under its field names, and the compression ratio. */
static void stat_zram(struct req *r)
{
	const struct pgr_zram_stat *z = pgr_zram_stat(r->p);

	if (!z)
		return;
	reply(r, "zram.comp_algorithm %s",
	      pgr_comp_name(pgr_zram_comp(r->p)));
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

/* /sys/kernel/debug/zswap/ under its names, and the compression ratio. */
static void stat_zswap(struct req *r)
{
	const struct pgr_zswap_stat *z = pgr_zswap_stat(r->p);

	if (!z)
		return;
	reply(r, "zswap.stored_pages %llu", (unsigned long long)z->stored_pages);
	reply(r, "zswap.pool_total_size %llu",
	      (unsigned long long)z->pool_pages * PGR_PAGE);
	reply(r, "zswap.compressed_bytes %llu",
	      (unsigned long long)z->compressed_bytes);
	reply(r, "zswap.pool_limit_hit %llu",
	      (unsigned long long)z->pool_limit_hit);
	reply(r, "zswap.reject_alloc_fail %llu",
	      (unsigned long long)z->reject_alloc_fail);
	reply(r, "zswap.reject_compress_poor %llu",
	      (unsigned long long)z->reject_compress_poor);
	reply(r, "zswap.decompress_fail %llu",
	      (unsigned long long)z->decompress_fail);
	reply(r, "zswap.written_back_pages %llu",
	      (unsigned long long)z->written_back_pages);
	reply(r, "zswap.writeback_skipped %llu",
	      (unsigned long long)z->wb_skipped);
	if (z->pool_pages)
		reply(r, "zswap.ratio %.2f", (double)z->stored_pages /
		      (double)z->pool_pages);
	else
		reply(r, "zswap.ratio -");
}

void pgr_ctl_stat_swap(struct req *r)
{
	stat_zram(r);
	stat_zswap(r);
	stat_redis(r);
}

void pgr_ctl_stat_swap_group(struct req *r, int group)
{
	uint64_t zswap, zswapped;

	if (!pgr_zswap_stat(r->p))
		return;
	pgr_zswap_group(r->p, group, &zswap, &zswapped);
	reply(r, "zswap %llu", (unsigned long long)zswap);
	reply(r, "zswapped %llu", (unsigned long long)zswapped);
}

void pgr_ctl_stat_swap_pid(struct req *r, pid_t pid)
{
	char name[300];

	if (pgr_redis_server_of(r->p, (uint64_t)pid, name, sizeof(name)))
		reply(r, "redis.server %s", name);
}
