/* SPDX-License-Identifier: MIT */
/*
 * fuzz-ctl.c - libFuzzer harness for the control protocol: the input is
 * what a client writes on the daemon's socket. A daemon is set up (no
 * listener, no swap), the input is written into one end of a socket pair
 * whose other end the daemon serves, and the loop runs until it has
 * answered everything and closed the connection. Every input gets a
 * fresh daemon, so LeakSanitizer sees what a connection leaves behind.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../pager/daemon/control/control.h"
#include "../../pager/daemon/daemon.h"
#include "../../pager/lib/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	pgr_log_level = -1;	/* refusals are expected: quiet */
	return 0;
}

/* Read what the daemon answered, to keep its sends from blocking. */
static void drain(int fd)
{
	char buf[65536];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pgr_opts o = { .budget = 256 };
	uv_loop_t loop;
	struct pgr *p;
	int sv[2];
	size_t off = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0, sv))
		abort();
	uv_loop_init(&loop);
	p = pgr_daemon_new(&o, &loop);
	if (!p)
		abort();
	pgr_conn_open(p, sv[0], getpid());
	for (int round = 0; round < 1000 && p->conns; round++) {
		if (off < size) {
			ssize_t n = write(sv[1], data + off, size - off);

			if (n > 0)
				off += (size_t)n;
		} else if (off == size) {
			shutdown(sv[1], SHUT_WR);	/* end of input */
			off++;
		}
		uv_run(&loop, UV_RUN_NOWAIT);
		drain(sv[1]);
	}
	close(sv[1]);
	uv_run(&loop, UV_RUN_NOWAIT);
	pgr_daemon_free(p);
	uv_loop_close(&loop);
	return 0;
}
