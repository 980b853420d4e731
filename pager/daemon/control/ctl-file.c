/* SPDX-License-Identifier: MIT */
/*
 * ctl-file.c - the control protocol's commands about files
 * (docs/protocol.md): a shim's takeover of a file mapping (file, mapf,
 * msync), its share of the table of cached files (ftable), what its
 * read(2) and write(2) of them owe the cache (wopen, wpre, wpost, rsync:
 * docs/files.md, "Coherence"), and its agent's answer to a hand-back
 * (demoted).
 *
 * Owns: nothing but the parsing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/ftable.h"
#include "../../lib/log.h"
#include "../cache/cache.h"
#include "../core/core.h"
#include "../pgr.h"
#include "../watch/watch.h"
#include "ctl-req.h"

/* Does @c map cached inode @ino (a file region of it; shared and
 * writable if @rw)? */
static bool maps_inode(const struct pgr *p, const struct client *c,
		       uint32_t ino, bool rw)
{
	for (size_t k = 0; k < c->nr_regions; k++) {
		const struct region *g = &p->regions[c->regions[k]];

		if (g->inode == ino && (!rw || (g->rflags & R_SHARED)))
			return true;
	}
	return false;
}

/* The inode of "file [rw] ID GEN": one the client maps already (its
 * remap_file_pages, which maps another part of the same memfd), whose
 * mapping it may widen no further than it was: rw only if mapped so. */
static int inode_by_id(struct req *r, struct client *c, int at, bool rw)
{
	uint64_t id, gen;

	if (arg_hex(r, at, &id) || arg_hex(r, at + 1, &gen) ||
	    id >= r->p->nr_files_max || gen > UINT32_MAX) {
		fail(r, "file: expected [rw] [ID GEN]");
		return -1;
	}
	if (!F(r->p, id)->used || F(r->p, id)->gen != gen ||
	    !maps_inode(r->p, c, (uint32_t)id, rw)) {
		fail(r, "file: inode %llx is not one this process maps%s",
		     (unsigned long long)id, rw ? " shared and writable" : "");
		return -1;
	}
	return (int)id;
}

/* file [rw] (+ fd: a regular file the program maps): its page cache.
 * Answer "file ID GEN" with the memfd to map in its place (read-write if
 * rw: a shared writable mapping), then ok. With ID GEN instead of a
 * descriptor: the memfd of a cached inode the client maps already. */
static void cmd_file(struct req *r)
{
	struct client *c = own(r);
	int fd = pgr_conn_take_fd(r->conn), ino, mfd, err;
	bool rw = r->argc > 1 && !strcmp(r->argv[1], "rw");
	int at = rw ? 2 : 1;
	const char *why = NULL;
	char line[64];

	if (!c) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (r->argc > at) {
		if (fd >= 0)
			close(fd);
		ino = inode_by_id(r, c, at, rw);
		if (ino < 0)
			return;
		goto take;
	}
	if (fd < 0) {
		fail(r, "file: no file descriptor attached");
		return;
	}
	if (rw && (fcntl(fd, F_GETFL) & O_ACCMODE) != O_RDWR) {
		close(fd);
		fail(r, "file: not open for reading and writing");
		return;
	}
	ino = pgr_file_get(r->p, c, fd, &why);
	close(fd);
	if (ino == -ENODEV) {
		fail(r, "limit: %s", why);	/* the kernel's, silently */
		return;
	}
	if (ino < 0) {
		fail(r, "file: %s", why ? why : strerror(-ino));
		return;
	}
take:
	err = pgr_seal_take(r->p, c, (uint32_t)ino, rw, &why);
	if (err) {
		/* A new entry no one maps goes again. */
		if (!r->p->files[ino].coh && !r->p->files[ino].nr_mappers)
			pgr_file_drop(r->p, (uint32_t)ino);
		if (err == -EAGAIN) {
			reply(r, "busy");	/* the shim asks again */
			reply(r, "ok");
			return;
		}
		/* Not an error of the program's: the kernel keeps it. */
		pgr_info("a mapping by process %d stays the kernel's: %s",
			 c->pid, why);
		fail(r, "limit: the file stays the kernel's: %s", why);
		return;
	}
	mfd = pgr_file_memfd(r->p, (uint32_t)ino, rw);
	if (mfd < 0) {
		fail(r, "file: cannot open the page cache: %s",
		     strerror(errno));
		return;
	}
	pgr_file_hand(r->p, c, (uint32_t)ino);
	snprintf(line, sizeof(line), "file %d %u", ino,
		 r->p->files[ino].gen);
	pgr_conn_send_fd(r->conn, line, mfd);
	close(mfd);
	reply(r, "ok");
}

/* mapf START LEN ID GEN PGOFF FLAGS: the memfd of inode ID is mapped at
 * START (hex numbers; FLAGS: 1 shared, 2 writable, 4 executable) */
static void cmd_mapf(struct req *r)
{
	struct client *c = own(r);
	uint64_t s, n, ino, gen, pgoff, fl;
	const char *why = NULL;
	int err;

	if (!c)
		return;
	if (arg_hex(r, 1, &s) || arg_hex(r, 2, &n) || arg_hex(r, 3, &ino) ||
	    arg_hex(r, 4, &gen) || arg_hex(r, 5, &pgoff) ||
	    arg_hex(r, 6, &fl) || (s & 4095) || !n || fl > 7 ||
	    ino > UINT32_MAX || gen > UINT32_MAX || s + n < s) {
		fail(r, "mapf: expected START LEN ID GEN PGOFF FLAGS");
		return;
	}
	err = pgr_file_map(r->p, c, s, (n + 4095) & ~4095ULL, (uint32_t)ino,
			   (uint32_t)gen, pgoff, (uint8_t)fl, &why);
	pgr_file_unhand(r->p, c);
	if (err == -ENOSPC) {
		/* A limit, not a fault: the shim leaves it to the kernel
		 * without a word to the program. */
		fail(r, "limit: %s", why);
		return;
	}
	if (err) {
		fail(r, "mapf: %s", why ? why : strerror(-err));
		return;
	}
	pgr_seal_mapped(r->p, (uint32_t)ino, fl & 4);
	reply(r, "ok");
}

/*
 * An "ok" sent once the write-backs a request started have landed (they
 * go through the ring: file.c). The shim waits for one answer at a time
 * on a connection, so a later "ok" never overtakes another. With @sync
 * (msync's MS_SYNC) the inodes are synced to the disk first.
 */
#define LATER_INODES 16
struct later_ok {
	struct pgr_drain d;
	struct conn *conn;
	bool sync;
	bool check;		/* tell a write-back error ("wberr N") */
	unsigned int nr;
	uint32_t ino[LATER_INODES], gen[LATER_INODES];
};

static void later_done(struct pgr *p, struct pgr_drain *d)
{
	struct later_ok *l = (struct later_ok *)d;
	struct client *c = l->check ? pgr_conn_client(l->conn) : NULL;
	int err = 0;

	for (unsigned int k = 0; k < l->nr; k++) {
		struct finode *fi = &p->files[l->ino[k]];

		if (!fi->used || fi->gen != l->gen[k])
			continue;
		if (l->sync && fi->wfd >= 0 && fdatasync(fi->wfd) && !err)
			err = errno;
		if (c && !err)
			err = pgr_file_wb_check(p, c, l->ino[k]);
	}
	if (err && c) {
		char line[32];

		snprintf(line, sizeof(line), "wberr %d", err);
		pgr_conn_send(l->conn, line);
	}
	pgr_conn_send(l->conn, "ok");
	pgr_conn_put(l->conn);
	free(l);
}

static struct later_ok *later(struct req *r)
{
	struct later_ok *l = pgr_xcalloc(1, sizeof(*l));

	l->d = (struct pgr_drain){ 1, later_done };
	l->conn = r->conn;
	pgr_conn_get(r->conn);
	return l;
}

/* msync START LEN [sync]: write back what the client dirtied there (to
 * the disk, with sync: MS_SYNC); answered once written, after a line
 * "wberr ERRNO" with sync if a write-back of those files failed since
 * the client was last told */
static void cmd_msync(struct req *r)
{
	struct client *c = own(r);
	struct later_ok *l;
	uint64_t s, n;

	if (!c)
		return;
	if (arg_hex(r, 1, &s) || arg_hex(r, 2, &n) || s + n < s) {
		fail(r, "msync: expected START LEN [sync]");
		return;
	}
	l = later(r);
	if (r->argc > 3 && !strcmp(r->argv[3], "sync")) {
		l->sync = l->check = true;
		for (size_t k = 0; k < c->nr_regions && l->nr < LATER_INODES;
		     k++) {
			struct region *g = &r->p->regions[c->regions[k]];

			if (region_is_file(g) && g->start < s + n &&
			    g->end > s) {
				l->ino[l->nr] = g->inode;
				l->gen[l->nr++] = r->p->files[g->inode].gen;
			}
		}
	}
	pgr_file_msync(r->p, c, s, s + n, &l->d);
	pgr_drain_put(r->p, &l->d);
}

/* ftable: the table of cached files, read-only ("ftable" + fd, ok) */
static void cmd_ftable(struct req *r)
{
	int fd = pgr_ftable_fd(r->p);

	if (!own(r))
		return;
	if (fd < 0) {
		fail(r, "ftable: %s", strerror(errno));
		return;
	}
	pgr_conn_send_fd(r->conn, "ftable", fd);
	close(fd);
	reply(r, "ok");
}

/* The cached inode of words ID GEN at @i: its index, or -1 (with the
 * error sent). A gone or reused one is no error: nothing is owed it. */
static int inode_arg(struct req *r, int i, uint64_t *from, uint64_t *to)
{
	uint64_t id, gen;

	if (arg_hex(r, i, &id) || arg_hex(r, i + 1, &gen) ||
	    (from && (arg_hex(r, i + 2, from) || arg_hex(r, i + 3, to) ||
		      *from > *to))) {
		fail(r, "%s: expected ID GEN%s", r->argv[0],
		     from ? " FROM TO" : "");
		return -1;
	}
	if (id >= r->p->nr_files_max || !r->p->files[id].used ||
	    r->p->files[id].gone || r->p->files[id].gen != gen) {
		reply(r, "ok");
		return -1;
	}
	return (int)id;
}

/* wopen ID GEN: the client is about to open the inode for writing */
static void cmd_wopen(struct req *r)
{
	struct client *c = own(r);
	int ino;

	if (!c || (ino = inode_arg(r, 1, NULL, NULL)) < 0)
		return;
	if (pgr_seal_wopen(r->p, c, (uint32_t)ino) == -EAGAIN)
		reply(r, "busy");
	reply(r, "ok");
}

/* wstd ID GEN 0 FD: the client's descriptor FD (0-2, which `pager run`'s
 * write filter leaves alone) names the inode, open for writing: its
 * writes there are unseen, and the inode is handed back ("busy" until). */
static void cmd_wstd(struct req *r)
{
	struct client *c = own(r);
	uint64_t fd, zero;
	char why[112];
	int ino;

	if (!c || (ino = inode_arg(r, 1, &zero, &fd)) < 0)
		return;
	snprintf(why, sizeof(why), "written by process %d through its "
		 "descriptor %d, whose writes the pager does not see",
		 (int)c->pid, (int)(fd & 3));
	pgr_demote(r->p, (uint32_t)ino, why);
	reply(r, "busy");
	reply(r, "ok");
}

/* wpre|wpost ID GEN FROM TO: a write to bytes [FROM, TO) of the inode */
static void cmd_write(struct req *r, bool post)
{
	struct client *c = own(r);
	uint64_t from, to;
	int ino;

	if (!c || (ino = inode_arg(r, 1, &from, &to)) < 0)
		return;
	if (post) {
		pgr_fwrite_post(r->p, c, (uint32_t)ino, from, to);
		reply(r, "ok");
	} else {
		struct later_ok *l = later(r);

		pgr_fwrite_pre(r->p, c, (uint32_t)ino, from, to, &l->d);
		pgr_drain_put(r->p, &l->d);
	}
}

/* rsync ID GEN FROM TO | rsync all: dirty pages there to the file;
 * fsync ID GEN FROM TO: the same, after a line "wberr ERRNO" if a
 * write-back of the file failed since the client was last told */
static void cmd_rsync(struct req *r)
{
	struct later_ok *l;
	uint64_t from, to;
	int ino;

	if (!own(r))
		return;
	if (r->argc == 2 && !strcmp(r->argv[1], "all")) {
		l = later(r);
		pgr_fwrite_sync(r->p, PGR_NONE, 0, UINT64_MAX, &l->d);
		pgr_drain_put(r->p, &l->d);
		return;
	}
	if ((ino = inode_arg(r, 1, &from, &to)) < 0)
		return;
	l = later(r);
	if (!strcmp(r->argv[0], "fsync")) {
		l->check = true;
		l->ino[0] = (uint32_t)ino;
		l->gen[0] = r->p->files[ino].gen;
		l->nr = 1;
	}
	pgr_fwrite_sync(r->p, (uint32_t)ino, from, to, &l->d);
	pgr_drain_put(r->p, &l->d);
}

/* demoted ID START ERRNO: the agent replaced a mapping (no answer) */
static void cmd_demoted(struct req *r)
{
	struct client *c = pgr_conn_client(r->conn);
	uint64_t id, start, err;

	if (c && !arg_hex(r, 1, &id) && !arg_hex(r, 2, &start) &&
	    r->argc > 3 && !pgr_parse_u64(r->argv[3], &err) && err < 4096)
		pgr_demote_done(r->p, c, start, (int)err);
}

bool pgr_ctl_file(struct req *r)
{
	const char *cmd = r->argv[0];

	if (!strcmp(cmd, "file"))
		cmd_file(r);
	else if (!strcmp(cmd, "mapf"))
		cmd_mapf(r);
	else if (!strcmp(cmd, "msync"))
		cmd_msync(r);
	else if (!strcmp(cmd, "ftable"))
		cmd_ftable(r);
	else if (!strcmp(cmd, "wopen"))
		cmd_wopen(r);
	else if (!strcmp(cmd, "wstd"))
		cmd_wstd(r);
	else if (!strcmp(cmd, "wpre"))
		cmd_write(r, false);
	else if (!strcmp(cmd, "wpost"))
		cmd_write(r, true);
	else if (!strcmp(cmd, "rsync") || !strcmp(cmd, "fsync"))
		cmd_rsync(r);
	else if (!strcmp(cmd, "demoted"))
		cmd_demoted(r);
	else
		return false;
	return true;
}
