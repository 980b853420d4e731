/* SPDX-License-Identifier: MIT */
/*
 * verify-ownuffd.c - verify's test of a program's own userfaultfd, as
 * QEMU's post-copy or CRIU's lazy pages use one: a buffer larger than
 * the budget is filled (under the pager most of it is then in swap),
 * registered with the program's own userfaultfd, and read back intact;
 * then a fresh mapping is registered before it is touched, and a thread
 * of the program serves its missing faults with UFFDIO_COPY. Under the
 * pager both registrations first failed with EBUSY.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "verify.h"

#define FRESH	64		/* pages of the mapping served by the program */

static int uffd_new(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0 || ioctl(fd, UFFDIO_API, &api)) {
		printf("verify: ownuffd: userfaultfd: %s\n", strerror(errno));
		exit(1);
	}
	return fd;
}

static void uffd_register(int fd, char *p, size_t len)
{
	struct uffdio_register reg = {
		.range = { (uintptr_t)p, len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	if (ioctl(fd, UFFDIO_REGISTER, &reg)) {
		printf("verify: ownuffd: UFFDIO_REGISTER: %s\n",
		       strerror(errno));
		exit(1);
	}
}

struct server {
	int fd;
	unsigned long served;
};

/* Serve missing faults with page patterns until every page came. */
static void *serve(void *arg)
{
	struct server *s = arg;
	static uint64_t page[WORDS] __attribute__((aligned(4096)));

	while (s->served < FRESH) {
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		struct uffd_msg msg;

		if (poll(&pfd, 1, 10000) != 1)
			break;
		if (read(s->fd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		uint64_t a = msg.arg.pagefault.address & ~(PAGE - 1);
		struct uffdio_copy cp = {
			.dst = a, .src = (uintptr_t)page, .len = PAGE,
		};

		fill_page(page, 42, (a / PAGE) % FRESH, 1);
		if (!ioctl(s->fd, UFFDIO_COPY, &cp))
			s->served++;
	}
	return NULL;
}

void t_ownuffd(void)
{
	size_t pages = mb << 20 >> 12;
	char *buf = map(pages * PAGE), *fresh;
	struct server s;
	pthread_t t;
	unsigned long n = 0;

	fill(buf, 41, 0, pages, 1);
	n += check("ownuffd (before)", buf, 41, 0, pages, 1);
	s.fd = uffd_new();
	uffd_register(s.fd, buf, pages * PAGE);
	n += check("ownuffd (registered)", buf, 41, 0, pages, 1);

	/* 64-page aligned, so that page k is pattern k % FRESH. */
	fresh = mmap(NULL, 2 * FRESH * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fresh == MAP_FAILED) {
		perror("verify: mmap");
		exit(1);
	}
	fresh = (char *)(((uintptr_t)fresh + FRESH * PAGE - 1) &
			 ~(FRESH * PAGE - 1));
	uffd_register(s.fd, fresh, FRESH * PAGE);
	s.served = 0;
	pthread_create(&t, NULL, serve, &s);
	for (size_t pg = 0; pg < FRESH; pg++)
		n += check_page("ownuffd (served)",
				(uint64_t *)(fresh + pg * PAGE), 42,
				((uintptr_t)fresh / PAGE + pg) % FRESH, 1);
	pthread_join(t, NULL);
	if (s.served != FRESH) {
		printf("verify: ownuffd: %lu faults served, want %d\n",
		       s.served, FRESH);
		n++;
	}
	close(s.fd);
	munmap(buf, pages * PAGE);
	result("ownuffd", n);
}
