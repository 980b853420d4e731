/* SPDX-License-Identifier: MIT */
/*
 * cpu-latency.c - the CPU latency request held while faults stream
 * (cpu-latency.h says why).
 *
 * The request is the kernel's PM QoS (lib/cpu-latency-request.h): held
 * while its descriptor is open, and open only while held, so an idle
 * daemon keeps no descriptor more (hardening.sh counts them).
 *
 * Owns: the descriptor of /dev/cpu_dma_latency while the request is
 * held.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../pgr.h"
#include "base.h"

/* Hold a request of @us, or take the held one to @us. */
static void hold(struct pgr *p, uint32_t us)
{
	struct pgr_cpu_latency *l = &p->cpu_latency;
	int fd;

	if (l->fd < 0 && l->failed)
		return;
	fd = pgr_cpu_latency_request(l->fd, us);
	if (fd >= 0) {
		l->fd = fd;
	} else if (l->fd < 0) {
		l->failed = true;
		pgr_info("cannot hold a request on %s (%s): idle CPUs halt "
			 "while programs fault (cpu_latency_us has no "
			 "effect)", PGR_CPU_LATENCY_DEVICE, strerror(errno));
	} else {
		pgr_warn_("cannot write %s: %s", PGR_CPU_LATENCY_DEVICE,
			  strerror(errno));
		pgr_cpu_latency_close(p);
	}
}

void pgr_cpu_latency_event(struct pgr *p)
{
	struct pgr_cpu_latency *l = &p->cpu_latency;

	if (++l->events == PGR_CPU_LATENCY_EVENTS && l->fd < 0 &&
	    p->cpu_latency_us < PGR_CPU_LATENCY_NONE)
		hold(p, p->cpu_latency_us);
}

void pgr_cpu_latency_tick(struct pgr *p)
{
	struct pgr_cpu_latency *l = &p->cpu_latency;

	if (l->fd >= 0) {
		l->held_ms += 100;
		if (l->events < PGR_CPU_LATENCY_EVENTS)
			pgr_cpu_latency_close(p);
	}
	l->events = 0;
}

void pgr_cpu_latency_set(struct pgr *p)
{
	if (p->cpu_latency.fd < 0)
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
}
