/* SPDX-License-Identifier: MIT */
/*
 * spin.h - how long the daemon polls an idle descriptor (a client's
 * userfaultfd, a program thread's connection, a seccomp listener) before
 * its loop sleeps: a window that adapts to the waits seen, as KVM's halt
 * polling adapts a vCPU's (virt/kvm/kvm_main.c, kvm_vcpu_halt()).
 *
 * The daemon keeps one window per kind of descriptor, not one per
 * descriptor: a wait is the time from one found empty to the next message
 * of that kind, whoever sent it. Chromium's processes are clients whose
 * own faults are far apart while the daemon's are not: windows per client
 * all fell to 0, and its hot tabs thrashed (seed 000 on Chromium, hot_s
 * 3.8-4.4 s with the fixed poll, 29-33 s), where one per daemon stays as
 * the fixed poll did (3.9 and 4.6 s). No poll at all did not thrash
 * (4.7 s), so why the windows per client did was not found.
 *
 * A wait the window covered keeps it; a wait past the most
 * (fault_spin_us) halves it, and below the start it is 0; a shorter wait
 * the window missed doubles it, from the start up to the most. So a
 * program faulting back to back is answered without the daemon's wakeup,
 * and one whose faults are far apart does not pay a core for a spin that
 * finds nothing. Pure: the caller gives the time.
 */
#ifndef PGR_SPIN_H
#define PGR_SPIN_H

#define PGR_SPIN_GROW_START 10e-6	/* halt_poll_ns_grow_start, 10 us */

struct pgr_spin {
	double window;		/* seconds to poll at the next wait */
	double idle_from;	/* when one was found empty, or 0 */
};

/* The descriptor was found empty at @now (seconds): return until when to
 * poll it, @now itself for no poll. @most caps the window (seconds). */
double pgr_spin_idle(struct pgr_spin *s, double now, double most);

/* A message came at @now: the wait since it was found empty (if it was)
 * grows or shrinks the window. */
void pgr_spin_came(struct pgr_spin *s, double now, double most);

#endif
