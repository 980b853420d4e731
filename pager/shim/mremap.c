/* SPDX-License-Identifier: MIT */
/*
 * mremap.c - the one move the daemon must hear of from the shim. A move
 * is reported by the kernel's REMAP event, then the UNMAP of the old
 * range, which the daemon waits for (its events.c); a move that keeps the
 * old mapping (MREMAP_DONTUNMAP) sends no UNMAP, so the daemon is told
 * ("kept"), lest it take the program's own later munmap of the range for
 * it. The REMAP was read before the call returns, so "kept" comes after
 * it. Every other mremap needs nothing of the shim.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/compat.h"
#include "shim.h"

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *to = NULL, *p;

	if (flags & MREMAP_FIXED) {
		va_list ap;

		va_start(ap, flags);
		to = va_arg(ap, void *);
		va_end(ap);
	}
	p = (void *)syscall(SYS_mremap, old, old_len, new_len, flags, to);
	if (p != MAP_FAILED && shim.on && (flags & MREMAP_DONTUNMAP)) {
		int saved = errno;

		shim_request(NULL, NULL, "kept %lx %lx",
			     (unsigned long)(uintptr_t)old,
			     (unsigned long)old_len);
		errno = saved;
	}
	return p;
}
