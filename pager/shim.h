/* SPDX-License-Identifier: MIT */
/*
 * shim.h - state of the preload shim, shared by its two files. The shim
 * lives inside programs whose memory the pager manages, so everything its
 * agent thread touches is static, in the shim's own (excluded) data, or
 * on a stack the pager never adopts.
 */
#ifndef PGR_SHIM_H
#define PGR_SHIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "wire.h"

#define SHIM_STACK	(256 * 1024)

struct shim {
	bool on;		/* connected to a daemon */
	bool files;		/* its userfaultfd can serve file pages */
	int uffd;		/* our own copy: faults wait if the daemon dies */
	int agent_fd;		/* hello connection: the agent's channel */
	int sync_fd;		/* requests from program threads, -1 until used */
	pthread_mutex_t sync_lock;
	char *beacon;		/* a page kept empty: a fork child's first
				 * fault on it tells the daemon its pid */
	char *stack;		/* the agent's stack */
	char socket[108];
	char group[64];
};

extern struct shim shim;

/* shim-agent.c */
/* Start the agent thread on shim.stack. Return 0 or -errno. */
int shim_agent_start(void);

/* Raw mmap with the marker flag: not notified, not adopted if excluded. */
void *shim_mmap(size_t len);
/* Print "pager: MESSAGE" on stderr with write(2) alone. */
void shim_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* PGR_SHIM_H */
