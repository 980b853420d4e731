/* SPDX-License-Identifier: MIT */
/*
 * cpu-latency.h - while programs fault in streams, a CPU latency request
 * (PM QoS, as a process holding /dev/cpu_dma_latency open does), so that
 * the CPU a faulting thread sleeps on does not halt.
 *
 * Every fault is a round trip between two CPUs: the program's thread
 * sleeps in the kernel, the daemon answers from another CPU and wakes it.
 * An idle CPU that halted takes long to wake, and on a VM its wakeup is
 * an exit to the host: on this project's 2-vCPU VM, python3 swapping at
 * 96M took 47-53 s with the idle CPUs halting and 14-15 s with them
 * polling (the kernel's memory cgroup: 11 s). The kernel's own faults
 * never cross CPUs, so it pays none of that.
 *
 * The request is the tunable cpu_latency_us (knobs.c): 0, the default,
 * makes idle CPUs poll (cpuidle's poll state); PGR_CPU_LATENCY_NONE
 * (lib/cpu-latency-request.h) asks nothing. It is
 * held only while the daemon serves at least PGR_CPU_LATENCY_EVENTS
 * messages a tick (faults, notified calls), taken at once when a tick
 * reaches that many, and let go at the first tick with fewer or when the
 * last client is gone: idle CPUs burn power polling only while a program
 * waits on the pager.
 */
#ifndef PGR_CPU_LATENCY_H
#define PGR_CPU_LATENCY_H

#include <stdbool.h>
#include <stdint.h>

#include "../../lib/cpu-latency-request.h"

struct pgr;

#define PGR_CPU_LATENCY_EVENTS	64	/* messages a tick (100 ms) */

/* What the request stands at, held or not. */
struct pgr_cpu_latency {
	int fd;			/* /dev/cpu_dma_latency; -1: not held */
	bool failed;		/* cannot open it: said once, not retried */
	uint32_t events;	/* messages served this tick */
	uint64_t held_ms;	/* time held, in all (pager stat) */
};

/* A message served (a fault, a notified call): may take the request. */
void pgr_cpu_latency_event(struct pgr *p);
/* Each tick: let the request go if the tick was quiet. */
void pgr_cpu_latency_tick(struct pgr *p);
/* cpu_latency_us changed: a held request takes the new value. */
void pgr_cpu_latency_set(struct pgr *p);
/* Let the request go (the daemon ends, or a tick was quiet). */
void pgr_cpu_latency_close(struct pgr *p);

#endif
