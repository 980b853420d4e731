/* SPDX-License-Identifier: MIT */
/*
 * io.c - read(2), write(2) and their kin, kept coherent with the pager's
 * page cache (docs/files.md, "Coherence").
 *
 * A file the daemon caches lives in its memfd; these calls go to the
 * kernel's page cache. The daemon's table (lib/ftable.h, mapped here
 * read-only) says, per cached inode, what a call owes it:
 *
 *   write family  to a WATCHED inode: once the call returned, "wpost ID
 *                 GEN FROM TO" (bytes), and the daemon copies what was
 *                 written into its cached pages before we return (the
 *                 next load through any mapping sees it). To an RW inode
 *                 (shared writable mappings: dirty pages) first "wpre",
 *                 which writes those pages back and holds stores to them
 *                 until the wpost.
 *   read family   of an RW inode: first "rsync ID GEN FROM TO": dirty
 *                 pages there are written back, so the kernel's cache
 *                 has what the mappings wrote. fsync and its kin too.
 *   opens         for writing (or truncating) of a SEALED inode: first
 *                 "wopen ID GEN", so that the daemon lets its lease go
 *                 and watches the inode instead of handing it back.
 *
 * The fast path is one load: while nr_watched (nr_rw, nr_sealed) is 0,
 * nothing is asked and no fstat is made. The table is read after a write
 * returns, so an inode cached while the call ran is seen: its pages were
 * read from the file after the table said so.
 *
 * Our write-family system calls carry PGR_SYSCALL_MARKER: `pager run`'s
 * seccomp filter hands the daemon the ones that do not (libc's internal
 * calls, raw syscall(2), static programs), and a write the shim did not
 * see to a watched inode hands that inode back to the kernel first. So
 * does a call made while this thread is inside a request (a signal
 * handler's), or by a process without the table: it goes out without the
 * marker. Without `pager run`'s
 * filter (LD_PRELOAD by hand), such writes are not seen.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../lib/compat.h"
#include "shim.h"
#include "sys.h"

#define MARK	PGR_SYSCALL_MARKER
#define END	(~0ull)		/* "to the end of the file" */

/* ---- the table ------------------------------------------------------- */

static bool entry_of(const struct stat *st, struct ft_entry *e)
{
	return S_ISREG(st->st_mode) && shim.ft &&
	       ft_lookup(shim.ft, (uint64_t)st->st_dev, (uint64_t)st->st_ino,
			 e);
}

static bool entry_of_fd(int fd, struct ft_entry *e)
{
	struct stat st;

	return fd >= 0 && !fstat(fd, &st) && entry_of(&st, e);
}

#define NR_WATCHED()	(shim.ft ? shim.ft->nr_watched : 0)
#define NR_RW()		(shim.ft ? shim.ft->nr_rw : 0)
#define NR_SEALED()	(shim.ft ? shim.ft->nr_sealed : 0)

/* The last answer's "wberr ERRNO" line (fsync), or 0. */
static __thread int wberr __attribute__((tls_model("initial-exec")));

static void busy(const char *line, void *arg)
{
	if (!strcmp(line, "busy"))
		*(bool *)arg = true;
	else if (!strncmp(line, "wberr ", 6))
		wberr = atoi(line + 6);
}

/* Ask, again while the daemon says it is busy handing the inode back
 * (milliseconds), for at most 10 s. */
static int ask(const char *what, const struct ft_entry *e,
	       unsigned long long from, unsigned long long to)
{
	struct timespec ms = { 0, 1000000 };

	wberr = 0;
	for (int k = 0; k < 10000; k++) {
		bool b = false;
		int err = shim_request(busy, &b, "%s %x %x %llx %llx", what,
				       e->id, e->gen, from, to);

		if (err || !b)
			return err;
		nanosleep(&ms, NULL);
	}
	return -ETIMEDOUT;
}

/* Exported by glibc without a declaration in its headers (fortified and
 * internal entry points some programs call). */
ssize_t __write(int fd, const void *buf, size_t n);
ssize_t __pwrite64(int fd, const void *buf, size_t n, off_t off);
ssize_t __read(int fd, void *buf, size_t n);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread64(int fd, void *buf, size_t n, off_t off);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off,
		      size_t buflen);
int __open(const char *path, int flags, ...);
int __open64(const char *path, int flags, ...);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dir, const char *path, int flags);
int __openat64_2(int dir, const char *path, int flags);

/* ---- the program's arguments ------------------------------------------ */

/*
 * Copy @n bytes of the program's memory at @src, as the kernel reads a
 * system call's argument: false where that read would fault. The call
 * then fails with EFAULT, as natively; the shim must not die of SIGSEGV
 * first by loading the pointer itself. (process_vm_readv of itself; a
 * program's seccomp filter that refuses it leaves the plain load.)
 */
static bool peek(void *dst, const void *src, size_t n)
{
	struct iovec l = { dst, n }, r = { (void *)src, n };
	long got = sys6(SYS_process_vm_readv, sys0(SYS_getpid), (long)&l, 1,
			(long)&r, 1, 0);

	if (got == (long)n)
		return true;
	if (got == -EFAULT || got >= 0)
		return false;
	memcpy(dst, src, n);
	return true;
}

/* An offset argument: END for NULL; false if it cannot be read. */
static bool arg_off(const off_t *p, unsigned long long *v)
{
	off_t o;

	*v = END;
	if (!p)
		return true;
	if (!peek(&o, p, sizeof(o)))
		return false;
	*v = (unsigned long long)o;
	return true;
}

/* The bytes an iovec array asks for, END if it cannot be read (the
 * kernel fails the call), read only if a read or write owes anything. */
static unsigned long long iov_len(const struct iovec *iov, int n)
{
	struct iovec part[16];
	unsigned long long len = 0;

	if (!NR_RW())
		return 0;
	for (int k = 0; k < n; k += 16) {
		int m = n - k < 16 ? n - k : 16;

		if (!peek(part, iov + k, (size_t)m * sizeof(*part)))
			return END;
		for (int j = 0; j < m; j++)
			len += part[j].iov_len;
	}
	return len;
}

/* @from + @len, END if either is unknown. */
static unsigned long long upto(unsigned long long from, unsigned long long len)
{
	return from == END || len == END || from + len < from ? END : from + len;
}

/* ---- writes ------------------------------------------------------------ */

struct wctx {
	int fd;
	bool pre;		/* a wpre was said: the wpost must follow */
	struct ft_entry e;
};

/* Before a write of [from, to) (END: unknown) to @fd. */
static void write_begin(struct wctx *w, int fd, unsigned long long from,
			unsigned long long to)
{
	w->fd = fd;
	w->pre = false;
	if (!NR_RW() || !entry_of_fd(fd, &w->e) || !(w->e.flags & FT_RW))
		return;
	if (from == END)
		from = 0;
	w->pre = !ask("wpre", &w->e, from, to);
}

/* After it: [from, to) is what was written; from == to: the size alone
 * may have changed. */
static void write_end(struct wctx *w, unsigned long long from,
		      unsigned long long to)
{
	int saved = errno;

	if (!w->pre) {
		if (!NR_WATCHED() || !entry_of_fd(w->fd, &w->e) ||
		    !(w->e.flags & FT_WATCHED))
			return;
	}
	ask("wpost", &w->e, from, to);
	errno = saved;
}

/* Bytes [pos - n, pos) of a write at @fd's offset, after it returned. */
static void write_end_here(struct wctx *w, ssize_t n)
{
	off_t pos;

	if (!w->pre && !NR_WATCHED())
		return;
	pos = n > 0 ? lseek(w->fd, 0, SEEK_CUR) : -1;
	if (pos < 0)
		write_end(w, 0, 0);
	else
		write_end(w, (unsigned long long)pos - (unsigned long long)n,
			  (unsigned long long)pos);
}

/* The marker says "the shim saw this": not inside a request (a signal
 * handler's call), which the seccomp backstop must see instead. */
static long mark(void)
{
	return shim.ft && !shim_in_request() ? (long)MARK : 0;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	struct wctx w;
	ssize_t r;

	write_begin(&w, fd, END, END);
	r = syscall(SYS_write, fd, buf, n, 0, 0, mark());
	write_end_here(&w, r);
	shim_cgroup_wrote(fd, buf, n, r);
	return r == (ssize_t)n ? r :
	       shim_self_mem(fd, (void *)buf, n, -1, true, r);
}

ssize_t __write(int fd, const void *buf, size_t n)
	__attribute__((alias("write")));

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	struct wctx w;
	ssize_t r;

	write_begin(&w, fd, (unsigned long long)off,
		    (unsigned long long)off + n);
	r = syscall(SYS_pwrite64, fd, buf, n, off, 0, mark());
	write_end(&w, (unsigned long long)off,
		  (unsigned long long)off + (r > 0 ? (size_t)r : 0));
	return r == (ssize_t)n ? r :
	       shim_self_mem(fd, (void *)buf, n, off, true, r);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
	__attribute__((alias("pwrite")));
ssize_t __pwrite64(int fd, const void *buf, size_t n, off_t off)
	__attribute__((alias("pwrite")));

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	struct wctx w;
	ssize_t r;

	write_begin(&w, fd, END, END);
	r = syscall(SYS_writev, fd, iov, cnt, 0, 0, mark());
	write_end_here(&w, r);
	return r;
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	struct wctx w;
	ssize_t r;

	write_begin(&w, fd, (unsigned long long)off,
		    upto((unsigned long long)off, iov_len(iov, cnt)));
	r = syscall(SYS_pwritev, fd, iov, cnt, off, 0, mark());
	write_end(&w, (unsigned long long)off,
		  (unsigned long long)off + (r > 0 ? (size_t)r : 0));
	return r;
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
	__attribute__((alias("pwritev")));

ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off,
		 int flags)
{
	struct wctx w;
	ssize_t r;

	if (off == -1) {
		write_begin(&w, fd, END, END);
		r = syscall(SYS_pwritev2, fd, iov, cnt, off, mark(), flags);
		write_end_here(&w, r);
		return r;
	}
	write_begin(&w, fd, (unsigned long long)off,
		    upto((unsigned long long)off, iov_len(iov, cnt)));
	r = syscall(SYS_pwritev2, fd, iov, cnt, off, mark(), flags);
	write_end(&w, (unsigned long long)off,
		  (unsigned long long)off + (r > 0 ? (size_t)r : 0));
	return r;
}

ssize_t pwritev64v2(int fd, const struct iovec *iov, int cnt, off_t off,
		    int flags) __attribute__((alias("pwritev2")));

int ftruncate(int fd, off_t len)
{
	struct wctx w;
	int r;

	write_begin(&w, fd, (unsigned long long)len, END);
	r = (int)syscall(SYS_ftruncate, fd, len, 0, 0, 0, mark());
	write_end(&w, 0, 0);
	return r;
}

int ftruncate64(int fd, off_t len) __attribute__((alias("ftruncate")));

int fallocate(int fd, int mode, off_t off, off_t len)
{
	struct wctx w;
	int r;

	write_begin(&w, fd, (unsigned long long)off,
		    (unsigned long long)(off + len));
	r = (int)syscall(SYS_fallocate, fd, mode, off, len, 0, mark());
	write_end(&w, (unsigned long long)off,
		  (unsigned long long)(off + len));
	return r;
}

int fallocate64(int fd, int mode, off_t off, off_t len)
	__attribute__((alias("fallocate")));

/* The next definition of @name (glibc's), found once. */
static void *next(void **cache, const char *name)
{
	if (!*cache)
		*cache = dlsym(RTLD_NEXT, name);
	return *cache;
}

/* glibc's makes the system call itself, or writes zeros where the file
 * system has no fallocate: both out of our sight. */
int posix_fallocate(int fd, off_t off, off_t len)
{
	static void *f;
	int (*glibc)(int, off_t, off_t);
	int saved = errno, r;

	r = fallocate(fd, 0, off, len);
	if (!r || errno != EOPNOTSUPP) {
		r = r ? errno : 0;
		errno = saved;
		return r;
	}
	errno = saved;
	/* Its writes come to the seccomp backstop. */
	glibc = (int (*)(int, off_t, off_t))next(&f, "posix_fallocate");
	return glibc ? glibc(fd, off, len) : EOPNOTSUPP;
}

int posix_fallocate64(int fd, off_t off, off_t len)
	__attribute__((alias("posix_fallocate")));

/* ---- reads and syncs ------------------------------------------------ */

/* Before a read of [from, to) (END: from the offset on) of @fd. */
static void read_begin(int fd, unsigned long long from, unsigned long long to)
{
	struct ft_entry e;
	int saved = errno;

	if (!NR_RW() || !entry_of_fd(fd, &e) || !(e.flags & FT_RW))
		return;
	if (from == END) {
		off_t pos = lseek(fd, 0, SEEK_CUR);

		from = pos < 0 ? 0 : (unsigned long long)pos;
		to = to == END ? END : from + to;
	}
	ask("rsync", &e, from, to);
	errno = saved;
}

/*
 * Before fsync, fdatasync: the dirty pages to the file, and a write-back
 * of them that failed since this process was last told (the kernel's
 * errseq): its errno, or 0. A failed write-back leaves the kernel's own
 * error state alone (the daemon's write(2) itself failed), so the
 * kernel's fsync would not tell it.
 */
static int sync_begin(int fd)
{
	struct ft_entry e;
	int saved = errno;

	if (!NR_RW() || !entry_of_fd(fd, &e) || !(e.flags & FT_RW))
		return 0;
	ask("fsync", &e, 0, END);
	errno = saved;
	return wberr;
}

ssize_t read(int fd, void *buf, size_t n)
{
	ssize_t r;

	read_begin(fd, END, n);
	r = syscall(SYS_read, fd, buf, n);
	return r == (ssize_t)n ? r : shim_self_mem(fd, buf, n, -1, false, r);
}

ssize_t __read(int fd, void *buf, size_t n) __attribute__((alias("read")));

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	(void)buflen;	/* the compiler checked what it could */
	return read(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r;

	read_begin(fd, (unsigned long long)off, (unsigned long long)off + n);
	r = syscall(SYS_pread64, fd, buf, n, off);
	return r == (ssize_t)n ? r : shim_self_mem(fd, buf, n, off, false, r);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
	__attribute__((alias("pread")));
ssize_t __pread64(int fd, void *buf, size_t n, off_t off)
	__attribute__((alias("pread")));

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	(void)buflen;
	return pread(fd, buf, n, off);
}

ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
	__attribute__((alias("__pread_chk")));

ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	read_begin(fd, END, iov_len(iov, cnt));
	return syscall(SYS_readv, fd, iov, cnt);
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	read_begin(fd, (unsigned long long)off,
		   upto((unsigned long long)off, iov_len(iov, cnt)));
	return syscall(SYS_preadv, fd, iov, cnt, off, 0);
}

ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off_t off)
	__attribute__((alias("preadv")));

ssize_t preadv2(int fd, const struct iovec *iov, int cnt, off_t off,
		int flags)
{
	if (off == -1)
		read_begin(fd, END, iov_len(iov, cnt));
	else
		read_begin(fd, (unsigned long long)off,
			   upto((unsigned long long)off, iov_len(iov, cnt)));
	return syscall(SYS_preadv2, fd, iov, cnt, off, 0, flags);
}

ssize_t preadv64v2(int fd, const struct iovec *iov, int cnt, off_t off,
		   int flags) __attribute__((alias("preadv2")));

int fsync(int fd)
{
	int err = sync_begin(fd), r = (int)syscall(SYS_fsync, fd);

	if (!r && err) {
		errno = err;
		return -1;
	}
	return r;
}

int fdatasync(int fd)
{
	int err = sync_begin(fd), r = (int)syscall(SYS_fdatasync, fd);

	if (!r && err) {
		errno = err;
		return -1;
	}
	return r;
}

int sync_file_range(int fd, off_t off, off_t n, unsigned int flags)
{
	read_begin(fd, (unsigned long long)off,
		   n ? (unsigned long long)(off + n) : END);
	return (int)syscall(SYS_sync_file_range, fd, off, n, flags);
}

int syncfs(int fd)
{
	if (NR_RW())
		shim_request(NULL, NULL, "rsync all");
	return (int)syscall(SYS_syncfs, fd);
}

/* ---- copies: a read of one file, a write of another ------------------- */

ssize_t copy_file_range(int in, off_t *inoff, int out, off_t *outoff,
			size_t n, unsigned int flags)
{
	unsigned long long from = END, at = END;
	struct wctx w;
	ssize_t r;

	/* Offsets the kernel cannot read: its EFAULT, nothing owed. */
	if (!arg_off(inoff, &from) || !arg_off(outoff, &at))
		return syscall(SYS_copy_file_range, in, inoff, out, outoff, n,
			       flags);
	read_begin(in, from, from == END ? n : upto(from, n));
	write_begin(&w, out, at, upto(at, n));
	r = syscall(SYS_copy_file_range, in, inoff, out, outoff, n, flags);
	if (outoff)
		write_end(&w, at, upto(at, r > 0 ? (size_t)r : 0));
	else
		write_end_here(&w, r);
	return r;
}

ssize_t sendfile(int out, int in, off_t *off, size_t n)
{
	unsigned long long from = END;
	struct wctx w;
	ssize_t r;

	if (!arg_off(off, &from))
		return syscall(SYS_sendfile, out, in, off, n, 0, mark());
	read_begin(in, from, from == END ? n : upto(from, n));
	write_begin(&w, out, END, END);
	r = syscall(SYS_sendfile, out, in, off, n, 0, mark());
	write_end_here(&w, r);
	return r;
}

ssize_t sendfile64(int out, int in, off_t *off, size_t n)
	__attribute__((alias("sendfile")));

ssize_t splice(int in, off_t *inoff, int out, off_t *outoff, size_t n,
	       unsigned int flags)
{
	unsigned long long from = END, at = END;
	struct wctx w;
	ssize_t r;

	if (!arg_off(inoff, &from) || !arg_off(outoff, &at))
		return syscall(SYS_splice, in, inoff, out, outoff, n, flags);
	if (inoff)
		read_begin(in, from, upto(from, n));
	write_begin(&w, out, at, upto(at, n));
	r = syscall(SYS_splice, in, inoff, out, outoff, n, flags);
	if (outoff)
		write_end(&w, at, upto(at, r > 0 ? (size_t)r : 0));
	else
		write_end_here(&w, r);
	return r;
}

/* ---- opens for writing ------------------------------------------------- */

/*
 * `pager run`'s write filter leaves descriptors 0-2 alone (a terminal's or
 * a pipe's output costs nothing), so a write through one that names a
 * cached file is unseen: a shell's `cmd > FILE`, `sort -o FILE`'s dup2 of
 * its output onto 1, an open after close(1). When one comes to name a
 * cached inode open for writing, the daemon hands that inode back before
 * the call that made it returns (the daemon's scan of writers finds such
 * descriptors of clients for an inode cached later: seal.c).
 */
static void std_check(int fd)
{
	struct ft_entry e;
	int saved = errno;
	long fl;

	if (fd < 0 || fd > 2 || (!NR_WATCHED() && !NR_SEALED()) ||
	    !entry_of_fd(fd, &e))
		return;
	fl = syscall(SYS_fcntl, fd, F_GETFL);
	if (fl >= 0 && (fl & O_ACCMODE) != O_RDONLY)
		ask("wstd", &e, 0, (unsigned long long)fd);
	errno = saved;
}

void shim_check_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		std_check(fd);
}

int dup2(int old, int new)
{
	int r = (int)syscall(SYS_dup2, old, new);

	std_check(r);
	return r;
}

int dup3(int old, int new, int flags)
{
	int r = (int)syscall(SYS_dup3, old, new, flags);

	std_check(r);
	return r;
}

static bool writes(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
}

/* Before an open for writing of @path (relative to @dir): a sealed inode
 * is unsealed by the daemon first, instead of handed back. */
static void open_begin(int dir, const char *path, int flags)
{
	struct ft_entry e;
	struct stat st;
	int saved = errno;

	if (!writes(flags) || !NR_SEALED() || !path ||
	    fstatat(dir, path, &st, 0) || !entry_of(&st, &e) ||
	    !(e.flags & FT_SEALED))
		return;
	ask("wopen", &e, 0, 0);
	errno = saved;
}

/* After it: a truncation shows in the size. */
static void open_end(int fd, int flags)
{
	struct wctx w = { .fd = fd };

	if (fd >= 0 && (flags & O_TRUNC))
		write_end(&w, 0, 0);
}

static int do_open(int dir, const char *path, int flags, mode_t mode)
{
	int fd;

	open_begin(dir, path, flags);
	fd = (int)syscall(SYS_openat, dir, path, flags, mode);
	if (fd >= 0 && path) {	/* files some calls look at after */
		shim_procmem_note(path);
		shim_cgroup_note(path);
	}
	open_end(fd, flags);
	if (writes(flags))
		std_check(fd);
	return fd;
}

static mode_t mode_arg(int flags, va_list ap)
{
	/* glibc's __OPEN_NEEDS_MODE */
	return ((flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE) ?
	       (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return do_open(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
	__attribute__((alias("open"), nonnull(1)));
int __open(const char *path, int flags, ...)
	__attribute__((alias("open"), nonnull(1)));
int __open64(const char *path, int flags, ...)
	__attribute__((alias("open"), nonnull(1)));

int openat(int dir, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return do_open(dir, path, flags, mode);
}

int openat64(int dir, const char *path, int flags, ...)
	__attribute__((alias("openat"), nonnull(2)));

int __open_2(const char *path, int flags)
{
	return do_open(AT_FDCWD, path, flags, 0);
}

int __open64_2(const char *path, int flags) __attribute__((alias("__open_2")));

int __openat_2(int dir, const char *path, int flags)
{
	return do_open(dir, path, flags, 0);
}

int __openat64_2(int dir, const char *path, int flags)
	__attribute__((alias("__openat_2")));

int creat(const char *path, mode_t mode)
{
	return do_open(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

int creat64(const char *path, mode_t mode) __attribute__((alias("creat")));

int truncate(const char *path, off_t len)
{
	struct ft_entry e;
	struct stat st;
	int r;

	open_begin(AT_FDCWD, path, O_WRONLY);
	r = (int)syscall(SYS_truncate, path, len, 0, 0, 0, mark());
	if (NR_WATCHED() && !stat(path, &st) && entry_of(&st, &e) &&
	    (e.flags & FT_WATCHED)) {
		int saved = errno;

		ask("wpost", &e, 0, 0);
		errno = saved;
	}
	return r;
}

int truncate64(const char *path, off_t len) __attribute__((alias("truncate")));

/* stdio opens inside libc, out of reach of open(): the mode says. */
static int mode_flags(const char *mode)
{
	int f = strchr(mode, '+') ? O_RDWR : O_RDONLY;

	if (mode[0] == 'w')
		return (f == O_RDWR ? O_RDWR : O_WRONLY) | O_TRUNC;
	if (mode[0] == 'a')
		return f == O_RDWR ? O_RDWR : O_WRONLY;
	return f;
}

typedef FILE *fopen_fn(const char *path, const char *mode);
typedef FILE *freopen_fn(const char *path, const char *mode, FILE *old);


static FILE *stdio_open(void **cache, const char *name, const char *path,
			const char *mode, FILE *old, bool re)
{
	int flags = mode ? mode_flags(mode) : 0;
	void *f = next(cache, name);
	FILE *r;

	if (!f) {
		errno = ENOSYS;
		return NULL;
	}
	open_begin(AT_FDCWD, path, flags);
	r = re ? ((freopen_fn *)f)(path, mode, old) :
		 ((fopen_fn *)f)(path, mode);
	if (r) {
		open_end(fileno(r), flags);
		if (writes(flags))
			std_check(fileno(r));
	}
	return r;
}

FILE *fopen(const char *path, const char *mode)
{
	static void *f;

	return stdio_open(&f, "fopen", path, mode, NULL, false);
}

FILE *fopen64(const char *path, const char *mode)
{
	static void *f;

	return stdio_open(&f, "fopen64", path, mode, NULL, false);
}

FILE *freopen(const char *path, const char *mode, FILE *old)
{
	static void *f;

	return stdio_open(&f, "freopen", path, mode, old, true);
}

FILE *freopen64(const char *path, const char *mode, FILE *old)
{
	static void *f;

	return stdio_open(&f, "freopen64", path, mode, old, true);
}
