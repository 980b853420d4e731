/* SPDX-License-Identifier: MIT */
/*
 * pgr.h - the daemon's data model, shared by its files; the functions of
 * each file are in its own header (README.md: which may call which).
 *
 * One single-threaded libuv loop owns everything: the policy instance,
 * the clients (one per process under the pager) and their regions (the
 * anonymous VMAs the pager has taken over), the page descriptors, the
 * page buffers of its own cache, and the swap file. Each client's
 * userfaultfd, pidfd and control socket are polled by the loop; swap I/O
 * goes through io_uring, whose completions wake the loop via an eventfd.
 * Nothing is shared between threads, so nothing is locked.
 *
 * A page of a region, as its slot word says:
 *
 *   EMPTY ----first touch----> PRESENT (mapped in the client: young)
 *                                 |  ^
 *                     scan: arm   |  | fault: copy back (UFFDIO_COPY)
 *                                 v  |
 *        ARMING: write-protected, copied to a buffer, the agent asked to
 *                MADV_DONTNEED it; faults on it wait. The agent's "done"
 *                settles it by the REMOVE events seen meanwhile: one
 *                (ours) -> ARMED; two (the program dropped it too) ->
 *                EMPTY; none (madvise failed) -> PRESENT again.
 *                                 v
 *                              ARMED (data only in our buffer: old)
 *                                 |  write-out, then eviction
 *                                 v
 *                        SWAP (slot; its shadow in the slot's record)
 *                                 |  fault: read (READING), copy in
 *                                 +------------> PRESENT
 *
 * FOREIGN: present in the client but not charged to it nor on the LRU,
 * like a page the kernel shares copy-on-write. A fork child's pages start
 * so (write-protected: its first write makes the page the child's own,
 * charged); so do pages adoption found present when no page was free.
 */
#ifndef PGR_PGR_H
#define PGR_PGR_H

#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/types.h>
#include <uv.h>

#include "../../policy/pol.h"
#include "../lib/phase.h"
#include "base/base.h"
struct pgr;
struct pgr_ring_ops;
struct ftable;
struct pgr_notif_wait;
struct pgr_swap_store;

/* Something waiting for write-backs to land (file.c): done() runs when
 * the last of the inodes it waits on has none in flight. */
struct pgr_drain {
	unsigned int refs;
	void (*done)(struct pgr *p, struct pgr_drain *d);
};

#define PGR_PAGE	4096
#define PGR_NONE	UINT32_MAX
#define PGR_MAX_AROUND	256		/* fault-around window, pages */
#define PGR_MAX_CLUSTER	6		/* vm.page-cluster: 64 pages */
#define PGR_MAX_CLIENTS	4096		/* fixed: libuv holds their handles */
#define PGR_MAX_ALLOW	16		/* --allow-uid, at most */
#define PGR_VACATED	16		/* moves whose UNMAP is awaited */
#define PGR_MAX_REGION	(1u << 24)	/* pages (64 GiB) of one mapping: a
					 * larger one (a reservation) stays
					 * the kernel's; its slots would cost
					 * the daemon 8 bytes a page */

/* Slot word of a region page: tag in bits 0-1, flags, index in 32-63. */
#define SL_EMPTY	0
#define SL_PAGE		1		/* a page descriptor (bits 32-63) */
#define SL_FOREIGN	2		/* present, but not the pager's (below) */
#define SL_SWAP		3		/* a swap slot (bits 2-63) */
#define SL_ARMING	4		/* page: being armed (see above) */
#define SL_ARMED	8		/* page: not mapped, data in buffer */
#define SL_READING	16		/* page: swap-in in flight */
#define SL_RM1		32		/* arming: one REMOVE seen */
#define SL_RM2		64		/* arming: two or more */
#define SL_FMAPPED	128		/* file region, EMPTY tag: the file's
					 * page is mapped here (its young bit) */
#define SL_FELL		256		/* arming: the agent could not move it
					 * and dropped it by madvise ("fell") */
#define SL_LOCKED	512		/* arming: and its madvise was refused,
					 * the mapping is VM_LOCKED ("locked"):
					 * settled mapped and mlocked */

static inline unsigned int sl_tag(uint64_t s) { return s & 3; }
static inline uint32_t sl_page(uint64_t s) { return (uint32_t)(s >> 32); }
static inline uint32_t sl_swap(uint64_t s) { return (uint32_t)(s >> 2); }
static inline uint64_t sl_of_page(uint32_t i) { return (uint64_t)i << 32 | SL_PAGE; }
static inline uint64_t sl_of_swap(uint32_t slot) { return (uint64_t)slot << 2 | SL_SWAP; }

/* The daemon's page descriptor: the policy's, and where the page is. */
struct dpage {
	struct pol_page pol;
	uint32_t region;	/* region id; PGR_NONE: orphan, free after I/O */
	uint32_t off;		/* page in the region */
	uint32_t buf;		/* buffer with its data, or PGR_NONE */
	uint32_t swap;		/* swap slot it keeps as swap cache, or PGR_NONE */
	uint16_t flags;		/* DP_* */
};

enum {
	DP_READING = 1,		/* a swap read into its buffer in flight */
	DP_FRESH = 2,		/* read from swap, not mapped yet (read
				 * ahead, or its copy-in was refused with
				 * EAGAIN): its first fault is no reference */
	DP_RA = 4,		/* read ahead: its first fault is a hit */
	DP_COPYING = 8,		/* arming: its buffer is not filled yet */
	DP_YOUNG = 16,		/* armed by idle marking while young: the
				 * next scan still sees the reference */
	DP_FILE = 32,		/* a file page: region is its inode (struct
				 * finode), off its page in the file */
	DP_RA_MARK = 64,	/* file: PG_readahead, the next window is
				 * read when this page is first touched */
	DP_STALE = 128,		/* file, READING: a write to the file came
				 * meanwhile; patch it when the read lands */
	DP_WB = 256,		/* file: its write-back is in flight */
	DP_WB_POL = 512,	/* and the policy started it (writeout) */
	DP_WB_AGAIN = 1024,	/* and a flush found it dirtied again since:
				 * write it once more when it lands, before
				 * the flush's drain is answered */
	DP_COWING = 2048,	/* file: being copied for a private mapping's
				 * write (cow()), which may reclaim: reclaim
				 * leaves it be, its young bit and all */
};

/* What became of a fault. */
enum pgr_served {
	PGR_SERVED,		/* resolved (or nothing to do) */
	PGR_PARKED,		/* left waiting: something else wakes it */
	PGR_RETRY,		/* events pending: retry after reading them */
	PGR_NOMEM,		/* OOM killer called: retry when memory frees */
};

/* A fault to serve later. */
struct deferred {
	uint32_t client;
	uint64_t addr;
	bool write, wp;
	bool retry;		/* PGR_RETRY, else PGR_NOMEM */
};

/* An anonymous VMA of a client that the pager owns (registered with the
 * client's userfaultfd for MISSING and WP faults). */
struct region {
	uint64_t start;		/* bytes, page aligned */
	uint64_t end;
	uint64_t *slot;		/* per page */
	uint32_t client;
	uint32_t ra_prev;	/* swap readahead: last swap-in fault */
	unsigned int ra_win;	/* and its window */
	bool live;
	bool filled;		/* a slot was ever other than EMPTY: one
				 * that never was (a reservation) is freed
				 * and forked without a walk of its slots,
				 * which stay zero pages of their mmap */
	bool parked;		/* dead in the kernel, its event not yet
				 * read: out of the client's list (region.c,
				 * "Parked regions") */
	/* A file mapping (file.c): the inode's memfd mapped in the client. */
	uint8_t rflags;		/* R_* */
	uint32_t inode;		/* struct finode index, or PGR_NONE: anon */
	uint64_t pgoff;		/* file page at start */
	unsigned int mmap_miss;	/* read-around off above MMAP_LOTSAMISS */
};

enum {
	R_SHARED = 1,		/* MAP_SHARED: writes go to the file */
	R_WRITE = 2,		/* PROT_WRITE at mmap time */
	R_EXEC = 4,		/* PROT_EXEC: VM_EXEC for the policy */
	R_SEQ_READ = 8,		/* MADV_SEQUENTIAL (VM_SEQ_READ) */
	R_RAND_READ = 16,	/* MADV_RANDOM (VM_RAND_READ) */
};

static inline bool region_is_file(const struct region *r)
{
	return r->inode != PGR_NONE;
}

/* Must a walk of @r's pages look at its slots? Not an anon region none
 * of whose slots was ever written (filled); a file region's pages are
 * the inode's, whatever its slots say. */
static inline bool region_walked(const struct region *r)
{
	return r->filled || region_is_file(r);
}

/* vma_has_recency(): references through a mapping advised sequential
 * or random do not count, and its faults are not "in fault" for MGLRU. */
static inline bool region_has_recency(const struct region *r)
{
	return !(r->rflags & (R_SEQ_READ | R_RAND_READ));
}

/*
 * A cached file (file.c): the pager's page cache of one (device, inode)
 * is a memfd, shared by every client that maps the file, and mapped in
 * the daemon too so reads land there and write-back reads from there.
 */
struct finode {
	bool used;
	uint32_t gen;		/* tells a reused descriptor from its past */
	bool direct;		/* fd is O_DIRECT */
	dev_t dev;
	ino_t ino;
	struct timespec mtime;	/* the file's, when cached: stale if changed */
	uint64_t size;		/* bytes; the memfd's size */
	int fd;			/* for reads; holds the lease if sealed */
	int wfd;		/* O_RDWR, its own description: write-back, and
				 * what a demotion maps; -1 unless watched */
	int bfd;		/* buffered reads of what a writer wrote: the
				 * write-through patches; -1 unless watched */
	int memfd;
	uint32_t coh;		/* FT_SEALED | FT_WATCHED | FT_RW |
				 * FT_HANDED_BACK (lib/ftable.h); 0: just
				 * made, not yet safe to serve */
	uint32_t ft_slot;	/* its entry in the shared table, or NONE */
	bool code;		/* mapped executable once: a sealed one
				 * keeps no open mark (seal.c) */
	bool rw_mapped;		/* mapped shared and writable: the readers
				 * outside were looked for (seal.c); RW is
				 * set when a page is first dirty */
	struct wrange *holds;	/* writes under way (wpre..wpost), or the
				 * whole file while handed back: stores
				 * there wait */
	size_t nr_holds, cap_holds;
	int *fan_waits;		/* opens held until it is handed back */
	size_t nr_fan_waits, cap_fan_waits;
	struct pgr_notif_wait **notif_waits;	/* system calls, likewise */
	size_t nr_notif_waits, cap_notif_waits;
	double demote_start;	/* pgr_now() when handed back */
	bool demote_asked;	/* the agents were asked (once the
				 * write-backs landed) */
	unsigned int wb_inflight;	/* write-backs in flight */
	int wb_err;		/* errno of the last failed write-back */
	uint32_t wb_err_seq;	/* failed write-backs, ever (errseq) */
	struct pgr_drain **drains;	/* waiting for them all to land */
	size_t nr_drains, cap_drains;
	bool gone;		/* handed back: found no more, freed once
				 * its last read lands */
	char *map;		/* the daemon's MAP_SHARED mapping of memfd */
	uint64_t map_pages;	/* its length in pages */
	uint32_t *page;		/* per file page: page descriptor or NONE */
	uint64_t *shadow;	/* per file page: shadow entry, 0: none */
	uint32_t *mappers;	/* regions mapping it */
	size_t nr_mappers, cap_mappers;
	unsigned int ra_pages;	/* its device's read_ahead_kb, in pages */
};

/* A write under way to a cached file: what a client's wpre held. */
struct wrange {
	uint64_t from, to;	/* file pages */
	uint32_t client;	/* whose write: its end lets go */
};

struct range {
	uint64_t start;
	uint64_t end;
	uint64_t id;		/* agent request it belongs to */
	uint64_t orig;		/* a pending range: where the request
				 * named its start (arm.c, move_ranges()) */
};

struct conn;
struct listener;
struct reclaim_req;

/* Per-client counters for `pager stat --pid`. */
struct client_stats {
	uint64_t faults;	/* missing and write-protect faults */
	uint64_t first_touch;	/* pages zero-filled */
	uint64_t swapins;	/* faults that waited for a swap read */
	uint64_t pswpin;	/* pages read, readahead included */
	uint64_t swapouts;
	uint64_t young;		/* refaults of armed pages */
	uint64_t armed;		/* pages armed by the scanner */
};

/* A fault the daemon parked lately (core/watchdog.c names it). */
#define PGR_HELD	16
struct held_fault {
	pid_t tid;
	uint64_t addr;
	bool wp;
};

/* A client thread at the watchdog's last look. */
struct wd_thread {
	pid_t tid;
	char state;
	bool waiting;		/* asleep in handle_userfault */
	bool reported;
	uint64_t faults, cpu;	/* minflt + majflt, utime + stime */
	double since;		/* waiting since (pgr_now()) */
};

struct client {
	bool used;
	pid_t pid;
	int uffd;
	int pidfd;		/* -1 until known */
	int maps_fd;		/* its /proc/PID/maps (maps.c), or -1 */
	int mem_fd;		/* its /proc/PID/mem (maps.c), or -1 */
	int pagemap_fd;		/* its /proc/PID/pagemap (maps.c), or -1 */
	int group;		/* policy group */
	struct conn *conn;	/* the agent's connection, or NULL */
	bool agent_ready;	/* its agent runs: pages may be armed */
	bool agent_moves;	/* it moves them out (UFFDIO_MOVE) */
	pid_t agent;		/* the agent process (it shares the mm), 0 */
	struct conn *life;	/* the program's own connection, or NULL */
	double joined;		/* when (pgr_now()): an agent is awaited a
				 * while before reclaim counts it out */
	uint32_t *regions;	/* ids, sorted by start */
	size_t nr_regions, cap_regions;
	struct range *asked;	/* DONTNEED ranges not yet sent */
	size_t nr_asked, cap_asked;
	struct range *fasked;	/* of those, file pages: nothing to copy */
	size_t nr_fasked, cap_fasked;
	struct range *pending;	/* sent, the agent's "done" not yet seen */
	size_t nr_pending, cap_pending;
	bool pending_remapped;	/* an mremap moved pending ranges: the
				 * agent's answer names the old addresses */
	uint64_t next_request;	/* id of the next request to the agent */
	struct range vacated[PGR_VACATED];	/* old ranges of moves
				 * (REMAP) whose UNMAP is still to come
				 * (events.c), oldest first */
	unsigned int nr_vacated;
	uint32_t *parked;	/* ids of parked regions (region.c) */
	size_t nr_parked, cap_parked;
	struct range *excluded;	/* never adopted: the shim's own memory */
	size_t nr_excluded, cap_excluded;
	uint64_t resident;	/* pages: present, arming or armed */
	uint32_t stalls;	/* its faults waiting on memory (psi.c) */
	uint64_t foreign;	/* FOREIGN slots */
	uint64_t swapped;	/* slots referenced by its regions */
	struct client_stats st;
	bool rescan;		/* /proc/PID/maps may hold new mappings */
	struct held_fault held[PGR_HELD];	/* ring, the last parked */
	unsigned int nr_held;
	struct wd_thread *wd;	/* its threads at the watchdog's look */
	size_t nr_wd;
	struct wb_seen {	/* the write-back errors it was told of */
		uint32_t ino, gen, seq;
	} *wb_seen;
	size_t nr_wb_seen, cap_wb_seen;
	struct range unlocked;	/* munlocked lately: rescued again at
				 * the next ticks (pgr_munlock()) */
	unsigned int unlock_ticks;
	bool warned_outside;	/* told of a zero page outside a region */
	unsigned int grown_waits;	/* a fault's retries for an adoption
					 * put off (fault.c) */
	bool map_limited;	/* told it reached vm.max_map_count */
	uint32_t handed;	/* inode + 1 answered to "file" and not yet
				 * mapped ("mapf"): a user of it meanwhile,
				 * so the shrinker cannot free it; 0: none */
	uint32_t handed_gen;	/* its generation (forgotten meanwhile?) */
	bool doomed;		/* fork child that lost a page: killed once
				 * its pid is known, before any fault */
	pid_t parent;		/* fork child: its parent, for the record */
	bool killed;		/* SIGKILL sent: told once, not again */
	bool cut_off;		/* its agent ended, the process runs on */
	bool io_uring;		/* set up an io_uring: its writes through
				 * it are not seen, so its opens of watched
				 * files count as outsiders' (seal.c) */
	uv_poll_t uffd_poll;
	uv_poll_t pid_poll;
	unsigned int handles;	/* libuv handles not yet closed */
};

/* The swap device: a file read and written with O_DIRECT via io_uring. */
struct swap_rec {
	uint32_t map;		/* references: region slots + swap cache */
	uint32_t cache;		/* page holding it as swap cache, or NONE */
	uint64_t shadow;	/* shadow of its evicted page, 0: none */
	uint64_t sum;		/* checksum of what was written to it */
};

struct pgr_opts {
	uint64_t budget;		/* pages */
	const char *swap;		/* --swap: a file, zram[:ALG],
					 * redis://...; NULL: none */
	uint64_t swap_pages;		/* capacity */
	bool swap_temp;			/* remove the file when done */
	const char *socket_path;
	bool private_mode;		/* exit when the last client leaves */
	int ready_fd;			/* write "ready\n" here, or -1 */
	const char **sets;		/* KEY=VALUE applied at start */
	size_t nr_sets;
	const char *record;		/* --record FILE, or NULL */
	uid_t allow_uids[PGR_MAX_ALLOW];	/* --allow-uid: peers of these
						 * users too (socket 0666) */
	int nr_allow_uids;
};

struct pgr {
	uv_loop_t *loop;
	struct pgr_opts o;
	struct pol *pol;
	struct dpage *pages;
	uint32_t nr_pages;

	struct region *regions;
	uint32_t nr_regions, cap_regions;
	uint32_t *free_regions;
	uint32_t nr_free_regions;

	struct client *clients;
	uint32_t nr_clients, cap_clients;
	uint64_t clients_joined;	/* hellos, ever */
	uint64_t notify_epollerr;	/* transient EPOLLERRs of seccomp
					 * listeners (notify.c), ever */
	struct pgr_call *calls;		/* mmap/brk its agent makes for a
					 * client (watch/call.c) */
	uint64_t next_call;
	uint64_t calls_made;		/* such calls, ever */
	uint64_t zero_outside;		/* zero pages served where no region
					 * was (fault.c), ever */
	uint64_t pages_vanished;	/* pages the kernel dropped with no
					 * event (MADV_GUARD_INSTALL), found
					 * at their next fault, ever */
	uint64_t handback_pages;	/* pages handed back to the kernel
					 * for a program's own userfaultfd
					 * (handback.c), ever */
	uint64_t handback_ranges;	/* and the ranges, ever */
	unsigned int stuck_threads;	/* waiting on the pager past the
					 * watchdog's limit now */
	uint64_t stuck_reports;		/* such waits reported, ever */
	uint64_t pgforeign;	/* pages found present in a mapping
				 * adopted with none free: the kernel's, not
				 * charged (adopt.c), ever */
	bool foreign_warned;
	timer_t recv_guard;	/* bounds a seccomp receive (notify.c) */
	bool recv_guard_ok;	/* told once they passed 1 % of the budget */
	uint64_t arm_moved;	/* armed pages the agents moved out */
	uint64_t arm_fell;	/* ... could not move, and dropped */
	struct pgr_psi psi;		/* memory.pressure (psi.c) */

	/* phase marks (phase.h): the last is open, measured up to now */
	struct pgr_phase *phases;
	size_t nr_phases, cap_phases;

	/* page buffers: the pager's own cache of page contents */
	char *arena;			/* budget pages, reserved */
	uint32_t *free_bufs;		/* a stack */
	uint32_t nr_free_bufs;
	uint32_t bufs_idle;		/* free ones not taken since the last
					 * trim: the bottom of the stack */
	bool *buf_released;		/* its memory went back (MADV_DONTNEED) */

	/* swap (swap.c), its device and the front before it (store.h) */
	const struct pgr_swap_store *swap_dev;
	void *swap_dev_data;
	const struct pgr_swap_store *swap_front;	/* zswap, once enabled */
	void *swap_front_data;
	struct swap_rec *swap;
	uint32_t *swap_free;
	uint32_t nr_swap_free;
	uint64_t swap_used;
	uint64_t zram_mem_limit;	/* knob zram.mem_limit: bytes, 0 */
	bool zswap_enabled;		/* knob zswap.enabled */
	int zswap_comp;			/* knob zswap.compressor: enum pgr_comp */
	unsigned int zswap_max_pool_percent;	/* knob, of the budget */
	unsigned int zswap_accept_thr_percent;	/* knob, of the pool's max */
	uint64_t redis_timeout_ms;	/* knob redis.timeout_ms */
	uint64_t store_goings;		/* its servers' goings seen (oom.c) */

	/* io_uring */
	void *ring;			/* struct io_uring (ring.c) */
	const struct pgr_ring_ops *ring_ops;
	int ring_efd;
	struct pgr_done {		/* I/O done at once (ring.c) */
		uint64_t tag;
		int res;
	} *done;
	size_t nr_done, cap_done;
	uv_poll_t ring_poll;
	uv_prepare_t before_wait;	/* background work, queued I/O sent */
	unsigned int inflight;		/* reads and writes */
	unsigned int writes;		/* of those, write-outs */
	unsigned int ring_swap_writes;	/* of those, to a swap file or
					 * device through the ring */
	uint64_t writes_tick;		/* the tick a write-out last landed,
					 * or the first of a run was sent */

	/* control */
	int listen_fd;
	uv_poll_t listen_poll;
	struct conn *conns;
	struct listener *listeners;	/* seccomp notify fds */
	uv_timer_t tick;		/* rescans, probes, every 100 ms */
	uint64_t ticks;
	uv_timer_t soon;		/* a rescan shortly after an mmap */
	uv_timer_t retry;		/* faults refused with EAGAIN, again */
	uv_timer_t hold;		/* held adoptions, again (adopt.c) */
	bool arm_refused;		/* the last reclaim's arming met
					 * EAGAIN (arm.c) */
	struct adopt_hold *held;	/* adoptions put off (adopt.c) */
	uv_timer_t reap;		/* broken connections, closed (conn.c) */
	uv_signal_t sigterm, sigint;
	bool detached;			/* private: the launcher let go */
	bool stopping;
	pid_t oom_victim;		/* killed, not yet gone */
	unsigned int group_no_progress;	/* limit reclaims that freed nothing */
	int launcher_pidfd;		/* private: the `pager run` that started us */
	uv_poll_t launcher_poll;

	unsigned int fault_around;	/* pages (knobs.c) */
	unsigned int page_cluster;	/* swap readahead: 2^N pages */
	unsigned int spin_us;		/* poll a busy userfaultfd this long */
	/* How long the loop polls an empty descriptor before it sleeps,
	 * learnt from the daemon's waits between messages of each kind
	 * (spin.c): the clients' userfaultfds, program threads'
	 * connections, seccomp listeners. */
	struct pgr_spin uffd_spin, conn_spin, notify_spin;
	unsigned int cpu_latency_us;	/* the request while faults stream */
	struct pgr_cpu_latency cpu_latency;	/* cpu-latency.c */
	unsigned int ra_hits;		/* readahead pages hit since the
					 * last swap-in fault */
	char *zeros;			/* PGR_MAX_AROUND zero pages */
	/* file pages: the inode cache */
	struct finode *files;
	struct pol_inode *pol_inodes;	/* the policy's, same index */
	uint32_t nr_files_max;		/* descriptors allocated */
	uint32_t nr_files_seen;		/* 1 + the highest ever used: the
					 * loops over used ones end there */
	uint32_t nr_files_live;
	struct {
		uint32_t ino;
		uint64_t first, n;
	} punch;			/* evicted, to punch out (file.c) */
	uint32_t file_gen;
	uint32_t max_cached_inodes;	/* knob: live inodes at most */
	uint32_t max_map_count;		/* knob: regions per client at most */
	uint32_t inode_fd_cap;		/* what the descriptor limit allows */
	unsigned int read_ahead_pages;	/* knob read_ahead_kb / 4; 0: each
					 * file's device setting */
	struct ftable *ftable;		/* shared with the shims (ftable.c) */
	int ftable_fd;
	/* coherence with writers of cached files (seal.c, demote.c) */
	int lease_sfd;			/* signalfd: a sealed inode's lease breaks */
	uv_poll_t lease_poll;
	int fan_fd;			/* fanotify: opens of watched inodes,
					 * and of sealed ones (if fan_tid) */
	bool fan_tid;			/* its events name the thread */
	int fan_pipe[2];		/* its thread's events for the loop */
	int fan_stop[2];		/* tells its thread to end */
	pthread_t fan_thread;
	bool fan_started;		/* it runs: confinement may begin */
	uv_poll_t fan_poll;
	unsigned int nr_demoting;	/* inodes being handed back */
	uv_timer_t demote_timer;	/* stragglers: their clients end */
	struct deferred *deferred;
	size_t nr_deferred, cap_deferred;
	struct reclaim_req *reclaims;	/* memory.reclaim under way */
	FILE *rec;			/* --record: the reference stream */
	uint64_t *rec_inodes;		/* inodes declared in it (bits) */
	void *tracers;			/* `pager trace` subscribers */
	size_t nr_tracers, cap_tracers;
};

/* ---- where a page is: the model's own accessors --------------------- */

static inline char *pgr_buf(struct pgr *p, uint32_t buf)
{
	return p->arena + (size_t)buf * PGR_PAGE;
}

/* Is there a swap device (a file, zram or Redis)? */
static inline bool pgr_has_swap(const struct pgr *p)
{
	return p->swap != NULL;
}

static inline uint32_t pgr_client_id(const struct pgr *p,
				     const struct client *c)
{
	return (uint32_t)(c - p->clients);
}

static inline uint32_t region_pages(const struct region *r)
{
	return (uint32_t)((r->end - r->start) / PGR_PAGE);
}

static inline uint64_t region_addr(const struct region *r, uint32_t off)
{
	return r->start + (uint64_t)off * PGR_PAGE;
}

/* The slot, address and client of an anon page (not an orphan, not a
 * file page: those have no region). */
static inline uint64_t *pgr_page_slot(struct pgr *p, uint32_t i)
{
	struct dpage *d = &p->pages[i];

	return &p->regions[d->region].slot[d->off];
}

static inline uint64_t pgr_page_addr(struct pgr *p, uint32_t i)
{
	struct dpage *d = &p->pages[i];

	return region_addr(&p->regions[d->region], d->off);
}

static inline struct client *pgr_page_client(struct pgr *p, uint32_t i)
{
	return &p->clients[p->regions[p->pages[i].region].client];
}

#endif /* PGR_PGR_H */
