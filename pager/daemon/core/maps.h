/* SPDX-License-Identifier: MIT */
/*
 * maps.h - a client's mappings as the kernel has them (maps.c).
 */
#ifndef PGR_DAEMON_MAPS_H
#define PGR_DAEMON_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct iovec;

struct client;

/* One mapping, as a line of /proc/PID/maps says it. */
struct pgr_vma {
	uint64_t start, end;
	uint64_t offset;	/* in its file, bytes */
	uint64_t ino;		/* 0: anonymous */
	unsigned int maj, min;	/* its file's device */
	char perms[5];		/* "rw-p" */
	char name[4096];	/* "[heap]", a path, or "" */
};

/* @c's mapping at @addr, or with @next the first one that ends above
 * @addr: 0, -ENOENT if there is none, or -errno (the process is gone). */
int pgr_vma_find(struct client *c, uint64_t addr, bool next,
		 struct pgr_vma *v);
/* @v as its line of /proc/PID/maps (for messages). */
void pgr_vma_format(const struct pgr_vma *v, char *buf, size_t len);
/* Read @c's memory at @addr into @iov: the bytes read, short where a
 * page is not there (never waiting for one), or -errno. */
ssize_t pgr_mem_read(struct client *c, uint64_t addr, const struct iovec *iov,
		     int n);
/* @c is gone, or is another process now: let go of its /proc files. */
/* @c's /proc/PID/pagemap, opened once (PAGEMAP_SCAN, page entries), or
 * -errno. */
int pgr_pagemap_fd(struct client *c);
/* Is the page at @addr of @c in its page table? @unreadable if it
 * cannot be read. */
bool pgr_page_present(struct client *c, uint64_t addr, bool unreadable);
/* Does @c's page table hold nothing at @addr (no page, no swap entry)?
 * False if it cannot be read. */
bool pgr_page_gone(struct client *c, uint64_t addr);
/* The pagemap entry of the page at @addr of process @pid (no client of
 * ours yet): bit 63 present, 62 swapped, 57 write-protected by a
 * userfaultfd. ~0 if it cannot be read. */
uint64_t pgr_pid_pagemap(pid_t pid, uint64_t addr);
void pgr_proc_close(struct client *c);

#endif /* PGR_DAEMON_MAPS_H */
