/* SPDX-License-Identifier: MIT */
/*
 * uffd-open.h - a userfaultfd, as the shim and `pager run` open one.
 */
#ifndef PGR_UFFD_OPEN_H
#define PGR_UFFD_OPEN_H

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat.h"

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
