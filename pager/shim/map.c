/* SPDX-License-Identifier: MIT */
/*
 * map.c - the mmap symbol, and munmap and msync of what it handed the
 * daemon.
 *
 * The program's own anonymous mmap calls are made with a marker flag the
 * seccomp filter lets through, and are adopted before mmap returns
 * ("adopt", or "reserve" for a mapping without access). A private or
 * shared mapping of a regular file is put on the daemon's page cache
 * (shim_file_memfd(), shim_mapf()): the program keeps the kernel's
 * mapping if anything fails, never a mapping nobody serves. munmap and
 * msync of a shared file mapping have the daemon write it back first, so
 * that read(2) sees what the mapping wrote as soon as they return.
 * madvise: MADV_GUARD_INSTALL's drop of the pages, told the daemon.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/compat.h"
#include "shim.h"
#include "sys.h"

static bool anon_private(int flags)
{
	return (flags & MAP_ANONYMOUS) && (flags & MAP_TYPE) == MAP_PRIVATE;
}

/* A mapping of a regular file the daemon can serve from its page cache. */
static bool file_mapping(int flags, int fd)
{
	int type = flags & MAP_TYPE;
	struct stat st;

	if (!shim.on || !shim.files || fd < 0 ||
	    (flags & (MAP_ANONYMOUS | MAP_HUGETLB | PGR_MAP_MARKER)))
		return false;
	if (type != MAP_PRIVATE && type != MAP_SHARED)
		return false;
	return !fstat(fd, &st) && S_ISREG(st.st_mode);
}

/*
 * Shared file mappings handed to the daemon, so that munmap and exit can
 * have it write back first (the kernel's read(2) must see what the
 * mapping wrote as soon as munmap returns, not when the daemon gets to
 * it), and remap_file_pages can map another part of the same memfd.
 */
#define SHIM_FMAPS 256
static struct fmap {
	uintptr_t start, end;
	unsigned int id, gen;	/* the daemon's inode */
} fmaps[SHIM_FMAPS];
static unsigned int nr_fmaps;
static bool fmaps_lost;		/* one did not fit: flush on every munmap */

static void fmap_add(uintptr_t start, size_t len, unsigned int id,
		     unsigned int gen)
{
	struct fmap m = { start, start + len, id, gen };

	for (unsigned int k = 0; k < nr_fmaps; k++) {
		if (fmaps[k].start == fmaps[k].end) {
			fmaps[k] = m;
			return;
		}
	}
	if (nr_fmaps == SHIM_FMAPS) {
		fmaps_lost = true;
		return;
	}
	fmaps[nr_fmaps++] = m;
}

/* Does [start, start + len) meet a shared file mapping? Forget those it
 * covers whole. */
static bool fmap_hit(uintptr_t start, size_t len, bool forget)
{
	bool hit = fmaps_lost;

	for (unsigned int k = 0; k < nr_fmaps; k++) {
		if (fmaps[k].start >= start + len || fmaps[k].end <= start)
			continue;
		hit = true;
		if (forget && start <= fmaps[k].start &&
		    fmaps[k].end <= start + len)
			fmaps[k].start = fmaps[k].end = 0;
	}
	return hit;
}

bool shim_fmap_at(uintptr_t start, uintptr_t end, unsigned int *id,
		  unsigned int *gen)
{
	for (unsigned int k = 0; k < nr_fmaps; k++) {
		if (fmaps[k].start <= start && end <= fmaps[k].end) {
			*id = fmaps[k].id;
			*gen = fmaps[k].gen;
			return true;
		}
	}
	return false;
}

static void take_file(void *p, size_t len, int prot, int flags, int fd,
		      off_t off)
{
	/* userfaultfd takes a shared mapping only if it may be written
	 * (VM_MAYWRITE): one of a read-only file is mapped private, which
	 * reads the same page cache and can never write it back. */
	bool rw = (flags & MAP_TYPE) == MAP_SHARED &&
		  (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR;
	bool shared = rw;
	unsigned int id, gen;
	int mfd, err = -1, mflags;
	void *q;

	pthread_mutex_lock(&shim.sync_lock);
	mfd = shim_file_memfd(fd, rw, &id, &gen);
	if (mfd < 0)
		goto out;
	mflags = (flags & ~(MAP_TYPE | MAP_POPULATE | MAP_FIXED_NOREPLACE)) |
		 (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_FIXED |
		 shim_map_marker();
	q = (void *)syscall(SYS_mmap, p, len, prot, mflags, mfd, off);
	close(mfd);
	if (q != p)
		goto out;
	err = shim_mapf(p, len, id, gen, off, shared, prot);
	if (!err && shared)
		fmap_add((uintptr_t)p, len, id, gen);
out:
	if (err)	/* the kernel's mapping back, as the program made it */
		syscall(SYS_mmap, p, len, prot, (flags & ~MAP_FIXED_NOREPLACE) |
			MAP_FIXED, fd, off);
	pthread_mutex_unlock(&shim.sync_lock);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	bool adopt = shim.on && anon_private(flags) &&
		     !(flags & PGR_MAP_MARKER) && len && shim_map_marker();
	bool file = !adopt && len && file_mapping(flags, fd);
	void *p;

	p = (void *)syscall(SYS_mmap, addr, len, prot,
			    adopt ? flags | PGR_MAP_MARKER : flags, fd, off);
	if (p != MAP_FAILED && (adopt || file)) {
		int saved = errno;

		if (adopt)
			/* A reservation (no access yet) is registered, not
			 * owned page by page: its pieces are taken as they
			 * are opened. */
			shim_sync_request(prot == PROT_NONE ? "reserve %lx %lx" :
				     "map %lx %lx", (unsigned long)(uintptr_t)p,
				     (unsigned long)len);
		else
			take_file(p, len, prot, flags, fd, off);
		errno = saved;
	}
	return p;
}

int munmap(void *addr, size_t len)
{
	if (shim.on && shim.files && len) {
		int saved = errno;

		pthread_mutex_lock(&shim.sync_lock);
		bool hit = fmap_hit((uintptr_t)addr, len, true);
		pthread_mutex_unlock(&shim.sync_lock);
		if (hit)
			shim_sync_request("msync %lx %lx",
				     (unsigned long)(uintptr_t)addr,
				     (unsigned long)len);
		errno = saved;
	}
	return (int)syscall(SYS_munmap, addr, len);
}

/*
 * MADV_GUARD_INSTALL zaps the pages it guards, and the kernel tells
 * userfaultfd nothing of it: the daemon would keep them, and after
 * MADV_GUARD_REMOVE serve their old bytes where natively a new page
 * reads zeros. MADV_DONTNEED first drops them as the install would, and
 * its REMOVE event tells the daemon.
 */
int madvise(void *addr, size_t len, int advice)
{
	long r;

	/* Raw calls: syscall(2) of MADV_GUARD_INSTALL comes here. */
	if (advice == PGR_MADV_GUARD_INSTALL && shim.on && len)
		sys3(SYS_madvise, addr, len, MADV_DONTNEED);
	r = sys3(SYS_madvise, addr, len, advice);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

/* At exit, what shared file mappings dirtied goes to the file before the
 * process is gone (a killed one is written back when the daemon sees it
 * go, a moment later). */
__attribute__((destructor)) static void shim_fini(void)
{
	int saved = errno;

	if (shim.on && shim.files && (nr_fmaps || fmaps_lost))
		shim_sync_request("msync %lx %lx", 0UL, ~0UL);
	errno = saved;
}

static void wb_error(const char *line, void *arg)
{
	if (!strncmp(line, "wberr ", 6))
		*(int *)arg = atoi(line + 6);
}

/* Dirty pages of a shared file mapping live in the daemon's page cache:
 * msync has it write them to the file. With MS_SYNC, a write-back that
 * failed since this process was last told is its error, as the
 * kernel's errseq makes it (ENOSPC, EIO): no store is lost unsaid. */
int msync(void *addr, size_t len, int flags)
{
	int r = (int)syscall(SYS_msync, addr, len, flags), err = 0;

	if (!r && shim.on && shim.files) {
		int saved = errno;

		shim_request(wb_error, &err, (flags & MS_SYNC) ?
			     "msync %lx %lx sync" : "msync %lx %lx",
			     (unsigned long)(uintptr_t)addr,
			     (unsigned long)len);
		errno = saved;
	}
	if (err) {
		errno = err;
		return -1;
	}
	return r;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

