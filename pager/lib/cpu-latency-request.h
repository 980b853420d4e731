/* SPDX-License-Identifier: MIT */
/*
 * cpu-latency-request.h - a CPU latency request (the kernel's PM QoS),
 * as the daemon holds one while programs fault and `pager experiment`
 * and bench-daemon hold one for every run they time.
 *
 * While the descriptor of /dev/cpu_dma_latency is open, the value last
 * written to it (a signed 32-bit count of microseconds) bounds the exit
 * latency of the idle states cpuidle picks (0: idle CPUs poll); closing
 * it drops the request.
 */
#ifndef PGR_CPU_LATENCY_REQUEST_H
#define PGR_CPU_LATENCY_REQUEST_H

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#define PGR_CPU_LATENCY_DEVICE	"/dev/cpu_dma_latency"
/* The kernel's PM_QOS_CPU_LATENCY_DEFAULT_VALUE: no request. */
#define PGR_CPU_LATENCY_NONE	2000000000u

/* Write a request of @us to @fd, open already or -1 to open it now:
 * the descriptor that holds it, or -1 and errno (nothing left open). */
static inline int pgr_cpu_latency_request(int fd, uint32_t us)
{
	int32_t v = (int32_t)us;
	int opened = fd < 0;

	if (opened)
		fd = open(PGR_CPU_LATENCY_DEVICE, O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		if (opened)
			close(fd);
		return -1;
	}
	return fd;
}

#endif
