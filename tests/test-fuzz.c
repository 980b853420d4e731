/* SPDX-License-Identifier: MIT */
/*
 * test-fuzz.c - the trace readers and the simulator under random input
 * (pager/trace*.c, linesrc.c, sim*.c).
 *
 * A fuzzer (a seeded xorshift64*, so every run is the same): mutated
 * traces, random bytes and mutated binary traces must each be read or
 * refused with a "fuzz.trace:LINE: reason", never crash, and what is read
 * must be a consistent trace. A sample of those read is replayed through
 * the simulator with pol_check() after every event, in a child process so
 * that a crash or a sanitizer report is a failed check, not a dead test;
 * each kind of failed replay is reported with its input, shrunk.
 * PGR_FUZZ_ITERS and PGR_FUZZ_SEED override the number of iterations
 * (20000) and the seed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../pager/trace.h"
#include "t-trace.h"
#include "tap.h"

/* ---- fuzzing ------------------------------------------------------------- */

/* Print @n bytes of an input as C-escaped diagnostic lines. */
static void diag_input(const char *what, const char *p, size_t n)
{
	char line[100];
	size_t k = 0, o = 0;

	t_diag("%s (%zu bytes):", what, n);
	for (; k < n && k < 2048; k++) {
		unsigned char c = (unsigned char)p[k];

		if (o > sizeof(line) - 8) {
			line[o] = 0;
			t_diag("  %s", line);
			o = 0;
		}
		if (c == '\n') {
			o += (size_t)sprintf(line + o, "\\n");
			line[o] = 0;
			t_diag("  %s", line);
			o = 0;
		} else if (c == '\\') {
			o += (size_t)sprintf(line + o, "\\\\");
		} else if (c >= 32 && c < 127) {
			line[o++] = (char)c;
		} else {
			o += (size_t)sprintf(line + o, "\\x%02x", c);
		}
	}
	line[o] = 0;
	if (o)
		t_diag("  %s", line);
	if (k < n)
		t_diag("  ...");
}

static uint64_t rng = UINT64_C(0x9e3779b97f4a7c15);

/* xorshift64* */
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * UINT64_C(0x2545f4914f6cdd1d);
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

#define PICK(a) ((a)[below(ARRAY_SIZE(a))])

static const char *const seeds[] = {
	t_good_text,
	/* fork, COW, swap */
	"mmap 1 0x10000 32K anon\n"
	"w 1 0x10000 32K\n"
	"fork 1 2\n"
	"w 2 0x12000 8K\n"
	"reclaim list root inactive_anon 4\n"
	"r 1 0x10000 16K\n"
	"munmap 2 0x14000 8K\n"
	"r 2 0x10000 8K\n"
	"exit 2\n"
	"expect swap_used <= 64\n",
	/* files, groups, read/write, truncate */
	"group g1 memory.low=256K\n"
	"group g2 parent=g1 memory.max=512K\n"
	"file 7 128K group=g1\n"
	"file 8 16K group=g2\n"
	"proc 1 group=g2\n"
	"mmap 1 0x20000 64K file:7@16K exec\n"
	"mmap 1 0x40000 16K file:8 shared\n"
	"r 1 0x20000 64K\n"
	"w 1 0x40000 16K\n"
	"read 7 0 128K pid=1\n"
	"write 8 12K 8K\n"
	"truncate 7 64K\n"
	"reclaim group g1 32\n"
	"reclaim inodes root 12\n"
	"expect file 7 0 resident\n"
	"expect page 1 0x40000 dirty\n"
	"madvise 1 0x20000 16K pageout\n"
	"mremap 1 0x40000 16K 0x90000 32K\n"
	"w 1 0x91000\n"
	"fork 1 2\n"
	"w 2 0x90000 8K\n"
	"exit 1\n",
	/* munmap and mremap puzzles */
	"mmap 1 0x10000 64K anon\n"
	"w 1 0x10000 64K\n"
	"munmap 1 0x14000 8K\n"
	"mremap 1 0x10000 16K 0x80000 16K\n"
	"mremap 1 0x16000 40K 0x100000 64K\n"
	"madvise 1 0x100000 8K dontneed\n"
	"madvise 1 0x80000 8K free\n"
	"mmap 1 0x81000 4K anon\n"
	"r 1 0x80000 16K\n"
	"madvise 1 0x102000 8K mlock\n"
	"phase two\n"
	"set sim.writeback=async\n"
	"w 1 0x100000 64K\n"
	"reclaim direct\n"
	"madvise 1 0x102000 8K munlock\n"
	"expect nr_unevictable = 0\n",
	/* seq, locked, kswapd */
	"set vm.swappiness=200\n"
	"file 8 64K\n"
	"mmap 3 0x200000 32K anon locked\n"
	"mmap 3 0x300000 32K anon seq\n"
	"mmap 3 0x400000 64K file:8 seq\n"
	"w 3 0x200000 32K\n"
	"r 3 0x300000 32K\n"
	"r 3 0x400000 64K\n"
	"fork 3 4\n"
	"exit 3\n"
	"w 4 0x300000 32K\n"
	"madvise 4 0x400000 64K normal\n"
	"r 4 0x400000 64K\n"
	"reclaim kswapd\n"
	"expect pgfault@root > 0\n",
	/* pages */
	"1\n2\n3\n1\n7\n2\n100\n1\n3\n",
	t_lackey_text,
};

static const char *const numbers[] = {
	"0", "1", "-1", "-4096", "4095", "4096", "4097", "0x", "0x0", "0xg",
	"1K", "4k", "8K", "64K", "1M", "1G", "2147483647", "2147483648",
	"4294967295", "4294967296", "0x7fffffff", "0xffffffff",
	"281474976710655", "281474976710656", "0xffffffffffff",
	"0x1000000000000", "17592186044416", "8796093022208",
	"18446744073709551615", "18446744073709551616", "0xffffffffffffffff",
	"99999999999999999999999", "9T", "16T", "0x10000", "0x20000",
	"0x11000", "007", "1e3", "+1",
};

static const char *const vocab[] = {
	"mmap", "munmap", "mremap", "madvise", "r", "w", "read", "write",
	"file", "truncate", "group", "proc", "fork", "exit", "phase", "set",
	"reclaim", "expect", "pager-trace", "anon", "file:7", "file:7@4K",
	"file:8@8K", "file:9", "file:", "file:7@", "exec", "shared",
	"private", "seq", "locked", "dontneed", "remove", "cold", "pageout",
	"free", "mlock", "munlock", "sequential", "normal", "pid=1", "pid=2",
	"pid=99", "pid=", "group=g1", "group=g2", "group=root", "group=nope",
	"parent=g1", "parent=root", "memory.min=1M", "memory.low=64K",
	"memory.max=max", "memory.max=12Q", "kswapd", "direct", "list",
	"inodes", "inactive_anon", "active_anon", "inactive_file",
	"active_file", "root", "g1", "g2", "page", "=", "!=", "<", "<=", ">",
	">=", "~", "absent", "resident", "active", "inactive", "referenced",
	"unreferenced", "swapped", "shadow", "workingset", "dirty",
	"unevictable", "mapped", "unmapped", "pgfault", "pgmajfault", "refs",
	"misses", "nr_inactive_anon", "swap_used", "pgfault@g1",
	"pgfault@nope", "vm.swappiness=200", "vm.swappiness=-3",
	"vm.balance.mode=root55", "sim.writeback=async",
	"sim.kswapd_delay=3", "sim.kswapd_delay=x", "sim.direct_reclaimers=2",
	"sim.direct_reclaimers=0", "nonsense=1", "#",
	"0x10000", "0x11000", "0x20000", "4K", "8K", "16K", "1", "2", "3",
	"0", "==1==", "I", "L", "S", "M", "04016a3,3", "7ff000398,8",
	"PGRTRC1", "\t", "\r",
};

static const char *const addrs[] = {
	"0x10000", "0x11000", "0x12000", "0x13000", "0x14000", "0x18000",
	"0x1f000", "0x20000", "0x21000", "0x23000", "0x2f000", "0x40000",
	"0x41000", "0x43000", "0x60000", "0x80000", "0x81000", "0x90000",
	"0x91000", "0x96000", "0x100000", "0x104000", "0x200000",
	"0x300000", "0x400000", "0x40f000",
};

static const char *const sizes[] = {
	"1", "4K", "8K", "12K", "16K", "32K", "64K", "4095", "4097", "100",
};

static const char *const pids[] = { "1", "2", "3", "4" };

static const char *const types[] = {
	"anon", "anon", "file:7", "file:7@4K", "file:7@64K", "file:8",
	"file:8@8K",
};

static const char *const mflags[] = {
	"", "", " exec", " shared", " seq", " locked", " private",
	" shared locked",
};

static const char *const advice[] = {
	"dontneed", "remove", "cold", "pageout", "free", "mlock", "munlock",
	"sequential", "normal",
};

static const char *const states[] = {
	"absent", "resident", "active", "inactive", "referenced",
	"unreferenced", "swapped", "shadow", "workingset", "dirty",
	"unevictable", "mapped", "unmapped",
};

/* A new line: mostly a well-formed command on the seeds' addresses. */
static int random_line(char *buf, size_t len)
{
	static const char *const rw[] = { "r", "w" };
	static const char *const fds[] = { "read", "write" };
	static const char *const inos[] = { "7", "8", "9" };
	static const char *const cmps[] = { "=", "!=", "<", "<=", ">", ">=" };
	static const char *const lrus[] = { "inactive_anon", "active_anon",
					    "inactive_file", "active_file" };
	static const char *const groups[] = { "root", "g1", "g2" };

	switch (below(15)) {
	case 0:
		return snprintf(buf, len, "mmap %s %s %s %s%s\n", PICK(pids),
				PICK(addrs), PICK(sizes), PICK(types),
				PICK(mflags));
	case 1:
		return snprintf(buf, len, "munmap %s %s %s\n", PICK(pids),
				PICK(addrs), PICK(sizes));
	case 2:
		return snprintf(buf, len, "mremap %s %s %s %s %s\n",
				PICK(pids), PICK(addrs), PICK(sizes),
				PICK(addrs), PICK(sizes));
	case 3:
		return snprintf(buf, len, "madvise %s %s %s %s\n", PICK(pids),
				PICK(addrs), PICK(sizes), PICK(advice));
	case 4:
	case 5:
		return snprintf(buf, len, "%s %s %s%s%s\n", PICK(rw),
				PICK(pids), PICK(addrs), below(2) ? " " : "",
				below(2) ? PICK(sizes) : "");
	case 6:
		return snprintf(buf, len, "%s %s %s %s%s%s\n", PICK(fds),
				PICK(inos), PICK(sizes), PICK(sizes),
				below(2) ? " pid=" : "",
				below(2) ? PICK(pids) : "");
	case 7:
		return snprintf(buf, len, "truncate %s %s\n", PICK(inos),
				PICK(sizes));
	case 8:
		return snprintf(buf, len, "fork %s %s\n", PICK(pids),
				PICK(pids));
	case 9:
		return snprintf(buf, len, "exit %s\n", PICK(pids));
	case 10:
		return snprintf(buf, len, "proc %s group=%s\n", PICK(pids),
				PICK(groups));
	case 11:
		switch (below(4)) {
		case 0:
			return snprintf(buf, len, "reclaim %s\n",
					below(2) ? "kswapd" : "direct");
		case 1:
			return snprintf(buf, len, "reclaim group %s %zu\n",
					PICK(groups), below(64));
		case 2:
			return snprintf(buf, len, "reclaim inodes %s %zu\n",
					PICK(groups), below(14));
		default:
			return snprintf(buf, len, "reclaim list %s %s %zu\n",
					PICK(groups), PICK(lrus), below(64));
		}
	case 12:
		switch (below(3)) {
		case 0:
			return snprintf(buf, len, "expect page %s %s %s %s\n",
					PICK(pids), PICK(addrs), PICK(states),
					PICK(states));
		case 1:
			return snprintf(buf, len, "expect file %s %s %s\n",
					PICK(inos), PICK(sizes), PICK(states));
		default:
			return snprintf(buf, len, "expect %s %s %zu\n",
					below(2) ? "pgfault" : "swap_used",
					PICK(cmps), below(100));
		}
	case 13:
		return snprintf(buf, len, "%s\n", below(2) ? "phase p" :
				"set vm.swappiness=60");
	default: {
		int n = 0;

		for (size_t k = 1 + below(6); k-- && (size_t)n < len;)
			n += snprintf(buf + n, len - (size_t)n, "%s%s",
				      PICK(vocab), k ? " " : "\n");
		return n;
	}
	}
}

#define FUZZ_MAX 8192

struct input {
	char p[FUZZ_MAX + 1];
	size_t len;
};

static void in_insert(struct input *in, size_t at, const char *s, size_t n)
{
	if (in->len + n > FUZZ_MAX)
		return;
	memmove(in->p + at + n, in->p + at, in->len - at);
	memcpy(in->p + at, s, n);
	in->len += n;
}

static void in_delete(struct input *in, size_t at, size_t n)
{
	if (at + n > in->len)
		n = in->len - at;
	memmove(in->p + at, in->p + at + n, in->len - at - n);
	in->len -= n;
}

/* The line around @pos: [*s, *e), its newline included. */
static void line_at(const struct input *in, size_t pos, size_t *s, size_t *e)
{
	*s = pos;
	while (*s > 0 && in->p[*s - 1] != '\n')
		(*s)--;
	*e = pos;
	while (*e < in->len && in->p[(*e)++] != '\n')
		;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The word around or after @pos: [*s, *e); false if none. */
static bool word_at(const struct input *in, size_t pos, size_t *s, size_t *e)
{
	while (pos < in->len && blank(in->p[pos]))
		pos++;
	if (pos >= in->len)
		return false;
	*s = pos;
	while (*s > 0 && !blank(in->p[*s - 1]))
		(*s)--;
	*e = pos;
	while (*e < in->len && !blank(in->p[*e]))
		(*e)++;
	return true;
}

/* Replace a number (after a blank, '=', ':' or '@') with a strange one. */
static void mutate_number(struct input *in)
{
	size_t at[64], n = 0, s, e;
	const char *v = PICK(numbers);

	for (size_t k = 0; k < in->len && n < ARRAY_SIZE(at); k++) {
		char c = in->p[k], p = k ? in->p[k - 1] : ' ';

		if (c >= '0' && c <= '9' && (blank(p) || p == '=' ||
					     p == ':' || p == '@'))
			at[n++] = k;
	}
	if (!n)
		return;
	s = e = at[below(n)];
	while (e < in->len && !blank(in->p[e]) && in->p[e] != '@' &&
	       in->p[e] != ',')
		e++;
	in_delete(in, s, e - s);
	in_insert(in, s, v, strlen(v));
}

static void mutate(struct input *in)
{
	static const char bytes[] = "0123456789 \n\t#=@:xKMG-rw,\r";
	size_t s, e, s2, e2;
	char buf[256], c;
	int n;

	switch (below(11)) {
	case 0:		/* flip a bit */
		if (in->len)
			in->p[below(in->len)] ^= (char)(1 << below(8));
		break;
	case 1:		/* insert a byte */
		c = below(4) ? bytes[below(sizeof(bytes) - 1)] :
			       (char)below(256);
		in_insert(in, below(in->len + 1), &c, 1);
		break;
	case 2:		/* delete bytes */
		if (in->len)
			in_delete(in, below(in->len), 1 + below(8));
		break;
	case 3:		/* duplicate a line */
		line_at(in, below(in->len + 1), &s, &e);
		line_at(in, below(in->len + 1), &s2, &e2);
		if (e - s < sizeof(buf)) {
			memcpy(buf, in->p + s, e - s);
			in_insert(in, s2, buf, e - s);
		}
		break;
	case 4:		/* drop a line */
		line_at(in, below(in->len + 1), &s, &e);
		in_delete(in, s, e - s);
		break;
	case 5:
	case 6:		/* a strange number */
		mutate_number(in);
		break;
	case 7:		/* replace a word */
		if (word_at(in, below(in->len + 1), &s, &e)) {
			const char *w = PICK(vocab);

			in_delete(in, s, e - s);
			in_insert(in, s, w, strlen(w));
		}
		break;
	case 8:		/* add a word */
		if (word_at(in, below(in->len + 1), &s, &e)) {
			n = snprintf(buf, sizeof(buf), " %s", PICK(vocab));
			in_insert(in, e, buf, (size_t)n);
		}
		break;
	default:	/* add a line */
		n = random_line(buf, sizeof(buf));
		if (n < 0 || (size_t)n >= sizeof(buf))
			n = 0;
		line_at(in, below(in->len + 1), &s, &e);
		in_insert(in, s, buf, (size_t)n);
		break;
	}
}

/* What a read trace must satisfy, so that a replay can trust it. */
static bool trace_sane(const struct trace *t, char *why, size_t len)
{
	uint64_t accesses = 0;

#define INSANE(...) do { snprintf(why, len, __VA_ARGS__); return false; } \
	while (0)
	for (uint32_t i = 0; i < t->nr_regions; i++) {
		const struct t_region *r = &t->regions[i];

		if (r->proc >= t->nr_procs)
			INSANE("region %u: process %u", i, r->proc);
		if ((r->flags & R_FILE) ? r->inode >= t->nr_inodes :
		    r->inode != T_NONE)
			INSANE("region %u: inode %u", i, r->inode);
		if (r->clone_of != T_NONE && r->clone_of >= i)
			INSANE("region %u: clone of %u", i, r->clone_of);
		if (r->mapped > r->npages)
			INSANE("region %u: %u pages mapped of %u", i,
			       r->mapped, r->npages);
	}
	for (uint32_t i = 0; i < t->nr_inodes; i++)
		if (t->inodes[i].size > t->inodes[i].npages ||
		    (t->inodes[i].group != T_NONE &&
		     t->inodes[i].group >= t->nr_groups))
			INSANE("inode %u", i);
	for (uint32_t i = 0; i < t->nr_groups; i++)
		if (t->groups[i].parent != T_NONE && t->groups[i].parent >= i)
			INSANE("group %u: parent %u", i, t->groups[i].parent);
	for (size_t k = 0; k < t->nr_ev; k++) {
		const struct ev *e = &t->ev[k];
		const struct t_region *r = e->obj < t->nr_regions ?
					   &t->regions[e->obj] : NULL;
		const struct t_inode *n = e->obj < t->nr_inodes ?
					  &t->inodes[e->obj] : NULL;
		bool ok = true;

		switch (e->op) {
		case EV_ACCESS:
			ok = r && e->off < r->npages && e->len == 1 &&
			     (!(r->flags & R_FILE) ||
			      r->foff + e->off < t->inodes[r->inode].npages);
			accesses++;
			break;
		case EV_FD:
			ok = n && (uint64_t)e->off + e->len <= n->npages &&
			     e->len && (e->aux == 0xffff ||
					e->aux < t->nr_groups);
			accesses += e->len;
			break;
		case EV_MAP:
		case EV_RESIZE:
			ok = r && e->len <= r->npages;
			break;
		case EV_UNMAP:
		case EV_MADVISE:
			ok = r && (uint64_t)e->off + e->len <= r->npages &&
			     e->len && (e->op == EV_UNMAP ||
					e->aux <= ADV_NORMAL);
			break;
		case EV_CLONE:
			ok = r && r->clone_of == e->off;
			break;
		case EV_EXIT:
			ok = e->obj < t->nr_procs;
			break;
		case EV_PROCGROUP:
			ok = e->obj < t->nr_procs && (e->off == T_NONE ||
						      e->off < t->nr_groups);
			break;
		case EV_TRUNCATE:
			ok = n && e->len <= n->npages;
			break;
		case EV_PHASE:
		case EV_SET:
			ok = e->off < t->nr_strings;
			break;
		case EV_EXPECT:
			ok = e->off < t->nr_expects;
			if (ok) {
				const struct t_expect *x = &t->expects[e->off];

				if (x->page && x->file)
					ok = x->obj < t->nr_inodes;
				else if (x->page)
					ok = x->obj < t->nr_regions &&
					     x->off < t->regions[x->obj].npages;
				else
					ok = x->group == T_NONE ||
					     x->group < t->nr_groups;
			}
			break;
		case EV_RECLAIM:
			ok = e->aux <= RC_INODES && (e->obj == T_NONE ||
						     e->obj < t->nr_groups) &&
			     (e->aux != RC_LIST || e->off < 4);
			break;
		default:
			ok = false;
		}
		if (!ok)
			INSANE("event %zu: op %u obj %u off %u len %u", k,
			       e->op, e->obj, e->off, e->len);
	}
	if (accesses != t->nr_accesses)
		INSANE("nr_accesses %llu, events say %llu",
		       (unsigned long long)t->nr_accesses,
		       (unsigned long long)accesses);
#undef INSANE
	return true;
}

/* Small enough to replay in a moment with 256 pages. */
static bool small(const struct trace *t)
{
	uint64_t pages = 0;

	for (uint32_t i = 0; i < t->nr_regions; i++)
		pages += t->regions[i].npages;
	for (uint32_t i = 0; i < t->nr_inodes; i++)
		pages += t->inodes[i].npages;
	return pages <= 1 << 16 && t->nr_ev <= 1 << 15 &&
	       t->nr_accesses <= 1 << 16;
}

/* Did the reader keep its contract on @p? Reads into @t. */
static bool fuzz_read(struct trace *t, const char *p, size_t n, int *ret,
		      char *why, size_t len)
{
	unsigned int line;
	int at = 0;

	*ret = t_read_mem(t, p, n, "fuzz.trace", TF_AUTO);
	if (*ret == 0) {
		if (t->err[0]) {
			snprintf(why, len, "success with error '%.200s'",
				 t->err);
			return false;
		}
		return trace_sane(t, why, len);
	}
	if (*ret != -1) {
		snprintf(why, len, "returned %d", *ret);
		return false;
	}
	if (sscanf(t->err, "fuzz.trace:%u: %n", &line, &at) < 1 || !at ||
	    !t->err[at]) {
		snprintf(why, len, "error '%.200s'", t->err);
		return false;
	}
	return true;
}

/*
 * The lines of text input @in before the line its error @err names, in
 * @pre; false for binary input or an error on line 1.
 */
static bool prefix(const struct input *in, const char *err,
		   struct input *pre)
{
	unsigned int line;
	size_t k = 0;

	if ((in->len >= 8 && !memcmp(in->p, TRACE_BIN_MAGIC, 8)) ||
	    sscanf(err, "fuzz.trace:%u:", &line) != 1 || line < 2)
		return false;
	for (unsigned int n = 1; k < in->len && n < line; k++)
		n += in->p[k] == '\n';
	memcpy(pre->p, in->p, k);
	pre->len = k;
	return true;
}

/* A failure found by the fuzzer, kept for the report. */
struct finding {
	unsigned int count;
	char why[256];
	char key[256];		/* replays: the kind of failure */
	struct input in;
};

static void found(struct finding *f, const struct input *in, const char *why)
{
	if (f->count++)
		return;
	f->in = *in;
	snprintf(f->why, sizeof(f->why), "%s", why);
}

/*
 * Failures of replays, one per kind: where a sanitizer caught it, or what
 * the broken invariant or the error was, without the event number.
 */
#define NR_KINDS 6

static void failure_key(enum t_outcome r, const char *why, char *key,
			size_t len)
{
	const char *p = strstr(why, " in ");

	if (r == T_RUN_CRASH && p)
		snprintf(key, len, "%s", p + 4);
	else if (r == T_RUN_CRASH && (p = strstr(why, ": runtime error")))
		snprintf(key, len, "%.*s", (int)(p - why), why);
	else if (r == T_RUN_INVARIANT && (p = strchr(why, ':')))
		snprintf(key, len, "invariant%s", p);
	else
		snprintf(key, len, "%s: %s", t_run_name(r), why);
}

static void found_run(struct finding *kinds, enum t_outcome r, const char *why,
		      const struct input *in)
{
	char key[256];
	unsigned int k;

	failure_key(r, why, key, sizeof(key));
	for (k = 0; k < NR_KINDS - 1; k++)
		if (!kinds[k].count || !strcmp(kinds[k].key, key))
			break;
	if (!kinds[k].count)
		snprintf(kinds[k].key, sizeof(kinds[k].key), "%s", key);
	found(&kinds[k], in, why);
}

/* Does @in still parse and replay to a failure of the kind @key? */
static bool replays_to(const struct input *in, const char *key)
{
	char why[256], k[256];
	struct trace t;
	int ret;
	bool same = false;

	if (fuzz_read(&t, in->p, in->len, &ret, why, sizeof(why)) &&
	    ret == 0) {
		enum t_outcome r = t_replay(&t, why, sizeof(why));

		failure_key(r, why, k, sizeof(k));
		same = t_run_bad(r) && !strcmp(k, key);
	}
	trace_release(&t);
	return same;
}

/* Drop lines while it still fails the same way. */
static void shrink(struct input *in, const char *key)
{
	unsigned int tries = 0;
	bool progress = true;

	while (progress && tries < 400) {
		progress = false;
		for (size_t s = 0; s < in->len && tries < 400;) {
			struct input *c = malloc(sizeof(*c));
			size_t ls, le;

			line_at(in, s, &ls, &le);
			*c = *in;
			in_delete(c, ls, le - ls);
			tries++;
			if (replays_to(c, key)) {
				*in = *c;
				progress = true;
			} else {
				s = le;
			}
			free(c);
		}
	}
}

static void report_parse(struct finding *f)
{
	if (!t_ok(!f->count, "fuzz: every input is read, or refused with "
		  "'fuzz.trace:LINE: reason'; what is read is consistent")) {
		t_diag("%u failures; the first: %s", f->count, f->why);
		diag_input("input", f->in.p, f->in.len);
	}
}

static void report_runs(struct finding *kinds)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < NR_KINDS; k++)
		n += kinds[k].count;
	if (t_ok(!n, "fuzz: replays return 0 or an error, no crash, no "
		 "broken invariant"))
		return;
	for (unsigned int k = 0; k < NR_KINDS && kinds[k].count; k++) {
		t_diag("%u replays failed with %s", kinds[k].count,
		       kinds[k].key);
		shrink(&kinds[k].in, kinds[k].key);
		diag_input("shrunk input", kinds[k].in.p, kinds[k].in.len);
	}
}

/* PGR_FUZZ_ITERS, PGR_FUZZ_SEED: more, or other, fuzzing by hand. */
static unsigned long fuzz_iters(void)
{
	const char *s = getenv("PGR_FUZZ_ITERS");
	unsigned long n = s ? strtoul(s, NULL, 10) : 0;

	s = getenv("PGR_FUZZ_SEED");
	if (s && strtoull(s, NULL, 0))
		rng = strtoull(s, NULL, 0);
	return n ? n : 20000;
}

static void test_fuzz(void)
{
	struct input *in = malloc(sizeof(*in)), *pre = malloc(sizeof(*pre));
	struct finding *parse = calloc(1, sizeof(*parse));
	struct finding *run = calloc(NR_KINDS, sizeof(*run));
	unsigned long iters = fuzz_iters(), accepted = 0, rejected = 0;
	unsigned long raccepted = 0, rrejected = 0, replays = 0, prefixes = 0;
	unsigned long nrun[T_RUN_CRASH + 1] = { 0 };
	struct timespec t0, t1;
	struct t_mem bin;
	char why[256];

	if (!in || !pre || !parse || !run) {
		t_ok(0, "fuzz: memory");
		exit(1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t_scenario_binary(&bin);

	/* The seeds themselves read and replay. */
	for (size_t k = 0; k < ARRAY_SIZE(seeds); k++) {
		enum t_outcome r = T_RUN_CRASH;
		struct trace t;
		int ret;

		why[0] = 0;
		if (fuzz_read(&t, seeds[k], strlen(seeds[k]), &ret, why,
			      sizeof(why)) && ret == 0)
			r = t_replay(&t, why, sizeof(why));
		if (!t_ok(r == T_RUN_OK, "fuzz seed %zu reads and replays", k))
			t_diag("%s: %s %s", t_run_name(r), why, t.err);
		trace_release(&t);
	}

	for (unsigned long it = 0; it < iters; it++) {
		const char *seed = PICK(seeds);
		struct trace t;
		int ret;

		/* (a) a mutated seed */
		in->len = strlen(seed);
		memcpy(in->p, seed, in->len);
		for (size_t m = 1 + below(3); m--;)
			mutate(in);
		if (!fuzz_read(&t, in->p, in->len, &ret, why, sizeof(why)))
			found(parse, in, why);
		if (ret == 0) {
			accepted++;
		} else {
			rejected++;
			/* The lines before the one refused are a trace. */
			if (!prefix(in, t.err, pre)) {
				trace_release(&t);
				goto bytes;
			}
			trace_release(&t);
			if (!fuzz_read(&t, pre->p, pre->len, &ret, why,
				       sizeof(why)) || ret) {
				if (!ret)
					found(parse, pre, why);
				else
					found(parse, pre, "the lines before "
					      "the error line are refused");
				trace_release(&t);
				goto bytes;
			}
			prefixes++;
			memcpy(in, pre, sizeof(*in));
		}
		if (replays < iters * 3 / 100 && !below(30) && small(&t)) {
			enum t_outcome r = t_replay(&t, why, sizeof(why));

			replays++;
			nrun[r]++;
			if (t_run_bad(r))
				found_run(run, r, why, in);
		}
		trace_release(&t);
bytes:

		/* (b) random bytes, bare or after the binary magic, or
		 * (c) a binary trace with bytes changed */
		switch (it % 3) {
		case 0:
			in->len = below(600);
			for (size_t k = 0; k < in->len; k++)
				in->p[k] = (char)rnd();
			break;
		case 1:
			memcpy(in->p, TRACE_BIN_MAGIC, 8);
			in->len = 8 + below(600);
			for (size_t k = 8; k < in->len; k++)
				in->p[k] = (char)(below(4) ? below(8) : rnd());
			break;
		default:
			in->len = bin.len < FUZZ_MAX ? bin.len : FUZZ_MAX;
			memcpy(in->p, bin.p, in->len);
			for (size_t m = 1 + below(4); m--;) {
				size_t at = 8 + below(in->len - 8);

				if (below(2))
					in->p[at] = (char)rnd();
				else
					in_delete(in, at, 1 + below(4));
			}
			break;
		}
		if (!fuzz_read(&t, in->p, in->len, &ret, why, sizeof(why)))
			found(parse, in, why);
		if (ret == 0)
			raccepted++;
		else
			rrejected++;
		trace_release(&t);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	t_diag("fuzz: %lu iterations in %.1f s", iters,
	       (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	t_diag("fuzz: mutated text: %lu accepted, %lu rejected (of which the "
	       "lines before the error: %lu)", accepted, rejected, prefixes);
	t_diag("fuzz: random/binary bytes: %lu accepted, %lu rejected",
	       raccepted, rrejected);
	t_diag("fuzz: %lu replays: %lu ok, %lu sim errors, %lu refused, "
	       "%lu bad", replays, nrun[T_RUN_OK], nrun[T_RUN_ERROR],
	       nrun[T_RUN_REFUSED], nrun[T_RUN_INVARIANT] + nrun[T_RUN_NOERR] +
	       nrun[T_RUN_CRASH]);
	report_parse(parse);
	report_runs(run);
	t_ok(accepted > iters / 10 && rejected > iters / 10,
	     "fuzz: mutated seeds are both accepted and rejected");
	t_ok(raccepted + rrejected == iters && rrejected > iters / 4,
	     "fuzz: random bytes are mostly rejected");
	t_ok(replays >= iters / 100 && nrun[T_RUN_OK] >= iters / 200,
	     "fuzz: %lu replays, %lu ran to the end", replays, nrun[T_RUN_OK]);
	free(bin.p);
	free(in);
	free(pre);
	free(parse);
	free(run);
}

int main(void)
{
	test_fuzz();
	return t_done();
}
