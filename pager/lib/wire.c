/* SPDX-License-Identifier: MIT */
/*
 * wire.c - see wire.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wire.h"

void wire_init(struct wire *w, int fd)
{
	w->fd = fd;
	w->len = 0;
	w->used = 0;
	w->nfds = 0;
	w->skipping = 0;
}

void wire_release(struct wire *w)
{
	for (int i = 0; i < w->nfds; i++)
		close(w->fds[i]);
	w->nfds = 0;
}

int wire_fill(struct wire *w)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * WIRE_MAX_FDS)];
		struct cmsghdr align;
	} control;
	struct iovec iov;
	struct msghdr msg = { 0 };
	struct cmsghdr *c;
	ssize_t n;

	/* Drop the lines already handed out. */
	if (w->used) {
		memmove(w->buf, w->buf + w->used, w->len - w->used);
		w->len -= w->used;
		w->used = 0;
	}
	if (w->len == WIRE_BUF) {
		/* No newline in a full buffer: drop the line. */
		w->len = 0;
		w->skipping = 1;
		return -EMSGSIZE;
	}
	iov.iov_base = w->buf + w->len;
	iov.iov_len = WIRE_BUF - w->len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = control.buf;
	msg.msg_controllen = sizeof(control.buf);
	do {
		n = recvmsg(w->fd, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		int *fds = (int *)CMSG_DATA(c);
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < k; i++) {
			if (w->nfds < WIRE_MAX_FDS)
				w->fds[w->nfds++] = fds[i];
			else
				close(fds[i]);	/* more than we ever expect */
		}
	}
	w->len += (size_t)n;
	return (int)n;
}

char *wire_line(struct wire *w)
{
	char *start = w->buf + w->used;
	char *nl = memchr(start, '\n', w->len - w->used);

	if (w->skipping) {
		/* The rest of an overlong line. */
		if (!nl) {
			w->len = w->used = 0;
			return NULL;
		}
		w->skipping = 0;
		w->used = (size_t)(nl - w->buf) + 1;
		return wire_line(w);
	}
	if (!nl)
		return NULL;
	*nl = 0;
	if (nl > start && nl[-1] == '\r')
		nl[-1] = 0;
	w->used = (size_t)(nl - w->buf) + 1;
	return start;
}

int wire_take_fd(struct wire *w)
{
	int fd;

	if (!w->nfds)
		return -1;
	fd = w->fds[0];
	memmove(w->fds, w->fds + 1, (size_t)(w->nfds - 1) * sizeof(int));
	w->nfds--;
	return fd;
}

int wire_send(int fd, const char *buf, size_t len, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * WIRE_MAX_FDS)];
		struct cmsghdr align;
	} control;
	size_t done = 0;

	if (nfds > WIRE_MAX_FDS)
		return -EINVAL;
	while (done < len) {
		struct iovec iov = { (char *)buf + done, len - done };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		if (nfds && !done) {
			struct cmsghdr *c;

			memset(&control, 0, sizeof(control));
			msg.msg_control = control.buf;
			msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			c = CMSG_FIRSTHDR(&msg);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
		}
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

int wire_printf(int fd, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1)
		return -EMSGSIZE;
	line[n++] = '\n';
	return wire_send(fd, line, (size_t)n, NULL, 0);
}

int wire_call(struct wire *w, void (*line)(const char *s, void *arg),
	      void *arg, char *err, size_t errlen)
{
	for (;;) {
		char *s;
		int n;

		while ((s = wire_line(w))) {
			if (!strcmp(s, "ok"))
				return 0;
			if (!strncmp(s, "error", 5)) {
				snprintf(err, errlen, "%s", s[5] ? s + 6 : "");
				return -1;
			}
			if (line)
				line(s, arg);
		}
		n = wire_fill(w);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0 && n != -EINTR)
			return n;
	}
}
