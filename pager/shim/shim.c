/* SPDX-License-Identifier: MIT */
/*
 * shim.c - the preload shim (LD_PRELOAD=libpager-preload.so): puts the
 * program's anonymous memory under the pager.
 *
 * At load: create the process's userfaultfd (/dev/userfaultfd, else the
 * syscall) with the fork, remap, remove and unmap events, thread ids and
 * write-protect faults; hand it to the daemon (SCM_RIGHTS) and keep our
 * own copy; tell the daemon what memory is the shim's own (never adopt
 * it); have it adopt every anonymous mapping that exists; start the agent.
 *
 * Then: the program's own mmap calls go through map.c. Mappings made
 * inside libc (malloc's mmap, brk) reach the daemon through the seccomp
 * filter `pager run` installed. munmap and mremap need nothing: the
 * userfaultfd events say.
 *
 * fork: the child's userfaultfd goes to the daemon with the FORK event;
 * in the child we touch the beacon page, which is never present, so the
 * daemon learns from that fault's thread id which process the new
 * userfaultfd belongs to; then the child says hello, gets its own copy of
 * the userfaultfd back, and starts its agent. exec: everything is
 * close-on-exec and the next program's shim starts over.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../lib/compat.h"
#include "../lib/shim-conf.h"
#include "../lib/uffd-open.h"
#include "shim.h"

struct shim shim = {
	.uffd = -1, .agent_fd = -1, .sync_fd = -1, .door = -1,
	.sync_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* ---- what the shim's files share ------------------------------------- */

static void say(const char *fmt, va_list ap)
{
	static char buf[512];
	int n = snprintf(buf, sizeof(buf), "pager: ");

	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (syscall(SYS_write, 2, buf, (size_t)n, 0, 0, PGR_SYSCALL_MARKER) < 0)
		return;
}

void shim_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void shim_stop(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	syscall(SYS_kill, getpid(), SIGKILL);
	for (;;)
		pause();
}

unsigned long shim_fd_id(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return 0;
	return ((unsigned long)st.st_ino * 31 + (unsigned long)st.st_dev) *
	       31 + (st.st_mode & S_IFMT) + 1;
}

bool shim_fd_is(int fd, unsigned long id)
{
	return id && shim_fd_id(fd) == id;
}

int shim_fd_high(int fd)
{
	struct rlimit rl;
	int high;

	if (fd < 0 || getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur < 1024)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, 900);
	if (high < 0)
		return fd;
	close(fd);
	return high;
}

void *shim_mmap(size_t len)
{
	return (void *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | PGR_MAP_MARKER,
			       -1, 0);
}

/* The process's userfaultfd, with file pages if the kernel can. */
static int new_uffd(void)
{
	int fd = shim_open_uffd(PGR_UFFD_FEATURES | PGR_UFFD_FILE_FEATURES);

	shim.files = fd >= 0;
	if (fd < 0 && fd != -EPERM && fd != -EACCES)
		fd = shim_open_uffd(PGR_UFFD_FEATURES);
	return fd;
}

int shim_open_uffd(uint64_t features)
{
	int fd = pgr_uffd_open(), err;

	if (fd < 0)
		return -errno;
	err = pgr_uffd_api(fd, features);
	if (err) {
		close(fd);
		return err == -EPERM ? -EPERM : -ENOSYS;
	}
	return fd;
}

/*
 * A socketpair of @type whose one end goes to the daemon over @via
 * ("socket", pgr_conn_passed()), which keeps it as a connection and knows
 * its maker by SO_PEERCRED, as an accepted connection's. Our end (high,
 * close-on-exec), or -errno.
 */
static int pass_pair(int via, int type)
{
	int sv[2], err;

	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv))
		return -errno;
	err = wire_send(via, "socket\n", 7, &sv[1], 1);
	close(sv[1]);
	if (err) {
		close(sv[0]);
		return err;
	}
	return shim_fd_high(sv[0]);
}

/* A connection through the door. */
static int knock(void)
{
	if (!shim_fd_is(shim.door, shim.door_id))
		return -ENOENT;
	return pass_pair(shim.door, SOCK_STREAM);
}

int shim_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return shim.door >= 0 ? knock() : -errno;
	memcpy(sa.sun_path, shim.socket, sizeof(sa.sun_path) - 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		/* A chroot, or another mount namespace, since the door was
		 * made: its daemon is the one we joined. */
		return shim.door >= 0 ? knock() : err;
	}
	return shim_fd_high(fd);
}

/*
 * Make the door, while the daemon's socket can be reached: a datagram-
 * like socketpair (one message a connection, whole, from any number of
 * fork children at once) whose other end the daemon keeps as a
 * connection. Fork children inherit it; close-on-exec, as the program
 * started anew joins by its socket's name.
 */
static void make_door(int fd)
{
	int door = pass_pair(fd, SOCK_SEQPACKET);

	shim.door = door >= 0 ? door : -1;
	shim.door_id = shim_fd_id(shim.door);
}

/*
 * The daemon answers most requests within microseconds, while sleeping
 * for the answer costs the thread a wakeup (tens of microseconds on a
 * VM): look for it a while first (a write to a watched file is a
 * request each).
 */
#define ANSWER_SPIN_NS	30000

static void await_answer(int fd)
{
	struct timespec t0, t;
	char c;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) >= 0 ||
		    errno != EAGAIN)
			return;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L +
		 (t.tv_nsec - t0.tv_nsec) < ANSWER_SPIN_NS);
}

/* Send a request on @fd and wait for ok; @fds ride with it, the lines
 * of the answer go to @each. */
static int vcall(int fd, struct wire *w, const int *fds, int nfds,
		 void (*each)(const char *s, void *arg), void *arg,
		 const char *fmt, va_list ap)
{
	char line[256], err[128];
	int n;

	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	/* One whole line, or nothing: a longer one would be cut, a newline
	 * inside would be read as two requests. */
	if (n < 0 || (size_t)n >= sizeof(line) - 1 ||
	    memchr(line, '\n', (size_t)n)) {
		shim_say("a request that is not one line of at most %zu "
			 "bytes was not sent", sizeof(line) - 2);
		return -1;
	}
	line[n++] = '\n';
	if (wire_send(fd, line, (size_t)n, fds, nfds))
		return -EPIPE;
	await_answer(fd);
	n = wire_call(w, each, arg, err, sizeof(err));
	/* "limit:" and "again:" are for the shim to act on, not to say. */
	if (n == -1 && strncmp(err, "limit:", 6) && strncmp(err, "again:", 6))
		shim_say("the daemon refused '%.*s': %s", (int)strcspn(line,
			 "\n"), line, err);
	return n;
}

static int call_lines(int fd, struct wire *w, const int *fds, int nfds,
		      void (*each)(const char *s, void *arg), void *arg,
		      const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vcall(fd, w, fds, nfds, each, arg, fmt, ap);
	va_end(ap);
	return n;
}

/* A request whose answer has no data lines. */
#define call(fd, w, fds, nfds, ...) \
	call_lines(fd, w, fds, nfds, NULL, NULL, __VA_ARGS__)

static struct wire hello_wire;	/* used before the agent starts */

/*
 * Tell the daemon the static data the agent can touch: the writable
 * segments (with their anonymous .bss tails) of the shim, libc and the
 * dynamic loader. The agent runs in their code; a page of theirs being
 * evicted would make the agent wait for itself. The program's own
 * static data and other libraries' stay the pager's.
 */
bool shim_agent_runs_in(const struct dl_phdr_info *info)
{
	uintptr_t me = (uintptr_t)&shim;
	const char *name = info->dlpi_name ? info->dlpi_name : "";

	if (strstr(name, "/libc.so") || strstr(name, "/ld-linux") ||
	    strstr(name, "/libpthread.so"))
		return true;
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && s <= me && me < s + ph->p_memsz)
			return true;
	}
	return false;
}

static int exclude_agent_data(struct dl_phdr_info *info, size_t size,
			      void *arg)
{
	int *err = arg;

	if (!shim_agent_runs_in(info))
		return 0;
	for (int k = 0; k < info->dlpi_phnum && !*err; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t s = (info->dlpi_addr + ph->p_vaddr) & ~4095UL;
		uintptr_t e = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz +
			       4095) & ~4095UL;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W))
			*err = call(shim.agent_fd, &hello_wire, NULL, 0,
				    "exclude %lx %lx", (unsigned long)s,
				    (unsigned long)(e - s));
	}
	return 0;
}

static void child_after_fork(void);
static void join_as_child(void);
static void start_agent(void);

/*
 * No daemon to run under: go on unmanaged, unless `pager run` gave this
 * process (or an ancestor) the seccomp filter that hands its anonymous
 * mmaps and brk to the daemon. With the daemon gone those calls fail
 * (ENOSYS) and the program would crash somewhere in its allocator: stop
 * it now, saying why.
 */
static struct shim_conf conf;

static void unmanaged(const char *why)
{
	if (conf.notify)
		shim_stop("%s, and this process's memory calls went to it: "
			  "stopping process %d", why, (int)getpid());
	shim_say("%s: running unmanaged", why);
}

/* The daemon's table of cached files (lib/ftable.h), read-only. Without
 * it the shim could not tell the daemon of writes to them: file mappings
 * then stay the kernel's. */
static void map_ftable(int fd)
{
	int tfd = -1;
	void *t = MAP_FAILED;

	if (!call(fd, &hello_wire, NULL, 0, "ftable"))
		tfd = wire_take_fd(&hello_wire);
	if (tfd >= 0)
		t = (void *)syscall(SYS_mmap, NULL, sizeof(struct ftable),
				    PROT_READ, MAP_SHARED, tfd, 0);
	if (tfd >= 0)
		close(tfd);
	if (t != MAP_FAILED && ((struct ftable *)t)->magic == FT_MAGIC) {
		shim.ft = t;
	} else {
		if (t != MAP_FAILED)
			syscall(SYS_munmap, t, sizeof(struct ftable));
		shim.files = false;
	}
}

/*
 * Our settings: in shim.conf beside the file LD_PRELOAD named (`pager
 * run` makes both, lib/shim-conf.h), else, for a shim preloaded by hand,
 * $PAGER_SOCKET, $PAGER_GROUP and $PAGER_NOTIFY. False if none says where
 * the daemon is.
 */
static bool read_conf(void)
{
	static char text[SHIM_CONF_MAX + 1];
	const char *sock = getenv("PAGER_SOCKET"), *env;
	char path[4096];
	Dl_info info;
	ssize_t n = -1;
	int fd;

	if (dladdr((void *)&shim, &info) && info.dli_fname &&
	    strlen(info.dli_fname) < sizeof(path) - sizeof(SHIM_CONF_NAME)) {
		char *slash;

		snprintf(path, sizeof(path), "%s", info.dli_fname);
		slash = strrchr(path, '/');
		if (slash) {
			strcpy(slash + 1, SHIM_CONF_NAME);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				n = read(fd, text, SHIM_CONF_MAX);
				close(fd);
			}
		}
	}
	if (n > 0) {
		text[n] = 0;
		if (!shim_conf_parse(text, &conf))
			return false;
		/* A script may put one command in a group of its own. */
		env = getenv("PAGER_GROUP");
		if (env)
			snprintf(conf.group, sizeof(conf.group), "%s", env);
		return true;
	}
	if (!sock || !*sock)
		return false;
	snprintf(conf.socket, sizeof(conf.socket), "%s", sock);
	env = getenv("PAGER_GROUP");
	snprintf(conf.group, sizeof(conf.group), "%s", env ? env : "");
	env = getenv("PAGER_NOTIFY");
	conf.notify = env && *env == '1';
	return true;
}

/*
 * A userfaultfd for a process that may not ask for fork events itself
 * (not root: Linux gives them only with CAP_SYS_PTRACE), and may not make
 * one at all (no vm.unprivileged_userfaultfd, /dev/userfaultfd root's):
 * the daemon of `pager run` hands it /dev/userfaultfd open, on which it
 * makes its own (USERFAULTFD_IOC_NEW, for the caller's memory, checks
 * nothing more), and the daemon, root, makes its UFFDIO_API with fork
 * events at hello ("api"). The process holds no capability at any time.
 */
static int uffd_from_daemon(int fd)
{
	int dev, u;

	if (call(fd, &hello_wire, NULL, 0, "uffd-dev") ||
	    (dev = wire_take_fd(&hello_wire)) < 0)
		return -EPERM;
	u = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
	if (u < 0)
		u = -errno;
	close(dev);
	return u;
}

/* hello's answer with "api": whether the daemon got file pages too. */
static void hello_line(const char *s, void *arg)
{
	if (!strncmp(s, "files ", 6))
		*(bool *)arg = s[6] == '1';
}

static void shim_start(void)
{
	int fd = -1, err, uffd;
	bool by_daemon;

	if (getenv("PAGER_SHIM_OFF") || !read_conf())
		return;
	snprintf(shim.socket, sizeof(shim.socket), "%s", conf.socket);
	snprintf(shim.group, sizeof(shim.group), "%s", conf.group);
	uffd = new_uffd();
	by_daemon = uffd == -EPERM || uffd == -EACCES;
	if (by_daemon && (fd = shim_connect()) >= 0) {
		wire_init(&hello_wire, fd);
		uffd = uffd_from_daemon(fd);
	}
	shim.uffd = shim_fd_high(uffd);
	shim.uffd_id = shim_fd_id(shim.uffd);
	if (shim.uffd < 0) {
		char why[160];

		snprintf(why, sizeof(why), "no userfaultfd here (%s)",
			 strerror(-shim.uffd));
		if (fd >= 0)
			close(fd);
		unmanaged(why);
		return;
	}
	shim.beacon = shim_mmap(4096);
	shim.stack = shim_mmap(SHIM_STACK + SHIM_SCRATCH);
	if (fd < 0)
		fd = shim_connect();
	if (fd < 0 || shim.beacon == MAP_FAILED || shim.stack == MAP_FAILED) {
		char why[256];

		snprintf(why, sizeof(why), "cannot reach the pager daemon at "
			 "%s (%s)", shim.socket, strerror(fd < 0 ? -fd : ENOMEM));
		if (fd >= 0)
			close(fd);
		close(shim.uffd);
		shim.uffd = -1;
		unmanaged(why);
		return;
	}
	shim.agent_fd = fd;
	if (!by_daemon)
		wire_init(&hello_wire, fd);
	else
		shim.files = true;	/* unless the daemon says otherwise */
	err = call_lines(fd, &hello_wire, &shim.uffd, 1, hello_line,
			 &shim.files, "hello %d%s%s%s", (int)getpid(),
			 shim.group[0] ? " group=" : "", shim.group,
			 by_daemon ? " api" : "");
	if (!err)
		err = call(fd, &hello_wire, NULL, 0, "exclude %lx %lx",
			   (unsigned long)(uintptr_t)shim.stack,
			   (unsigned long)(SHIM_STACK + SHIM_SCRATCH));
	if (!err)
		dl_iterate_phdr(exclude_agent_data, &err);
	if (!err)
		err = call(fd, &hello_wire, NULL, 0, "adopt");
	if (!err)
		map_ftable(fd);
	if (err) {
		/* The daemon may have registered ranges already; with our
		 * copy closed too they go back to the kernel. Nothing was
		 * evicted: no agent ran to drop a page. */
		close(fd);
		close(shim.uffd);
		shim.uffd = -1;
		unmanaged("the pager daemon did not take this process");
		return;
	}
	make_door(fd);
	shim.on = true;
	shim.pid = getpid();
	pthread_atfork(NULL, NULL, child_after_fork);
	start_agent();
	shim_take_texts();
	shim_check_std_fds();
}

__attribute__((constructor)) static void shim_init(void)
{
	int saved = errno;

	shim_start();
	errno = saved;
}

/* Close @fd if it is still ours (shim_fd_id() @id): the program may have
 * closed it and reused the number (a launcher does), then it is its. */
static void close_ours(int fd, unsigned long id)
{
	if (shim_fd_is(fd, id))
		close(fd);
}

static struct wire sync_wire;

/* Connect the program's own connection: its requests, and its close
 * tells the daemon that the process exec'd or exited (close-on-exec),
 * while the agent holds the memory on. */
static bool sync_connect(void)
{
	shim.sync_fd = shim_connect();
	if (shim.sync_fd < 0)
		return false;
	shim.sync_id = shim_fd_id(shim.sync_fd);
	wire_init(&sync_wire, shim.sync_fd);
	if (call(shim.sync_fd, &sync_wire, NULL, 0, "attach %d %d",
		 (int)getpid(), (int)shim.agent_pid)) {
		close(shim.sync_fd);
		shim.sync_fd = -1;
		return false;
	}
	return true;
}

/* The program threads' connection, for a request; with shim.sync_lock
 * held. */
static bool sync_open(void)
{
	if (shim.on && shim.pid != getpid())
		join_as_child();	/* a raw clone's child: see there */
	if (shim.sync_fd >= 0 && !shim_fd_is(shim.sync_fd, shim.sync_id))
		shim.sync_fd = -1;	/* the program closed it */
	if (shim.sync_fd >= 0)
		return true;
	return sync_connect();
}

/* The agent, then the program's own connection, which names it. With no
 * other thread running (at start, in a fork child) or sync_lock held. */
static void start_agent(void)
{
	int pid = shim_agent_start();

	if (pid < 0)
		shim_say("cannot start the agent of process %d (%s): nothing "
			 "of it will be evicted", (int)getpid(),
			 strerror(-pid));
	shim.agent_pid = pid > 0 ? pid : 0;
	sync_connect();
}

static void sync_broken(int err)
{
	if (err < -1) {
		close_ours(shim.sync_fd, shim.sync_id);
		shim.sync_fd = -1;
	}
}

int shim_sync_request(const char *fmt, unsigned long a, unsigned long b)
{
	int err = -EPIPE;

	pthread_mutex_lock(&shim.sync_lock);
	if (sync_open()) {
		err = call(shim.sync_fd, &sync_wire, NULL, 0, fmt, a, b);
		sync_broken(err);
	}
	pthread_mutex_unlock(&shim.sync_lock);
	return err;
}

/* Set while this thread asks the daemon: a signal handler's write(2)
 * then must not ask again (the lock is not recursive). */
static __thread bool in_request __attribute__((tls_model("initial-exec")));

bool shim_in_request(void)
{
	return in_request;
}

int shim_request(void (*each)(const char *s, void *arg), void *arg,
		 const char *fmt, ...)
{
	int err = -EPIPE;
	va_list ap;

	if (in_request)
		return -EDEADLK;
	in_request = true;
	pthread_mutex_lock(&shim.sync_lock);
	if (sync_open()) {
		va_start(ap, fmt);
		err = vcall(shim.sync_fd, &sync_wire, NULL, 0, each, arg, fmt,
			    ap);
		va_end(ap);
		sync_broken(err);
	}
	pthread_mutex_unlock(&shim.sync_lock);
	in_request = false;
	return err;
}

/*
 * For programs that know the pager, found with dlsym(RTLD_DEFAULT,
 * "pager_phase") (absent when the shim is not loaded): mark the start of
 * phase @name (letters, digits, _.:+-), as a write to ftrace's
 * trace_marker would: `phase NAME` in the daemon's --record file, a
 * tracing_mark_write line in `pager trace`. Returns when the daemon has
 * it, so the faults before it are recorded before it. The daemon judges
 * the name. 0, or -1 with errno: ENOTCONN (no daemon), EINVAL (a name
 * refused), EPIPE.
 */
__attribute__((visibility("default"))) int pager_phase(const char *name)
{
	int err = -EPIPE;

	if (!shim.on) {
		errno = ENOTCONN;
		return -1;
	}
	if (!name) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&shim.sync_lock);
	if (sync_open()) {
		err = call(shim.sync_fd, &sync_wire, NULL, 0, "phase %s", name);
		sync_broken(err);
	}
	pthread_mutex_unlock(&shim.sync_lock);
	if (!err)
		return 0;
	errno = err == -1 ? EINVAL : EPIPE;
	return -1;
}

static void file_reply(const char *line, void *arg)
{
	unsigned int *id = arg;

	if (sscanf(line, "file %u %u", &id[0], &id[1]) == 2)
		id[2] = 1;
	else if (!strcmp(line, "busy"))
		id[3] = 1;
}

/*
 * The program mapped a regular file at @p: put the daemon's page cache of
 * it (a memfd) in its place, same protection, offset and sharing, and have
 * the daemon own it. If anything fails the program keeps the kernel's
 * mapping: never a mapping nobody serves.
 *
 * @fd is the program's descriptor of the file, or -1 for the inode *@id
 * of generation *@gen that the process maps already (remap_file_pages).
 */
int shim_file_memfd(int fd, bool rw, unsigned int *id, unsigned int *gen)
{
	unsigned int r[4];
	int mfd = -1, err;

	/* "busy": the daemon is handing the file back to the kernel (a
	 * writer appeared); ask again, a millisecond later, for at most
	 * 10 s. Then it is the kernel's, or cached anew. */
	for (int k = 0; k < 10000; k++) {
		struct timespec ms = { 0, 1000000 };

		r[0] = r[1] = r[2] = r[3] = 0;
		if (!sync_open())
			return -1;
		if (fd >= 0)
			err = call_lines(shim.sync_fd, &sync_wire, &fd, 1,
					 file_reply, r, rw ? "file rw" : "file");
		else
			err = call_lines(shim.sync_fd, &sync_wire, NULL, 0,
					 file_reply, r, "file%s %x %x",
					 rw ? " rw" : "", *id, *gen);
		mfd = wire_take_fd(&sync_wire);
		sync_broken(err);
		if (err || !r[3])
			break;
		nanosleep(&ms, NULL);
	}
	if (err || mfd < 0 || !r[2]) {
		if (mfd >= 0)
			close(mfd);
		return -1;
	}
	*id = r[0];
	*gen = r[1];
	return mfd;
}

int shim_mapf(void *p, size_t len, unsigned int id, unsigned int gen,
	      off_t off, bool shared, int prot)
{
	char line[160];
	int err;

	snprintf(line, sizeof(line), "mapf %lx %lx %x %x %llx %x",
		 (unsigned long)(uintptr_t)p, (unsigned long)len, id, gen,
		 (unsigned long long)(off / 4096), (shared ? 1 : 0) |
		 ((prot & PROT_WRITE) ? 2 : 0) | ((prot & PROT_EXEC) ? 4 : 0));
	err = call(shim.sync_fd, &sync_wire, NULL, 0, "%s", line);
	sync_broken(err);
	return err;
}

/*
 * Join the daemon as a fork child, on a connection and with an agent of
 * its own: the parent's connections and userfaultfd copy are inherited
 * and not ours. Run by the atfork handler, or at the child's first
 * request when it was made by a raw clone(2) that runs no handler
 * (Chrome's zygote forks its children so): until then it holds its
 * parent's connections, which it must not use.
 */
static void join_as_child(void)
{
	struct wire *w = &hello_wire;
	int fd;

	shim.on = false;
	close_ours(shim.sync_fd, shim.sync_id);
	close_ours(shim.uffd, shim.uffd_id);
	shim.sync_fd = shim.uffd = -1;
	shim.pid = getpid();
	/* The beacon: a fault the daemon sees with our thread id. */
	(void)*(volatile char *)shim.beacon;
	fd = shim_connect();
	if (fd < 0) {
		shim_say("the child %d cannot reach the pager daemon: stopping",
			 (int)getpid());
		_exit(127);
	}
	shim.agent_fd = fd;
	wire_init(w, fd);
	if (call(fd, w, NULL, 0, "hello %d child", (int)getpid())) {
		shim_say("the daemon did not take the child %d: stopping",
			 (int)getpid());
		_exit(127);
	}
	shim.uffd = shim_fd_high(wire_take_fd(w));
	shim.uffd_id = shim_fd_id(shim.uffd);
	/* Empty again, for our own children. */
	syscall(SYS_madvise, shim.beacon, 4096, MADV_DONTNEED);
	shim.on = true;
	start_agent();
}

static void child_after_fork(void)
{
	int saved = errno;

	if (!shim.on)
		return;
	pthread_mutex_init(&shim.sync_lock, NULL);
	join_as_child();
	errno = saved;
}
