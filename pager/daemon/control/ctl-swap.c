/* SPDX-License-Identifier: MIT */
/*
 * ctl-swap.c - `pager stat`'s lines of the swap stores (the store's own:
 * zram's mm_stat, Redis's servers, zswap's debugfs), each store's file
 * saying them (swap.h).
 */
#include "../swap/swap.h"
#include "ctl-req.h"

static void stat_line(void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void stat_line(void *ctx, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	reply_line(ctx, line);
}

void pgr_ctl_stat_swap(struct req *r)
{
	pgr_swap_stat(r->p, stat_line, r);
}

void pgr_ctl_stat_swap_group(struct req *r, int group)
{
	pgr_swap_stat_group(r->p, group, stat_line, r);
}

void pgr_ctl_stat_swap_pid(struct req *r, pid_t pid)
{
	pgr_swap_stat_pid(r->p, (uint64_t)pid, stat_line, r);
}
