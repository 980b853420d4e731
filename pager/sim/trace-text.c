/* SPDX-License-Identifier: MIT */
/*
 * trace-text.c - the text format of traces: one command per line, words
 * separated by blanks, '#' to the end of the line a comment. The grammar
 * is in docs/trace.md; each command here checks its words and hands plain
 * values to the builder.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-build.h"
#include "../lib/util.h"

#define MAX_TOKENS 24

struct cmd {
	struct tb *b;
	int argc;
	char **argv;
};

static int bad(struct cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(struct cmd *c, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tb_error(c->b, 0, "%s: %s", c->argv[0], msg);
}

static int arg_u64(struct cmd *c, int i, const char *what, uint64_t *v)
{
	if (i >= c->argc)
		return bad(c, "missing %s", what);
	if (pgr_parse_u64(c->argv[i], v))
		return bad(c, "bad %s '%s'", what, c->argv[i]);
	return 0;
}

static int arg_pid(struct cmd *c, int i, int64_t *pid)
{
	uint64_t v;

	if (arg_u64(c, i, "pid", &v))
		return -1;
	if (v > INT32_MAX)
		return bad(c, "pid %llu out of range", (unsigned long long)v);
	*pid = (int64_t)v;
	return 0;
}

static int arg_size(struct cmd *c, int i, const char *what, uint64_t *v)
{
	if (i >= c->argc)
		return bad(c, "missing %s", what);
	if (pgr_parse_size(c->argv[i], v))
		return bad(c, "bad %s '%s'", what, c->argv[i]);
	return 0;
}

/* Pages [start, end) of ADDR LEN: LEN > 0, inside 48-bit addresses. */
static int arg_range(struct cmd *c, int i, uint64_t *s, uint64_t *e)
{
	uint64_t addr, len;

	if (arg_u64(c, i, "address", &addr) ||
	    arg_size(c, i + 1, "length", &len))
		return -1;
	if (!len)
		return bad(c, "zero length");
	if (addr >= (UINT64_C(1) << 48) || len > (UINT64_C(1) << 44) ||
	    addr + len > (UINT64_C(1) << 48))
		return bad(c, "range beyond the 48-bit address space");
	*s = addr >> PAGE_SHIFT;
	*e = (addr + len + (1 << PAGE_SHIFT) - 1) >> PAGE_SHIFT;
	return 0;
}

/* The value of "key=value" at argv[i], if that is its key. */
static const char *opt(struct cmd *c, int i, const char *key)
{
	size_t n = strlen(key);

	if (!strncmp(c->argv[i], key, n) && c->argv[i][n] == '=')
		return c->argv[i] + n + 1;
	return NULL;
}

/* group=NAME at argv[i] into *group (root: T_NONE). */
static int opt_group(struct cmd *c, int i, uint32_t *group)
{
	const char *v = opt(c, i, "group");

	if (!v)
		return bad(c, "unexpected '%s' (group=NAME)", c->argv[i]);
	*group = tb_group_find(c->b, v);
	if (*group == T_NONE && strcmp(v, "root"))
		return bad(c, "unknown group '%s'", v);
	return 0;
}

static int arg_file(struct cmd *c, int i, uint32_t *inode)
{
	uint64_t ino;

	if (arg_u64(c, i, "inode number", &ino))
		return -1;
	*inode = tb_inode_find(c->b, ino);
	if (*inode == T_NONE)
		return bad(c, "unknown file %llu (declare it with "
			   "'file INO SIZE')", (unsigned long long)ino);
	return 0;
}

/* anon | file:INO[@OFFSET] */
static int arg_type(struct cmd *c, int i, uint8_t *flags, uint32_t *inode,
		    uint64_t *foff)
{
	const char *type = i < c->argc ? c->argv[i] : "";
	char buf[64], *at;
	uint64_t ino;

	*inode = T_NONE;
	*foff = 0;
	if (!strcmp(type, "anon"))
		return 0;
	if (strncmp(type, "file:", 5))
		return bad(c, "expected type anon or file:INO[@OFFSET]");
	snprintf(buf, sizeof(buf), "%s", type + 5);
	at = strchr(buf, '@');
	if (at) {
		*at = 0;
		if (pgr_parse_size(at + 1, foff) || (*foff & 4095))
			return bad(c, "bad file offset '%s'", at + 1);
		*foff >>= PAGE_SHIFT;
	}
	if (pgr_parse_u64(buf, &ino))
		return bad(c, "bad inode number '%s'", buf);
	*inode = tb_inode_find(c->b, ino);
	if (*inode == T_NONE)
		return bad(c, "unknown file %llu (declare it with "
			   "'file INO SIZE')", (unsigned long long)ino);
	*flags |= R_FILE;
	return 0;
}

/* mmap PID ADDR LEN TYPE [exec] [shared|private] [seq] [locked] */
static int cmd_mmap(struct cmd *c)
{
	uint64_t s, e, foff;
	uint32_t inode;
	uint8_t flags = 0;
	int64_t pid;

	if (arg_pid(c, 1, &pid) || arg_range(c, 2, &s, &e) ||
	    arg_type(c, 4, &flags, &inode, &foff))
		return -1;
	for (int i = 5; i < c->argc; i++) {
		const char *f = c->argv[i];

		if (!strcmp(f, "exec"))
			flags |= R_EXEC;
		else if (!strcmp(f, "shared"))
			flags |= R_SHARED;
		else if (!strcmp(f, "private"))
			flags &= (uint8_t)~R_SHARED;
		else if (!strcmp(f, "seq"))
			flags |= R_SEQ;
		else if (!strcmp(f, "locked"))
			flags |= R_LOCKED;
		else
			return bad(c, "unknown flag '%s'", f);
	}
	return tb_mmap(c->b, pid, s, e, flags, inode, foff);
}

static int cmd_munmap(struct cmd *c)
{
	uint64_t s, e;
	int64_t pid;

	if (arg_pid(c, 1, &pid) || arg_range(c, 2, &s, &e))
		return -1;
	return tb_munmap(c->b, pid, s, e);
}

/* mremap PID OLD OLDLEN NEW NEWLEN */
static int cmd_mremap(struct cmd *c)
{
	uint64_t os, oe, ns, ne;
	int64_t pid;

	if (arg_pid(c, 1, &pid) || arg_range(c, 2, &os, &oe) ||
	    arg_range(c, 4, &ns, &ne))
		return -1;
	return tb_mremap(c->b, pid, os, oe, ns, ne);
}

static int cmd_madvise(struct cmd *c)
{
	static const char *const names[] = {
		"dontneed", "remove", "cold", "pageout", "free", "mlock",
		"munlock", "sequential", "normal", "random",
	};
	uint64_t s, e;
	int64_t pid;

	if (arg_pid(c, 1, &pid) || arg_range(c, 2, &s, &e))
		return -1;
	for (unsigned int i = 0; c->argc > 4 &&
	     i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(c->argv[4], names[i]))
			return tb_madvise(c->b, pid, s, e, (enum t_advice)i);
	return bad(c, "expected dontneed, remove, cold, pageout, free, mlock, "
		   "munlock, sequential, normal or random");
}

/* r|w PID ADDR [LEN] */
static int cmd_access(struct cmd *c, unsigned int line)
{
	bool write = c->argv[0][0] == 'w';
	uint64_t addr, len = 1, s, e;
	int64_t pid;

	if (arg_pid(c, 1, &pid) || arg_u64(c, 2, "address", &addr))
		return -1;
	if (c->argc > 3 && arg_size(c, 3, "length", &len))
		return -1;
	if (c->argc > 4)
		return bad(c, "too many words");
	if (addr >= (UINT64_C(1) << 48) || !len || len > (UINT64_C(1) << 40))
		return bad(c, "bad range");
	s = addr >> PAGE_SHIFT;
	e = (addr + len + (1 << PAGE_SHIFT) - 1) >> PAGE_SHIFT;
	for (uint64_t pg = s; pg < e; pg++)
		if (tb_access(c->b, pid, pg, write, line))
			return -1;
	return 0;
}

/* read|write INO OFFSET [LEN] [pid=PID] */
static int cmd_fd(struct cmd *c)
{
	bool write = !strcmp(c->argv[0], "write");
	uint64_t off, len = 4096, pid = 0;
	int64_t who = -1;
	uint32_t inode;
	int i = 3;

	if (arg_file(c, 1, &inode) || arg_size(c, 2, "offset", &off))
		return -1;
	if (c->argc > 3 && !strchr(c->argv[3], '=')) {
		if (arg_size(c, 3, "length", &len))
			return -1;
		i = 4;
	}
	for (; i < c->argc; i++) {
		const char *v = opt(c, i, "pid");

		if (!v || pgr_parse_u64(v, &pid) || pid > INT32_MAX)
			return bad(c, "unexpected '%s' (pid=PID)", c->argv[i]);
		who = (int64_t)pid;
	}
	if (!len || off + len < off || off + len > (UINT64_C(1) << 43))
		return bad(c, "bad range");
	/* A write covering whole pages needs no read first (__GFP_WRITE). */
	return tb_fd(c->b, inode, off >> PAGE_SHIFT,
		     (off + len + 4095) >> PAGE_SHIFT, write,
		     write && !(off & 4095) && !(len & 4095), who);
}

/* file INO SIZE [group=NAME] */
static int cmd_file(struct cmd *c)
{
	uint64_t ino, size;
	uint32_t group = T_NONE;

	if (arg_u64(c, 1, "inode number", &ino) ||
	    arg_size(c, 2, "size", &size))
		return -1;
	if (size > (UINT64_C(1) << 43))
		return bad(c, "file too large");
	for (int i = 3; i < c->argc; i++)
		if (opt_group(c, i, &group))
			return -1;
	return tb_file(c->b, ino, (size + 4095) >> PAGE_SHIFT, group);
}

static int cmd_truncate(struct cmd *c)
{
	uint32_t inode;
	uint64_t size;

	if (arg_file(c, 1, &inode) || arg_size(c, 2, "size", &size))
		return -1;
	if (size > (UINT64_C(1) << 43))
		return bad(c, "file too large");
	return tb_truncate(c->b, inode, (size + 4095) >> PAGE_SHIFT);
}

/* group NAME [parent=NAME] [memory.min=SIZE] [memory.low=..] [memory.max=..] */
static int cmd_group(struct cmd *c)
{
	static const char *const keys[3] = { "memory.min", "memory.low",
					     "memory.max" };
	struct t_group g = { .parent = T_NONE };

	if (c->argc < 2 || strlen(c->argv[1]) >= sizeof(g.name))
		return bad(c, "missing or too long group name");
	if (strspn(c->argv[1], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		   "0123456789_.-") != strlen(c->argv[1]))
		return bad(c, "group names are letters, digits, '_', '.', '-'");
	strcpy(g.name, c->argv[1]);
	for (int i = 2; i < c->argc; i++) {
		const char *v = opt(c, i, "parent");
		uint64_t bytes;
		int k;

		if (v) {
			g.parent = tb_group_find(c->b, v);
			if (g.parent == T_NONE)
				return bad(c, "unknown parent '%s'", v);
			continue;
		}
		for (k = 0; k < 3; k++)
			if ((v = opt(c, i, keys[k])))
				break;
		if (k == 3)
			return bad(c, "unexpected '%s'", c->argv[i]);
		if ((strcmp(v, "max") && pgr_parse_size(v, &bytes)) ||
		    strlen(v) >= sizeof(g.limits[k]))
			return bad(c, "bad size '%s'", v);
		strcpy(g.limits[k], v);
	}
	return tb_group(c->b, &g);
}

/* proc PID [group=NAME] */
static int cmd_proc(struct cmd *c)
{
	uint32_t group = T_NONE;
	int64_t pid;

	if (arg_pid(c, 1, &pid))
		return -1;
	for (int i = 2; i < c->argc; i++)
		if (opt_group(c, i, &group))
			return -1;
	return tb_proc(c->b, pid, group);
}

static int cmd_fork(struct cmd *c)
{
	int64_t parent, child;

	if (arg_pid(c, 1, &parent) || arg_pid(c, 2, &child))
		return -1;
	return tb_fork(c->b, parent, child);
}

static int cmd_exit(struct cmd *c)
{
	int64_t pid = 0;	/* set by arg_pid; gcc cannot see it */

	if (arg_pid(c, 1, &pid))
		return -1;
	return tb_exit(c->b, pid);
}

static int cmd_phase(struct cmd *c)
{
	if (c->argc != 2)
		return bad(c, "expected one name");
	return tb_string(c->b, EV_PHASE, c->argv[1]);
}

static int cmd_set(struct cmd *c)
{
	if (c->argc != 2 || !strchr(c->argv[1], '='))
		return bad(c, "expected KEY=VALUE");
	return tb_string(c->b, EV_SET, c->argv[1]);
}

/* lru_gen + MEMCG NODE SEQ [...] | lru_gen - MEMCG NODE SEQ [...]: the
 * debugfs commands (docs/trace.md) */
static int cmd_lru_gen(struct cmd *c)
{
	char text[256];
	size_t n = 0;

	if (c->argc < 5)
		return bad(c, "expected '+ memcg_id node_id max_gen_nr ...' or "
			   "'- memcg_id node_id min_gen_nr ...'");
	for (int i = 1; i < c->argc; i++) {
		size_t k = strlen(c->argv[i]);

		if (n + k + 2 > sizeof(text))
			return bad(c, "too long");
		memcpy(text + n, c->argv[i], k);
		n += k;
		text[n++] = i + 1 < c->argc ? ' ' : 0;
	}
	return tb_string(c->b, EV_LRU_GEN, text);
}

static uint32_t group_or_root(struct cmd *c, const char *name, int *err)
{
	uint32_t g = tb_group_find(c->b, name);

	*err = g == T_NONE && strcmp(name, "root") ?
	       bad(c, "unknown group '%s'", name) : 0;
	return g;
}

/* reclaim kswapd | direct | group G [PAGES] | list G LRU PAGES |
 * inodes G [PRIORITY] | lruvec G PRIORITY */
static int cmd_reclaim(struct cmd *c)
{
	static const char *const lrus[] = { "inactive_anon", "active_anon",
					    "inactive_file", "active_file" };
	const char *kind = c->argc > 1 ? c->argv[1] : "";
	uint64_t nr = 32, lru;
	uint32_t group;
	int err;

	if (!strcmp(kind, "kswapd") || !strcmp(kind, "direct"))
		return tb_reclaim(c->b, kind[0] == 'k' ? RC_KSWAPD : RC_DIRECT,
				  T_NONE, 0, 0);
	if (c->argc < 3)
		return bad(c, "expected kswapd, direct, group G, list G LRU N, "
			   "inodes G or lruvec G PRIORITY");
	group = group_or_root(c, c->argv[2], &err);
	if (err)
		return -1;
	if (!strcmp(kind, "group")) {
		if (c->argc > 3 && arg_u64(c, 3, "pages", &nr))
			return -1;
		if (nr > UINT32_MAX)
			return bad(c, "too many pages");
		return tb_reclaim(c->b, RC_GROUP, group, 0, (uint32_t)nr);
	}
	if (!strcmp(kind, "inodes")) {
		nr = 0;
		if (c->argc > 3 && arg_u64(c, 3, "priority", &nr))
			return -1;
		if (nr > 12)
			return bad(c, "priority is 0..12");
		return tb_reclaim(c->b, RC_INODES, group, 0, (uint32_t)nr);
	}
	if (!strcmp(kind, "lruvec")) {
		if (c->argc != 4 || arg_u64(c, 3, "priority", &nr))
			return c->argc != 4 ? bad(c, "expected lruvec G PRIORITY") : -1;
		if (nr > 12)
			return bad(c, "priority is 0..12");
		return tb_reclaim(c->b, RC_LRUVEC, group, 0, (uint32_t)nr);
	}
	if (strcmp(kind, "list") || c->argc != 5)
		return bad(c, "expected kswapd, direct, group G, list G LRU N, "
			   "inodes G or lruvec G PRIORITY");
	for (lru = 0; lru < 4; lru++)
		if (!strcmp(c->argv[3], lrus[lru]))
			break;
	if (lru == 4)
		return bad(c, "unknown list '%s'", c->argv[3]);
	if (arg_u64(c, 4, "pages", &nr))
		return -1;
	if (nr > UINT32_MAX)
		return bad(c, "too many pages");
	return tb_reclaim(c->b, RC_LIST, group, (uint32_t)lru, (uint32_t)nr);
}

static int parse_cmp(const char *s, enum t_cmp *cmp)
{
	static const char *const ops[] = { "=", "!=", "<", "<=", ">", ">=" };

	for (int i = 0; i < 6; i++) {
		if (!strcmp(s, ops[i])) {
			*cmp = (enum t_cmp)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *const t_state_names[T_NR_STATES] = {
	"absent", "resident", "active", "inactive", "referenced",
	"unreferenced", "swapped", "shadow", "workingset", "dirty",
	"unevictable", "mapped", "unmapped", "max_seq", "max_seq-1", "min_seq",
};

static int parse_states(struct cmd *c, int from, uint32_t *mask)
{
	*mask = 0;
	for (int i = from; i < c->argc; i++) {
		unsigned int k;

		for (k = 0; k < T_NR_STATES; k++)
			if (!strcmp(c->argv[i], t_state_names[k]))
				break;
		if (k == T_NR_STATES)
			return bad(c, "unknown page state '%s'", c->argv[i]);
		*mask |= 1u << k;
	}
	if (!*mask)
		return bad(c, "missing page state");
	return 0;
}

/* expect COUNTER[@GROUP] OP VALUE | expect page PID ADDR STATE... |
 * expect file INO OFFSET STATE... */
static int cmd_expect(struct cmd *c)
{
	struct t_expect x = { .group = T_NONE };
	uint64_t addr = 0, off;
	int64_t pid = 0;
	char *at;
	int err;

	if (c->argc < 2)
		return bad(c, "missing what to expect");
	if (!strcmp(c->argv[1], "page")) {
		x.page = true;
		if (arg_pid(c, 2, &pid) || arg_u64(c, 3, "address", &addr) ||
		    parse_states(c, 4, &x.states))
			return -1;
		return tb_expect(c->b, &x, pid, addr >> PAGE_SHIFT);
	}
	if (!strcmp(c->argv[1], "file")) {
		x.page = x.file = true;
		if (arg_file(c, 2, &x.obj) || arg_size(c, 3, "offset", &off) ||
		    parse_states(c, 4, &x.states))
			return -1;
		x.off = (uint32_t)(off >> PAGE_SHIFT);
		return tb_expect(c->b, &x, 0, 0);
	}
	if (c->argc != 4 || strlen(c->argv[1]) >= sizeof(x.counter))
		return bad(c, "expected: expect COUNTER[@GROUP] OP VALUE");
	strcpy(x.counter, c->argv[1]);
	at = strchr(x.counter, '@');
	if (at) {
		*at = 0;
		x.group = group_or_root(c, at + 1, &err);
		if (err)
			return -1;
	}
	if (parse_cmp(c->argv[2], &x.cmp))
		return bad(c, "bad comparison '%s' (=, !=, <, <=, >, >=)",
			   c->argv[2]);
	if (arg_u64(c, 3, "value", &x.value))
		return -1;
	return tb_expect(c->b, &x, 0, 0);
}

static int tokenize(char *s, char **argv)
{
	int argc = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (!*s || *s == '#')
			return argc;
		if (argc == MAX_TOKENS)
			return -1;
		argv[argc++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r' &&
		       *s != '\n')
			s++;
		if (*s)
			*s++ = 0;
	}
}

int tb_text_line(struct tb *b, char *text, unsigned int line)
{
	static const struct {
		const char *name;
		int (*fn)(struct cmd *c);
	} cmds[] = {
		{ "mmap", cmd_mmap }, { "munmap", cmd_munmap },
		{ "mremap", cmd_mremap }, { "madvise", cmd_madvise },
		{ "read", cmd_fd }, { "write", cmd_fd },
		{ "file", cmd_file }, { "truncate", cmd_truncate },
		{ "group", cmd_group }, { "proc", cmd_proc },
		{ "fork", cmd_fork }, { "exit", cmd_exit },
		{ "phase", cmd_phase }, { "set", cmd_set },
		{ "reclaim", cmd_reclaim }, { "expect", cmd_expect },
		{ "lru_gen", cmd_lru_gen },
	};
	char *argv[MAX_TOKENS];
	struct cmd c = { b, 0, argv };

	tb_line(b, line);
	c.argc = tokenize(text, argv);
	if (c.argc < 0)
		return tb_error(b, line, "too many words");
	if (c.argc == 0)
		return 0;
	if ((argv[0][0] == 'r' || argv[0][0] == 'w') && !argv[0][1])
		return cmd_access(&c, line);
	if (!strcmp(argv[0], "pager-trace")) {
		if (c.argc != 2 || strcmp(argv[1], "1"))
			return tb_error(b, line, "unsupported trace version");
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[0], cmds[i].name))
			return cmds[i].fn(&c);
	return tb_error(b, line, "unknown command '%.40s'", argv[0]);
}
