/* SPDX-License-Identifier: MIT */
/*
 * uffd.c - the program's own userfaultfd.
 *
 * A range has one userfaultfd. The pager registered the program's
 * anonymous memory first, so the program's own UFFDIO_REGISTER there
 * (QEMU's post-copy, CRIU's lazy pages, ART's collector) fails with
 * EBUSY. The shim's ioctl then asks the daemon to hand the range back to
 * the kernel ("handback", pager/daemon/core/handback.c). Pages the
 * daemon holds in swap or in flight it names; they are read here, with
 * process_vm_readv of this process (a pointer the program cannot read
 * is its own business, never a signal), which faults them in, and the
 * daemon is asked again. Once it says ok, the registration is made
 * again and goes through. Pages never touched stay untouched: the
 * daemon names only what it holds.
 *
 * The range is no longer under the pager's budget from then on, as with
 * any memory the kernel manages for a program (docs/daemon.md,
 * "A program's own userfaultfd").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../lib/compat.h"
#include "shim.h"
#include "sys.h"

#define STALLS		64	/* asks naming the same first page before
				 * the kernel's EBUSY stands */
#define NAMED		256	/* addresses a "busy" answer names */

struct named {
	unsigned long at[NAMED];
	size_t n;
};

static void name_one(const char *s, void *arg)
{
	struct named *b = arg;
	unsigned long a;

	if (b->n < NAMED && sscanf(s, "%lx", &a) == 1)
		b->at[b->n++] = a;
}

/* Read one byte of each named page: a fault for the daemon to serve. */
static void fault_in(const struct named *b)
{
	char byte;

	for (size_t k = 0; k < b->n; k++) {
		struct iovec local = { &byte, 1 };
		struct iovec remote = { (void *)b->at[k], 1 };

		sys6(SYS_process_vm_readv, getpid(), (long)&local, 1,
		     (long)&remote, 1, 0);
	}
}

/* Have [start, start + len) handed back: 0, or -EBUSY as the kernel's. */
static long hand_back(unsigned long start, unsigned long len)
{
	unsigned long first = 0;
	struct named b;

	for (int stalls = 0; stalls < STALLS;) {
		b.n = 0;
		if (!shim_request(name_one, &b, "handback %lx %lx", start, len))
			return 0;
		if (!b.n)
			break;	/* refused, not busy: a file mapping */
		stalls = b.at[0] == first ? stalls + 1 : 0;
		first = b.at[0];
		fault_in(&b);
	}
	fprintf(stderr, "pager: the pager could not hand 0x%lx-0x%lx back to "
		"the kernel for this program's own userfaultfd: "
		"UFFDIO_REGISTER fails with EBUSY\n", start, start + len);
	return -EBUSY;
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	long r;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	r = sys3(SYS_ioctl, fd, request, arg);
	/* The kernel read the argument before it said EBUSY. */
	if (r == -EBUSY && request == UFFDIO_REGISTER && shim.on) {
		const struct uffdio_register *reg = arg;

		r = hand_back((unsigned long)reg->range.start,
			      (unsigned long)reg->range.len);
		if (!r)
			r = sys3(SYS_ioctl, fd, request, arg);
	}
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
}
