/* SPDX-License-Identifier: MIT */
/*
 * compat.h - kernel interfaces newer than the installed headers (Debian
 * 12 ships 6.1 headers; the machine runs 6.18). Everything the daemon
 * and the shim use that 6.1's headers lack is defined here, once, from
 * the kernel's uapi, and nowhere else.
 */
#ifndef PGR_COMPAT_H
#define PGR_COMPAT_H

#include <linux/ioctl.h>
#include <linux/types.h>
#include <linux/userfaultfd.h>

/* /dev/userfaultfd (6.1: USERFAULTFD_IOC_NEW may be missing). */
#ifndef USERFAULTFD_IOC
#define USERFAULTFD_IOC 0xAA
#endif
#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC_NEW _IO(USERFAULTFD_IOC, 0x00)
#endif

/* userfaultfd features after 6.1 (include/uapi/linux/userfaultfd.h). */
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED	(1 << 13)	/* 6.4 */
#endif
#ifndef UFFD_FEATURE_POISON
#define UFFD_FEATURE_POISON		(1 << 14)	/* 6.6 */
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC		(1 << 15)	/* 6.7 */
#endif
#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE		(1 << 16)	/* 6.8 */
#endif

/* UFFDIO_MOVE (6.8): move present anon pages from one address of the
 * caller's mm to another, registered with the userfaultfd asked. */
#ifndef UFFDIO_MOVE
struct uffdio_move {
	__u64 dst;
	__u64 src;
	__u64 len;
	__u64 mode;
	__s64 move;	/* bytes moved, or -errno */
};
#define UFFDIO_MOVE_MODE_DONTWAKE		((__u64)1 << 0)
#define UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES	((__u64)1 << 1)
#define UFFDIO_MOVE	_IOWR(UFFDIO, 0x05, struct uffdio_move)
#endif

/* UFFDIO_CONTINUE mapping the page write-protected (6.3). */
#ifndef UFFDIO_CONTINUE_MODE_WP
#define UFFDIO_CONTINUE_MODE_WP		((__u64)1 << 1)
#endif

/* PAGEMAP_SCAN (6.7, include/uapi/linux/fs.h): an ioctl on
 * /proc/PID/pagemap listing the pages of a range by category. */
#ifndef PAGEMAP_SCAN
#define PAGE_IS_WPALLOWED	(1 << 0)
#define PAGE_IS_WRITTEN		(1 << 1)
#define PAGE_IS_FILE		(1 << 2)
#define PAGE_IS_PRESENT		(1 << 3)
#define PAGE_IS_SWAPPED		(1 << 4)
#define PAGE_IS_PFNZERO		(1 << 5)
#define PAGE_IS_HUGE		(1 << 6)
#define PAGE_IS_SOFT_DIRTY	(1 << 7)

struct page_region {
	__u64 start;
	__u64 end;
	__u64 categories;
};

struct pm_scan_arg {
	__u64 size;
	__u64 flags;
	__u64 start;
	__u64 end;
	__u64 walk_end;
	__u64 vec;
	__u64 vec_len;
	__u64 max_pages;
	__u64 category_inverted;
	__u64 category_mask;
	__u64 category_anyof_mask;
	__u64 return_mask;
};

#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

/* PROCMAP_QUERY (6.11, include/uapi/linux/fs.h): an ioctl on
 * /proc/PID/maps returning one mapping, the one at an address or the next
 * one, in binary. */
#ifndef PROCMAP_QUERY
enum procmap_query_flags {
	PROCMAP_QUERY_VMA_READABLE		= 0x01,
	PROCMAP_QUERY_VMA_WRITABLE		= 0x02,
	PROCMAP_QUERY_VMA_EXECUTABLE		= 0x04,
	PROCMAP_QUERY_VMA_SHARED		= 0x08,
	PROCMAP_QUERY_COVERING_OR_NEXT_VMA	= 0x10,
	PROCMAP_QUERY_FILE_BACKED_VMA		= 0x20,
};

struct procmap_query {
	__u64 size;
	__u64 query_flags;
	__u64 query_addr;
	__u64 vma_start;
	__u64 vma_end;
	__u64 vma_flags;
	__u64 vma_page_size;
	__u64 vma_offset;
	__u64 inode;
	__u32 dev_major;
	__u32 dev_minor;
	__u32 vma_name_size;
	__u32 build_id_size;
	__u64 vma_name_addr;
	__u64 build_id_addr;
};

#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)
#endif

/* 6.13: guard regions (Debian 12's headers have neither). */
#define PGR_MADV_GUARD_INSTALL 102
#define PGR_MADV_GUARD_REMOVE 103

/* A private mmap flag bit the kernel accepts and ignores (verified on
 * 6.18): the shim marks its own mmap calls with it, so that the seccomp
 * filter lets them through unnotified. Never passed on to the kernel by
 * the shim itself. */
#define PGR_MAP_MARKER 0x400000

/* The shim's write-family system calls carry this in an argument register
 * the call does not use (the sixth; pwritev2's fifth, the high half of
 * the offset, which x86-64 ignores), so that `pager run`'s seccomp filter
 * lets them through and notifies the daemon of those that did not come
 * through the shim (docs/files.md, "Coherence"). */
#define PGR_SYSCALL_MARKER 0x70676d6b3a575231ull

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV	(1UL << 5)	/* 5.19 */
#endif

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP		4		/* 5.7 */
#endif

#endif /* PGR_COMPAT_H */
