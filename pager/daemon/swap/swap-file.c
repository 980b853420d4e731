/* SPDX-License-Identifier: MIT */
/*
 * swap-file.c - the swap device that is a file: `--swap FILE` (a
 * temporary one by default), read and written with O_DIRECT, so that the
 * kernel's page cache does not hide the I/O, through the ring (ring.c).
 * Slot s is the page at offset s * 4096.
 *
 * Owns: the file's descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../pgr.h"
#include "store.h"

struct swap_file {
	int fd;
};

/* Any path: the file is the device asked last. */
static int file_match(const char *spec, char *why, size_t len)
{
	(void)why;
	(void)len;
	return *spec ? 1 : 0;
}

static int file_open(struct pgr *p, const char *path, uint64_t slots)
{
	struct swap_file *f;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0) {
		int err = errno;

		pgr_err("cannot open swap file '%s': %s%s", path,
			strerror(err), err == EINVAL ?
			" (the file system does not support O_DIRECT; give "
			"--swap a file on a disk, not tmpfs)" : "");
		return -err;
	}
	if (p->o.swap_temp)
		unlink(path);	/* gone with the last descriptor */
	if (ftruncate(fd, (off_t)(slots * PGR_PAGE))) {
		int err = errno;

		pgr_err("cannot size swap file '%s': %s", path,
			strerror(err));
		close(fd);
		return -err;
	}
	f = pgr_xcalloc(1, sizeof(*f));
	f->fd = fd;
	p->swap_dev_data = f;
	return 0;
}

static void file_close(struct pgr *p)
{
	struct swap_file *f = p->swap_dev_data;

	if (!f)
		return;
	close(f->fd);
	free(f);
	p->swap_dev_data = NULL;
}

static int file_io(struct pgr *p, const struct pgr_swap_io *io, bool write)
{
	const struct swap_file *f = p->swap_dev_data;

	return pgr_ring_queue(p, f->fd, io->buf, PGR_PAGE,
			      (off_t)io->slot * PGR_PAGE, write,
			      write ? PGR_IO_SWAP_WRITE : PGR_IO_SWAP_READ,
			      io->tag);
}

static int file_write(struct pgr *p, const struct pgr_swap_io *io)
{
	return file_io(p, io, true);
}

static int file_read(struct pgr *p, const struct pgr_swap_io *io)
{
	return file_io(p, io, false);
}

/* The slot's old bytes stay in the file until it is written again. */
static bool file_free(struct pgr *p, uint32_t slot)
{
	(void)p;
	(void)slot;
	return false;
}

const struct pgr_swap_store pgr_swap_file = {
	.name = "file",
	.match = file_match,
	.open = file_open,
	.close = file_close,
	.write = file_write,
	.read = file_read,
	.free = file_free,
};
