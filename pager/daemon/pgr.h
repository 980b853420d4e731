/* SPDX-License-Identifier: MIT */
/*
 * pgr.h - the daemon's data model, shared by its files.
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
#include <stdio.h>
#include <sys/types.h>
#include <uv.h>

#include "../../policy/pol.h"
#include "../lib/phase.h"
#include "../lib/wire.h"
#include "ring.h"

#define PGR_PAGE	4096
#define PGR_NONE	UINT32_MAX
#define PGR_MAX_AROUND	256		/* fault-around window, pages */
#define PGR_MAX_CLUSTER	6		/* vm.page-cluster: 64 pages */
#define PGR_MAX_CLIENTS	4096		/* fixed: libuv holds their handles */
#define PGR_MAX_ALLOW	16		/* --allow-uid, at most */
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
	uint8_t flags;		/* DP_* */
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
};

static inline bool region_is_file(const struct region *r)
{
	return r->inode != PGR_NONE;
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
	int fd;			/* for reads */
	int wfd;		/* for write-back; -1 until a writable mapping */
	int memfd;
	char *map;		/* the daemon's MAP_SHARED mapping of memfd */
	uint64_t map_pages;	/* its length in pages */
	uint32_t *page;		/* per file page: page descriptor or NONE */
	uint64_t *shadow;	/* per file page: shadow entry, 0: none */
	uint32_t *mappers;	/* regions mapping it */
	size_t nr_mappers, cap_mappers;
	unsigned int ra_pages;	/* its device's read_ahead_kb, in pages */
};

struct range {
	uint64_t start;
	uint64_t end;
	uint64_t id;		/* agent request it belongs to */
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

struct client {
	bool used;
	pid_t pid;
	int uffd;
	int pidfd;		/* -1 until known */
	int group;		/* policy group */
	struct conn *conn;	/* the shim's connection (agent), or NULL */
	bool agent_ready;	/* its agent runs: pages may be armed */
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
	uint64_t next_request;	/* id of the next request to the agent */
	struct range *excluded;	/* never adopted: the shim's own memory */
	size_t nr_excluded, cap_excluded;
	uint64_t resident;	/* pages: present, arming or armed */
	uint64_t foreign;	/* FOREIGN slots */
	uint64_t swapped;	/* slots referenced by its regions */
	struct client_stats st;
	bool rescan;		/* /proc/PID/maps may hold new mappings */
	bool map_limited;	/* told it reached vm.max_map_count */
	uint32_t handed;	/* inode + 1 answered to "file" and not yet
				 * mapped ("mapf"): a user of it meanwhile,
				 * so the shrinker cannot free it; 0: none */
	uint32_t handed_gen;	/* its generation (forgotten meanwhile?) */
	bool doomed;		/* fork child that lost a page: killed once
				 * its pid is known, before any fault */
	pid_t parent;		/* fork child: its parent, for the record */
	bool cut_off;		/* closed its agent's connection, runs on */
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
	const char *swap_path;		/* NULL: none */
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

	/* swap */
	int swap_fd;
	struct swap_rec *swap;
	uint32_t *swap_free;
	uint32_t nr_swap_free;
	uint64_t swap_used;

	/* io_uring */
	void *ring;			/* struct io_uring (ring.c) */
	const struct pgr_ring_ops *ring_ops;
	int ring_efd;
	uv_poll_t ring_poll;
	uv_prepare_t before_wait;	/* background work, queued I/O sent */
	unsigned int inflight;		/* reads and writes */
	unsigned int writes;		/* of those, write-outs */

	/* control */
	int listen_fd;
	uv_poll_t listen_poll;
	struct conn *conns;
	struct listener *listeners;	/* seccomp notify fds */
	uv_timer_t tick;		/* rescans, probes, every 100 ms */
	uint64_t ticks;
	uv_timer_t soon;		/* a rescan shortly after an mmap */
	uv_timer_t retry;		/* faults refused with EAGAIN, again */
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
	unsigned int ra_hits;		/* readahead pages hit since the
					 * last swap-in fault */
	char *zeros;			/* PGR_MAX_AROUND zero pages */
	/* file pages: the inode cache */
	struct finode *files;
	struct pol_inode *pol_inodes;	/* the policy's, same index */
	uint32_t nr_files_max;		/* descriptors allocated */
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
	struct deferred *deferred;
	size_t nr_deferred, cap_deferred;
	struct reclaim_req *reclaims;	/* memory.reclaim under way */
	FILE *rec;			/* --record: the reference stream */
	uint64_t *rec_inodes;		/* inodes declared in it (bits) */
	void *tracers;			/* `pager trace` subscribers */
	size_t nr_tracers, cap_tracers;
};

/* confine.c */
/* After setup: capabilities cut, no_new_privs, a seccomp allowlist. */
int pgr_confine(void);

/* daemon.c */
int pgr_daemon_run(const struct pgr_opts *o);
/* Set a daemon up as @o says (no socket, no swap, no record) and take it
 * down: 0 if every option and setting is taken, else 1 with the reason
 * logged. For `pager daemon --check`. */
int pgr_daemon_check(const struct pgr_opts *o);
/* Set up a daemon on @loop without running it (socket_path NULL: no
 * listener; the fuzzer's way in), and take it down. */
struct pgr *pgr_daemon_new(const struct pgr_opts *o, uv_loop_t *loop);
void pgr_daemon_free(struct pgr *p);
void pgr_stop(struct pgr *p);

/* client.c */
struct client *pgr_client_new(struct pgr *p, pid_t pid, int uffd);
struct client *pgr_client_find(struct pgr *p, pid_t pid);
struct client *pgr_client_by_uffd(struct pgr *p, int uffd);
void pgr_client_gone(struct pgr *p, struct client *c, const char *why);
/* Has @c's mm gone (exit or exec)? */
bool pgr_client_mm_gone(const struct client *c);
/* @c's process closed its agent's connection and runs on. */
void pgr_client_cut_off(struct pgr *p, struct client *c);
uint32_t pgr_client_id(const struct pgr *p, const struct client *c);
unsigned int pgr_nr_clients(const struct pgr *p);
/* Arm the client's uffd and pidfd polls. */
int pgr_client_watch(struct pgr *p, struct client *c);
int pgr_client_set_pid(struct pgr *p, struct client *c, pid_t pid);
/* Out of memory in @group: SIGKILL the client with the highest badness
 * (resident pages + swap entries) in it, and say so. @for_client is the
 * one whose fault needed the page (for the message). */
void pgr_oom(struct pgr *p, int group, struct client *for_client);
/* End @c (SIGKILL) with a reason, e.g. a failed swap read. */
void pgr_kill(struct pgr *p, struct client *c, const char *why);

/* region.c */
/* May @c have one more region of @pages (vm.max_map_count, and
 * PGR_MAX_REGION)? Warns once if not. */
bool pgr_region_room(struct pgr *p, struct client *c, uint64_t pages);
uint32_t pgr_region_new(struct pgr *p, struct client *c, uint64_t start,
			uint64_t end);
struct region *pgr_region_find(struct pgr *p, struct client *c,
			       uint64_t addr, uint32_t *id);
/* Take over [start, end) of @c: register it, adopt present pages. */
int pgr_adopt(struct pgr *p, struct client *c, uint64_t start, uint64_t end);
/* Adopt every private anonymous mapping of @c not yet owned. */
int pgr_adopt_maps(struct pgr *p, struct client *c);
/* Forget [start, end) of @c's regions: pages freed, slots dropped. */
void pgr_discard(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t end, bool unmapped);
/* The mapping moved (mremap). */
void pgr_remap(struct pgr *p, struct client *c, uint64_t from, uint64_t to,
	       uint64_t len);
/* Copy @parent's regions into @child (fork). */
int pgr_fork_regions(struct pgr *p, struct client *parent,
		     struct client *child);
void pgr_region_drop_all(struct pgr *p, struct client *c);

/* fault.c */
/* Count a fault @c took (pgfault, and pgmajfault if it waited for I/O). */
void pgr_count_fault(struct pgr *p, struct client *c, bool major);
/* Take a free page for @c, reclaiming as the kernel's allocator would. */
enum pgr_served pgr_alloc(struct pgr *p, struct client *c, uint32_t *page);
void pgr_uffd_ready(struct pgr *p, struct client *c);
enum pgr_served pgr_fault(struct pgr *p, struct client *c, uint64_t addr,
			  bool write, bool wp);
/* Serve a fault later: @s is PGR_RETRY (events were pending: again in a
 * millisecond, once the thread that caused them has run) or PGR_NOMEM
 * (when memory is freed). */
void pgr_defer(struct pgr *p, struct client *c, uint64_t addr, bool write,
	       bool wp, enum pgr_served s);
/* Retry the deferred faults of @c (NULL: of everyone). */
void pgr_retry_deferred(struct pgr *p, struct client *c);
/* Is reclaim work under way: write-outs, or the agents' DONTNEEDs? Its
 * completion lets the next reclaim pass free pages. */
bool pgr_in_flight(const struct pgr *p);
/* Wake the threads waiting on faults of @c in [start, end). */
void pgr_wake(struct pgr *p, struct client *c, uint64_t start, uint64_t end);
void pgr_swapin_done(struct pgr *p, uint32_t page, int res);
/* A REMOVE event: the program's MADV_DONTNEED/REMOVE, or the agent's. */
void pgr_removed(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t end);

/* backend.c */
extern const struct pol_backend pgr_backend;
uint32_t pgr_buf_get(struct pgr *p);
void pgr_buf_put(struct pgr *p, uint32_t buf);
/* Give back the memory of buffers idle since the last call. */
void pgr_bufs_trim(struct pgr *p);
static inline char *pgr_buf(struct pgr *p, uint32_t buf)
{
	return p->arena + (size_t)buf * PGR_PAGE;
}
/* Arm present page @i (it joins its client's batch); 0 or -EAGAIN. */
int pgr_arm(struct pgr *p, uint32_t page);
/* Send the DONTNEED batches the scans asked for. */
void pgr_flush_asks(struct pgr *p);
/* The agent finished request @id: settle the pages it covered. */
void pgr_agent_done(struct pgr *p, struct client *c, uint64_t id);
/* Is page @i clean with a copy in swap? Then it is mapped write-protected,
 * so that its first write (a write-protect fault) dirties it. */
bool pgr_page_clean_cached(const struct pgr *p, uint32_t page);
/* Free a page descriptor (and its buffer, swap cache) with the policy. */
void pgr_page_free(struct pgr *p, uint32_t page);
/* Give back @page's buffer, unless a write-out still reads it: then
 * pgr_writeout_done() gives it back. */
void pgr_page_buf_release(struct pgr *p, uint32_t page);
void pgr_writeout_done(struct pgr *p, uint32_t page, int res);

/* file.c: file pages in the pager's page cache */
int pgr_files_init(struct pgr *p);
void pgr_files_release(struct pgr *p);
/* vm.drop_caches: forget every cached file no client maps. */
void pgr_files_drop_unused(struct pgr *p);
/* The inode cache entry for the regular file @fd, created or refreshed;
 * its index, or -errno (*why says why). */
int pgr_file_get(struct pgr *p, struct client *c, int fd, bool writable,
		 const char **why);
/* A memfd descriptor the client may map: read-only unless @rw. */
int pgr_file_memfd(struct pgr *p, uint32_t ino, bool rw);
/* @c mapped the memfd of @ino at [start, start + len): own it. */
int pgr_file_map(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t len, uint32_t ino, uint32_t gen, uint64_t pgoff,
		 uint8_t rflags, const char **why);
enum pgr_served pgr_file_fault(struct pgr *p, struct client *c, uint32_t rid,
			       uint32_t off, bool write, bool wp);
void pgr_file_read_done(struct pgr *p, void *rec, int res);
/* Write dirty pages [from, to) of @ino back (msync, munmap, exit). Each
 * is write-protected in every mapping but region @except (going away)
 * first; where that worked it is clean after. */
void pgr_file_flush(struct pgr *p, uint32_t ino, uint64_t from, uint64_t to,
		    uint32_t except);
/* Slot @off of file region @rid is unmapped (munmap, MADV_DONTNEED): a
 * young mapping passes its reference on, as zap_pte_range() does. */
void pgr_file_zap(struct pgr *p, uint32_t rid, uint32_t off);
/* The region's mapping of the file is going (region.c). */
void pgr_file_unmap_region(struct pgr *p, uint32_t rid);
void pgr_file_add_mapper(struct pgr *p, uint32_t rid);
/* Inode @ino was answered to @c's "file": keep it until its "mapf" (or
 * the next "file", or the client's end) calls pgr_file_unhand(). */
void pgr_file_hand(struct pgr *p, struct client *c, uint32_t ino);
void pgr_file_unhand(struct pgr *p, struct client *c);
/* msync of [start, end) of @c. */
void pgr_file_msync(struct pgr *p, struct client *c, uint64_t start,
		    uint64_t end);
/* backend operations on file pages */
void pgr_file_young(struct pgr *p, uint32_t i, struct pol_refs *refs);
void pgr_file_arm(struct pgr *p, uint32_t i);
int pgr_file_unmap(struct pgr *p, uint32_t i);
enum pol_writeout pgr_file_writeout(struct pgr *p, uint32_t i);
int pgr_file_evict(struct pgr *p, uint32_t i, uint64_t shadow);
void pgr_file_punch_flush(struct pgr *p);
uint32_t pgr_file_invalidate(struct pgr *p, uint32_t ino);
void pgr_file_free_inode(struct pgr *p, uint32_t ino);
/* Queue [addr, addr + page) of @c for a DONTNEED that keeps no copy. */
void pgr_ask_file(struct client *c, uint64_t addr);

/* swap.c */
int pgr_swap_open(struct pgr *p);
void pgr_swap_close(struct pgr *p);
uint32_t pgr_swap_alloc(struct pgr *p);
void pgr_swap_put(struct pgr *p, uint32_t slot);
/* vm_swap_full(): more than half the slots used. */
bool pgr_swap_half_full(const struct pgr *p);
/* Does @buf, read from @slot, hold what was written there? */
bool pgr_swap_verify(const struct pgr *p, uint32_t slot, const char *buf);
/* Queue an O_DIRECT read or write of @page's buffer from/to @slot; it is
 * submitted before the loop next waits. */
int pgr_swap_io(struct pgr *p, uint32_t page, uint32_t slot, bool write);

/* notify.c */
int pgr_notify_start(struct pgr *p, int fd);
void pgr_notify_stop(struct pgr *p);
/* Adopt new mappings of clients flagged for a rescan. */
void pgr_rescan(struct pgr *p);

/* proactive.c: memory.reclaim and idle page marking */
/* Reclaim @bytes from @group, answering on @conn when done or failed. */
void pgr_reclaim_start(struct pgr *p, struct conn *conn, int group,
		       uint64_t bytes);
/* Go on with reclaims under way (after completions). */
void pgr_reclaim_step(struct pgr *p);
void pgr_reclaim_cancel(struct pgr *p, struct conn *conn);
/* Arm every present page of @c; return how many. */
uint64_t pgr_idle_client(struct pgr *p, struct client *c);

/* record.c: `pager run --record`, the run in `pager sim`'s format */
int pgr_record_open(struct pgr *p, const char *path);
void pgr_record_close(struct pgr *p);
/* A line (a newline is added), if recording. */
void pgr_rec(struct pgr *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pgr_rec_set(struct pgr *p, const char *key, const char *val);
void pgr_rec_access(struct pgr *p, const struct client *c, uint64_t addr,
		    uint64_t pages, bool write);
void pgr_rec_mmap(struct pgr *p, const struct client *c,
		  const struct region *r);

/* tracing.c: `pager trace`, the policy's events as mm_vmscan_* lines */
/* Parse a comma-separated event list ("" or "all": every one). */
int pgr_trace_mask(const char *list, uint32_t *mask, const char **why);
void pgr_trace_start(struct pgr *p, struct conn *c, uint32_t mask);
void pgr_trace_drop(struct pgr *p, struct conn *c);
void pgr_trace_event(struct pgr *p, const struct pol_event *ev);
/* Send what the subscribers gathered (before the loop waits). */
void pgr_trace_flush(struct pgr *p);
/* Phase marks (`phase NAME`): a name the record's and the simulator's
 * formats take as one word. */
#define PGR_PHASE_NAME_MAX 63
bool pgr_phase_name_ok(const char *name);
void pgr_trace_mark(struct pgr *p, const char *name);

/* conn.c */
int pgr_listen(struct pgr *p);
/* Serve the control protocol on connected socket @fd (peer: its pid). */
struct conn *pgr_conn_open(struct pgr *p, int fd, pid_t peer);
void pgr_conns_close(struct pgr *p);
/* Send a line (a newline is added); on failure the connection closes. */
int pgr_conn_send(struct conn *c, const char *line);
/* Send @len bytes as they are (lines, newlines included). */
int pgr_conn_send_bytes(struct conn *c, const char *buf, size_t len);
/* Send a line with a file descriptor. */
int pgr_conn_send_fd(struct conn *c, const char *line, int fd);
/* @c speaks for @cl; @agent: it is the shim's agent channel. */
void pgr_conn_set_client(struct conn *c, struct client *cl, bool agent);
struct client *pgr_conn_client(struct conn *c);
/* The process at the other end (SO_PEERCRED). */
pid_t pgr_conn_peer(const struct conn *c);
void pgr_conn_detach_client(struct conn *c);
int pgr_conn_take_fd(struct conn *c);

/* knobs.c: the daemon's tunables (the policy has its own) */
void pgr_knobs_init(struct pgr *p);
/* Set @key to @val: 0, -ENOENT (not a knob of ours), -EINVAL (*why). */
int pgr_knob_set(struct pgr *p, const char *key, const char *val,
		 const char **why);
int pgr_knob_get(const struct pgr *p, const char *key, char *buf,
		 size_t len);
const char *pgr_knob_name(unsigned int i);
/* Either kind of tunable, as `pager set` and --set take them. */
int pgr_tunable_set(struct pgr *p, const char *key, const char *val,
		    const char **why);

/* ctl.c: the text protocol's commands */
void pgr_ctl_command(struct pgr *p, struct conn *c, char *line);

#endif /* PGR_PGR_H */
