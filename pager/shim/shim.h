/* SPDX-License-Identifier: MIT */
/*
 * shim.h - state of the preload shim, shared by its files. The shim lives
 * inside programs whose memory the pager manages, so everything its agent
 * process touches is static, in the shim's own (excluded) data, or on a
 * stack the pager never adopts.
 */
#ifndef PGR_SHIM_H
#define PGR_SHIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../lib/ftable.h"
#include "../lib/wire.h"

#define SHIM_STACK	(256 * 1024)
#define SHIM_SCRATCH	(1024 * 1024)	/* the agent's holding range, above
					 * its stack in the same mapping */

struct shim {
	bool on;		/* connected to a daemon */
	pid_t pid;		/* the process that connected */
	bool files;		/* its userfaultfd can serve file pages */
	int uffd;		/* our own copy: faults wait if the daemon dies */
	int agent_fd;		/* hello connection, until the agent takes it
				 * (its channel, in its own table) */
	int agent_pid;		/* the agent process, 0 if none */
	int sync_fd;		/* the program's connection: requests, and
				 * its close says exec or exit */
	unsigned long uffd_id;	/* what each of the two is (shim_fd_id()):
				 * still ours, or closed by the program and */
	unsigned long sync_id;	/* the number reused? */
	bool foreign_filter;	/* the program installed a seccomp filter
				 * of its own (filters.c) */
	int door;		/* a socket the daemon reads where connect(2)
				 * cannot reach it (shim_connect()) */
	unsigned long door_id;
	pthread_mutex_t sync_lock;
	char *beacon;		/* a page kept empty: a fork child's first
				 * fault on it tells the daemon its pid */
	char *stack;		/* the agent's stack, then its scratch
				 * (SHIM_SCRATCH): excluded, never adopted */
	const volatile struct ftable *ft;	/* the daemon's table of
						 * cached files, or NULL */
	char socket[108];
	char group[64];
};

extern struct shim shim;

/* filters.c: PGR_MAP_MARKER, or 0 once the program has a seccomp filter
 * of its own that may refuse it. */
int shim_map_marker(void);

/* shim.c: a request on the program threads' connection (it takes
 * shim.sync_lock): 0 when the daemon said ok, its data lines to @each
 * (which may be NULL); -1 refused; -errno broken. */
int shim_request(void (*each)(const char *s, void *arg), void *arg,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* procmem.c: a read (@write false) or write of @n bytes at @off (-1: the
 * file's offset) of @fd that returned @r: if @fd is /proc/self/mem and
 * the call ended short, the rest by process_vm_readv/writev; its result
 * (errno kept when nothing more was done). */
ssize_t shim_self_mem(int fd, void *buf, size_t n, long long off, bool write,
		      ssize_t r);
/* An open of @path succeeded: remembers one of a /proc/.../mem. */
void shim_procmem_note(const char *path);
/* cgroup.c: an open of a cgroup.procs or tasks file (@path); a write of
 * @n bytes to @fd that returned @r: if it moved this process to another
 * cgroup, the agent follows. */
void shim_cgroup_note(const char *path);
void shim_cgroup_wrote(int fd, const void *buf, size_t n, ssize_t r);

/* Is this thread inside shim_request() (a signal handler's call)? */
bool shim_in_request(void);

/* shim.c: requests on the program threads' connection, with
 * shim.sync_lock held */
/* The daemon's page cache of the regular file @fd: a memfd descriptor to
 * map (read-write if @rw) and the inode's id and generation; -1 if not.
 * With @fd -1: that of inode *@id, *@gen, which the process maps. */
int shim_file_memfd(int fd, bool rw, unsigned int *id, unsigned int *gen);
/* The memfd of inode @id is mapped at @p: the daemon takes it (0). */
int shim_mapf(void *p, size_t len, unsigned int id, unsigned int gen,
	      off_t off, bool shared, int prot);
/* map.c, with shim.sync_lock held: the inode of the shared file mapping
 * (of a file open for writing: the memfd is mapped shared) holding
 * [start, end), if it is the daemon's. */
bool shim_fmap_at(uintptr_t start, uintptr_t end, unsigned int *id,
		  unsigned int *gen);
/* remap.c: remap_file_pages(2), also for libc's syscall(2) (filters.c) */
long shim_remap_file_pages(unsigned long start, unsigned long size,
			   unsigned long prot, unsigned long pgoff,
			   unsigned long flags);
struct dl_phdr_info;
/* Does the agent run in this object (the shim, libc, the loader)? */
bool shim_agent_runs_in(const struct dl_phdr_info *info);

/* The shim's one function for programs (they find it with dlsym): mark
 * the start of phase @name in the daemon's record and trace. 0 or -1. */
int pager_phase(const char *name);

/* text.c */
/* Put the never-written segments of the loaded objects (the program's
 * text and its libraries') in the daemon's page cache. */
void shim_take_texts(void);
/* io.c: descriptors 0-2 that name a cached file open for writing are
 * told to the daemon, which hands the file back (their writes are not
 * filtered); at start, then at each dup2/dup3/open onto them. */
void shim_check_std_fds(void);

/* agent.c */
/* Start the agent process on shim.stack, handing it the hello connection
 * (shim.agent_fd, closed here). Return its pid or -errno. */
int shim_agent_start(void);

/* shim.c */
/* A request from a program thread on its own connection, whose answer has
 * no data lines: 0, -1 (refused), or < -1 (the connection broke). */
int shim_sync_request(const char *fmt, unsigned long a, unsigned long b);
/* A new connection to the daemon (close-on-exec, a high number), or
 * -errno. */
int shim_connect(void);
/* What @fd is (its device, inode and type), 0 if no descriptor. */
unsigned long shim_fd_id(int fd);
/* Is @fd still what shim_fd_id() said? A program may close every
 * descriptor (a launcher between fork and exec) and open others. */
bool shim_fd_is(int fd, unsigned long id);
/* @fd moved out of the way of the program's own descriptors (it gets the
 * lowest free numbers): a high number, close-on-exec. */
int shim_fd_high(int fd);
/* A userfaultfd with @features (its UFFDIO_API done), or -errno. */
int shim_open_uffd(uint64_t features);
/* Raw mmap with the marker flag: not notified, not adopted if excluded. */
void *shim_mmap(size_t len);
/* Print "pager: MESSAGE" on stderr with write(2) alone. */
void shim_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Say it, then end the process with SIGKILL (status 137). */
void shim_stop(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#endif /* PGR_SHIM_H */
