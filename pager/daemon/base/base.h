/* SPDX-License-Identifier: MIT */
/*
 * base.h - what base/ offers the other parts: the daemon's plumbing:
 * io_uring, --record, PSI, the idle spin, the CPU latency request,
 * confinement.
 *
 * One section per file of the part. What a file keeps to the part is
 * not here: it is in a header only the part includes, or in the file.
 */
#ifndef PGR_DAEMON_BASE_H
#define PGR_DAEMON_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../../lib/cpu-latency-request.h"

struct pgr;
struct client;
struct region;

/*
 * ---- confine.c ----
 * What the daemon gives up once it is set up.
 */

/* After setup: capabilities cut, no_new_privs, a seccomp allowlist. */
int pgr_confine(bool net);

/*
 * ---- nspid.c ----
 * Process ids as the daemon knows them: /proc/PID/status's, and those a
 * client gives in its own PID namespace, as the daemon's.
 */

/* The number after "@key:" in /proc/@pid/status ("PPid", "Tgid"), or 0. */
pid_t pgr_status_pid(pid_t pid, const char *key);
/* The process of thread @tid (@tid itself if it cannot be read). */
pid_t pgr_tgid_of(pid_t tid);

/* Is @said what process @pid (the daemon's number) calls itself, in the
 * daemon's namespace or its own innermost one? */
bool pgr_ns_is(pid_t pid, pid_t said);
/* Is @pid in a PID namespace below the daemon's? */
bool pgr_ns_nested(pid_t pid);
/* The daemon's number for the process of @near's PID namespace that calls
 * itself @said (an agent, an orphan of the namespace's reaper): @said
 * itself if @near is in the daemon's namespace, 0 if none. */
pid_t pgr_ns_find(pid_t near, pid_t said);
/* The children of @parent that call themselves @said and are not @taken
 * (for a fork child's first fault), the daemon's numbers of the first
 * @max in @out: how many. More than one: children each cloned into a PID
 * namespace of their own are all 1 there. */
int pgr_ns_children(pid_t parent, pid_t said,
		    bool (*taken)(void *arg, pid_t pid), void *arg,
		    pid_t *out, int max);

/*
 * ---- cpu-latency.c ----
 * While programs fault in streams, a CPU latency request (PM QoS, as a
 * process holding /dev/cpu_dma_latency open does), so that the CPU a
 * faulting thread sleeps on does not halt.
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

/*
 * ---- psi.c ----
 * Memory pressure as the kernel's PSI reports it in memory.pressure: the
 * share of wall time in which some, or all, processes under the pager
 * waited on memory.
 */

/* What memory.pressure keeps: the state since the last change, the
 * stalled time in total and its running averages (percent). */
struct pgr_psi {
	uint32_t nr_clients;	/* clients joined and not gone */
	uint32_t nr_stalled;	/* clients with a stall */
	int state;		/* PSI_SOME | PSI_FULL since @since */
	double since;		/* seconds (pgr_now()) */
	double total[2];	/* seconds stalled: some, full */
	double avg[2][3];	/* percent over 10, 60, 300 s */
	double avg_at, avg_total[2];	/* the averages' last update */
	struct psi_read { uint32_t page, client; } *reads;
	size_t nr_reads, cap_reads;	/* fault reads in flight */
};

/* A stall of @c begins (@delta 1) or ends (-1): a fault of it waits for
 * memory to be freed or for its page to be read back. */
void pgr_psi_stall(struct pgr *p, struct client *c, int delta);
/* A swap read of page @i that a fault of @c waits for starts; ends. */
void pgr_psi_read_start(struct pgr *p, struct client *c, uint32_t i);
void pgr_psi_read_done(struct pgr *p, uint32_t i);
/* A client joins ("full" counts them all); @c ends, its stalls with it. */
void pgr_psi_join(struct pgr *p);
void pgr_psi_forget(struct pgr *p, struct client *c);
/* The state brought up to now. */
void pgr_psi_update(struct pgr *p);
/* From the tick: the averages every 2 s, as the kernel's. */
void pgr_psi_tick(struct pgr *p);
/* memory.pressure.{some,full}.{avg10,avg60,avg300,total} lines, total
 * in microseconds. */
void pgr_psi_lines(struct pgr *p, void (*line)(void *, const char *),
		   void *arg);
/* The two lines of memory.pressure, in the kernel's format. */
void pgr_psi_file(struct pgr *p, void (*line)(void *, const char *),
		  void *arg);

/*
 * ---- record.c ----
 * `pager run --record`, the run in `pager sim`'s format.
 */

int pgr_record_open(struct pgr *p, const char *path);
void pgr_record_close(struct pgr *p);
/* A line (a newline is added), if recording. */
void pgr_rec(struct pgr *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pgr_rec_set(struct pgr *p, const char *key, const char *val);
void pgr_rec_access(struct pgr *p, const struct client *c, uint64_t addr,
		    uint64_t pages, bool write);
void pgr_rec_madvise(struct pgr *p, const struct client *c, uint64_t addr,
		     uint64_t len, uint8_t advice);
void pgr_rec_mmap(struct pgr *p, const struct client *c,
		  const struct region *r);

/*
 * ---- ring.c ----
 * The daemon's io_uring (ring.c): I/O queued, submitted before the loop
 * waits, completions handed to the handler of their kind.
 */

enum pgr_io_kind {
	PGR_IO_SWAP_READ,	/* arg: the page whose buffer is read into */
	PGR_IO_SWAP_WRITE,	/* arg: the page written out */
	PGR_IO_FILE_READ,	/* arg: the reader's record, 8-byte aligned */
	PGR_IO_FILE_WRITE,	/* arg: inode << 40 | file page written back */
	PGR_IO_KINDS
};

/* What the ring calls: a completion's handler by its kind (@res is the
 * CQE's: bytes, or -errno), then after() once a reap has handed on all it
 * found. A store that does its own I/O (Redis) is pushed and polled with
 * the ring: submit() when the ring submits, poll() when it looks for
 * completions (either may be NULL). They are the ring's handlers, so
 * that the ring includes no store. */
struct pgr_ring_ops {
	void (*done[PGR_IO_KINDS])(struct pgr *p, uint64_t arg, int res);
	void (*after)(struct pgr *p);
	void (*submit)(struct pgr *p);
	void (*poll)(struct pgr *p);
};

int pgr_ring_open(struct pgr *p, const struct pgr_ring_ops *ops);
void pgr_ring_close(struct pgr *p);
/* Queue a read (or write) of @len bytes at @off of @fd to (from) @buf;
 * submitted before the loop next waits. 0, or -EBUSY (the ring is full
 * even after a submit). */
int pgr_ring_queue(struct pgr *p, int fd, void *buf, size_t len, off_t off,
		   bool write, enum pgr_io_kind kind, uint64_t arg);
/* I/O done already, with result @res (a store without a device): its
 * completion is handed on when the loop next reaps, as the ring's are. */
void pgr_ring_done(struct pgr *p, bool write, enum pgr_io_kind kind,
		   uint64_t arg, int res);
/* The same in two steps, for a store that answers later (redis.c): I/O
 * in flight from _start() on, its completion handed on as the ring's
 * when the loop next reaps after _finish(). */
void pgr_ring_start(struct pgr *p, bool write);
void pgr_ring_finish(struct pgr *p, enum pgr_io_kind kind, uint64_t arg,
		     int res);
/* Submit the I/O queued so far. */
void pgr_ring_submit(struct pgr *p);
/* Are completions waiting to be reaped? */
bool pgr_ring_completed(struct pgr *p);
/* Hand every completion to its handler, then call after(). */
void pgr_ring_reap(struct pgr *p);

/*
 * ---- spin.c ----
 * How long the daemon polls an idle descriptor (a client's userfaultfd, a
 * program thread's connection, a seccomp listener) before its loop sleeps:
 * a window that adapts to the waits seen, as KVM's halt polling adapts a
 * vCPU's (virt/kvm/kvm_main.c, kvm_vcpu_halt()).
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

#endif /* PGR_DAEMON_BASE_H */
