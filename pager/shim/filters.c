/* SPDX-License-Identifier: MIT */
/*
 * filters.c - the program's own seccomp filters.
 *
 * The shim marks its mmap calls with PGR_MAP_MARKER so that `pager run`'s
 * filter lets them by unnotified. A filter the program installs after
 * ours may refuse a flag it does not know: Chrome's renderer policy
 * (RestrictMmapFlags) kills the process with SIGSYS for it. So once the
 * program installs one, the shim marks no more: its anonymous mappings
 * go the way of libc's internal ones (notified, made by the agent, which
 * is a process of its own that the new filter does not bind).
 *
 * Its remap_file_pages goes to remap.c, and its MADV_GUARD_INSTALL to
 * map.c's madvise, as libc's wrappers do.
 *
 * Filters come through libc's syscall(2) (Chrome's sys_seccomp()) or
 * prctl(2); a raw `syscall` instruction is not seen, and its filter is
 * the program's to keep from refusing the marker.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/compat.h"
#include "shim.h"
#include "sys.h"

int shim_map_marker(void)
{
	return shim.foreign_filter ? 0 : PGR_MAP_MARKER;
}

/* libc's syscall(2), made here: no lookup of the next definition, whose
 * first call could allocate, and an allocation map through this. */
long syscall(long nr, ...)
{
	long a[6], ret;
	va_list ap;

	va_start(ap, nr);
	for (int k = 0; k < 6; k++)
		a[k] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_seccomp && a[0] == SECCOMP_SET_MODE_FILTER)
		shim.foreign_filter = true;
	if (nr == SYS_madvise && a[2] == PGR_MADV_GUARD_INSTALL)
		return madvise((void *)a[0], (size_t)a[1], (int)a[2]);
	if (nr == SYS_remap_file_pages)
		return shim_remap_file_pages((unsigned long)a[0],
					     (unsigned long)a[1],
					     (unsigned long)a[2],
					     (unsigned long)a[3],
					     (unsigned long)a[4]);
	ret = sys6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

int prctl(int option, ...)
{
	unsigned long a[4];
	va_list ap;

	va_start(ap, option);
	for (int k = 0; k < 4; k++)
		a[k] = va_arg(ap, unsigned long);
	va_end(ap);
	if (option == PR_SET_SECCOMP && a[0] == SECCOMP_MODE_FILTER)
		shim.foreign_filter = true;
	return (int)syscall(SYS_prctl, option, a[0], a[1], a[2], a[3]);
}
