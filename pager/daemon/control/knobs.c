/* SPDX-License-Identifier: MIT */
/*
 * knobs.c - the daemon's own tunables: how faults are served, next to the
 * policy's (what reclaim decides), which pol_set() owns. Both answer to
 * `pager set/get` and --set; names follow the kernel's.
 *
 *   fault_around_bytes  (as debugfs fault_around_bytes) first touches are
 *                       zero-filled this many bytes at a time, from the
 *                       faulting page on; rounded down to a power of two.
 *                       256 KiB, not the kernel's 64: a userfaultfd round
 *                       trip costs what 16 native first touches do here
 *   vm.page-cluster     (/proc/sys/vm/page-cluster) a swap-in reads up to
 *                       2^N neighbouring pages of the region that are in
 *                       swap too (the kernel's VMA swap readahead); 0: off
 *   fault_spin_us       after the last message, read a client's
 *                       userfaultfd again at most this long before
 *                       sleeping: a fault that follows soon is served
 *                       without the daemon's wakeup (on a VM, the
 *                       costliest part); the while adapts to the daemon's
 *                       waits as KVM's halt polling does (spin.c)
 *   read_ahead_kb       (as /sys/block/DEV/queue/read_ahead_kb) a file
 *                       page fault reads this much around it (mmap
 *                       read-around, at most 1 MiB at once), and a
 *                       sequential stream the next windows ahead; 0 (the
 *                       default): each file's device's own setting;
 *                       4: off
 *   max_cached_inodes   files the page cache holds at most (each costs
 *                       the daemon two or three descriptors); beyond it
 *                       the inode shrinker runs, and a file that still
 *                       does not fit is left to the kernel (passthrough).
 *                       At most what the descriptor limit allows
 *   vm.max_map_count    (/proc/sys/vm/max_map_count) mappings the pager
 *                       takes over per client at most; the next ones are
 *                       left to the kernel (one warning per client), so
 *                       one program cannot exhaust the daemon
 *   vm.drop_caches      (/proc/sys/vm/drop_caches) writing 1, 2 or 3
 *                       drops every cached file no process maps: its
 *                       pages, shadows and memfd (the kernel's 1 would
 *                       also drop the unmapped pages of mapped files).
 *                       Reads 0
 *   zram.mem_limit      (/sys/block/zram0/mem_limit) with --swap zram,
 *                       the bytes its compressed pages may take at most
 *                       (a size: 64M); a write past it fails and the page
 *                       stays resident. 0 (the default): no limit
 *   redis.timeout_ms    with --swap redis://, a server that leaves a
 *                       command unanswered this long is gone (as nbd's
 *                       timeout): the processes that need its pages stop
 *   zswap.enabled       (/sys/module/zswap/parameters/enabled) Y: pages
 *                       written out go to a compressed pool in front of
 *                       the swap file (zswap.c); N (the default, as
 *                       Debian's kernel): what the pool holds stays
 *                       readable, nothing new enters
 *   zswap.max_pool_percent  the pool's share of the budget at most (20)
 *   zswap.accept_threshold_percent  once full, the pool takes pages again
 *                       below this share of its maximum (90)
 *   zswap.compressor    lzo (the default, as the kernel's Kconfig), lz4
 *                       or zstd, for the pages stored from now on
 *   cpu_latency_us      (as a write to /dev/cpu_dma_latency, PM QoS)
 *                       while programs fault in streams, idle CPUs are
 *                       kept out of idle states slower than this to
 *                       leave: 0, the default, makes them poll, so that
 *                       a thread woken by the daemon's answer finds its
 *                       CPU awake (cpu-latency.h); 2000000000 (the
 *                       kernel's default value): no request
 *
 * Owns: the daemon's own tunables in struct pgr, and the table that names
 * them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/util.h"
#include "../cache/cache.h"
#include "../pgr.h"
#include "../swap/swap.h"
#include "control.h"

enum knob_type {
	NUMBER,
	SIZE,		/* a size, as 64M */
	YES_NO,		/* Y or N (1, 0, y, n), as a module's bool */
	COMPRESSOR,	/* lz4, zstd or lzo */
};

struct knob {
	const char *name;
	uint64_t min, max, def;
	enum knob_type type;
};

static const struct knob knobs[] = {
	{ "fault_around_bytes", 0, PGR_MAX_AROUND * PGR_PAGE, 262144, NUMBER },
	{ "vm.page-cluster", 0, PGR_MAX_CLUSTER, 3, NUMBER },
	{ "fault_spin_us", 0, 1000, 50, NUMBER },
	{ "read_ahead_kb", 0, 65536, 0, NUMBER },
	{ "max_cached_inodes", 1, 65536, 4096, NUMBER },
	{ "vm.drop_caches", 0, 3, 0, NUMBER },
	{ "vm.max_map_count", 16, 1u << 20, 65530, NUMBER },
	{ "zram.mem_limit", 0, 1ULL << 50, 0, SIZE },
	{ "redis.timeout_ms", 10, 3600000, 2000, NUMBER },
	{ "zswap.enabled", 0, 1, 0, YES_NO },
	{ "zswap.max_pool_percent", 0, 100, 20, NUMBER },
	{ "zswap.accept_threshold_percent", 0, 100, 90, NUMBER },
	{ "zswap.compressor", PGR_COMP_LZ4, PGR_COMP_LZO, PGR_COMP_LZO,
	  COMPRESSOR },
	{ "cpu_latency_us", 0, PGR_CPU_LATENCY_NONE, 0, NUMBER },
};

#define NR_KNOBS (sizeof(knobs) / sizeof(knobs[0]))

/* Set knob @k to @v: 0, or -errno with *why. */
static int apply(struct pgr *p, unsigned int k, uint64_t v, const char **why)
{
	switch (k) {
	case 0: {
		uint64_t pages = v / PGR_PAGE, pow = 1;

		while (pow * 2 <= pages)
			pow *= 2;
		p->fault_around = (unsigned int)pow;
		break;
	}
	case 1:
		p->page_cluster = (unsigned int)v;
		break;
	case 2:
		p->spin_us = (unsigned int)v;
		break;
	case 3:
		p->read_ahead_pages = (unsigned int)(v / 4);
		break;
	case 4:
		p->max_cached_inodes = (uint32_t)(v < p->inode_fd_cap ? v :
						  p->inode_fd_cap);
		break;
	case 5:
		if (v)
			pgr_files_drop_unused(p);
		break;
	case 6:
		p->max_map_count = (uint32_t)v;
		break;
	case 7:
		p->zram_mem_limit = v;
		break;
	case 8:
		p->redis_timeout_ms = v;
		break;
	case 9:
		if (pgr_zswap_enable(p, v) == -ENODEV) {
			*why = "zswap sits in front of a swap file: give "
			       "--swap FILE (zram and Redis take pages "
			       "without it)";
			return -EINVAL;
		}
		break;
	case 10:
		p->zswap_max_pool_percent = (unsigned int)v;
		break;
	case 11:
		p->zswap_accept_thr_percent = (unsigned int)v;
		break;
	case 12:
		p->zswap_comp = (int)v;
		break;
	case 13:
		p->cpu_latency_us = (unsigned int)v;
		pgr_cpu_latency_set(p);
		break;
	}
	return 0;
}

static uint64_t value(const struct pgr *p, unsigned int k)
{
	switch (k) {
	case 0:
		return (uint64_t)p->fault_around * PGR_PAGE;
	case 1:
		return p->page_cluster;
	case 3:
		return (uint64_t)p->read_ahead_pages * 4;
	case 4:
		return p->max_cached_inodes;
	case 5:
		return 0;
	case 6:
		return p->max_map_count;
	case 7:
		return p->zram_mem_limit;
	case 8:
		return p->redis_timeout_ms;
	case 9:
		return p->zswap_enabled;
	case 10:
		return p->zswap_max_pool_percent;
	case 11:
		return p->zswap_accept_thr_percent;
	case 12:
		return (uint64_t)p->zswap_comp;
	case 13:
		return p->cpu_latency_us;
	default:
		return p->spin_us;
	}
}

void pgr_knobs_init(struct pgr *p)
{
	const char *why;

	for (unsigned int k = 0; k < NR_KNOBS; k++)
		apply(p, k, knobs[k].def, &why);
}

/* @val as knob @k takes it: 0, or -EINVAL. */
static int parse(unsigned int k, const char *val, uint64_t *v)
{
	enum pgr_comp c;

	switch (knobs[k].type) {
	case SIZE:
		return pgr_parse_size(val, v);
	case YES_NO:
		if (!strcmp(val, "Y") || !strcmp(val, "y") || !strcmp(val, "1"))
			*v = 1;
		else if (!strcmp(val, "N") || !strcmp(val, "n") ||
			 !strcmp(val, "0"))
			*v = 0;
		else
			return -EINVAL;
		return 0;
	case COMPRESSOR:
		if (pgr_comp_parse(val, &c))
			return -EINVAL;
		*v = (uint64_t)c;
		return 0;
	default:
		return pgr_parse_u64(val, v);
	}
}

static int find(const char *key)
{
	for (unsigned int k = 0; k < NR_KNOBS; k++)
		if (!strcmp(key, knobs[k].name))
			return (int)k;
	return -1;
}

int pgr_knob_set(struct pgr *p, const char *key, const char *val,
		 const char **why)
{
	static char msg[96];
	int k = find(key);
	uint64_t v;

	if (k < 0)
		return -ENOENT;
	if (parse((unsigned int)k, val, &v) || v < knobs[k].min ||
	    v > knobs[k].max) {
		if (knobs[k].type == YES_NO)
			*why = "expected Y or N";
		else if (knobs[k].type == COMPRESSOR)
			*why = "expected lz4, zstd or lzo (the compressors "
			       "built in)";
		else {
			snprintf(msg, sizeof(msg),
				 "expected a %s from %llu to %llu",
				 knobs[k].type == SIZE ?
				 "size (bytes, or with K, M, G)" : "number",
				 (unsigned long long)knobs[k].min,
				 (unsigned long long)knobs[k].max);
			*why = msg;
		}
		return -EINVAL;
	}
	return apply(p, (unsigned int)k, v, why);
}

int pgr_knob_get(const struct pgr *p, const char *key, char *buf, size_t len)
{
	int k = find(key);
	uint64_t v;

	if (k < 0)
		return -ENOENT;
	v = value(p, (unsigned int)k);
	if (knobs[k].type == YES_NO)
		snprintf(buf, len, "%s", v ? "Y" : "N");
	else if (knobs[k].type == COMPRESSOR)
		snprintf(buf, len, "%s", pgr_comp_name((enum pgr_comp)v));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return 0;
}

const char *pgr_knob_name(unsigned int i)
{
	return i < NR_KNOBS ? knobs[i].name : NULL;
}

int pgr_tunable_set(struct pgr *p, const char *key, const char *val,
		    const char **why)
{
	int err = pgr_knob_set(p, key, val, why);
	const char *at = strchr(key, '@');

	if (err != -ENOENT)
		return err;
	/* memory.low@NAME of a group no process joined yet: make it, as
	 * mkdir before writing the cgroup's file. */
	if (at && at[1] && !strncmp(key, "memory.", 7) &&
	    pol_group_find(p->pol, at + 1) < 0 &&
	    pol_group_create(p->pol, at + 1, POL_ROOT) < 0) {
		*why = "cannot create the group";
		return -EINVAL;
	}
	return pol_set(p->pol, key, val, why) ? -EINVAL : 0;
}
