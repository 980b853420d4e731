/* SPDX-License-Identifier: MIT */
/*
 * t-mutate.c - trace inputs for the fuzz test: well-formed seed traces,
 * random lines in the text format's vocabulary, and mutations of an
 * input (lines added, dropped, swapped; words and numbers changed). A
 * seeded xorshift64*, so that every run makes the same inputs.
 */
#include <stdio.h>
#include <string.h>

#include "t-mutate.h"
#include "t-trace.h"

static uint64_t rng = UINT64_C(0x9e3779b97f4a7c15);

/* Start the sequence at @seed (not 0). */
void t_rnd_seed(uint64_t seed)
{
	rng = seed;
}

/* xorshift64*: the same sequence on every run. */
uint64_t t_rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * UINT64_C(0x2545f4914f6cdd1d);
}

size_t t_below(size_t n)
{
	return n ? (size_t)(t_rnd() % n) : 0;
}

#define PICK(a) ((a)[t_below(ARRAY_SIZE(a))])

const char *const t_seeds[] = {
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
const size_t t_nr_seeds = ARRAY_SIZE(t_seeds);

const char *t_seed_trace(void)
{
	return PICK(t_seeds);
}

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

	switch (t_below(15)) {
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
				PICK(pids), PICK(addrs), t_below(2) ? " " : "",
				t_below(2) ? PICK(sizes) : "");
	case 6:
		return snprintf(buf, len, "%s %s %s %s%s%s\n", PICK(fds),
				PICK(inos), PICK(sizes), PICK(sizes),
				t_below(2) ? " pid=" : "",
				t_below(2) ? PICK(pids) : "");
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
		switch (t_below(4)) {
		case 0:
			return snprintf(buf, len, "reclaim %s\n",
					t_below(2) ? "kswapd" : "direct");
		case 1:
			return snprintf(buf, len, "reclaim group %s %zu\n",
					PICK(groups), t_below(64));
		case 2:
			return snprintf(buf, len, "reclaim inodes %s %zu\n",
					PICK(groups), t_below(14));
		default:
			return snprintf(buf, len, "reclaim list %s %s %zu\n",
					PICK(groups), PICK(lrus), t_below(64));
		}
	case 12:
		switch (t_below(3)) {
		case 0:
			return snprintf(buf, len, "expect page %s %s %s %s\n",
					PICK(pids), PICK(addrs), PICK(states),
					PICK(states));
		case 1:
			return snprintf(buf, len, "expect file %s %s %s\n",
					PICK(inos), PICK(sizes), PICK(states));
		default:
			return snprintf(buf, len, "expect %s %s %zu\n",
					t_below(2) ? "pgfault" : "swap_used",
					PICK(cmps), t_below(100));
		}
	case 13:
		return snprintf(buf, len, "%s\n", t_below(2) ? "phase p" :
				"set vm.swappiness=60");
	default: {
		int n = 0;

		for (size_t k = 1 + t_below(6); k-- && (size_t)n < len;)
			n += snprintf(buf + n, len - (size_t)n, "%s%s",
				      PICK(vocab), k ? " " : "\n");
		return n;
	}
	}
}


static void in_insert(struct input *in, size_t at, const char *s, size_t n)
{
	if (in->len + n > FUZZ_MAX)
		return;
	memmove(in->p + at + n, in->p + at, in->len - at);
	memcpy(in->p + at, s, n);
	in->len += n;
}

void t_in_delete(struct input *in, size_t at, size_t n)
{
	if (at + n > in->len)
		n = in->len - at;
	memmove(in->p + at, in->p + at + n, in->len - at - n);
	in->len -= n;
}

/* The line around @pos: [*s, *e), its newline included. */
void t_line_at(const struct input *in, size_t pos, size_t *s, size_t *e)
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
	s = e = at[t_below(n)];
	while (e < in->len && !blank(in->p[e]) && in->p[e] != '@' &&
	       in->p[e] != ',')
		e++;
	t_in_delete(in, s, e - s);
	in_insert(in, s, v, strlen(v));
}

void t_mutate(struct input *in)
{
	static const char bytes[] = "0123456789 \n\t#=@:xKMG-rw,\r";
	size_t s, e, s2, e2;
	char buf[256], c;
	int n;

	switch (t_below(11)) {
	case 0:		/* flip a bit */
		if (in->len)
			in->p[t_below(in->len)] ^= (char)(1 << t_below(8));
		break;
	case 1:		/* insert a byte */
		c = t_below(4) ? bytes[t_below(sizeof(bytes) - 1)] :
			       (char)t_below(256);
		in_insert(in, t_below(in->len + 1), &c, 1);
		break;
	case 2:		/* delete bytes */
		if (in->len)
			t_in_delete(in, t_below(in->len), 1 + t_below(8));
		break;
	case 3:		/* duplicate a line */
		t_line_at(in, t_below(in->len + 1), &s, &e);
		t_line_at(in, t_below(in->len + 1), &s2, &e2);
		if (e - s < sizeof(buf)) {
			memcpy(buf, in->p + s, e - s);
			in_insert(in, s2, buf, e - s);
		}
		break;
	case 4:		/* drop a line */
		t_line_at(in, t_below(in->len + 1), &s, &e);
		t_in_delete(in, s, e - s);
		break;
	case 5:
	case 6:		/* a strange number */
		mutate_number(in);
		break;
	case 7:		/* replace a word */
		if (word_at(in, t_below(in->len + 1), &s, &e)) {
			const char *w = PICK(vocab);

			t_in_delete(in, s, e - s);
			in_insert(in, s, w, strlen(w));
		}
		break;
	case 8:		/* add a word */
		if (word_at(in, t_below(in->len + 1), &s, &e)) {
			n = snprintf(buf, sizeof(buf), " %s", PICK(vocab));
			in_insert(in, e, buf, (size_t)n);
		}
		break;
	default:	/* add a line */
		n = random_line(buf, sizeof(buf));
		if (n < 0 || (size_t)n >= sizeof(buf))
			n = 0;
		t_line_at(in, t_below(in->len + 1), &s, &e);
		in_insert(in, s, buf, (size_t)n);
		break;
	}
}

/* What a read trace must satisfy, so that a replay can trust it. */
