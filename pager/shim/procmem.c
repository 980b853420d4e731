/* SPDX-License-Identifier: MIT */
/*
 * procmem.c - the program's reads and writes of /proc/self/mem.
 *
 * The kernel serves them with get_user_pages_remote() without a way to
 * drop the mmap lock and retry, so a page the pager holds out of the page
 * table (evicted, armed) is refused by the userfaultfd instead of faulted
 * in: the read or write ends short, or fails with EIO, where natively it
 * succeeds. process_vm_readv and process_vm_writev of the process itself
 * fault the same pages in as the program would. So a call on
 * /proc/self/mem that came back short finishes that way, from where it
 * stopped. Only what the program could load or store itself is reached
 * that way; /proc/self/mem's FOLL_FORCE (a store to read-only code) is
 * the kernel's, and those mappings are not the pager's anyway (it
 * adopts writable ones).
 *
 * The check costs nothing on the way of a call that did all it was asked,
 * nor of a short one (a pipe's) in a process that never opened a /proc
 * .../mem file.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shim.h"
#include "sys.h"

static bool opened;	/* a /proc/.../mem was opened */

void shim_procmem_note(const char *path)
{
	size_t n;

	if (!strncmp(path, "/proc/", 6) && (n = strlen(path)) > 10 &&
	    !strcmp(path + n - 4, "/mem"))
		opened = true;
}

/* Is @fd this process's /proc/self/mem? */
static bool self_mem(int fd)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat("/proc/self/mem", &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

ssize_t shim_self_mem(int fd, void *buf, size_t n, long long off, bool write,
		      ssize_t r)
{
	bool positioned = off < 0;	/* read(2), write(2): the file's */
	size_t done = r > 0 ? (size_t)r : 0;
	int saved = errno;
	long got;

	if ((size_t)r == n || !opened ||
	    (r < 0 && errno != EIO && errno != EFAULT) || !self_mem(fd))
		return r;
	if (positioned) {
		off = lseek(fd, 0, SEEK_CUR);
		if (off < 0) {
			errno = saved;
			return r;
		}
		off -= (long long)done;	/* where the call started */
	}
	struct iovec local = { (char *)buf + done, n - done };
	struct iovec remote = { (void *)(uintptr_t)(off + (long long)done),
				n - done };

	got = sys6(write ? SYS_process_vm_writev : SYS_process_vm_readv,
		   sys0(SYS_getpid), (long)&local, 1, (long)&remote, 1, 0);
	if (got <= 0) {
		errno = saved;
		return r;
	}
	done += (size_t)got;
	if (positioned)
		lseek(fd, off + (long long)done, SEEK_SET);
	return (ssize_t)done;
}
