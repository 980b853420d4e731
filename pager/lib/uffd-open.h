/* SPDX-License-Identifier: MIT */
/*
 * uffd-open.h - a userfaultfd, as the shim and `pager run` open one.
 */
#ifndef PGR_UFFD_OPEN_H
#define PGR_UFFD_OPEN_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat.h"

/* What a client's userfaultfd asks for (the shim's UFFDIO_API, or the
 * daemon's for a shim that may not ask for fork events itself). */
#define PGR_UFFD_FEATURES (UFFD_FEATURE_EVENT_FORK | UFFD_FEATURE_EVENT_REMAP | \
			   UFFD_FEATURE_EVENT_REMOVE | UFFD_FEATURE_EVENT_UNMAP | \
			   UFFD_FEATURE_THREAD_ID | \
			   UFFD_FEATURE_PAGEFAULT_FLAG_WP)
/* File pages (memfd mappings): minor faults and write-protection. */
#define PGR_UFFD_FILE_FEATURES (UFFD_FEATURE_MINOR_SHMEM | \
				UFFD_FEATURE_WP_HUGETLBFS_SHMEM)

/* UFFDIO_API on @fd with @features, all of them granted: 0 or -errno. */
static inline int pgr_uffd_api(int fd, uint64_t features)
{
	struct uffdio_api api = { .api = UFFD_API, .features = features };

	if (ioctl(fd, UFFDIO_API, &api))
		return -errno;
	return (api.features & features) == features ? 0 : -ENOSYS;
}

/*
 * A non-blocking, close-on-exec userfaultfd before its UFFDIO_API: from
 * /dev/userfaultfd (its file mode says who may), else the system call
 * (vm.unprivileged_userfaultfd, or CAP_SYS_PTRACE). -1 and errno if
 * neither gives one.
 */
static inline int pgr_uffd_open(void)
{
	int fd = -1, dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);

	if (dev >= 0) {
		fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
		close(dev);
	}
	if (fd < 0)
		fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	return fd;
}

#endif
