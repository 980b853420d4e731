/* SPDX-License-Identifier: MIT */
/*
 * bench-daemon - the pager's fault costs against this machine's floor,
 * measured in one run (machines are noisy: only ratios are compared).
 *
 *   bench-daemon PAGER | --floors (this host's floors alone)
 *
 * In this process: the raw userfaultfd floor (a missing fault answered
 * with UFFDIO_COPY by a handler thread that spins as the daemon does;
 * blocked in read() it measured 8 to 50 us here within an hour, printed
 * for reference), a 4 KiB O_DIRECT read at depth 1 in the swap's
 * directory, native first touches and a CPU-bound loop. Under `PAGER
 * run` (this program again, as a child): a fault on a page the pager
 * holds (armed by `idle`), the arming per page (the agent's madvise
 * batches), a swap-in fault (readahead off), first touches, and the same
 * loop. Each the median of 7 runs, interleaved with its counterpart.
 *
 * File pages: the floor of a page-cache hit is a MINOR fault answered
 * with UFFDIO_CONTINUE by a handler thread (a memfd); of a miss, that
 * plus one O_DIRECT read. Under the pager, a file it has cached is mapped
 * again and touched at random (hits), and a file it has not is touched at
 * random (misses), fault-around and read-around off for both. Sequential
 * throughput: a cold file (dropped from the kernel's cache) read through
 * mmap natively and under the pager with its default read-around, and
 * under the pager again with a budget a quarter of the file, where every
 * page read evicts one: against the unevicted read, the eviction path's
 * price.
 *
 * Swap elsewhere, each swap-in against the file's and against its own
 * floor, the userfaultfd floor plus the store's own cost measured here:
 * zram (lz4, zstd; text pages, compressing as a heap does) and zswap
 * before the file (lz4), plus one decompression; Redis (a redis-server
 * on 127.0.0.1 if installed), plus a GET of 4 KiB with hiredis. At depth
 * one a swap-in's throughput is its inverse (pages/s).
 *
 * The child talks to its daemon (the socket shim.conf names beside its
 * shim) in the line protocol of docs/protocol.md.
 * All of it holds a CPU latency request of 0 (PM QoS, as the daemon's
 * cpu_latency_us): idle CPUs poll for the floors as for the pager.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>
#include <lz4.h>
#include <zstd.h>

#include "../pager/lib/cpu-latency-request.h"
#include "../pager/lib/shim-conf.h"

#define PG		4096UL
#define FAULTS		4096		/* single faults timed */
#define TOUCH_MB	256		/* first-touch throughput */
#define RUNS		7		/* the median of */
#define FILE_MB		64		/* hits and misses: random pages */
#define SEQ_MB		256		/* sequential throughput */
#define STREAM_MEM	"64M"		/* SEQ_MB streamed through this */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench-daemon: %s: %s\n", what, strerror(errno));
	exit(1);
}

static char *map(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Touch one byte of each of @n pages in a random order (reads); return
 * the mean seconds a touch. */
static double touch_random(char *base, size_t n)
{
	size_t *order = malloc(n * sizeof(*order));
	uint64_t s = 88172645463325252ULL;
	volatile char sink = 0;
	double t;

	for (size_t k = 0; k < n; k++)
		order[k] = k;
	for (size_t k = n - 1; k > 0; k--) {
		size_t j = rnd(&s) % (k + 1), x = order[k];

		order[k] = order[j];
		order[j] = x;
	}
	t = now();
	for (size_t k = 0; k < n; k++)
		sink += base[order[k] * PG];
	t = now() - t;
	(void)sink;
	free(order);
	return t / (double)n;
}

/* Page @k as text: what a swap-in under zram decompresses. */
static void text_page(char *p, size_t k)
{
	size_t o = 0;

	while (o < PG) {
		char line[96];
		int n = snprintf(line, sizeof(line), "page %zu line %zu: the "
				 "quick brown fox %zu\n", k, o, (o * 7) % 1000);
		size_t m = (size_t)n < PG - o ? (size_t)n : PG - o;

		memcpy(p + o, line, m);
		o += m;
	}
}

/* Seconds to decompress one text page, with zstd or lz4. */
static double decompress_floor(bool zstd)
{
	static char page[PG], out[PG], comp[2 * PG];
	ZSTD_DCtx *d = ZSTD_createDCtx();
	size_t len;
	double t;

	text_page(page, 12345);
	len = zstd ? ZSTD_compress(comp, sizeof(comp), page, PG, 3) :
		     (size_t)LZ4_compress_default(page, comp, PG, sizeof(comp));
	t = now();
	for (int k = 0; k < FAULTS; k++) {
		if (zstd)
			ZSTD_decompressDCtx(d, out, PG, comp, len);
		else
			LZ4_decompress_safe(comp, out, (int)len, PG);
	}
	t = (now() - t) / FAULTS;
	ZSTD_freeDCtx(d);
	return memcmp(page, out, PG) ? -1 : t;
}

/* ---- a Redis server of our own ---------------------------------------- */

#define REDIS_PORT	26391

/* A connection to the bench's redis-server, started if need be; NULL
 * if there is no redis-server here. */
static redisContext *redis_start(void)
{
	struct timeval tv = { 1, 0 };
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "redis-server --port %d --bind 127.0.0.1 "
		 "--save '' --appendonly no --daemonize yes --logfile "
		 "/dev/null >/dev/null 2>&1", REDIS_PORT);
	if (system(cmd))
		return NULL;
	for (int k = 0; k < 100; k++) {
		redisContext *c = redisConnectWithTimeout("127.0.0.1",
							  REDIS_PORT, tv);

		if (c && !c->err)
			return c;
		redisFree(c);
		usleep(50000);
	}
	return NULL;
}

/* Seconds for one GET of a 4 KiB value, at depth one: the store's own
 * round trip. */
static double redis_floor(redisContext *c)
{
	static char page[PG];
	redisReply *r;
	double t;

	text_page(page, 7);
	freeReplyObject(redisCommand(c, "SET bench:page %b", page,
				     (size_t)PG));
	t = now();
	for (int k = 0; k < FAULTS; k++) {
		r = redisCommand(c, "GET bench:page");
		if (!r || r->type != REDIS_REPLY_STRING || r->len != PG) {
			freeReplyObject(r);
			return -1;
		}
		freeReplyObject(r);
	}
	t = (now() - t) / FAULTS;
	freeReplyObject(redisCommand(c, "DEL bench:page"));
	return t;
}

/* Pages a second, writing the first byte of each page of @mb MiB. */
static double first_touch(size_t mb)
{
	size_t len = mb << 20;
	char *p = map(len);
	double t = now();

	for (size_t o = 0; o < len; o += PG)
		p[o] = 1;
	t = now() - t;
	munmap(p, len);
	return (double)(len / PG) / t;
}

/* A CPU-bound loop over 1 MiB: seconds. */
static double cpu_loop(void)
{
	size_t n = (1 << 20) / sizeof(uint64_t);
	uint64_t *a = malloc(n * sizeof(*a)), h = 1;
	double t;

	for (size_t k = 0; k < n; k++)
		a[k] = k * 0x9e3779b97f4a7c15ULL;
	t = now();
	for (int round = 0; round < 3000; round++)
		for (size_t k = 0; k < n; k++) {
			h ^= a[k] + (h << 6) + (h >> 2);
			a[k] = h;
		}
	t = now() - t;
	if (h == 42)
		puts("");	/* keep h alive */
	free(a);
	return t;
}

/* ---- the floor, in this process ------------------------------------------ */

struct handler {
	int fd;			/* O_NONBLOCK: the handler spins */
	char *src;
};

/* The floors' handler thread: each missing fault answered with
 * UFFDIO_COPY of @src, or (src NULL) each minor fault with
 * UFFDIO_CONTINUE of the page already cached. On a non-blocking
 * userfaultfd it reads again at once (spins), as the daemon does while
 * faults come (fault_spin_us); blocked in read(), its wake-up on this VM
 * costs from 0 to 40 us depending on whether the host has the CPU idle. */
static void *handle(void *arg)
{
	struct handler *h = arg;
	struct uffd_msg m[16];

	for (;;) {
		ssize_t n = read(h->fd, m, sizeof(m));

		if (n <= 0) {
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			return NULL;
		}
		for (ssize_t i = 0; i < n / (ssize_t)sizeof(m[0]); i++) {
			uint64_t a = m[i].arg.pagefault.address & ~(PG - 1);
			struct uffdio_copy c = { .dst = a, .len = PG,
						 .src = (uintptr_t)h->src };
			struct uffdio_continue k = { .range = { a, PG } };
			int err;

			if (m[i].event != UFFD_EVENT_PAGEFAULT)
				continue;
			err = h->src ? ioctl(h->fd, UFFDIO_COPY, &c) :
				       ioctl(h->fd, UFFDIO_CONTINUE, &k);
			if (err && errno != EEXIST)
				die(h->src ? "UFFDIO_COPY" : "UFFDIO_CONTINUE");
		}
	}
}

/* A missing fault answered with UFFDIO_COPY by a handler thread that
 * spins or blocks: mean seconds, or a negative value if userfaultfd is
 * not available. */
static double uffd_floor(bool spin)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct handler h;
	struct uffdio_register reg;
	pthread_t t;
	char *base;
	double per;

	h.fd = (int)syscall(SYS_userfaultfd,
			    O_CLOEXEC | (spin ? O_NONBLOCK : 0));
	if (h.fd < 0 || ioctl(h.fd, UFFDIO_API, &api))
		return -1;
	h.src = map(PG);
	memset(h.src, 7, PG);
	base = map(FAULTS * PG);
	reg = (struct uffdio_register){
		.range = { (uintptr_t)base, FAULTS * PG },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	if (ioctl(h.fd, UFFDIO_REGISTER, &reg))
		return -1;
	pthread_create(&t, NULL, handle, &h);
	per = touch_random(base, FAULTS);
	close(h.fd);
	pthread_cancel(t);
	pthread_join(t, NULL);
	munmap(base, FAULTS * PG);
	munmap(h.src, PG);
	return per;
}

/* A MINOR fault on a cached memfd page answered with UFFDIO_CONTINUE by a
 * spinning handler thread: mean seconds, or negative if not available. */
static double minor_floor(void)
{
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_MINOR_SHMEM };
	struct uffdio_register reg;
	struct handler h;
	pthread_t t;
	int mfd = memfd_create("bench-minor", MFD_CLOEXEC);
	char *fill, *base;
	double per;

	if (mfd < 0 || ftruncate(mfd, FAULTS * PG))
		return -1;
	fill = mmap(NULL, FAULTS * PG, PROT_READ | PROT_WRITE, MAP_SHARED,
		    mfd, 0);
	base = mmap(NULL, FAULTS * PG, PROT_READ, MAP_PRIVATE, mfd, 0);
	if (fill == MAP_FAILED || base == MAP_FAILED)
		return -1;
	memset(fill, 3, FAULTS * PG);
	h.src = NULL;		/* cached: UFFDIO_CONTINUE */
	h.fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (h.fd < 0 || ioctl(h.fd, UFFDIO_API, &api))
		return -1;
	reg = (struct uffdio_register){
		.range = { (uintptr_t)base, FAULTS * PG },
		.mode = UFFDIO_REGISTER_MODE_MINOR,
	};
	if (ioctl(h.fd, UFFDIO_REGISTER, &reg))
		return -1;
	pthread_create(&t, NULL, handle, &h);
	per = touch_random(base, FAULTS);
	close(h.fd);
	pthread_cancel(t);
	pthread_join(t, NULL);
	munmap(base, FAULTS * PG);
	munmap(fill, FAULTS * PG);
	close(mfd);
	return per;
}

/* A file of @mb MiB in @dir, its path in @path; out of the kernel's cache. */
static void make_file(const char *dir, size_t mb, char *path, size_t len)
{
	char *buf = map(1 << 20);
	int fd;

	snprintf(path, len, "%s/bench-file.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		die("mkstemp");
	for (size_t k = 0; k < (1 << 20); k++)
		buf[k] = (char)(k * 7 + 1);
	for (size_t k = 0; k < mb; k++)
		if (write(fd, buf, 1 << 20) != 1 << 20)
			die("write");
	fsync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	munmap(buf, 1 << 20);
}

/* Read @path sequentially through a mapping, a word a page: MB/s. The
 * kernel's cache of it is dropped first, so it comes from the disk. */
static double seq_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	volatile uint64_t sink = 0;
	char *p;
	double t;

	if (fd < 0 || fstat(fd, &st))
		return -1;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	t = now();
	for (off_t o = 0; o < st.st_size; o += PG)
		sink += *(uint64_t *)(p + o);
	t = now() - t;
	munmap(p, (size_t)st.st_size);
	close(fd);
	return (double)st.st_size / 1048576.0 / t;
}

/* A 4 KiB O_DIRECT read at queue depth 1, random, in @dir: mean seconds. */
static double direct_read(const char *dir)
{
	char path[4096];
	size_t pages = 16384;		/* 64 MiB */
	char *buf = map(PG * 64);
	uint64_t s = 1;
	double t;
	int fd;

	snprintf(path, sizeof(path), "%s/bench-daemon.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		die("mkstemp");
	unlink(path);
	memset(buf, 5, PG * 64);
	for (size_t k = 0; k < pages; k += 64)
		if (pwrite(fd, buf, PG * 64, (off_t)(k * PG)) != (ssize_t)(PG * 64))
			die("pwrite");
	fsync(fd);
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_DIRECT))
		die("O_DIRECT");
	t = now();
	for (int k = 0; k < FAULTS; k++)
		if (pread(fd, buf, PG, (off_t)((rnd(&s) % pages) * PG)) != (ssize_t)PG)
			die("pread");
	t = now() - t;
	close(fd);
	munmap(buf, PG * 64);
	return t / FAULTS;
}

/* ---- the child, under the pager ---------------------------------------------- */

/* One request to the daemon: 0 when it answered ok. */
static int ask(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The daemon's socket: in shim.conf beside the shim LD_PRELOAD names
 * (pager/lib/shim-conf.h). */
static const char *daemon_socket(void)
{
	static struct shim_conf conf;
	const char *pre = getenv("LD_PRELOAD");
	char path[4096], text[SHIM_CONF_MAX + 1], *slash;
	ssize_t n;
	int fd;

	if (getenv("PAGER_SOCKET"))	/* a shim preloaded by hand */
		return getenv("PAGER_SOCKET");
	if (!pre || strcspn(pre, " :") >= sizeof(path) - sizeof(SHIM_CONF_NAME))
		return NULL;
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(pre, " :"), pre);
	slash = strrchr(path, '/');
	if (!slash)
		return NULL;
	strcpy(slash + 1, SHIM_CONF_NAME);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, text, SHIM_CONF_MAX);
	close(fd);
	if (n <= 0)
		return NULL;
	text[n] = 0;
	return shim_conf_parse(text, &conf) ? conf.socket : NULL;
}

static int ask(const char *fmt, ...)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *sock = daemon_socket();
	char line[512], buf[4096];
	size_t len = 0;
	va_list ap;
	int fd, n;

	if (!sock)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	line[n++] = '\n';
	if (write(fd, line, (size_t)n) != n)
		return -1;
	for (;;) {
		ssize_t got = read(fd, buf + len, sizeof(buf) - 1 - len);

		if (got <= 0)
			break;
		len += (size_t)got;
		buf[len] = 0;
		if (strstr(buf, "ok\n") || strstr(buf, "error"))
			break;
	}
	close(fd);
	return strstr(buf, "error") ? -1 : 0;
}

static long rss_anon_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* Wait until the agent dropped what was asked (RssAnon below @kb). */
static int wait_rss_below(long kb)
{
	for (int k = 0; k < 10000; k++) {
		if (rss_anon_kb() < kb)
			return 0;
		usleep(200);
	}
	return -1;
}

static int child(const char *mode)
{
	if (!strcmp(mode, "arm")) {
		/* The eviction batch's agent path: every page armed (copied,
		 * dropped by the agent's madvise in batches), per page. */
		char *base = map(FAULTS * PG);
		long before;
		double t0;

		for (size_t k = 0; k < FAULTS; k++)
			base[k * PG] = (char)k;
		before = rss_anon_kb();
		t0 = now();
		if (ask("idle pid %d", (int)getpid()) ||
		    wait_rss_below(before - (long)(FAULTS * PG / 1024) * 9 / 10))
			return 1;
		printf("%.9f\n", (now() - t0) / FAULTS);
	} else if (!strcmp(mode, "armed") || !strcmp(mode, "swapin")) {
		char *base = map(FAULTS * PG);
		long before;

		for (size_t k = 0; k < FAULTS; k++) {
			if (!strcmp(mode, "swapin"))
				text_page(base + k * PG, k);
			else
				base[k * PG] = (char)k;
		}
		before = rss_anon_kb();
		if (!strcmp(mode, "armed")) {
			if (ask("idle pid %d", (int)getpid()))
				return 1;
		} else {
			/* Answered with an error if it freed less than
			 * asked: what matters is that these pages went. */
			if (ask("set vm.page-cluster=0"))
				return 1;
			ask("reclaim %lu", FAULTS * PG);
		}
		if (wait_rss_below(before - (long)(FAULTS * PG / 1024) * 9 / 10))
			return 1;
		printf("%.9f\n", touch_random(base, FAULTS));
	} else if (!strcmp(mode, "fhit") || !strcmp(mode, "fmiss")) {
		const char *path = getenv("BENCH_FILE");
		size_t len = FAULTS * PG;
		int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
		char *p;

		if (fd < 0 || ask("set fault_around_bytes=4096 read_ahead_kb=4"))
			return 1;
		if (!strcmp(mode, "fhit")) {
			/* Into the pager's cache, then a fresh mapping. */
			volatile char sink = 0;

			p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
			for (size_t o = 0; o < len; o += PG)
				sink += p[o];
			munmap(p, len);
		}
		p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			return 1;
		printf("%.9f\n", touch_random(p, FAULTS));
	} else if (!strcmp(mode, "fseq")) {
		const char *path = getenv("BENCH_SEQ");

		printf("%.3f\n", path ? seq_read(path) : -1);
	} else if (!strcmp(mode, "touch")) {
		printf("%.1f\n", first_touch(TOUCH_MB));
	} else if (!strcmp(mode, "cpu")) {
		printf("%.9f\n", cpu_loop());
	} else {
		return 2;
	}
	return 0;
}

/* Run this program's @mode under `@pager run --mem @mem --swap @swap`
 * (NULL: the default swap); its number, or -1. */
/* A child run under `pager run --mem @mem @args`. */
static double under_pager_args(const char *pager, const char *self,
			       const char *mode, const char *mem,
			       const char *args)
{
	char cmd[8192];
	double v = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "'%s' run --mem %s %s -- '%s' --child %s",
		 pager, mem, args, self, mode);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lf", &v) != 1)
		v = -1;
	if (pclose(f))
		v = -1;
	return v;
}

static double under_pager_mem(const char *pager, const char *self,
			      const char *mode, const char *mem)
{
	return under_pager_args(pager, self, mode, mem, "");
}

static double under_pager(const char *pager, const char *self,
			  const char *mode)
{
	return under_pager_mem(pager, self, mode, "1G");
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n runs, or -1 if any failed. */
static double median(double *v, int n)
{
	for (int k = 0; k < n; k++)
		if (v[k] < 0)
			return -1;
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

/* --floors: the host's floors alone, for other benchmarks' tables. */
static int floors(void)
{
	double t[RUNS], s[RUNS], b[RUNS], m[RUNS];

	if (uffd_floor(false) < 0)
		return 1;	/* no userfaultfd: not measured */
	for (int r = 0; r < RUNS; r++) {
		t[r] = 1 / first_touch(TOUCH_MB), s[r] = uffd_floor(true);
		b[r] = uffd_floor(false), m[r] = minor_floor();
	}
	printf("floor native_first_touch_us %.1f\nfloor missing_copy_us %.1f\n"
	       "floor missing_copy_blocked_us %.1f\nfloor minor_continue_us "
	       "%.1f\n", median(t, RUNS) * 1e6, median(s, RUNS) * 1e6,
	       median(b, RUNS) * 1e6, median(m, RUNS) * 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	char self[4096];
	double v[14][RUNS], stream[RUNS], blocked[RUNS], arm[RUNS], stream_p;
	double blocked_s, arm_s;
	double floor_s, read_s, touch_n, cpu_n, armed, swapin, touch_p, cpu_p;
	double minor_s, fhit, fmiss, seq_n, seq_p;
	double zlz4[RUNS], zzstd[RUNS], dlz4[RUNS], dzstd[RUNS], zsw[RUNS];
	double zram_lz4, zram_zstd, dec_lz4, dec_zstd, zswap;
	double rds[RUNS], rtt[RUNS], rds_s = -1, rtt_s = -1;
	char store[64];
	redisContext *rc;
	char fpath[4096], spath[4096];
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "--floors"))
		return floors();
	if (argc != 2) {
		fprintf(stderr, "usage: bench-daemon PAGER | --floors\n");
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		die("readlink");
	printf("cpu latency request of 0 us (PM QoS) held: %s\n",
	       pgr_cpu_latency_request(-1, 0) >= 0 ? "yes" :
	       "no (idle CPUs may halt)");
	self[n] = 0;
	if (uffd_floor(false) < 0) {
		printf("bench-daemon: skipped: no userfaultfd here (%s)\n",
		       strerror(errno));
		return 0;
	}
	make_file(dir, FILE_MB, fpath, sizeof(fpath));
	make_file(dir, SEQ_MB, spath, sizeof(spath));
	setenv("BENCH_FILE", fpath, 1);
	setenv("BENCH_SEQ", spath, 1);
	rc = redis_start();
	snprintf(store, sizeof(store), "--swap redis://127.0.0.1:%d",
		 REDIS_PORT);
	/* Interleaved, so that drifts of the machine hit both sides. */
	for (int r = 0; r < RUNS; r++) {
		v[8][r] = minor_floor();
		v[9][r] = under_pager(argv[1], self, "fhit");
		v[10][r] = under_pager(argv[1], self, "fmiss");
		v[11][r] = seq_read(spath);
		v[12][r] = under_pager(argv[1], self, "fseq");
		/* The same read through a budget a quarter of the file:
		 * every page read evicts one. */
		stream[r] = under_pager_mem(argv[1], self, "fseq", STREAM_MEM);
		v[0][r] = uffd_floor(true);
		blocked[r] = uffd_floor(false);
		v[1][r] = under_pager(argv[1], self, "armed");
		arm[r] = under_pager(argv[1], self, "arm");
		v[2][r] = direct_read(dir);
		v[3][r] = under_pager(argv[1], self, "swapin");
		zlz4[r] = under_pager_args(argv[1], self, "swapin", "1G",
					   "--swap zram");
		dlz4[r] = decompress_floor(false);
		zzstd[r] = under_pager_args(argv[1], self, "swapin", "1G",
					    "--swap zram:zstd");
		dzstd[r] = decompress_floor(true);
		zsw[r] = under_pager_args(argv[1], self, "swapin", "1G",
					  "--set zswap.enabled=Y "
					  "--set zswap.compressor=lz4");
		if (rc) {
			rds[r] = under_pager_args(argv[1], self, "swapin",
						  "1G", store);
			rtt[r] = redis_floor(rc);
		}
		v[4][r] = first_touch(TOUCH_MB);
		v[5][r] = under_pager(argv[1], self, "touch");
		v[6][r] = cpu_loop();
		v[7][r] = under_pager(argv[1], self, "cpu");
	}
	floor_s = median(v[0], RUNS);
	blocked_s = median(blocked, RUNS);
	armed = median(v[1], RUNS);
	arm_s = median(arm, RUNS);
	read_s = median(v[2], RUNS);
	swapin = median(v[3], RUNS);
	touch_n = median(v[4], RUNS);
	touch_p = median(v[5], RUNS);
	cpu_n = median(v[6], RUNS);
	cpu_p = median(v[7], RUNS);
	minor_s = median(v[8], RUNS);
	fhit = median(v[9], RUNS);
	fmiss = median(v[10], RUNS);
	seq_n = median(v[11], RUNS);
	seq_p = median(v[12], RUNS);
	stream_p = median(stream, RUNS);
	zram_lz4 = median(zlz4, RUNS);
	zram_zstd = median(zzstd, RUNS);
	dec_lz4 = median(dlz4, RUNS);
	dec_zstd = median(dzstd, RUNS);
	zswap = median(zsw, RUNS);
	if (rc) {
		rds_s = median(rds, RUNS);
		rtt_s = median(rtt, RUNS);
		freeReplyObject(redisCommand(rc, "SHUTDOWN NOSAVE"));
		redisFree(rc);
	}
	unlink(fpath);
	unlink(spath);
	if (armed < 0 || arm_s < 0 || swapin < 0 || touch_p < 0 || cpu_p < 0 ||
	    minor_s < 0 || fhit < 0 || fmiss < 0 || seq_n < 0 || seq_p < 0 ||
	    stream_p < 0 || zram_lz4 < 0 || zram_zstd < 0 || dec_lz4 < 0 ||
	    dec_zstd < 0 || zswap < 0 || (rc && (rds_s < 0 || rtt_s < 0))) {
		printf("bench-daemon: a run under the pager failed\n");
		return 1;
	}
	printf("# medians of %d runs, interleaved, measured in this run\n",
	       RUNS);
	printf("uffd floor (missing fault + UFFDIO_COPY)   %8.1f us\n",
	       floor_s * 1e6);
	printf("  the same, handler blocked in read()      %8.1f us\n",
	       blocked_s * 1e6);
	printf("O_DIRECT 4 KiB read, depth 1 (%s)%*s%8.1f us\n", dir,
	       (int)(13 - strlen(dir) > 0 ? 13 - strlen(dir) : 0), "",
	       read_s * 1e6);
	printf("fault on a page the pager holds            %8.1f us\n",
	       armed * 1e6);
	printf("arming, per page (copy, agent's madvise)   %8.2f us\n",
	       arm_s * 1e6);
	printf("swap-in fault (vm.page-cluster=0)          %8.1f us\n",
	       swapin * 1e6);
	printf("swap-in fault, zram lz4 / zstd             %8.1f / %.1f us\n",
	       zram_lz4 * 1e6, zram_zstd * 1e6);
	printf("  throughput, file / lz4 / zstd            %8.0f / %.0f / %.0f pages/s\n",
	       1 / swapin, 1 / zram_lz4, 1 / zram_zstd);
	printf("swap-in fault, zswap (lz4) before a file   %8.1f us\n",
	       zswap * 1e6);
	if (rc) {
		printf("swap-in fault, Redis on 127.0.0.1          %8.1f us\n",
		       rds_s * 1e6);
		printf("  throughput                               %8.0f pages/s\n",
		       1 / rds_s);
		printf("Redis GET of 4 KiB, depth 1 (hiredis)      %8.1f us\n",
		       rtt_s * 1e6);
	} else {
		printf("swap-in fault, Redis: skipped (no redis-server)\n");
	}
	printf("decompress a text page, lz4 / zstd         %8.2f / %.2f us\n",
	       dec_lz4 * 1e6, dec_zstd * 1e6);
	printf("first touches, native                      %8.0f pages/s\n",
	       touch_n);
	printf("first touches, pager                       %8.0f pages/s\n",
	       touch_p);
	printf("cpu loop, native / pager                   %8.3f / %.3f s\n",
	       cpu_n, cpu_p);
	printf("minor floor (MINOR fault + CONTINUE)       %8.1f us\n",
	       minor_s * 1e6);
	printf("file page-cache hit fault, pager           %8.1f us\n",
	       fhit * 1e6);
	printf("file miss fault (read-around off), pager   %8.1f us\n",
	       fmiss * 1e6);
	printf("sequential mmap read, native / pager       %8.0f / %.0f MB/s\n",
	       seq_n, seq_p);
	printf("sequential read through %s, pager       %8.0f MB/s\n",
	       STREAM_MEM, stream_p);
	printf("ratio file hit / minor floor               %8.2f  (goal <= 1.2)\n",
	       fhit / minor_s);
	printf("ratio file miss / (minor floor + O_DIRECT) %8.2f  (goal <= 1.2)\n",
	       fmiss / (minor_s + read_s));
	printf("ratio sequential read pager / native       %8.2f  (goal >= 0.8)\n",
	       seq_p / seq_n);
	/* The eviction path's price: each page read evicts one. */
	printf("ratio streamed read / sequential, pager    %8.2f  (goal >= 0.5)\n",
	       stream_p / seq_p);
	printf("ratio pager fault / uffd floor             %8.2f  (goal <= 1.2)\n",
	       armed / floor_s);
	printf("  against the blocked handler's floor      %8.2f\n",
	       armed / blocked_s);
	printf("ratio first touch pager / native           %8.2f  (goal >= 1.0)\n",
	       touch_p / touch_n);
	printf("ratio swap-in / (floor + O_DIRECT read)    %8.2f  (goal <= 1.2)\n",
	       swapin / (floor_s + read_s));
	printf("ratio swap-in zram lz4 / file              %8.2f\n",
	       zram_lz4 / swapin);
	printf("ratio swap-in zram lz4 / (floor + decomp)  %8.2f  (goal <= 1.2)\n",
	       zram_lz4 / (floor_s + dec_lz4));
	printf("ratio swap-in zram zstd / (floor + decomp) %8.2f  (goal <= 1.2)\n",
	       zram_zstd / (floor_s + dec_zstd));
	printf("ratio swap-in zswap / (floor + decomp)     %8.2f  (goal <= 1.2)\n",
	       zswap / (floor_s + dec_lz4));
	printf("ratio swap-in zswap / zram lz4             %8.2f\n",
	       zswap / zram_lz4);
	if (rc) {
		printf("ratio swap-in Redis / file                 %8.2f\n",
		       rds_s / swapin);
		printf("ratio swap-in Redis / (floor + GET)        %8.2f  (goal <= 1.2)\n",
		       rds_s / (floor_s + rtt_s));
	}
	printf("ratio cpu-bound pager / native             %8.3f  (goal <= 1.05)\n",
	       cpu_p / cpu_n);
	return 0;
}
