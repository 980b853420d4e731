/* SPDX-License-Identifier: MIT */
/*
 * verify-badptr.c - verify's test of bad pointers given to the file
 * system calls the pager looks at: each fails with EFAULT, as natively,
 * never kills the process. A shared writable mapping of the file is made
 * first, so that the pager has something owed on every read and write of
 * it (the arguments are read).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "verify.h"

static unsigned long efault(const char *call, const char *where, long r)
{
	if (r == -1 && errno == EFAULT)
		return 0;
	printf("verify: fbadptr: %s with a %s pointer: %ld (%s), want EFAULT\n",
	       call, where, r, r == -1 ? strerror(errno) : "no error");
	return 1;
}

void t_fbadptr(void)
{
	size_t pages = 16;
	int fd = open_file(pages * PAGE, true), null = open("/dev/null", O_WRONLY);
	char *none = mmap(NULL, 2 * PAGE, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *gone = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	const char *bad[2] = { none, gone };
	const char *what[2] = { "PROT_NONE", "unmapped" };
	unsigned long n = 0;
	int p[2];
	char *m;

	if (null < 0 || none == MAP_FAILED || gone == MAP_FAILED || pipe(p)) {
		perror("verify: fbadptr");
		exit(1);
	}
	munmap(gone, PAGE);
	write_file(fd, 9, pages);
	m = map_file(fd, pages * PAGE, MAP_SHARED);
	fill_page((uint64_t *)m, 9, 0, 2);	/* a dirty page: owed */
	for (int k = 0; k < 2; k++) {
		off_t *o = (off_t *)bad[k];
		const struct iovec *v = (const struct iovec *)bad[k];

		n += efault("sendfile", what[k], sendfile(null, fd, o, 1));
		n += efault("copy_file_range (in)", what[k],
			    copy_file_range(fd, o, null, NULL, 1, 0));
		n += efault("copy_file_range (out)", what[k],
			    copy_file_range(fd, NULL, fd, o, 1, 0));
		n += efault("splice", what[k],
			    splice(fd, o, p[1], NULL, 1, 0));
		n += efault("readv", what[k], readv(fd, v, 1));
		n += efault("preadv", what[k], preadv(fd, v, 1, 0));
		n += efault("pwritev", what[k], pwritev(fd, v, 1, 0));
		n += efault("writev", what[k], writev(fd, v, 1));
		n += efault("syscall(sendfile)", what[k],
			    syscall(SYS_sendfile, null, fd, o, 1));
	}
	/* And nothing was lost meanwhile. */
	n += check_page("fbadptr (mapping)", (uint64_t *)m, 9, 0, 2);
	munmap(m, pages * PAGE);
	n += check_file("fbadptr (file)", fd, 9, 1, pages, 1, NULL, 1);
	close(p[0]);
	close(p[1]);
	close(null);
	close(fd);
	unlink(file_path);
	result("fbadptr", n);
}
