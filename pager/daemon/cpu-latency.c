/* SPDX-License-Identifier: MIT */
/*
 * cpu-latency.c - the CPU latency request held while faults stream
 * (cpu-latency.h says why).
 *
 * The request is the kernel's PM QoS through its misc device: while the
 * descriptor is open, the value last written (a signed 32-bit count of
 * microseconds) bounds the exit latency of the idle states cpuidle
 * picks; closing it drops the request. It is open only while held, so
 * an idle daemon keeps no descriptor more (hardening.sh counts them).
 *
 * Owns: the descriptor of /dev/cpu_dma_latency while the request is
 * held.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../lib/log.h"
#include "pgr.h"
#include "cpu-latency.h"

#define DEVICE	"/dev/cpu_dma_latency"

/* Hold a request of @us: 0, or -1 (not held). */
static int hold(struct pgr *p, uint32_t us)
{
	struct pgr_cpu_latency *l = &p->cpu_latency;
	int32_t v = (int32_t)us;

	if (l->fd < 0) {
		if (l->failed)
			return -1;
		l->fd = open(DEVICE, O_WRONLY | O_CLOEXEC);
		if (l->fd < 0) {
			l->failed = true;
			pgr_info("cannot open %s (%s): idle CPUs halt while "
				 "programs fault (cpu_latency_us has no "
				 "effect)", DEVICE, strerror(errno));
			return -1;
		}
	}
	if (write(l->fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		pgr_warn_("cannot write %s: %s", DEVICE, strerror(errno));
		pgr_cpu_latency_close(p);
		return -1;
	}
	l->held = true;
	return 0;
}

void pgr_cpu_latency_event(struct pgr *p)
{
	struct pgr_cpu_latency *l = &p->cpu_latency;

	if (++l->events == PGR_CPU_LATENCY_EVENTS && !l->held &&
	    p->cpu_latency_us < PGR_CPU_LATENCY_NONE)
		hold(p, p->cpu_latency_us);
}

void pgr_cpu_latency_tick(struct pgr *p)
{
	struct pgr_cpu_latency *l = &p->cpu_latency;

	if (l->held) {
		l->held_ms += 100;
		if (l->events < PGR_CPU_LATENCY_EVENTS)
			pgr_cpu_latency_close(p);
	}
	l->events = 0;
}

void pgr_cpu_latency_set(struct pgr *p)
{
	if (!p->cpu_latency.held)
		return;
	if (p->cpu_latency_us >= PGR_CPU_LATENCY_NONE)
		pgr_cpu_latency_close(p);
	else
		hold(p, p->cpu_latency_us);
}

void pgr_cpu_latency_close(struct pgr *p)
{
	struct pgr_cpu_latency *l = &p->cpu_latency;

	if (l->fd >= 0)
		close(l->fd);	/* the kernel drops the request */
	l->fd = -1;
	l->held = false;
}
