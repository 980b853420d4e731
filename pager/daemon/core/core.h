/* SPDX-License-Identifier: MIT */
/*
 * core.h - what core/ offers the other parts: the fault path: a process
 * from hello to exit, its regions, faults, arming, the policy's backend,
 * page descriptors, the OOM killer.
 *
 * One section per file of the part. What a file keeps to the part is
 * not here: it is in a header only the part includes, or in the file.
 */
#ifndef PGR_DAEMON_CORE_H
#define PGR_DAEMON_CORE_H

#include "../pgr.h"

/*
 * ---- arm.c ----
 * Arming pages (the emulated young bit) through the agents.
 */

/* Arm present page @i (it joins its client's batch); 0 or -EAGAIN. */
int pgr_arm(struct pgr *p, uint32_t page);
/* Queue [addr, addr + page) of @c for a DONTNEED that keeps no copy. */
void pgr_ask_file(struct client *c, uint64_t addr);
/* Send the DONTNEED batches the scans asked for. */
void pgr_flush_asks(struct pgr *p);
/* A line (with @fd, if not -1) for @c's agent: 0 or -errno. */
int pgr_agent_send(struct client *c, const char *line, int fd);
/* [from, from + len) of @c moved to @to (mremap): the pages being armed
 * there are found at their new addresses when the agent answers (its
 * madvise of the old range met nothing: they stay mapped). */
void pgr_arm_moved(struct client *c, uint64_t from, uint64_t to, uint64_t len);
/* How the agent's answer says it dropped a request's pages. */
enum agent_drop {
	DROP_MADVISED,	/* "done": MADV_DONTNEED (or nothing, no agent) */
	DROP_MOVED,	/* "moved": UFFDIO_MOVE, but the "fell" pages */
	DROP_UNKNOWN,	/* the agent is gone: the page tables tell */
};
/* The agent finished request @id: settle the pages it covered. */
void pgr_agent_done(struct pgr *p, struct client *c, uint64_t id,
		    enum agent_drop how);
/* "fell ID START LEN": pages of request @id the agent dropped by
 * madvise, not moved, at the addresses the request named (@flag
 * SL_FELL); "locked ID START LEN": pages it could neither move nor drop,
 * as their mapping is mlocked (@flag SL_FELL | SL_LOCKED). */
void pgr_agent_fell(struct pgr *p, struct client *c, uint64_t id,
		    uint64_t start, uint64_t len, uint64_t flag);

/*
 * ---- backend.c ----
 * What the policy's decisions become (struct pol_backend).
 */

extern const struct pol_backend pgr_backend;
/* The write-out of @page completed with @res. */
void pgr_writeout_done(struct pgr *p, uint32_t page, int res);

/*
 * ---- client.c ----
 * The processes under the pager, from hello (or fork) to exit.
 */

struct client *pgr_client_new(struct pgr *p, pid_t pid, int uffd);
struct client *pgr_client_find(struct pgr *p, pid_t pid);
/* The client whose agent process is @agent. */
struct client *pgr_client_of_agent(struct pgr *p, pid_t agent);
void pgr_client_gone(struct pgr *p, struct client *c, const char *why);
/* Has @c's mm gone (exit or exec)? Only once its agent, which holds the
 * mm too, is gone. */
bool pgr_client_mm_gone(const struct client *c);
/* @c's agent ended, and its process runs on. */
void pgr_client_cut_off(struct pgr *p, struct client *c);
/* @life is @c's program's own connection, @agent its agent process. */
void pgr_client_set_life(struct client *c, struct conn *life, pid_t agent);
/* @c's own connection closed: the program exec'd or exited (then @c is
 * gone), or closed it itself (a launcher: it runs on). */
void pgr_client_life_closed(struct pgr *p, struct client *c);
unsigned int pgr_nr_clients(const struct pgr *p);
/* Arm the client's uffd and pidfd polls. */
int pgr_client_watch(struct pgr *p, struct client *c);
int pgr_client_set_pid(struct pgr *p, struct client *c, pid_t pid);

/*
 * ---- events.c ----
 * A client's userfaultfd messages, each to its handler.
 */

/* Serve what @c's userfaultfd holds, and spin a while for more. */
void pgr_uffd_ready(struct pgr *p, struct client *c);

/* A move's old range [start, end) stays mapped (MREMAP_DONTUNMAP): no
 * UNMAP of it is to come. */
void pgr_vacated_forget(struct client *c, uint64_t start, uint64_t end);

/*
 * ---- fault.c ----
 * Page faults on anonymous regions, and those served later.
 */

/* Count a fault @c took (pgfault, and pgmajfault if it waited for I/O). */
void pgr_count_fault(struct pgr *p, struct client *c, bool major);
/* Take a free page for @c, reclaiming as the kernel's allocator would. */
enum pgr_served pgr_alloc(struct pgr *p, struct client *c, uint32_t *page);
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
/* The swap read into @page's buffer completed with @res. */
void pgr_swapin_done(struct pgr *p, uint32_t page, int res);

/*
 * ---- file-fault.c ----
 * Faults on file pages, and the reads that serve them.
 */

enum pgr_served pgr_file_fault(struct pgr *p, struct client *c, uint32_t rid,
			       uint32_t off, bool write, bool wp);
/* The read of record @rec (pgr_ring_queue's arg) completed with @res. */
void pgr_file_read_done(struct pgr *p, void *rec, int res);

/*
 * ---- file-map.c ----
 * A file's memfd mapped into a client.
 */

/* Inode @ino was answered to @c's "file": keep it until its "mapf" (or
 * the next "file", or the client's end) calls pgr_file_unhand(). */
void pgr_file_hand(struct pgr *p, struct client *c, uint32_t ino);
void pgr_file_unhand(struct pgr *p, struct client *c);
/* @c mapped the memfd of @ino at [start, start + len): own it. */
int pgr_file_map(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t len, uint32_t ino, uint32_t gen, uint64_t pgoff,
		 uint8_t rflags, const char **why);
/* msync of [start, end) of @c: its dirty pages to the file; @d waits
 * for their writes to land. */
void pgr_file_msync(struct pgr *p, struct client *c, uint64_t start,
		    uint64_t end, struct pgr_drain *d);

/*
 * ---- oom.c ----
 * Ending clients, and the OOM killer.
 */

/* Out of memory in @group: SIGKILL the client with the highest badness
 * (resident pages + swap entries) in it, and say so. @for_client is the
 * one whose fault needed the page (for the message). */
void pgr_oom(struct pgr *p, int group, struct client *for_client);
/* End @c (SIGKILL) with a reason, e.g. a failed swap read. */
void pgr_kill(struct pgr *p, struct client *c, const char *why);
/* A swap store's server went (redis.c) since the last call: every
 * process with a page on a server that is gone is killed, told why. The
 * last one's pid, or 0. */
pid_t pgr_kill_store_lost(struct pgr *p);

/*
 * ---- page.c ----
 * Page buffers, and freeing a page descriptor.
 */

uint32_t pgr_buf_get(struct pgr *p);
void pgr_buf_put(struct pgr *p, uint32_t buf);
/* Give back the memory of buffers idle since the last call. */
void pgr_bufs_trim(struct pgr *p);
/* Is page @i clean with a copy in swap? Then it is mapped write-protected,
 * so that its first write (a write-protect fault) dirties it. */
bool pgr_page_clean_cached(const struct pgr *p, uint32_t page);
/* Free a page descriptor (and its buffer, swap cache) with the policy. */
void pgr_page_free(struct pgr *p, uint32_t page);
/* Give back @page's buffer, unless a write-out still reads it: then
 * pgr_writeout_done() gives it back. */
void pgr_page_buf_release(struct pgr *p, uint32_t page);

/*
 * ---- adopt.c ----
 * Taking a client's anonymous mappings over.
 */

/* May @c have one more region of @pages (vm.max_map_count, and
 * PGR_MAX_REGION)? Warns once if not. */
bool pgr_region_room(struct pgr *p, struct client *c, uint64_t pages);
/* Take over [start, end) of @c: register it, adopt present pages.
 * -EBUSY: not now (an event of the mm is unread); a rescan will. */
int pgr_adopt(struct pgr *p, struct client *c, uint64_t start, uint64_t end);
/* pgr_adopt(), then @then(p, arg): at once, or once an adoption put off
 * (-EBUSY) has been made, tried every millisecond for a second at most;
 * for a program waiting in the call that made the mapping. */
void pgr_adopt_then(struct pgr *p, struct client *c, uint64_t start,
		    uint64_t end, void (*then)(struct pgr *, void *), void *arg);
/* Call every waiting @then now (the daemon stops). */
void pgr_adopt_release_held(struct pgr *p);
/* Register [start, end), an anonymous mapping without access, but make
 * no region of it: a piece opened by mprotect faults in, and becomes one
 * at its first fault. */
int pgr_reserve(struct pgr *p, struct client *c, uint64_t start, uint64_t end);
/* Adopt every private anonymous mapping of @c not yet owned, and register
 * its reservations. */
int pgr_adopt_maps(struct pgr *p, struct client *c);

/*
 * ---- region.c ----
 * The ranges of a client's address space the pager owns.
 */

uint32_t pgr_region_new(struct pgr *p, struct client *c, uint64_t start,
			uint64_t end);
struct region *pgr_region_find(struct pgr *p, struct client *c,
			       uint64_t addr, uint32_t *id);
/* The index in c->regions of the first region ending past @addr: the
 * one holding it, or else the next one (a binary search). */
size_t pgr_region_after(const struct pgr *p, const struct client *c,
			uint64_t addr);
/* madvise(@advice) of [start, end): MADV_NORMAL, _RANDOM, _SEQUENTIAL
 * (others are ignored here). */
void pgr_advise(struct pgr *p, struct client *c, uint64_t start,
		uint64_t end, int advice);
/* munlock(2) of [start, end) (munlockall: all): the mlocked pages there
 * go back to their evictable lists (unevictable_pgs_rescued). Heard as
 * the call starts, so it is done again at the next two ticks, for pages
 * culled before the call had unlocked them (c->unlocked). */
void pgr_munlock(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t end);
/* The file page slot @off of file region @r maps, or PGR_NONE. */
uint32_t pgr_region_file_page(struct pgr *p, const struct region *r,
			      uint32_t off);
/* The ticks' second and third rescue of what munlock named. */
void pgr_munlock_tick(struct pgr *p);
/* watchdog.c: a fault of thread @tid parked at @addr (for the report);
 * the look at every client's threads, once a second of ticks. */
void pgr_watchdog_held(struct client *c, pid_t tid, uint64_t addr, bool wp);
void pgr_watchdog_tick(struct pgr *p);
/* handback.c: give [start, end) of @c back to the kernel (its own
 * userfaultfd registers it): 0 done; -EAGAIN with *@busy pages in swap
 * or in flight, the first @cap of their addresses in @at (the shim
 * faults them in and asks again); -EINVAL for a file mapping; -errno
 * from the unregistration. */
int pgr_hand_back(struct pgr *p, struct client *c, uint64_t start,
		  uint64_t end, uint64_t *busy, uint64_t *at, size_t cap);
/* madvise(MADV_GUARD_INSTALL) of [start, end), heard as the call starts:
 * the kernel zaps the pages with no userfaultfd event, so they are
 * discarded here as a REMOVE event would (a guard removed later reads
 * zeros), unless a page there is mlocked (the kernel refuses the call). */
void pgr_guard_install(struct pgr *p, struct client *c, uint64_t start,
		       uint64_t end);
/* Forget [start, end) of @c's regions: pages freed, slots dropped. */
void pgr_discard(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t end, bool unmapped);
/* An UNMAP of [start, end): if parked regions are there, it is theirs
 * (they are freed, true), else false. */
bool pgr_unmap_parked(struct pgr *p, struct client *c, uint64_t start,
		      uint64_t end);
/* The mapping moved (mremap). */
void pgr_remap(struct pgr *p, struct client *c, uint64_t from, uint64_t to,
	       uint64_t len);
/* Copy @parent's regions into @child (fork). */
int pgr_fork_regions(struct pgr *p, struct client *parent,
		     struct client *child);
void pgr_region_drop_all(struct pgr *p, struct client *c);

#endif /* PGR_DAEMON_CORE_H */
