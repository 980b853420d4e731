/* SPDX-License-Identifier: MIT */
/*
 * remap.c - remap_file_pages(2) of a file mapping the daemon serves.
 *
 * The kernel emulates it with an mmap of the mapping's file at the new
 * offset, MAP_FIXED and MAP_POPULATE (mm/mmap.c). Under the pager that
 * file is the daemon's memfd: the new mapping would not be registered
 * with userfaultfd, its populate would fill the pages the daemon has not
 * read in with zeros, and writes through it would never be written back.
 * So the shim does what the kernel does, the pager's way: it maps the
 * same memfd at the new offset and hands the range to the daemon
 * ("mapf"), as for a new mapping (map.c). The range must lie in the
 * daemon's mappings of one file, with one protection, as the kernel
 * requires one file and one set of flags.
 *
 * Anything else is the kernel's own: a mapping the daemon does not serve
 * (its remap_file_pages is right), bad arguments (its EINVAL), a private
 * mapping or a shared one of a file open read-only (its EINVAL: neither
 * is VM_SHARED; the pager maps the memfd private for them). A shared
 * range of a memfd of the daemon's that the shim lost track of is refused
 * with EINVAL and a message: never a mapping nobody serves.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/compat.h"
#include "shim.h"
#include "sys.h"

#define MEMFD_NAME "/memfd:pager:"

/* What /proc/self/maps says of [start, end): the protection, whether it
 * is shared, and which file, if it is one run of mappings of one inode
 * with one protection. */
struct span {
	int prot;
	bool shared;
	bool daemons;		/* a memfd of the daemon's page cache */
	unsigned long dev_major, dev_minor, ino;
};

/* One line of maps: does it extend the span to *@at? 1 yes, 0 not ours
 * (a gap, another file or protection: the span ends), -1 not reached. */
static int span_line(const char *l, uintptr_t *at, uintptr_t end,
		     struct span *sp, bool first)
{
	unsigned long long lo, hi, off, ino;
	unsigned int maj, min;
	char perms[5], name[16] = "";
	struct span me;

	if (sscanf(l, "%llx-%llx %4s %llx %x:%x %llu %15s", &lo, &hi, perms,
		   &off, &maj, &min, &ino, name) < 7)
		return 0;
	if (hi <= *at)
		return -1;
	if (lo > *at)
		return 0;
	me = (struct span){
		.prot = (perms[0] == 'r' ? PROT_READ : 0) |
			(perms[1] == 'w' ? PROT_WRITE : 0) |
			(perms[2] == 'x' ? PROT_EXEC : 0),
		.shared = perms[3] == 's',
		.daemons = !strncmp(name, MEMFD_NAME, strlen(MEMFD_NAME)),
		.dev_major = maj, .dev_minor = min, .ino = ino,
	};
	if (!first && (me.prot != sp->prot || me.shared != sp->shared ||
		       me.daemons != sp->daemons || me.ino != sp->ino ||
		       me.dev_major != sp->dev_major ||
		       me.dev_minor != sp->dev_minor))
		return 0;
	*sp = me;
	*at = hi < end ? hi : end;
	return 1;
}

/* Read /proc/self/maps for [start, end): 0 and *@sp if it is one span. */
static int span_of(uintptr_t start, uintptr_t end, struct span *sp)
{
	char buf[4096], line[512];
	size_t len = 0;
	uintptr_t at = start;
	bool first = true;
	long n;
	int fd = (int)sys4(SYS_openat, AT_FDCWD, "/proc/self/maps",
			   O_RDONLY | O_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	while (at < end && (n = sys3(SYS_read, fd, buf, sizeof(buf))) > 0) {
		for (long k = 0; k < n && at < end; k++) {
			int r;

			if (buf[k] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = buf[k];
				continue;
			}
			line[len] = 0;
			len = 0;
			r = span_line(line, &at, end, sp, first);
			if (r == 0)
				goto out;
			if (r == 1)
				first = false;
		}
	}
out:
	sys1(SYS_close, fd);
	return at == end && !first ? 0 : -1;
}

static long fail(int err)
{
	errno = err;
	return -1;
}

/* The kernel's remap_file_pages, for what it serves. */
static long kernels(unsigned long start, unsigned long size,
		    unsigned long prot, unsigned long pgoff,
		    unsigned long flags)
{
	long r = sys5(SYS_remap_file_pages, start, size, prot, pgoff, flags);

	return r < 0 ? fail((int)-r) : r;
}

/* Map the memfd of inode @id at file page @pgoff over [start, +size) and
 * hand it to the daemon: 0, or -errno with the range made inaccessible
 * (what was there is gone; nothing unserved may take its place). */
static int remap(uintptr_t start, size_t size, unsigned long pgoff,
		 const struct span *sp, unsigned int id, unsigned int gen)
{
	struct stat st;
	int mfd, err = -EINVAL;
	void *q;

	mfd = shim_file_memfd(-1, true, &id, &gen);
	if (mfd < 0)
		return -EAGAIN;
	/* The inode the maps show: the shim's record may be out of date
	 * (a partial munmap, and another file mapped there since). */
	if (fstat(mfd, &st) || st.st_ino != sp->ino) {
		close(mfd);
		return -ESTALE;
	}
	q = (void *)syscall(SYS_mmap, (void *)start, size, sp->prot,
			    MAP_SHARED | MAP_FIXED | shim_map_marker(), mfd,
			    (off_t)(pgoff * 4096));
	close(mfd);
	if (q == (void *)start &&
	    !(err = shim_mapf(q, size, id, gen, (off_t)(pgoff * 4096), true,
			      sp->prot)))
		return 0;
	syscall(SYS_mmap, (void *)start, size, PROT_NONE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | shim_map_marker(),
		-1, 0);
	return err < 0 ? err : -ENOMEM;
}

long shim_remap_file_pages(unsigned long start, unsigned long size,
			   unsigned long prot, unsigned long pgoff,
			   unsigned long flags)
{
	uintptr_t s = start & ~4095UL, e = s + (size & ~4095UL);
	unsigned int id, gen;
	struct span sp;
	bool ours;
	int err;

	/* The kernel's checks first: its EINVAL for bad arguments, and for
	 * what is not VM_SHARED (the memfd is mapped shared only where the
	 * program's mapping is). */
	if (!shim.on || !shim.files || prot || e <= s ||
	    pgoff + ((e - s) >> 12) < pgoff || span_of(s, e, &sp) ||
	    !sp.daemons || !sp.shared)
		return kernels(start, size, prot, pgoff, flags);
	pthread_mutex_lock(&shim.sync_lock);
	ours = shim_fmap_at(s, e, &id, &gen);
	err = ours ? remap(s, e - s, pgoff, &sp, id, gen) : -ESTALE;
	pthread_mutex_unlock(&shim.sync_lock);
	if (err == -ESTALE || err == -EAGAIN) {
		/* Not one the shim knows of, or the daemon would not say. */
		shim_say("remap_file_pages of 0x%lx-0x%lx refused: the pager "
			 "cannot serve it", (unsigned long)s, (unsigned long)e);
		return fail(EINVAL);
	}
	return err ? fail(-err) : 0;
}

int remap_file_pages(void *start, size_t size, int prot, size_t pgoff,
		     int flags)
{
	return (int)shim_remap_file_pages((unsigned long)(uintptr_t)start,
					  size, (unsigned long)prot, pgoff,
					  (unsigned long)flags);
}
