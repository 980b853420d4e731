/* SPDX-License-Identifier: MIT */
/*
 * maps.c - a client's mappings as the kernel has them: the one at an
 * address, or the next one, read with PROCMAP_QUERY, an ioctl on
 * /proc/PID/maps (6.11) that answers one mapping in binary. The text of
 * /proc/PID/maps costs the kernel a line to format and us one to parse for
 * every mapping before the one we want: with V8's hundreds of mappings
 * and a lookup at each first fault in a piece it opens, that was a fifth
 * of node's time under the pager (docs/testing.md). The text stays as the
 * way on a kernel without the ioctl.
 *
 * And a client's memory as the kernel has it: pgr_mem_read() reads it
 * through /proc/PID/mem, pgr_page_present() its page table through
 * /proc/PID/pagemap.
 *
 * Owns: each client's open /proc/PID/maps, /proc/PID/mem and
 * /proc/PID/pagemap (maps_fd, mem_fd, pagemap_fd; opened at first use,
 * once its pid is known, and bound to that process's memory: an exec
 * makes a new client).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../../lib/compat.h"
#include "../pgr.h"
#include "maps.h"

/* /proc/PID/@name of @c, opened once into *@fd and kept until
 * pgr_proc_close(): the descriptor, or -errno. */
static int proc_fd(struct client *c, int *fd, const char *name)
{
	char path[64];

	if (*fd >= 0)
		return *fd;
	if (c->pid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/%s", c->pid, name);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	return *fd >= 0 ? *fd : -errno;
}

static int maps_fd(struct client *c)
{
	return proc_fd(c, &c->maps_fd, "maps");
}

/* The same from the text, on a kernel without PROCMAP_QUERY. */
static int find_in_text(int fd, uint64_t addr, bool next, struct pgr_vma *v)
{
	char line[4608];
	int dup_fd = dup(fd);
	FILE *f;

	if (dup_fd < 0)
		return -errno;
	f = fdopen(dup_fd, "re");
	if (!f) {
		close(dup_fd);
		return -ENOMEM;
	}
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off, ino;

		v->name[0] = 0;
		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %4095s", &s, &e,
			   v->perms, &off, &v->maj, &v->min, &ino, v->name) < 7 ||
		    e <= addr || (!next && s > addr))
			continue;
		v->start = s;
		v->end = e;
		v->offset = off;
		v->ino = ino;
		fclose(f);
		return 0;
	}
	fclose(f);
	return -ENOENT;
}

int pgr_vma_find(struct client *c, uint64_t addr, bool next,
		 struct pgr_vma *v)
{
	struct procmap_query q = {
		.size = sizeof(q), .query_addr = addr,
		.query_flags = next ? PROCMAP_QUERY_COVERING_OR_NEXT_VMA : 0,
		.vma_name_addr = (uint64_t)(uintptr_t)v->name,
		.vma_name_size = sizeof(v->name),
	};
	int fd = maps_fd(c), r;

	if (fd < 0)
		return fd;
	v->name[0] = 0;
	r = ioctl(fd, PROCMAP_QUERY, &q);
	if (r && errno == ENAMETOOLONG) {
		/* A path longer than PATH_MAX: the mapping without it. */
		q.vma_name_size = 0;
		q.vma_name_addr = 0;
		r = ioctl(fd, PROCMAP_QUERY, &q);
		snprintf(v->name, sizeof(v->name), "(a path too long)");
		q.vma_name_size = 1;
	}
	if (r) {
		if (errno == ENOTTY || errno == EINVAL)
			return find_in_text(fd, addr, next, v);
		return -errno;
	}
	if (!q.vma_name_size)
		v->name[0] = 0;
	v->start = q.vma_start;
	v->end = q.vma_end;
	v->offset = q.vma_offset;
	v->ino = q.inode;
	v->maj = q.dev_major;
	v->min = q.dev_minor;
	v->perms[0] = q.vma_flags & PROCMAP_QUERY_VMA_READABLE ? 'r' : '-';
	v->perms[1] = q.vma_flags & PROCMAP_QUERY_VMA_WRITABLE ? 'w' : '-';
	v->perms[2] = q.vma_flags & PROCMAP_QUERY_VMA_EXECUTABLE ? 'x' : '-';
	v->perms[3] = q.vma_flags & PROCMAP_QUERY_VMA_SHARED ? 's' : 'p';
	v->perms[4] = 0;
	return 0;
}

void pgr_vma_format(const struct pgr_vma *v, char *buf, size_t len)
{
	snprintf(buf, len, "%llx-%llx %s %08llx %02x:%02x %llu %s",
		 (unsigned long long)v->start, (unsigned long long)v->end,
		 v->perms, (unsigned long long)v->offset, v->maj, v->min,
		 (unsigned long long)v->ino, v->name);
}

/*
 * Not process_vm_readv(): it faults pages in as the process would, so a
 * page of a registered range that is missing (the program's own
 * MADV_DONTNEED, its REMOVE event not read yet) waits in the userfaultfd
 * for the daemon to serve it, and the daemon is the one waiting: it hung
 * so (verify mapbusy). A read of /proc/PID/mem cannot wait there (no
 * FAULT_FLAG_ALLOW_RETRY: the userfault is refused) and ends short.
 */
ssize_t pgr_mem_read(struct client *c, uint64_t addr, const struct iovec *iov,
		     int n)
{
	int fd = proc_fd(c, &c->mem_fd, "mem");
	ssize_t got;

	if (fd < 0)
		return fd;
	got = preadv(fd, iov, n, (off_t)addr);
	return got < 0 ? -errno : got;
}

int pgr_pagemap_fd(struct client *c)
{
	return proc_fd(c, &c->pagemap_fd, "pagemap");
}

/* @c's pagemap entry for @addr into *@e: false if it cannot be read. */
static bool pagemap_entry(struct client *c, uint64_t addr, uint64_t *e)
{
	int fd = pgr_pagemap_fd(c);

	return fd >= 0 && pread(fd, e, sizeof(*e), (off_t)(addr / PGR_PAGE *
							  sizeof(*e))) ==
			  (ssize_t)sizeof(*e);
}

bool pgr_page_present(struct client *c, uint64_t addr, bool unreadable)
{
	uint64_t e;

	if (!pagemap_entry(c, addr, &e))
		return unreadable;
	return e >> 63;
}

bool pgr_page_gone(struct client *c, uint64_t addr)
{
	uint64_t e;

	/* neither present (63) nor swapped (62) */
	return pagemap_entry(c, addr, &e) && !(e >> 62);
}

uint64_t pgr_pid_pagemap(pid_t pid, uint64_t addr)
{
	char path[64];
	uint64_t e = 0;
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ~0ULL;
	got = pread(fd, &e, sizeof(e), (off_t)(addr / PGR_PAGE * sizeof(e)));
	close(fd);
	return got == (ssize_t)sizeof(e) ? e : ~0ULL;
}

void pgr_proc_close(struct client *c)
{
	if (c->maps_fd >= 0)
		close(c->maps_fd);
	if (c->mem_fd >= 0)
		close(c->mem_fd);
	if (c->pagemap_fd >= 0)
		close(c->pagemap_fd);
	c->maps_fd = c->mem_fd = c->pagemap_fd = -1;
}
